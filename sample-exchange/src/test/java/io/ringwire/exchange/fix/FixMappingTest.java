package io.ringwire.exchange.fix;

import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.exchange.book.RejectReports;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;
import quickfix.Message;
import quickfix.field.MsgType;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The door's mapping, FIX to SBE and back, over plain buffers and QuickFIX/J message objects: no
 * sockets, no gateway.
 */
class FixMappingTest
{
    private static final long ACCOUNT = 700;
    private static final long SENT_NS = 1_764_000_000_123_456_789L;
    private static final FixExecIds EXEC_IDS = new FixExecIds(1_764_000_000_000L);

    private final FixInbound inbound = new FixInbound();
    private final FixOrders orders = new FixOrders(1, 1 << 20);
    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();

    private static Message fix(final String type, final String... tagValues)
    {
        final Message message = new Message();
        message.getHeader().setString(MsgType.FIELD, type);
        for (int i = 0; i < tagValues.length; i += 2)
        {
            message.setString(Integer.parseInt(tagValues[i]), tagValues[i + 1]);
        }
        return message;
    }

    private NewOrderDecoder newOrder(final Message message) throws Exception
    {
        final int length = inbound.newOrder(message, orders, ACCOUNT, SENT_NS, buffer);
        assertTrue(length > 0, () -> "refused: " + inbound.rejectText());
        header.wrap(buffer, 0);
        assertEquals(NewOrderDecoder.TEMPLATE_ID, header.templateId());
        return new NewOrderDecoder().wrap(buffer, MessageHeaderEncoder.ENCODED_LENGTH, header.blockLength(),
            header.version());
    }

    @Test
    void aLimitOrderCarriesEveryTermAndTheSessionsAccount() throws Exception
    {
        final NewOrderDecoder order = newOrder(fix("D", "11", "abc", "55", "1", "54", "2", "40", "2", "44", "1005.00",
            "38", "30", "59", "1", "111", "10", "7928", "O"));
        assertEquals(1, order.clientOrderId(), "the first ClOrdID gets number 1");
        assertEquals(ACCOUNT, order.account());
        assertEquals(1, order.instrumentId());
        assertEquals(Side.SELL, order.side());
        assertEquals(OrdType.LIMIT, order.ordType());
        assertEquals(TimeInForce.GTC, order.timeInForce());
        assertEquals(1005, order.price());
        assertEquals(30, order.quantity());
        assertEquals(10, order.displayQuantity(), "MaxFloor: an iceberg's shown quantity");
        assertEquals(SelfTradePrevention.CANCEL_RESTING, order.selfTradePrevention());
        assertEquals(BooleanType.FALSE, order.postOnly());
        assertEquals(SENT_NS, order.sendingTime());
        assertEquals("abc", orders.clOrdId(1));
    }

    @Test
    void marketOrdersTimeInForceAndPostOnlyMapAsDocumented() throws Exception
    {
        final NewOrderDecoder market = newOrder(fix("D", "11", "m", "55", "2", "54", "1", "40", "1", "38", "5", "59", "3"));
        assertEquals(OrdType.MARKET, market.ordType());
        assertEquals(0, market.price());
        assertEquals(TimeInForce.IOC, market.timeInForce());
        assertEquals(TimeInForce.DAY, newOrder(fix("D", "11", "d", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1"))
            .timeInForce(), "no TimeInForce is Day");
        assertEquals(TimeInForce.IOC, newOrder(fix("D", "11", "mi", "55", "2", "54", "1", "40", "1", "38", "5"))
            .timeInForce(), "a market order without TimeInForce cannot rest: IOC");
        assertEquals(TimeInForce.FOK, newOrder(fix("D", "11", "f", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1",
            "59", "4")).timeInForce());
        assertEquals(BooleanType.TRUE, newOrder(fix("D", "11", "p", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1",
            "18", "6")).postOnly());
        for (final String[] stp : new String[][]{ { "N", "CANCEL_AGGRESSING" }, { "B", "CANCEL_BOTH" },
            { "D", "DECREMENT_AND_CANCEL" } })
        {
            assertEquals(SelfTradePrevention.valueOf(stp[1]), newOrder(fix("D", "11", "s" + stp[0], "55", "1", "54", "1",
                "40", "2", "44", "9", "38", "1", "7928", stp[0])).selfTradePrevention());
        }
    }

    @Test
    void whatTheExchangeCannotTakeIsRefusedWithTheFixReason() throws Exception
    {
        final String[][] cases = {
            { "11", "x", "55", "AAPL", "54", "1", "40", "2", "44", "9", "38", "1", "1" },
            { "11", "x", "55", "1", "54", "1", "40", "2", "44", "9.5", "38", "1", "99" },
            { "11", "x", "55", "1", "54", "1", "40", "2", "38", "1", "99" },
            { "11", "x", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1.5", "13" },
            { "11", "x", "55", "1", "54", "1", "40", "2", "44", "9", "38", "0", "13" },
            { "11", "x", "55", "1", "54", "7", "40", "2", "44", "9", "38", "1", "11" },
            { "11", "x", "55", "1", "54", "1", "40", "3", "44", "9", "38", "1", "11" },
            { "11", "x", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1", "59", "6", "11" },
            { "11", "x", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1", "18", "6G", "11" },
            { "11", "x", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1", "7928", "Z", "11" },
            { "11", "x", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1", "1", "ACC", "15" },
        };
        for (final String[] row : cases)
        {
            final String[] tags = java.util.Arrays.copyOf(row, row.length - 1);
            assertEquals(FixInbound.REFUSED, inbound.newOrder(fix("D", tags), orders, ACCOUNT, SENT_NS, buffer),
                String.join(",", tags));
            assertEquals(Integer.parseInt(row[row.length - 1]), inbound.rejectCode(), String.join(",", tags));
            assertFalse(inbound.rejectText().isEmpty());
        }
        assertEquals(0, orders.existingId("x"), "a refused ClOrdID is not taken");
    }

    @Test
    void aClOrdIdUsedAgainIsRefusedAsWhatTheNewRequestIsUnlessItsRequestWasRejected() throws Exception
    {
        final long first = newOrder(fix("D", "11", "same", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1"))
            .clientOrderId();
        assertEquals(FixInbound.REFUSED, inbound.newOrder(fix("D", "11", "same", "55", "1", "54", "1", "40", "2", "44",
            "9", "38", "1"), orders, ACCOUNT, SENT_NS, buffer));
        assertEquals(FixRejectCodes.DUPLICATE_ORDER, inbound.rejectCode(), inbound.rejectText());
        // A cancel that reuses the order's ClOrdID is refused as a cancel: CxlRejReason 6.
        assertEquals(FixInbound.REFUSED, inbound.cancel(fix("F", "11", "same", "41", "same", "55", "1", "54", "1"),
            orders, ACCOUNT, SENT_NS, buffer));
        assertEquals(FixRejectCodes.CXL_DUPLICATE_CLORDID, inbound.rejectCode(), inbound.rejectText());
        assertEquals(FixOrders.Kind.ORDER, orders.kind(first), "the order keeps what it was");
        assertEquals(first + 1, newOrder(fix("D", "11", "other", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1"))
            .clientOrderId());

        // Rejected by the exchange: the ClOrdID is free again, under a new number.
        orders.forget(first);
        assertEquals(first + 2, newOrder(fix("D", "11", "same", "55", "1", "54", "1", "40", "2", "44", "9", "38", "1"))
            .clientOrderId());
        assertEquals(0, orders.existingId("never"));
    }

    @Test
    void aSessionHasAsManyClOrdIdsAsItsCapacityAndARejectedOneGivesItsPlaceBack() throws Exception
    {
        final FixOrders small = new FixOrders(FixOrders.firstIdAt(1_764_000_000_000L), 2);
        final long a = small.idFor("a", FixOrders.Kind.ORDER, 0);
        final long b = small.idFor("b", FixOrders.Kind.CANCEL, a);
        assertEquals(a + 1, b);
        assertEquals(FixOrders.FULL, small.idFor("c", FixOrders.Kind.ORDER, 0));
        assertEquals(FixInbound.REFUSED, inbound.newOrder(fix("D", "11", "c", "55", "1", "54", "1", "40", "2", "44", "9",
            "38", "1"), small, ACCOUNT, SENT_NS, buffer));
        assertEquals(FixRejectCodes.OTHER, inbound.rejectCode());
        assertTrue(inbound.rejectText().contains("used its 2 ClOrdIDs"), inbound.rejectText());
        assertEquals("a", small.originalClOrdId(b));
        small.forget(a);
        assertEquals("a", small.originalClOrdId(b), "a cancel keeps its order's ClOrdID, forgotten or not");
        small.forget(b);
        assertEquals(0, small.takeCancel(a), "the rejected cancel no longer stands for its order");
        assertEquals(b + 1, small.idFor("c", FixOrders.Kind.ORDER, 0));
    }

    @Test
    void aSessionPastItsClOrdIdsStillCancelsItsOrdersAndKeepsThoseCancelsOnlyUntilAnswered() throws Exception
    {
        final FixOrders full = new FixOrders(1, 1);
        final long order = full.idFor("o", FixOrders.Kind.ORDER, 0);
        assertEquals(FixOrders.FULL, full.idFor("o2", FixOrders.Kind.ORDER, 0));
        assertEquals(FixOrders.FULL, full.idFor("r", FixOrders.Kind.REPLACE, order), "a replace is an order's id");

        assertTrue(inbound.cancel(fix("F", "11", "c", "41", "o", "55", "1", "54", "1"), full, ACCOUNT, SENT_NS,
            buffer) > 0, () -> "refused: " + inbound.rejectText());
        final long cancel = inbound.clientOrderId();
        final Message canceled = FixOutbound.report(report(order, ExecType.CANCELED, OrdStatus.CANCELED,
            RejectReason.CLIENT_CANCEL, 0, 0, 0, 0), full, EXEC_IDS);
        assertEquals("c", canceled.getString(11), "the cancel's report carries its ClOrdID");
        assertNull(full.clOrdId(cancel), "answered, the cancel is not kept");

        assertTrue(inbound.massCancel(fix("q", "11", "m", "530", "7"), full, ACCOUNT, SENT_NS, buffer) > 0,
            () -> "refused: " + inbound.rejectText());
        final long mass = inbound.clientOrderId();
        // Answered as accepted once forwarded; the journal's refusal after that is answered as the
        // mass cancel's too.
        final Message refused = FixOutbound.report(report(mass, ExecType.REJECTED, OrdStatus.REJECTED,
            RejectReason.JOURNAL_REFUSED, 0, 0, 0, 0), full, EXEC_IDS);
        assertEquals("r", refused.getHeader().getString(MsgType.FIELD));
        assertEquals("m", refused.getString(11));
        assertEquals('0', refused.getChar(531), "rejected");

        // Kept however many follow until the gateway forwards it, then among the last ones forwarded.
        final long first = full.idFor("m0", FixOrders.Kind.MASS_CANCEL, 0);
        final long[] later = new long[FixOrders.UNBUDGETED_MASS_CANCELS];
        for (int i = 0; i < later.length; i++)
        {
            later[i] = full.idFor("m" + (i + 1), FixOrders.Kind.MASS_CANCEL, 0);
        }
        assertEquals(FixOrders.Kind.MASS_CANCEL, full.kind(first), "not forwarded yet");
        full.massCancelForwarded(first);
        for (final long id : later)
        {
            assertEquals(FixOrders.Kind.MASS_CANCEL, full.kind(first), "kept among the last ones forwarded");
            full.massCancelForwarded(id);
        }
        assertNull(full.kind(first), "the oldest forwarded goes: bounded");
        assertEquals(FixOrders.Kind.MASS_CANCEL, full.kind(later[0]));

        // One whose forwarding the door never hears is kept among the last ones sent, not for ever.
        final long unheard = full.idFor("u0", FixOrders.Kind.MASS_CANCEL, 0);
        for (int i = 1; i <= FixOrders.UNBUDGETED_MASS_CANCELS_PENDING; i++)
        {
            assertEquals(FixOrders.Kind.MASS_CANCEL, full.kind(unheard), "kept among the last ones sent");
            full.idFor("u" + i, FixOrders.Kind.MASS_CANCEL, 0);
        }
        assertNull(full.kind(unheard), "the oldest unforwarded goes: bounded");
        full.answered(order);
        assertEquals("o", full.clOrdId(order), "what counts against the session's ClOrdIDs stays");
    }

    @Test
    void aClOrdIdLongerThanTheDoorKeepsIsRefusedAndNotKept() throws Exception
    {
        final String longest = "x".repeat(FixOrders.MAX_CLORDID_LENGTH);
        final String tooLong = longest + "y";
        assertEquals(FixInbound.REFUSED, inbound.newOrder(fix("D", "11", tooLong, "55", "1", "54", "1", "40", "2", "44",
            "9", "38", "1"), orders, ACCOUNT, SENT_NS, buffer));
        assertEquals(FixRejectCodes.OTHER, inbound.rejectCode());
        assertEquals("ClOrdID (11) is longer than 64 characters", inbound.rejectText());
        assertEquals(0, orders.existingId(tooLong));

        newOrder(fix("D", "11", longest, "55", "1", "54", "1", "40", "2", "44", "9", "38", "1"));
        assertEquals(FixInbound.REFUSED, inbound.cancel(fix("F", "11", tooLong, "41", longest, "55", "1", "54", "1"),
            orders, ACCOUNT, SENT_NS, buffer));
        assertEquals(FixRejectCodes.OTHER, inbound.rejectCode());
        assertEquals(FixInbound.REFUSED, inbound.massCancel(fix("q", "11", tooLong, "530", "7"), orders, ACCOUNT,
            SENT_NS, buffer));
    }

    @Test
    void aRestartedDoorNumbersFromAboveEveryNumberAnEarlierDoorGave()
    {
        final long startedMs = 1_764_000_000_000L;
        final long earlierLastId = FixOrders.firstIdAt(startedMs) + (1L << 20) * 60_000 - 1; // 2^20 a ms for a minute
        assertTrue(FixOrders.firstIdAt(startedMs + 60_000) > earlierLastId);
        assertTrue(FixOrders.firstIdAt(startedMs + 60_000) > 0, "positive for centuries: " +
            FixOrders.firstIdAt(startedMs + 60_000));
    }

    @Test
    void cancelReplaceAndMassCancelNameTheirOrders() throws Exception
    {
        final long order = newOrder(fix("D", "11", "o1", "55", "3", "54", "1", "40", "2", "44", "9", "38", "4"))
            .clientOrderId();

        assertTrue(inbound.cancel(fix("F", "11", "c1", "41", "o1", "55", "3", "54", "1"), orders, ACCOUNT, SENT_NS,
            buffer) > 0);
        header.wrap(buffer, 0);
        final CancelOrderDecoder cancel = new CancelOrderDecoder().wrap(buffer, MessageHeaderEncoder.ENCODED_LENGTH,
            header.blockLength(), header.version());
        assertEquals(order, cancel.origClientOrderId());
        assertEquals(3, cancel.instrumentId());
        assertEquals(FixOrders.Kind.CANCEL, orders.kind(cancel.clientOrderId()));

        assertTrue(inbound.replace(fix("G", "11", "r1", "41", "o1", "55", "3", "54", "1", "40", "2", "44", "11", "38", "6"),
            orders, ACCOUNT, SENT_NS, buffer) > 0);
        header.wrap(buffer, 0);
        final ReplaceOrderDecoder replace = new ReplaceOrderDecoder().wrap(buffer, MessageHeaderEncoder.ENCODED_LENGTH,
            header.blockLength(), header.version());
        assertEquals(order, replace.origClientOrderId());
        assertEquals(11, replace.price());
        assertEquals(6, replace.quantity());
        assertEquals(order, orders.originalId(replace.clientOrderId()));

        assertEquals(FixInbound.REFUSED, inbound.cancel(fix("F", "11", "c2", "41", "never", "55", "3", "54", "1"), orders,
            ACCOUNT, SENT_NS, buffer));
        assertEquals(FixRejectCodes.CXL_UNKNOWN_ORDER, inbound.rejectCode());
        assertTrue(inbound.rejectText().contains("since the door started"),
            "a member whose ClOrdID predates a restart is told why: " + inbound.rejectText());

        assertTrue(inbound.massCancel(fix("q", "11", "mc", "530", "1", "55", "3"), orders, ACCOUNT, SENT_NS, buffer) > 0);
        header.wrap(buffer, 0);
        final MassCancelDecoder mass = new MassCancelDecoder().wrap(buffer, MessageHeaderEncoder.ENCODED_LENGTH,
            header.blockLength(), header.version());
        assertEquals(3, mass.instrumentId());
        assertEquals(ACCOUNT, mass.account());
        assertTrue(inbound.massCancel(fix("q", "11", "mc2", "530", "7"), orders, ACCOUNT, SENT_NS, buffer) > 0);
        assertEquals(FixInbound.REFUSED, inbound.massCancel(fix("q", "11", "mc3", "530", "3"), orders, ACCOUNT, SENT_NS,
            buffer), "by product: not supported");
    }

    @Test
    void aReplaceThatChangesMoreThanPriceAndQuantityIsRefusedNotTakenWithTheOrdersOldTerms() throws Exception
    {
        newOrder(fix("D", "11", "o1", "55", "3", "54", "1", "40", "2", "44", "9", "38", "40", "59", "1", "111", "10",
            "18", "6", "7928", "O"));
        final String[][] changes = {
            { "59", "0", "TimeInForce (59)" }, { "111", "5", "MaxFloor (111)" }, { "18", "0", "ExecInst (18)" },
            { "7928", "N", "tag 7928" } };
        int n = 0;
        for (final String[] change : changes)
        {
            assertEquals(FixInbound.REFUSED, inbound.replace(fix("G", "11", "r" + n++, "41", "o1", "55", "3", "54", "1",
                "40", "2", "44", "11", "38", "40", change[0], change[1]), orders, ACCOUNT, SENT_NS, buffer), change[2]);
            assertEquals(FixRejectCodes.CXL_EXCHANGE_OPTION, inbound.rejectCode(), change[2]);
            assertTrue(inbound.rejectText().contains(change[2]), inbound.rejectText());
        }

        final Message sameTerms = fix("G", "11", "r-same", "41", "o1", "55", "3", "54", "1", "40", "2", "44", "11", "38",
            "40", "59", "1", "111", "10", "18", "6", "7928", "O");
        assertTrue(inbound.replace(sameTerms, orders, ACCOUNT, SENT_NS, buffer) > 0, "the order's own terms repeated");
        final long replaced = inbound.clientOrderId();
        assertTrue(inbound.replace(fix("G", "11", "r-again", "41", "r-same", "55", "3", "54", "1", "40", "2", "44", "12",
            "38", "40"), orders, ACCOUNT, SENT_NS, buffer) > 0, "terms left out keep the order's");
        assertEquals(FixInbound.REFUSED, inbound.replace(fix("G", "11", "r-ioc", "41", "r-same", "55", "3", "54", "1",
            "40", "2", "44", "12", "38", "40", "59", "3"), orders, ACCOUNT, SENT_NS, buffer),
            "a replaced order keeps the terms it was sent with: " + orders.terms(replaced));
        assertTrue(inbound.rejectText().contains("TimeInForce (59)"), inbound.rejectText());

        newOrder(fix("D", "11", "plain", "55", "3", "54", "2", "40", "2", "44", "9", "38", "4"));
        assertTrue(inbound.replace(fix("G", "11", "r-plain", "41", "plain", "55", "3", "54", "2", "40", "2", "44", "10",
            "38", "4", "59", "0", "111", "0", "7928", "O"), orders, ACCOUNT, SENT_NS, buffer) > 0,
            "an order sent without TimeInForce, MaxFloor or 7928 is a day order showing all that cancels the " +
                "resting order of a self-trade: " + inbound.rejectText());
        assertEquals(FixInbound.REFUSED, inbound.replace(fix("G", "11", "r-post", "41", "plain", "55", "3", "54", "2",
            "40", "2", "44", "10", "38", "4", "18", "6"), orders, ACCOUNT, SENT_NS, buffer), "post-only added");
    }

    private ExecutionReportDecoder report(final long clientOrderId, final ExecType execType, final OrdStatus status,
        final RejectReason reason, final long lastPrice, final long lastQuantity, final long leaves, final long cum)
    {
        return report(clientOrderId, 5, execType, status, reason, lastPrice, lastQuantity, leaves, cum);
    }

    private ExecutionReportDecoder report(final long clientOrderId, final long execId, final ExecType execType,
        final OrdStatus status, final RejectReason reason, final long lastPrice, final long lastQuantity,
        final long leaves, final long cum)
    {
        final ExecutionReportEncoder encoder = new ExecutionReportEncoder().wrapAndApplyHeader(buffer, 0,
            new MessageHeaderEncoder());
        encoder.exchangeOrderId(77).clientOrderId(clientOrderId).execId(execId).account(ACCOUNT).instrumentId(1)
            .execType(execType).ordStatus(status).side(Side.BUY).rejectReason(reason).lastPrice(lastPrice)
            .lastQuantity(lastQuantity).leavesQuantity(leaves).cumulativeQuantity(cum).transactTime(SENT_NS)
            .price(1000).orderQuantity(leaves + cum).ordType(OrdType.LIMIT).timeInForce(TimeInForce.DAY)
            .engineSequence(1);
        return new ExecutionReportDecoder().wrap(buffer, MessageHeaderEncoder.ENCODED_LENGTH,
            ExecutionReportEncoder.BLOCK_LENGTH, ExecutionReportEncoder.SCHEMA_VERSION);
    }

    @Test
    void anOrdersRejectCarriesTheTermsTheReportNamesAndTermsNoEnumHasDoNotStopIt() throws Exception
    {
        final long id = newOrder(fix("D", "11", "m", "55", "1", "54", "2", "40", "1", "59", "4", "38", "10"))
            .clientOrderId();
        final Message rejected = FixOutbound.report(rejectWithTerms(id, RejectReason.JOURNAL_REFUSED, Side.SELL.value(),
            OrdType.MARKET.value(), TimeInForce.FOK.value()), orders, EXEC_IDS);
        assertEquals('8', rejected.getChar(150));
        assertEquals('2', rejected.getChar(54), "Side");
        assertEquals('1', rejected.getChar(40), "OrdType MARKET");
        assertEquals('4', rejected.getChar(59), "TimeInForce FOK");
        assertFalse(rejected.isSetField(44), "a market order's report carries no Price (44)");

        final long other = newOrder(fix("D", "11", "n", "55", "1", "54", "1", "40", "2", "44", "1000", "38", "10"))
            .clientOrderId();
        final Message unknown = FixOutbound.report(rejectWithTerms(other, RejectReason.MALFORMED_MESSAGE, (short)9,
            (short)9, (short)9), orders, EXEC_IDS);
        assertEquals("n", unknown.getString(11));
        assertEquals('2', unknown.getChar(40), "LIMIT for an order type no enum has");
        assertEquals('0', unknown.getChar(59), "DAY for a time in force no enum has");
        assertEquals(1000, unknown.getInt(44), "a limit order's report carries its Price (44)");
    }

    /** A reject of the order whose side, order type and time in force are the raw values given. */
    private ExecutionReportDecoder rejectWithTerms(final long clientOrderId, final RejectReason reason,
        final short side, final short ordType, final short timeInForce)
    {
        final ExecutionReportDecoder report = report(clientOrderId, ExecType.REJECTED, OrdStatus.REJECTED, reason, 0, 0,
            0, 0);
        RejectReports.terms(buffer, side, ordType, timeInForce);
        return report;
    }

    @Test
    void aReportWhoseTypeReasonOrStatusTheSchemaDoesNotListStillReachesTheMember() throws Exception
    {
        final long id = newOrder(fix("D", "11", "o", "55", "1", "54", "1", "40", "2", "44", "1000", "38", "10"))
            .clientOrderId();
        final ExecutionReportDecoder report = report(id, ExecType.CANCELED, OrdStatus.CANCELED, RejectReason.NONE, 0,
            0, 0, 10);
        final int body = MessageHeaderEncoder.ENCODED_LENGTH;
        buffer.putByte(body + ExecutionReportDecoder.rejectReasonEncodingOffset(), (byte)28); // a newer engine's
        final Message canceled = FixOutbound.report(report, orders, EXEC_IDS);
        assertEquals('4', canceled.getChar(150), "ExecType CANCELED");
        assertEquals("o", canceled.getString(11));

        final long other = newOrder(fix("D", "11", "p", "55", "1", "54", "1", "40", "2", "44", "1000", "38", "10"))
            .clientOrderId();
        final ExecutionReportDecoder acknowledged = report(other, ExecType.NEW, OrdStatus.NEW, RejectReason.NONE, 0, 0,
            10, 0);
        buffer.putByte(body + ExecutionReportDecoder.ordStatusEncodingOffset(), (byte)9); // no OrdStatus of the schema
        final Message acknowledgement = FixOutbound.report(acknowledged, orders, EXEC_IDS);
        assertEquals('0', acknowledgement.getChar(150), "ExecType NEW");
        assertEquals('0', acknowledgement.getChar(39), "OrdStatus NEW for a status no enum has");

        final long third = newOrder(fix("D", "11", "q", "55", "1", "54", "1", "40", "2", "44", "1000", "38", "10"))
            .clientOrderId();
        final ExecutionReportDecoder restated = report(third, ExecType.NEW, OrdStatus.NEW, RejectReason.NONE, 0, 0,
            10, 0);
        buffer.putByte(body + ExecutionReportDecoder.execTypeEncodingOffset(), (byte)3); // no ExecType of the schema
        final Message status = FixOutbound.report(restated, orders, EXEC_IDS);
        assertEquals('I', status.getChar(150), "ExecType ORDER_STATUS for a type no enum has");
        assertEquals("q", status.getString(11));
    }

    @Test
    void reportsCarryExecTypeStatusQuantitiesAndTheAveragePrice() throws Exception
    {
        final long id = newOrder(fix("D", "11", "o", "55", "1", "54", "1", "40", "2", "44", "1000", "38", "10"))
            .clientOrderId();
        final Message first = FixOutbound.report(report(id, ExecType.PARTIAL_FILL, OrdStatus.PARTIALLY_FILLED,
            RejectReason.NONE, 1000, 4, 6, 4), orders, EXEC_IDS);
        assertEquals("8", first.getHeader().getString(MsgType.FIELD));
        assertEquals('F', first.getChar(150));
        assertEquals('1', first.getChar(39));
        assertEquals("o", first.getString(11));
        assertEquals("77", first.getString(37));
        assertEquals(1000, first.getDouble(31), 0);
        assertEquals(4, first.getDouble(32), 0);
        assertEquals(6, first.getDouble(151), 0);
        assertEquals(4, first.getDouble(14), 0);
        final Message second = FixOutbound.report(report(id, ExecType.FILL, OrdStatus.FILLED, RejectReason.NONE, 1003, 6,
            0, 10), orders, EXEC_IDS);
        assertEquals('2', second.getChar(39));
        assertEquals((4 * 1000 + 6 * 1003) / 10.0, second.getDouble(6), 1e-9, "AvgPx over both fills");
    }

    @Test
    void aCancelsReportCarriesTheCancelsClOrdIdAndARefusedCancelIsAnOrderCancelReject() throws Exception
    {
        final long id = newOrder(fix("D", "11", "o", "55", "1", "54", "1", "40", "2", "44", "1000", "38", "10"))
            .clientOrderId();
        assertTrue(inbound.cancel(fix("F", "11", "c", "41", "o", "55", "1", "54", "1"), orders, ACCOUNT, SENT_NS,
            buffer) > 0);
        final long cancelId = inbound.clientOrderId();
        final Message canceled = FixOutbound.report(report(id, ExecType.CANCELED, OrdStatus.CANCELED,
            RejectReason.CLIENT_CANCEL, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals("c", canceled.getString(11));
        assertEquals("o", canceled.getString(41));
        assertEquals('4', canceled.getChar(39));

        final Message refused = FixOutbound.report(report(cancelId, ExecType.REJECTED, OrdStatus.REJECTED,
            RejectReason.UNKNOWN_ORDER, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals("9", refused.getHeader().getString(MsgType.FIELD));
        assertEquals(0, refused.getInt(102), "too late to cancel: the order was canceled");
        assertEquals('4', refused.getChar(39));
        assertEquals('1', refused.getChar(434));

        final long massId = orders.idFor("m", FixOrders.Kind.MASS_CANCEL, 0);
        final Message massRefused = FixOutbound.report(report(massId, ExecType.REJECTED, OrdStatus.REJECTED,
            RejectReason.THROTTLED, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals("r", massRefused.getHeader().getString(MsgType.FIELD));
        assertEquals('0', massRefused.getChar(531), "rejected");
        assertEquals("over the session's message rate", massRefused.getString(58));

        final Message orderRefused = FixOutbound.report(report(orders.idFor("z", FixOrders.Kind.ORDER, 0),
            ExecType.REJECTED, OrdStatus.REJECTED, RejectReason.MAX_NOTIONAL, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals('8', orderRefused.getChar(150));
        assertEquals(3, orderRefused.getInt(103));
    }

    @Test
    void aCancelSentAgainBeforeTheFirstIsAnsweredLeavesTheCanceledReportToTheFirstAndIsRejectedItself()
        throws Exception
    {
        final long[] ids = orderWithTwoCancels();
        final long id = ids[0];
        final long secondId = ids[2];

        final Message canceled = FixOutbound.report(report(id, ExecType.CANCELED, OrdStatus.CANCELED,
            RejectReason.CLIENT_CANCEL, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals("c1", canceled.getString(11), "the first cancel took the order");
        assertEquals("o", canceled.getString(41));

        final Message second = FixOutbound.report(report(secondId, ExecType.REJECTED, OrdStatus.REJECTED,
            RejectReason.UNKNOWN_ORDER, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals("9", second.getHeader().getString(MsgType.FIELD));
        assertEquals("c2", second.getString(11));
        assertEquals("o", second.getString(41));
        assertEquals(0, second.getInt(102), "too late to cancel: the first cancel took it");
    }

    @Test
    void aCancelRefusedBeforeItsOrderIsCanceledLeavesTheCanceledReportToTheCancelSentAfterIt() throws Exception
    {
        final long[] ids = orderWithTwoCancels();
        final long id = ids[0];
        final long firstId = ids[1];

        final Message throttled = FixOutbound.report(report(firstId, ExecType.REJECTED, OrdStatus.REJECTED,
            RejectReason.THROTTLED, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals("9", throttled.getHeader().getString(MsgType.FIELD));
        assertEquals("c1", throttled.getString(11));

        final Message canceled = FixOutbound.report(report(id, ExecType.CANCELED, OrdStatus.CANCELED,
            RejectReason.CLIENT_CANCEL, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals("c2", canceled.getString(11), "the cancel that reached the engine");
        assertEquals("o", canceled.getString(41));
        assertEquals(0, orders.takeCancel(id), "no cancel stays open for a canceled order");
    }

    @Test
    void aCancelRefusedAfterAnEarlierOneWasSentLeavesTheCanceledReportToTheEarlierOne() throws Exception
    {
        final long[] ids = orderWithTwoCancels();
        final long id = ids[0];
        final long secondId = ids[2];

        // The gateway refuses the second (over the rate) while the first is on its way to the engine.
        final Message throttled = FixOutbound.report(report(secondId, ExecType.REJECTED, OrdStatus.REJECTED,
            RejectReason.THROTTLED, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals("c2", throttled.getString(11));

        final Message canceled = FixOutbound.report(report(id, ExecType.CANCELED, OrdStatus.CANCELED,
            RejectReason.CLIENT_CANCEL, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals("c1", canceled.getString(11), "the first cancel took the order");
        assertEquals("o", canceled.getString(41));
    }

    /**
     * Order "o", then cancels "c1" and "c2" of it, neither answered yet.
     *
     * @return the client order ids of the order, the first cancel and the second.
     */
    private long[] orderWithTwoCancels() throws Exception
    {
        final long id = newOrder(fix("D", "11", "o", "55", "1", "54", "1", "40", "2", "44", "1000", "38", "10"))
            .clientOrderId();
        final long[] ids = { id, 0, 0 };
        for (int i = 1; i <= 2; i++)
        {
            assertTrue(inbound.cancel(fix("F", "11", "c" + i, "41", "o", "55", "1", "54", "1"), orders, ACCOUNT,
                SENT_NS, buffer) > 0);
            ids[i] = inbound.clientOrderId();
        }
        return ids;
    }

    @Test
    void aRefusedCancelCarriesTheNamedOrdersStatusFromItsLastReport() throws Exception
    {
        final long id = newOrder(fix("D", "11", "p", "55", "1", "54", "1", "40", "2", "44", "1000", "38", "10"))
            .clientOrderId();
        FixOutbound.report(report(id, ExecType.PARTIAL_FILL, OrdStatus.PARTIALLY_FILLED, RejectReason.NONE, 1000, 4, 6,
            4), orders, EXEC_IDS);
        assertTrue(inbound.cancel(fix("F", "11", "c1", "41", "p", "55", "1", "54", "1"), orders, ACCOUNT, SENT_NS,
            buffer) > 0);
        final Message throttled = FixOutbound.report(report(inbound.clientOrderId(), ExecType.REJECTED,
            OrdStatus.REJECTED, RejectReason.THROTTLED, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals('1', throttled.getChar(39), "partially filled, still live");
        assertEquals(FixRejectCodes.cxlRejReason(RejectReason.THROTTLED), throttled.getInt(102));

        FixOutbound.report(report(id, ExecType.FILL, OrdStatus.FILLED, RejectReason.NONE, 1000, 6, 0, 10), orders,
            EXEC_IDS);
        assertTrue(inbound.cancel(fix("F", "11", "c2", "41", "p", "55", "1", "54", "1"), orders, ACCOUNT, SENT_NS,
            buffer) > 0);
        final Message tooLate = FixOutbound.report(report(inbound.clientOrderId(), ExecType.REJECTED,
            OrdStatus.REJECTED, RejectReason.UNKNOWN_ORDER, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals('2', tooLate.getChar(39), "filled");
        assertEquals(0, tooLate.getInt(102), "CxlRejReason: too late to cancel");
        assertEquals("too late to cancel: the order is filled", tooLate.getString(58));

        // An order the exchange never reported on (its NEW not back yet, or never accepted).
        newOrder(fix("D", "11", "q", "55", "1", "54", "1", "40", "2", "44", "1000", "38", "10"));
        assertTrue(inbound.cancel(fix("F", "11", "c3", "41", "q", "55", "1", "54", "1"), orders, ACCOUNT,
            SENT_NS, buffer) > 0);
        final Message unknown = FixOutbound.report(report(inbound.clientOrderId(), ExecType.REJECTED,
            OrdStatus.REJECTED, RejectReason.UNKNOWN_ORDER, 0, 0, 0, 0), orders, EXEC_IDS);
        assertEquals('8', unknown.getChar(39), "no such order: rejected");
        assertEquals(1, unknown.getInt(102), "CxlRejReason: unknown order");
    }

    @Test
    void reportsTheEngineDidNotNumberGetExecIdsOfTheirOwnThatNoOtherDoorProcessGives() throws Exception
    {
        final long id = orders.idFor("g", FixOrders.Kind.ORDER, 0);
        final Message engines = FixOutbound.report(report(id, 5, ExecType.NEW, OrdStatus.NEW, RejectReason.NONE, 0, 0,
            10, 0), orders, EXEC_IDS);
        assertEquals("5", engines.getString(17), "the engine's number");

        final Set<String> seen = new HashSet<>();
        for (final FixExecIds door : List.of(new FixExecIds(1_764_000_000_000L), new FixExecIds(1_764_000_000_001L)))
        {
            for (int i = 0; i < 3; i++)
            {
                final Message gateways = FixOutbound.report(report(id, 0, ExecType.REJECTED, OrdStatus.REJECTED,
                    RejectReason.THROTTLED, 0, 0, 0, 0), orders, door);
                final String execId = gateways.getString(17);
                assertTrue(execId.startsWith("R"), execId);
                assertTrue(seen.add(execId), "no ExecID twice, across two door processes: " + seen + " and " + execId);
            }
        }
    }

    @Test
    void everyRejectReasonOfTheGatewayAndTheEngineHasAFixCodeAndItsOwnText()
    {
        final Set<String> texts = new HashSet<>();
        final Set<Integer> ordCodes = Set.of(0, 1, 2, 3, 5, 6, 11, 13, 15, 99);
        for (final RejectReason reason : RejectReason.values())
        {
            assertTrue(ordCodes.contains(FixRejectCodes.ordRejReason(reason)), reason.name());
            final int cxl = FixRejectCodes.cxlRejReason(reason);
            assertTrue(cxl == 1 || cxl == 2 || cxl == 6 || cxl == 99, reason.name());
            final int mass = FixRejectCodes.massCancelRejectReason(reason);
            assertTrue(mass == 1 || mass == 99, reason.name());
            assertTrue(texts.add(FixRejectCodes.text(reason)), "a text of its own: " + reason);
        }
        assertEquals(FixRejectCodes.UNKNOWN_ORDER, FixRejectCodes.ordRejReason(RejectReason.UNKNOWN_ORDER));
        assertEquals(FixRejectCodes.DUPLICATE_ORDER, FixRejectCodes.ordRejReason(RejectReason.DUPLICATE_CLIENT_ORDER_ID));
        assertEquals(FixRejectCodes.EXCEEDS_LIMIT, FixRejectCodes.ordRejReason(RejectReason.MAX_OPEN_ORDERS));
        assertEquals(FixRejectCodes.UNKNOWN_SYMBOL, FixRejectCodes.ordRejReason(RejectReason.UNKNOWN_INSTRUMENT));
        assertEquals(FixRejectCodes.CXL_UNKNOWN_ORDER, FixRejectCodes.cxlRejReason(RejectReason.UNKNOWN_ORDER));
    }

    @Test
    void wholeNumbersAreDigitsWithAtMostAFractionOfZeros()
    {
        assertEquals(100, FixInbound.parseWhole("100"));
        assertEquals(100, FixInbound.parseWhole("100.000"));
        assertEquals(-5, FixInbound.parseWhole("-5"));
        for (final String bad : new String[]{ "", "-", "1e3", "10.5", "0x10", " 1", "1234567890123456789", "." })
        {
            assertEquals(Long.MIN_VALUE, FixInbound.parseWhole(bad), bad);
        }
    }
}
