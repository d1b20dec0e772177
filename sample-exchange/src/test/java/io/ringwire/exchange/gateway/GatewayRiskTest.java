package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.exchange.book.InstrumentSpec;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static io.ringwire.exchange.gateway.GatewayFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pre-trade risk, the rate limit and duplicate client order ids: each refusal is a gateway reject
 * to the session with its reason, a counter, and nothing sent to the engine.
 */
class GatewayRiskTest
{
    private final GatewayFixture fixture = new GatewayFixture();
    private final Gateway gateway = fixture.gateway;
    private final RecordingGatewayOutput output = fixture.output;

    private void assertRejectedAndNotForwarded(final int outcome, final RejectReason reason, final long counter)
    {
        assertEquals(-reason.value(), outcome, "outcome");
        fixture.assertLastRejected(SESSION_A, reason);
        assertEquals(1, counter, "counted once");
        assertTrue(output.toEngine.isEmpty(), "never forwarded");
    }

    @Test
    void orderForAnUnknownInstrumentIsRejected()
    {
        fixture.logOnBoth();
        final int outcome = fixture.newOrder(TRANSPORT_A, 1, ACCOUNT_A, 3, OrdType.LIMIT, 1_000, 10, START_NS + 1);
        assertRejectedAndNotForwarded(outcome, RejectReason.UNKNOWN_INSTRUMENT, gateway.counters().unknownInstrument());
    }

    @Test
    void orderWithNoOrderTypeTheExchangeHasIsRejectedAndCountedOpenNowhere()
    {
        fixture.logOnBoth();
        final int outcome = fixture.newOrder(TRANSPORT_A, 1, ACCOUNT_A, 1, OrdType.NULL_VAL, 1_000, 10, START_NS + 1);
        assertRejectedAndNotForwarded(outcome, RejectReason.MALFORMED_MESSAGE,
            gateway.counters().rejects(RejectReason.MALFORMED_MESSAGE));
        assertEquals(0, gateway.openOrders(SESSION_A));
    }

    @Test
    void thePriceBandAroundAPriceNearTheEndOfALongReachesThatEndAndNoFurther()
    {
        final long tick = 1_000_000_000_000_000_000L;
        final long[] references = new long[2];
        references[1] = 9 * tick;
        final PreTradeRisk risk = new PreTradeRisk(new GatewayConfig(
            List.of(new SessionConfig(ID_A, TOKEN_A, ACCOUNT_A)), List.of(new InstrumentSpec(1, tick, 1, 0, 9 * tick)),
            references,
            new RiskLimits(10, Long.MAX_VALUE, 1, 10), 1_000, 1_000, 1_000));
        final short limit = OrdType.LIMIT.value();

        assertEquals(0, risk.checkNewOrder(0, 1, limit, 9 * tick, 1), "at the reference price");
        assertEquals(0, risk.checkNewOrder(0, 1, limit, 8 * tick, 1), "one band below");
        assertEquals(RejectReason.RISK_PRICE_BAND.value(), risk.checkNewOrder(0, 1, limit, 7 * tick, 1),
            "two bands below");
    }

    @Test
    void orderAboveTheMaximumQuantityIsRejected()
    {
        fixture.logOnBoth();
        // Instrument 2 at 300 keeps the maximum quantity inside the notional and the band.
        assertEquals(Gateway.FORWARDED,
            fixture.newOrder(TRANSPORT_A, 1, ACCOUNT_A, 2, OrdType.LIMIT, 300, MAX_QUANTITY, START_NS + 1),
            "at the maximum passes");
        output.clear();
        final int outcome =
            fixture.newOrder(TRANSPORT_A, 2, ACCOUNT_A, 2, OrdType.LIMIT, 300, MAX_QUANTITY + 1, START_NS + 2);
        assertRejectedAndNotForwarded(outcome, RejectReason.MAX_ORDER_QUANTITY, gateway.counters().maxOrderQuantity());
    }

    @Test
    void orderAboveTheMaximumNotionalIsRejected()
    {
        fixture.logOnBoth();
        assertEquals(Gateway.FORWARDED, fixture.limitA(1, 1_000, MAX_NOTIONAL / 1_000, START_NS + 1), "at the maximum");
        output.clear();
        final int outcome = fixture.limitA(2, 1_001, MAX_NOTIONAL / 1_000, START_NS + 2);
        final ExecutionReportDecoder reject = fixture.assertLastRejected(SESSION_A, RejectReason.MAX_NOTIONAL);
        assertEquals(2, reject.clientOrderId());
        assertEquals(1_001, reject.price());
        assertEquals(500, reject.orderQuantity());
        assertEquals(ACCOUNT_A, reject.account());
        assertEquals(1, reject.instrumentId());
        assertRejectedAndNotForwarded(outcome, RejectReason.MAX_NOTIONAL, gateway.counters().maxNotional());
    }

    @Test
    void marketOrderNotionalUsesTheLastTradePrice()
    {
        fixture.logOnBoth();
        // Reference 1000: 500 units is exactly the maximum notional, whatever price the order carries.
        assertEquals(Gateway.FORWARDED,
            fixture.newOrder(TRANSPORT_A, 1, ACCOUNT_A, 1, OrdType.MARKET, 0, 500, START_NS + 1));
        fixture.engineReport(ACCOUNT_B, 9, 99, ExecType.FILL, OrdStatus.FILLED, 1, 1_010, 5, START_NS + 2);
        output.clear();

        final int outcome = fixture.newOrder(TRANSPORT_A, 2, ACCOUNT_A, 1, OrdType.MARKET, 0, 500, START_NS + 3);

        assertRejectedAndNotForwarded(outcome, RejectReason.MAX_NOTIONAL, gateway.counters().maxNotional());
    }

    @Test
    void limitPriceOutsideTheBandAroundTheReferencePriceIsRejected()
    {
        fixture.logOnBoth();
        assertEquals(Gateway.FORWARDED, fixture.limitA(1, 1_000 + BAND_TICKS, 1, START_NS + 1));
        assertEquals(Gateway.FORWARDED, fixture.limitA(2, 1_000 - BAND_TICKS, 1, START_NS + 2));
        output.clear();
        final int outcome = fixture.limitA(3, 1_000 + BAND_TICKS + 1, 1, START_NS + 3);
        assertRejectedAndNotForwarded(outcome, RejectReason.RISK_PRICE_BAND, gateway.counters().riskPriceBand());
    }

    @Test
    void priceBandIsInTheInstrumentsTicks()
    {
        fixture.logOnBoth();
        // Instrument 2: reference 500, tick 5, so the band is 500 +- 250.
        assertEquals(Gateway.FORWARDED,
            fixture.newOrder(TRANSPORT_A, 1, ACCOUNT_A, 2, OrdType.LIMIT, 750, 1, START_NS + 1));
        assertEquals(-RejectReason.RISK_PRICE_BAND.value(),
            fixture.newOrder(TRANSPORT_A, 2, ACCOUNT_A, 2, OrdType.LIMIT, 755, 1, START_NS + 2));
    }

    @Test
    void priceBandFollowsTheLastFillSeenInExecutionReports()
    {
        fixture.logOnBoth();
        fixture.engineReport(ACCOUNT_B, 9, 99, ExecType.PARTIAL_FILL, OrdStatus.PARTIALLY_FILLED, 1, 1_200, 5,
            START_NS + 1);
        fixture.engineReport(ACCOUNT_B, 9, 99, ExecType.CANCELED, OrdStatus.CANCELED, 1, 0, 0, START_NS + 2);
        output.clear();

        assertEquals(1_200, gateway.lastTradePrice(1), "a report without a fill does not move it");
        assertEquals(Gateway.FORWARDED, fixture.limitA(1, 1_200 + BAND_TICKS, 1, START_NS + 3));
        final int outcome = fixture.limitA(2, 1_000, 1, START_NS + 4);
        assertEquals(-RejectReason.RISK_PRICE_BAND.value(), outcome);
        fixture.assertLastRejected(SESSION_A, RejectReason.RISK_PRICE_BAND);
    }

    @Test
    void orderBeyondTheAccountsOpenOrderLimitIsRejectedUntilOneEnds()
    {
        fixture.logOnBoth();
        for (int i = 1; i <= MAX_OPEN; i++)
        {
            assertEquals(Gateway.FORWARDED, fixture.limitA(i, 1_000, 1, START_NS + i));
        }
        output.clear();
        final int outcome = fixture.limitA(10, 1_000, 1, START_NS + 10);
        assertRejectedAndNotForwarded(outcome, RejectReason.MAX_OPEN_ORDERS, gateway.counters().maxOpenOrders());

        fixture.engineReport(ACCOUNT_A, 1, 501, ExecType.NEW, OrdStatus.NEW, 1, 0, 0, START_NS + 11);
        assertEquals(-RejectReason.MAX_OPEN_ORDERS.value(), fixture.limitA(11, 1_000, 1, START_NS + 12),
            "an acknowledgement does not end an order");
        fixture.engineReport(ACCOUNT_A, 1, 501, ExecType.FILL, OrdStatus.FILLED, 1, 1_000, 1, START_NS + 13);
        assertEquals(Gateway.FORWARDED, fixture.limitA(12, 1_000, 1, START_NS + 14), "a fill ends one");
        assertEquals(MAX_OPEN, gateway.openOrders(SESSION_A));
    }

    @Test
    void ordersWhoseFirstReportsWereLostFillTheirTableWithoutFailingTheGateway()
    {
        // Each order's acknowledgement is lost; its cancel's report ends it. The order's id stays
        // in the table of those awaiting a first report (room for 2 x MAX_OPEN), which fills.
        fixture.logOnBoth();
        final int room = 2 * MAX_OPEN;
        long nowNs = START_NS;
        for (int i = 1; i <= room + 2; i++)
        {
            final long order = 10 * i;
            assertEquals(Gateway.FORWARDED, fixture.limitA(order, 1_000, 1, nowNs += 10_000_000), "order " + order);
            assertEquals(Gateway.FORWARDED, fixture.cancel(TRANSPORT_A, order + 1, order, ACCOUNT_A,
                nowNs += 10_000_000), "its cancel");
            fixture.engineReport(ACCOUNT_A, order + 1, 500 + i, ExecType.CANCELED, OrdStatus.CANCELED, 1, 0, 0,
                nowNs += 10_000_000);
            assertEquals(0, gateway.openOrders(SESSION_A), "the cancel ended order " + order);
        }
        assertEquals(2, gateway.ordersUntracked(), "the orders past the table's room");
        assertEquals(Gateway.FORWARDED, fixture.limitA(1_000_000, 1_000, 1, nowNs += 10_000_000),
            "the session still trades");
        assertEquals(3, gateway.ordersUntracked());
        fixture.engineReport(ACCOUNT_A, 1_000_000, 0, ExecType.REJECTED, OrdStatus.REJECTED, 1, 0, 0,
            nowNs += 10_000_000);
        assertEquals(1, gateway.openOrders(SESSION_A), "an untracked order's reject leaves the count high, never low");
    }

    @Test
    void theCancelsOfOrdersLeftBeforeThisGatewayStartedEndNoneOfItsOwn()
    {
        // Orders 900 and 901 rest from the last gateway's life; this one's start cancel ends them.
        fixture.logOnBoth();
        fixture.limitA(1, 1_000, 1, START_NS + 1);
        fixture.limitA(2, 1_000, 1, START_NS + 2);
        fixture.engineReport(ACCOUNT_A, 900, 700, ExecType.CANCELED, OrdStatus.CANCELED, 1, 0, 0, START_NS + 3);
        fixture.engineReport(ACCOUNT_A, 901, 701, ExecType.CANCELED, OrdStatus.CANCELED, 1, 0, 0, START_NS + 4);
        assertEquals(2, gateway.openOrders(SESSION_A), "this gateway's two orders are still open");
    }

    @Test
    void theStartCancelsReportOfAnOrderResentUnderItsIdEndsNotTheResend()
    {
        // Order 5 rests from the last gateway's life; its client, not knowing, sends it again here
        // under the same id. The start cancel (sent at START_NS) ends the old one: its report names
        // id 5 and echoes the start cancel's times. The resend stays open.
        fixture.logOnBoth();
        assertEquals(Gateway.FORWARDED, fixture.limitA(5, 1_000, 1, START_NS + 1));
        fixture.engineReportCausedBy(START_NS, START_NS, ACCOUNT_A, 5, 700, ExecType.CANCELED, OrdStatus.CANCELED,
            START_NS + 2);
        assertEquals(1, gateway.openOrders(SESSION_A), "the resend is still open");
        fixture.engineReport(ACCOUNT_A, 5, 701, ExecType.NEW, OrdStatus.NEW, 1, 0, 0, START_NS + 3);
        assertEquals(1, gateway.openOrders(SESSION_A), "acknowledged and resting");
        fixture.engineReport(ACCOUNT_A, 5, 701, ExecType.CANCELED, OrdStatus.CANCELED, 1, 0, 0, START_NS + 4);
        assertEquals(0, gateway.openOrders(SESSION_A), "its own cancel ends it");
        assertEquals(0, gateway.ordersUntracked());
    }

    @Test
    void aLossCancelsReportsEndThisGatewaysOrders()
    {
        // A session lost (its transport gone) is owed a cancel-on-disconnect: unlike the start
        // cancel's, its reports end orders this process forwarded.
        fixture.logOnBoth();
        assertEquals(Gateway.FORWARDED, fixture.limitA(6, 1_000, 1, START_NS + 1));
        fixture.engineReport(ACCOUNT_A, 6, 702, ExecType.NEW, OrdStatus.NEW, 1, 0, 0, START_NS + 2);
        gateway.onTransportLost(TRANSPORT_A, START_NS + 3);
        gateway.doWork(START_NS + 4);
        assertEquals(1, gateway.counters().cancelOnDisconnects(), "the loss cancel went");
        fixture.engineReportCausedBy(START_NS + 4, START_NS + 4, ACCOUNT_A, 6, 702, ExecType.CANCELED,
            OrdStatus.CANCELED, START_NS + 5);
        assertEquals(0, gateway.openOrders(SESSION_A), "the loss cancel ended this gateway's order");
    }

    @Test
    void engineRejectOfANewOrderEndsItButOfACancelDoesNot()
    {
        fixture.logOnBoth();
        fixture.limitA(1, 1_000, 1, START_NS + 1);
        fixture.limitA(2, 1_000, 1, START_NS + 2);
        fixture.engineReport(ACCOUNT_A, 2, 0, ExecType.REJECTED, OrdStatus.REJECTED, 1, 0, 0, START_NS + 3);
        assertEquals(1, gateway.openOrders(SESSION_A), "the new order the engine refused");

        assertEquals(Gateway.FORWARDED, fixture.cancel(TRANSPORT_A, 3, 77, ACCOUNT_A, START_NS + 4));
        fixture.engineReport(ACCOUNT_A, 3, 0, ExecType.REJECTED, OrdStatus.REJECTED, 1, 0, 0, START_NS + 5);
        assertEquals(1, gateway.openOrders(SESSION_A), "a refused cancel ends nothing");

        assertEquals(Gateway.FORWARDED, fixture.replace(TRANSPORT_A, 4, 1, ACCOUNT_A, 1_001, 2, START_NS + 6));
        fixture.engineReport(ACCOUNT_A, 1, 601, ExecType.NEW, OrdStatus.NEW, 1, 0, 0, START_NS + 7);
        fixture.engineReport(ACCOUNT_A, 4, 601, ExecType.REPLACED, OrdStatus.NEW, 1, 0, 0, START_NS + 8);
        assertEquals(1, gateway.openOrders(SESSION_A), "a replace keeps the count");
        fixture.engineReport(ACCOUNT_A, 4, 601, ExecType.CANCELED, OrdStatus.CANCELED, 1, 0, 0, START_NS + 9);
        assertEquals(0, gateway.openOrders(SESSION_A));
    }

    @Test
    void orderForAnotherAccountIsRejectedAsNotPermitted()
    {
        fixture.logOnBoth();
        final int outcome = fixture.newOrder(TRANSPORT_A, 1, ACCOUNT_B, 1, OrdType.LIMIT, 1_000, 1, START_NS + 1);
        assertRejectedAndNotForwarded(outcome, RejectReason.ACCOUNT_NOT_PERMITTED,
            gateway.counters().accountNotPermitted());
    }

    @Test
    void replaceIsCheckedForQuantityNotionalAndBand()
    {
        fixture.logOnBoth();
        assertEquals(-RejectReason.MAX_ORDER_QUANTITY.value(),
            fixture.replace(TRANSPORT_A, 2, 1, ACCOUNT_A, 1_000, MAX_QUANTITY + 1, START_NS + 1));
        assertEquals(-RejectReason.MAX_NOTIONAL.value(),
            fixture.replace(TRANSPORT_A, 3, 1, ACCOUNT_A, 1_001, 500, START_NS + 2));
        assertEquals(-RejectReason.RISK_PRICE_BAND.value(),
            fixture.replace(TRANSPORT_A, 4, 1, ACCOUNT_A, 1_000 - BAND_TICKS - 1, 1, START_NS + 3));
        fixture.assertLastRejected(SESSION_A, RejectReason.RISK_PRICE_BAND);
        assertTrue(output.toEngine.isEmpty());
        assertEquals(Gateway.FORWARDED, fixture.replace(TRANSPORT_A, 5, 1, ACCOUNT_A, 1_000, 10, START_NS + 4));
    }

    @Test
    void sessionOverItsRateIsThrottledAndRecoversAsTokensRefill()
    {
        // 100 per second, burst 10: a token every 10 ms.
        fixture.logOnBoth();
        for (int i = 1; i <= 10; i++)
        {
            assertEquals(Gateway.FORWARDED, fixture.cancel(TRANSPORT_A, i, 1_000 + i, ACCOUNT_A, START_NS + 1));
        }
        output.clear();
        final int outcome = fixture.cancel(TRANSPORT_A, 11, 1_011, ACCOUNT_A, START_NS + 1);
        assertRejectedAndNotForwarded(outcome, RejectReason.THROTTLED, gateway.counters().throttled());

        assertEquals(-RejectReason.THROTTLED.value(),
            fixture.cancel(TRANSPORT_A, 12, 1_012, ACCOUNT_A, START_NS + 1 + 9_999_999));
        assertEquals(Gateway.FORWARDED, fixture.cancel(TRANSPORT_A, 13, 1_013, ACCOUNT_A, START_NS + 1 + 10_000_000));
        assertEquals(Gateway.FORWARDED, fixture.cancel(TRANSPORT_B, 1, 2, ACCOUNT_B, START_NS + 2),
            "the limit is per session");
    }

    @Test
    void loggingOutAndOnAgainGivesNoFreshBurst()
    {
        // 100 per second, burst 10.
        fixture.logOnBoth();
        for (int i = 1; i <= 10; i++)
        {
            assertEquals(Gateway.FORWARDED, fixture.cancel(TRANSPORT_A, i, 1_000 + i, ACCOUNT_A, START_NS + 1));
        }
        assertEquals(Gateway.LOGGED_OUT, fixture.logout(TRANSPORT_A, ID_A, START_NS + 2));
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, START_NS + 3));
        assertEquals(-RejectReason.THROTTLED.value(), fixture.cancel(TRANSPORT_A, 11, 1_011, ACCOUNT_A, START_NS + 4),
            "the bucket refills with time, not with a logon");
        assertEquals(Gateway.FORWARDED, fixture.cancel(TRANSPORT_A, 12, 1_012, ACCOUNT_A, START_NS + 1 + 10_000_000));
    }

    @Test
    void duplicateClientOrderIdIsRejectedSoAResendIsSafe()
    {
        fixture.logOnBoth();
        assertEquals(Gateway.FORWARDED, fixture.limitA(1, 1_000, 10, START_NS + 1));
        output.clear();

        final int resend = fixture.limitA(1, 1_000, 10, START_NS + 2);

        assertRejectedAndNotForwarded(resend, RejectReason.DUPLICATE_CLIENT_ORDER_ID,
            gateway.counters().duplicateClientOrderIds());
        assertEquals(1, gateway.openOrders(SESSION_A), "the resend opened nothing");
        assertEquals(-RejectReason.DUPLICATE_CLIENT_ORDER_ID.value(),
            fixture.cancel(TRANSPORT_A, 1, 1, ACCOUNT_A, START_NS + 3), "a cancel's own id is checked");
        assertEquals(Gateway.FORWARDED, fixture.replace(TRANSPORT_A, 2, 1, ACCOUNT_A, 1_000, 5, START_NS + 4));
        assertEquals(-RejectReason.DUPLICATE_CLIENT_ORDER_ID.value(),
            fixture.replace(TRANSPORT_A, 2, 1, ACCOUNT_A, 1_000, 5, START_NS + 5), "a replace's new id is checked");
        assertEquals(Gateway.FORWARDED,
            fixture.newOrder(TRANSPORT_B, 1, ACCOUNT_B, 1, OrdType.LIMIT, 1_000, 10, START_NS + 6),
            "ids are per session");
    }

    @Test
    void theIdOfANewOrderOrReplaceTheJournalRefusedMayBeSentAgainButACancelsStaysUsed()
    {
        fixture.logOnBoth();
        assertEquals(Gateway.FORWARDED, fixture.limitA(1, 1_000, 10, START_NS + 1));
        fixture.journalRefusal(output.lastToEngine(), START_NS + 2);
        assertEquals(SESSION_A, output.lastToSession().sessionIndex(), "the refusal goes to its client");
        final ExecutionReportDecoder refusal = fixture.report(output.lastToSession().buffer());
        assertEquals(RejectReason.JOURNAL_REFUSED, refusal.rejectReason());
        assertEquals(1, refusal.clientOrderId());
        assertEquals(OrdType.LIMIT, refusal.ordType(), "the refused order's terms");
        assertEquals(0, gateway.openOrders(SESSION_A), "the refusal ended the order");
        assertEquals(Gateway.FORWARDED, fixture.limitA(1, 1_000, 10, START_NS + 3),
            "the client sends the refused order again, as it was");
        assertEquals(-RejectReason.DUPLICATE_CLIENT_ORDER_ID.value(), fixture.limitA(1, 1_000, 10, START_NS + 4),
            "once taken again, the id is used");

        assertEquals(Gateway.FORWARDED, fixture.replace(TRANSPORT_A, 2, 1, ACCOUNT_A, 1_001, 10, START_NS + 5));
        fixture.journalRefusal(output.lastToEngine(), START_NS + 6);
        assertEquals(Gateway.FORWARDED, fixture.replace(TRANSPORT_A, 2, 1, ACCOUNT_A, 1_001, 10, START_NS + 7),
            "a refused replace's new id is free again");

        assertEquals(Gateway.FORWARDED, fixture.cancel(TRANSPORT_A, 3, 2, ACCOUNT_A, START_NS + 8));
        fixture.journalRefusal(output.lastToEngine(), START_NS + 9);
        assertEquals(-RejectReason.DUPLICATE_CLIENT_ORDER_ID.value(),
            fixture.cancel(TRANSPORT_A, 3, 2, ACCOUNT_A, START_NS + 10), "a cancel names no order: its id stays used");

        // A mass cancel's id is not checked, so it may be a live order's: its refusal frees nothing.
        assertEquals(Gateway.FORWARDED, fixture.massCancelAll(TRANSPORT_A, 2, ACCOUNT_A, START_NS + 11));
        fixture.journalRefusal(output.lastToEngine(), START_NS + 12);
        assertEquals(-RejectReason.DUPLICATE_CLIENT_ORDER_ID.value(),
            fixture.replace(TRANSPORT_A, 2, 1, ACCOUNT_A, 1_002, 10, START_NS + 13), "the live order's id");
        assertEquals(2, gateway.counters().clientOrderIdsReleased());
    }

    @Test
    void aRefusedMassCancelUnderTheIdOfANewOrderAwaitingItsAcknowledgementEndsNoOrder()
    {
        fixture.logOnBoth();
        assertEquals(Gateway.FORWARDED, fixture.limitA(9, 1_000, 10, START_NS + 1));
        assertEquals(Gateway.FORWARDED, fixture.massCancelAll(TRANSPORT_A, 9, ACCOUNT_A, START_NS + 2));
        fixture.journalRefusal(output.lastToEngine(), START_NS + 3);

        assertEquals(1, gateway.openOrders(SESSION_A), "order 9 is still open");
    }

    /**
     * This gateway took id 5 (a client's resend of what it sent the gateway before this one); the
     * journal's refusal of that earlier request arrives after, carrying the earlier process's
     * receive time: before this one's first forward, or after it where the wall clock stepped back
     * between the two processes.
     */
    @ParameterizedTest
    @ValueSource(longs = {-1_000, 2})
    void theRefusalOfARequestAnEarlierGatewayForwardedFreesNoIdThisOneHasTaken(final long earlierReceivedAfterStart)
    {
        fixture.logOnBoth();
        assertEquals(Gateway.FORWARDED, fixture.limitA(5, 1_000, 10, START_NS + 1));
        final UnsafeBuffer earlier = new UnsafeBuffer(new byte[output.lastToEngine().capacity()]);
        earlier.putBytes(0, output.lastToEngine(), 0, earlier.capacity());
        earlier.putLong(MessageHeaderEncoder.ENCODED_LENGTH + NewOrderEncoder.receiveTimeEncodingOffset(),
            START_NS + earlierReceivedAfterStart);
        fixture.journalRefusal(earlier, START_NS + 3);

        assertEquals(-RejectReason.DUPLICATE_CLIENT_ORDER_ID.value(), fixture.limitA(5, 1_000, 10, START_NS + 4),
            "the id this gateway forwarded stays used");
        assertEquals(0, gateway.counters().clientOrderIdsReleased());
        assertEquals(1, gateway.openOrders(SESSION_A), "this gateway's order 5 is still counted open");
    }

    @Test
    void clientOrderIdsSurviveReLogonSoAResendAfterReconnectIsStillADuplicate()
    {
        fixture.logOnBoth();
        fixture.limitA(1, 1_000, 10, START_NS + 1);
        gateway.onTransportLost(TRANSPORT_A, START_NS + 2);
        fixture.connect(TRANSPORT_A + 50, ID_A);
        fixture.logon(TRANSPORT_A + 50, ID_A, TOKEN_A, START_NS + 3);

        assertEquals(-RejectReason.DUPLICATE_CLIENT_ORDER_ID.value(),
            fixture.newOrder(TRANSPORT_A + 50, 1, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 10, START_NS + 4));
    }

    @Test
    void fullSetOfClientOrderIdsRejectsWithCapacityExceeded()
    {
        final GatewayFixture small = new GatewayFixture(100, 10, 2);
        small.logOnBoth();
        assertEquals(Gateway.FORWARDED, small.limitA(1, 1_000, 1, START_NS + 1));
        assertEquals(Gateway.FORWARDED, small.cancel(TRANSPORT_A, 2, 1, ACCOUNT_A, START_NS + 2));
        small.output.clear();

        assertEquals(-RejectReason.CAPACITY_EXCEEDED.value(), small.limitA(3, 1_000, 1, START_NS + 3));

        small.assertLastRejected(SESSION_A, RejectReason.CAPACITY_EXCEEDED);
        assertEquals(1, small.gateway.counters().clientOrderIdCapacityExceeded());
        assertTrue(small.output.toEngine.isEmpty());
        assertEquals(-RejectReason.DUPLICATE_CLIENT_ORDER_ID.value(), small.limitA(1, 1_000, 1, START_NS + 4),
            "a resend is still recognised");
    }

    @Test
    void aSessionPastItsBudgetOfClientOrderIdsStillCancelsItsOrdersButCannotReplace()
    {
        final GatewayFixture small = new GatewayFixture(100, 10, 2);
        small.logOnBoth();
        assertEquals(Gateway.FORWARDED, small.limitA(1, 1_000, 1, START_NS + 1));
        assertEquals(Gateway.FORWARDED, small.limitA(2, 1_000, 1, START_NS + 2));
        small.output.clear();

        assertEquals(-RejectReason.CAPACITY_EXCEEDED.value(),
            small.replace(TRANSPORT_A, 3, 1, ACCOUNT_A, 1_000, 2, START_NS + 3), "a replace names a new order");
        assertEquals(Gateway.FORWARDED, small.cancel(TRANSPORT_A, 4, 1, ACCOUNT_A, START_NS + 4));
        assertEquals(Gateway.FORWARDED, small.cancel(TRANSPORT_A, 5, 2, ACCOUNT_A, START_NS + 5));

        assertEquals(2, small.output.toEngine.size(), "both cancels went to the engine");
        assertEquals(2, small.gateway.counters().cancelIdsNotKept());
        assertEquals(1, small.gateway.counters().clientOrderIdCapacityExceeded());
        assertEquals(-RejectReason.DUPLICATE_CLIENT_ORDER_ID.value(),
            small.cancel(TRANSPORT_A, 1, 2, ACCOUNT_A, START_NS + 6), "a kept id is still refused as a duplicate");
    }

    @Test
    void requestRefusedByTheEnginesStreamIsNotRecordedSoItCanBeOfferedAgain()
    {
        fixture.logOnBoth();
        output.engineRefuses = true;
        assertEquals(Gateway.BACK_PRESSURED, fixture.limitA(1, 1_000, 1, START_NS + 1));
        assertEquals(0, gateway.openOrders(SESSION_A));
        output.engineRefuses = false;
        assertEquals(Gateway.FORWARDED, fixture.limitA(1, 1_000, 1, START_NS + 2));
        assertEquals(1, gateway.counters().engineBackPressured());
    }
}
