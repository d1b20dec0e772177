package io.ringwire.exchange.engine;

import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.EngineCommandEncoder;
import io.ringwire.codecs.trading.EngineCommandType;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.HeartbeatEncoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.OrderAddedDecoder;
import io.ringwire.codecs.trading.OrderCanceledDecoder;
import io.ringwire.codecs.trading.OrderExecutedDecoder;
import io.ringwire.codecs.trading.OrderReplacedDecoder;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.codecs.trading.TradeDecoder;
import io.ringwire.exchange.book.InstrumentSpec;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The matching engine against {@link ReferenceExchange}, a deliberately simple second
 * implementation of the same rules: seeded random requests go to both, and every message each sends
 * (execution reports and market data, in order, on their channels) must be the same bytes, both
 * must hold the same number of orders after each request, and at the end the engine's digest must
 * be the digest of what it sent. The generator keeps books crossing and a few hundred orders deep, makes the few accounts meet
 * themselves often, fills the books to their capacity now and then, and mixes in requests that
 * break each rule; each run prints what it sent and what came out, and fails if a reject or cancel
 * reason it aims at never happened.
 */
class EngineVersusReferenceTest
{
    /** Reject reasons every scenario aims at, so each must occur. */
    private static final Set<RejectReason> AIMED_REJECTS = EnumSet.of(RejectReason.UNKNOWN_INSTRUMENT,
        RejectReason.INVALID_QUANTITY, RejectReason.UNKNOWN_ORDER, RejectReason.DUPLICATE_CLIENT_ORDER_ID,
        RejectReason.MALFORMED_MESSAGE, RejectReason.TICK_SIZE, RejectReason.LOT_SIZE, RejectReason.PRICE_BAND,
        RejectReason.POST_ONLY_WOULD_TAKE, RejectReason.CAPACITY_EXCEEDED, RejectReason.INVALID_ORDER_TYPE);
    /** Cancel reasons every scenario aims at. */
    private static final Set<RejectReason> AIMED_CANCELS = EnumSet.of(RejectReason.FOK_NOT_FILLABLE,
        RejectReason.NO_LIQUIDITY, RejectReason.SELF_TRADE_PREVENTION, RejectReason.IOC_REMAINDER,
        RejectReason.CLIENT_CANCEL, RejectReason.MASS_CANCEL);

    @Test
    void theEngineSendsTheReferencesBytesForAMillionRandomRequestsOnThreeInstruments()
    {
        final Scenario scenario = new Scenario("three instruments", 0x5EED_2026L, 1_000_000,
            List.of(new InstrumentSpec(1, 1, 1, 1, 2_000), new InstrumentSpec(2, 5, 10, -1_000, 1_000),
                new InstrumentSpec(3, 25, 100, 10_000, 20_000)),
            600, 5, 5, 6.0, 0.15, 0.15, 0.45);

        final Tally tally = run(scenario);

        assertAimedOutcomesOccurred(tally);
    }

    @Test
    void theEngineSendsTheReferencesBytesOnOneDeepBookFullOfIcebergs()
    {
        final Scenario scenario = new Scenario("one deep book of icebergs", 0xDEE9_B00CL, 200_000,
            List.of(new InstrumentSpec(1, 2, 5, 2, 4_000)), 2_000, 3, 3, 3.0, 0.5, 0.03, 0.1);

        final Tally tally = run(scenario);

        assertAimedOutcomesOccurred(tally);
        assertTrue(tally.averageResting() > 400 && tally.deepestLevel > 50, "the book is deep: " +
            tally.averageResting() + " orders on average, up to " + tally.deepestLevel + " at one price");
    }

    @Test
    void aFokTradesNothingWhenAnIcebergsRefillWouldLeaveItFacingItsOwnAccountsOrder()
    {
        final SideBySide both = new SideBySide();
        final UnsafeBuffer request = new UnsafeBuffer(new byte[256]);
        // Account 1 rests an iceberg of 20 showing 5 at 100, and account 2 a sell of 5 behind it.
        both.apply(request, newOrder(request, 1, 1, Side.SELL, TimeInForce.GTC, 100, 20, 5,
            SelfTradePrevention.CANCEL_RESTING));
        both.apply(request, newOrder(request, 2, 2, Side.SELL, TimeInForce.DAY, 100, 5, 0,
            SelfTradePrevention.CANCEL_RESTING));

        // Account 2 buys 10 fill-or-kill: the iceberg's 5 trade, its refill goes behind account 2's
        // own order, and self-trade prevention stops the FOK there; so the whole of it cannot fill.
        both.apply(request, newOrder(request, 3, 2, Side.BUY, TimeInForce.FOK, 100, 10, 0,
            SelfTradePrevention.CANCEL_AGGRESSING));

        assertEquals(List.of("NEW", "CANCELED FOK_NOT_FILLABLE"), both.referenceSent.summary());
        assertEquals(both.referenceSent.summary(), both.engineSent.summary(), "a FOK fills entirely or trades nothing");
    }

    @Test
    void aRejectNamesTheSideOrderTypeAndTimeInForceTheRequestCarried()
    {
        final SideBySide both = new SideBySide();
        final UnsafeBuffer request = new UnsafeBuffer(new byte[256]);
        final int body = MessageHeaderEncoder.ENCODED_LENGTH;

        // A MARKET DAY sell (INVALID_ORDER_TYPE), a LIMIT FOK sell of quantity 0 (INVALID_QUANTITY),
        // an order whose side and time in force no enum constant has, a cancel and a replace of
        // an order that does not exist.
        int length = newOrder(request, 1, 1, Side.SELL, TimeInForce.DAY, 100, 5, 0, SelfTradePrevention.CANCEL_RESTING);
        request.putByte(body + NewOrderEncoder.ordTypeEncodingOffset(), (byte)OrdType.MARKET.value());
        final ExecutionReportDecoder marketDay = both.rejectOf(request, length);
        assertEquals(RejectReason.INVALID_ORDER_TYPE, marketDay.rejectReason());
        assertEquals(Side.SELL, marketDay.side());
        assertEquals(OrdType.MARKET, marketDay.ordType(), "the order type it carried, not LIMIT");
        assertEquals(TimeInForce.DAY, marketDay.timeInForce());

        length = newOrder(request, 2, 1, Side.SELL, TimeInForce.FOK, 100, 0, 0, SelfTradePrevention.CANCEL_RESTING);
        final ExecutionReportDecoder fok = both.rejectOf(request, length);
        assertEquals(RejectReason.INVALID_QUANTITY, fok.rejectReason());
        assertEquals(OrdType.LIMIT, fok.ordType());
        assertEquals(TimeInForce.FOK, fok.timeInForce(), "the time in force it carried, not DAY");

        length = newOrder(request, 3, 1, Side.BUY, TimeInForce.DAY, 100, 5, 0, SelfTradePrevention.CANCEL_RESTING);
        request.putByte(body + NewOrderEncoder.sideEncodingOffset(), (byte)9);
        request.putByte(body + NewOrderEncoder.timeInForceEncodingOffset(), (byte)7);
        final ExecutionReportDecoder unknown = both.rejectOf(request, length);
        assertEquals(RejectReason.MALFORMED_MESSAGE, unknown.rejectReason());
        assertEquals(9, unknown.sideRaw(), "an unknown side goes back as sent, not as BUY");
        assertEquals(7, unknown.timeInForceRaw());

        length = MessageHeaderEncoder.ENCODED_LENGTH + new CancelOrderEncoder()
            .wrapAndApplyHeader(request, 0, new MessageHeaderEncoder()).clientOrderId(4).origClientOrderId(77)
            .account(1).instrumentId(1).side(Side.SELL).sendingTime(1_000).receiveTime(2_000).encodedLength();
        final ExecutionReportDecoder cancel = both.rejectOf(request, length);
        assertEquals(RejectReason.UNKNOWN_ORDER, cancel.rejectReason());
        assertEquals(Side.SELL, cancel.side());
        assertEquals(OrdType.NULL_VAL, cancel.ordType(), "a cancel names no order type");
        assertEquals(TimeInForce.NULL_VAL, cancel.timeInForce());

        length = MessageHeaderEncoder.ENCODED_LENGTH + new ReplaceOrderEncoder()
            .wrapAndApplyHeader(request, 0, new MessageHeaderEncoder()).clientOrderId(5).origClientOrderId(77)
            .account(1).instrumentId(1).side(Side.BUY).price(100).quantity(5).sendingTime(1_000).receiveTime(2_000)
            .encodedLength();
        final ExecutionReportDecoder replace = both.rejectOf(request, length);
        assertEquals(RejectReason.UNKNOWN_ORDER, replace.rejectReason());
        assertEquals(OrdType.LIMIT, replace.ordType(), "a replace re-prices a limit order");
        assertEquals(TimeInForce.NULL_VAL, replace.timeInForce());
        assertEquals(5, replace.orderQuantity());
    }

    /**
     * The engine and the reference on one instrument (tick 1, lot 1, prices 1 to 1,000), each
     * recording what it sends.
     */
    private static final class SideBySide
    {
        final Recorder engineSent = new Recorder();
        final Recorder referenceSent = new Recorder();
        private final MatchingEngine engine;
        private final ReferenceExchange reference;

        SideBySide()
        {
            final EngineConfig config = new EngineConfig(List.of(new InstrumentSpec(1, 1, 1, 1, 1_000)), 10, 10, 0);
            engine = new MatchingEngine(config, engineSent);
            reference = new ReferenceExchange(config, referenceSent);
        }

        /** Applies a request to both, keeping only what they send for it. */
        void apply(final DirectBuffer request, final int length)
        {
            engineSent.clear();
            referenceSent.clear();
            engine.apply(request, 0, length);
            reference.apply(request, 0, length);
        }

        /** Applies a request both reject. @return the engine's reject, once it equals the reference's. */
        ExecutionReportDecoder rejectOf(final DirectBuffer request, final int length)
        {
            apply(request, length);
            assertTrue(engineSent.sameAs(referenceSent), "the engine sends the reference's bytes: engine " +
                engineSent.describeAll() + ", reference " + referenceSent.describeAll());
            final MessageHeaderDecoder header = new MessageHeaderDecoder().wrap(engineSent.sent, Recorder.ENTRY_HEADER);
            assertEquals(ExecutionReportDecoder.TEMPLATE_ID, header.templateId());
            final ExecutionReportDecoder report = new ExecutionReportDecoder().wrap(engineSent.sent,
                Recorder.ENTRY_HEADER + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(), header.version());
            assertEquals(ExecType.REJECTED, report.execType());
            return report;
        }
    }

    /** Writes a LIMIT NewOrder on instrument 1 at offset 0. @return its length. */
    private static int newOrder(final MutableDirectBuffer buffer, final long clientOrderId, final long account,
        final Side side, final TimeInForce timeInForce, final long price, final long quantity, final long display,
        final SelfTradePrevention selfTradePrevention)
    {
        final NewOrderEncoder encoder = new NewOrderEncoder().wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder())
            .clientOrderId(clientOrderId)
            .account(account)
            .instrumentId(1)
            .side(side)
            .ordType(OrdType.LIMIT)
            .timeInForce(timeInForce)
            .price(price)
            .quantity(quantity)
            .sendingTime(1_000)
            .postOnly(BooleanType.FALSE)
            .displayQuantity(display)
            .selfTradePrevention(selfTradePrevention)
            .receiveTime(2_000);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private static void assertAimedOutcomesOccurred(final Tally tally)
    {
        final List<String> missing = new ArrayList<>();
        for (final RejectReason reason : AIMED_REJECTS)
        {
            if (tally.rejects[reason.value()] == 0)
            {
                missing.add("reject " + reason);
            }
        }
        for (final RejectReason reason : AIMED_CANCELS)
        {
            if (tally.cancels[reason.value()] == 0)
            {
                missing.add("cancel " + reason);
            }
        }
        for (final ReferenceExchange.Path path : ReferenceExchange.Path.values())
        {
            if (tally.paths[path.ordinal()] == 0)
            {
                missing.add("rule path " + path);
            }
        }
        if (tally.restated == 0)
        {
            missing.add("a RESTATED report");
        }
        assertEquals(List.of(), missing, "outcomes the generator aims at that never happened");
    }

    // ---------------------------------------------------------------- the run

    /**
     * Feeds the scenario's requests to the engine and the reference, and fails at the first
     * operation whose messages differ or after which they hold different numbers of orders.
     */
    private static Tally run(final Scenario scenario)
    {
        final long start = System.nanoTime();
        final EngineConfig config = new EngineConfig(scenario.instruments, scenario.maxOrders, scenario.maxAccounts, 0);
        final Recorder engineSent = new Recorder();
        final Recorder referenceSent = new Recorder();
        final MatchingEngine engine = new MatchingEngine(config, engineSent);
        final ReferenceExchange reference = new ReferenceExchange(config, referenceSent);
        final OutputDigest referenceDigest = new OutputDigest();
        final RequestGenerator generator = new RequestGenerator(scenario, reference);
        final Tally tally = new Tally();
        final UnsafeBuffer request = new UnsafeBuffer(new byte[256]);

        for (int operation = 0; operation < scenario.operations; operation++)
        {
            final int length = generator.next(request);
            engineSent.clear();
            referenceSent.clear();
            engine.apply(request, 0, length);
            reference.apply(request, 0, length);
            final int engineHolds = engine.books().orders().live();
            if (!engineSent.sameAs(referenceSent) || engineHolds != reference.restingCount())
            {
                tally.takePaths(reference);
                fail(mismatch(scenario, operation, request, length, engineSent, referenceSent, tally, generator) +
                    "orders held after it: engine " + engineHolds + ", reference " + reference.restingCount());
            }
            tally.count(engineSent, engineHolds);
            if (operation % 1_000 == 0)
            {
                tally.deepestLevel = Math.max(tally.deepestLevel, reference.deepestLevel());
            }
            referenceSent.digestInto(referenceDigest);
        }

        final long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        tally.takePaths(reference);
        System.out.println("EngineVersusReferenceTest, " + scenario.name + ": " + scenario.operations +
            " operations, seed 0x" + Long.toHexString(scenario.seed) + ", identical output, " + elapsedMs + " ms\n" +
            generator.describeMix() + tally.describe());
        assertEquals(referenceDigest.value(), engine.digest().value(), "the engine's digest covers what it sent");
        return tally;
    }

    private static String mismatch(final Scenario scenario, final int operation, final DirectBuffer request,
        final int length, final Recorder engineSent, final Recorder referenceSent, final Tally tally,
        final RequestGenerator generator)
    {
        final List<String> engineMessages = engineSent.describeAll();
        final List<String> referenceMessages = referenceSent.describeAll();
        int first = 0;
        while (first < engineMessages.size() && first < referenceMessages.size() &&
            engineMessages.get(first).equals(referenceMessages.get(first)))
        {
            first++;
        }
        final int instrumentId = instrumentOf(request);
        return "scenario '" + scenario.name + "' seed 0x" + Long.toHexString(scenario.seed) + ": operation " +
            operation + " (" + generator.lastAims() + ") makes the engine and the reference differ at message " +
            first + "\nrequest:   " + describe(request, 0, length) +
            "\nengine:    " + (first < engineMessages.size() ? engineMessages.get(first) : "(nothing more)") +
            "\nreference: " + (first < referenceMessages.size() ? referenceMessages.get(first) : "(nothing more)") +
            "\nall the engine sent:\n  " + String.join("\n  ", engineMessages) +
            "\nall the reference sent:\n  " + String.join("\n  ", referenceMessages) +
            "\ninstrument " + instrumentId + " before the operation:\n" + bookBefore(scenario, operation, instrumentId) +
            "so far:\n" + generator.describeMix() + tally.describe();
    }

    /** Replays the scenario's first operations on a fresh reference to show a book as it was. */
    private static String bookBefore(final Scenario scenario, final int operation, final int instrumentId)
    {
        final EngineConfig config = new EngineConfig(scenario.instruments, scenario.maxOrders, scenario.maxAccounts, 0);
        final ReferenceExchange reference = new ReferenceExchange(config, EngineOutput.NONE);
        final RequestGenerator generator = new RequestGenerator(scenario, reference);
        final UnsafeBuffer request = new UnsafeBuffer(new byte[256]);
        for (int i = 0; i < operation; i++)
        {
            reference.apply(request, 0, generator.next(request));
        }
        return reference.describeBook(instrumentId);
    }

    private static int instrumentOf(final DirectBuffer request)
    {
        final MessageHeaderDecoder header = new MessageHeaderDecoder().wrap(request, 0);
        final int body = MessageHeaderDecoder.ENCODED_LENGTH;
        return switch (header.templateId())
        {
            case NewOrderDecoder.TEMPLATE_ID -> request.getInt(body + NewOrderEncoder.instrumentIdEncodingOffset(),
                NewOrderEncoder.BYTE_ORDER);
            case CancelOrderDecoder.TEMPLATE_ID -> request.getInt(body + CancelOrderEncoder.instrumentIdEncodingOffset(),
                CancelOrderEncoder.BYTE_ORDER);
            case ReplaceOrderDecoder.TEMPLATE_ID -> request.getInt(body +
                ReplaceOrderEncoder.instrumentIdEncodingOffset(), ReplaceOrderEncoder.BYTE_ORDER);
            case MassCancelDecoder.TEMPLATE_ID -> request.getInt(body + MassCancelEncoder.instrumentIdEncodingOffset(),
                MassCancelEncoder.BYTE_ORDER);
            default -> 0;
        };
    }

    /** @return a message decoded readably, or its bytes when a field holds a value the schema does not define. */
    static String describe(final DirectBuffer buffer, final int offset, final int length)
    {
        final MessageHeaderDecoder header = new MessageHeaderDecoder().wrap(buffer, offset);
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        final int blockLength = header.blockLength();
        final int version = header.version();
        try
        {
            return switch (header.templateId())
            {
                case NewOrderDecoder.TEMPLATE_ID -> new NewOrderDecoder().wrap(buffer, body, blockLength, version)
                    .toString();
                case CancelOrderDecoder.TEMPLATE_ID -> new CancelOrderDecoder().wrap(buffer, body, blockLength, version)
                    .toString();
                case ReplaceOrderDecoder.TEMPLATE_ID -> new ReplaceOrderDecoder().wrap(buffer, body, blockLength,
                    version).toString();
                case MassCancelDecoder.TEMPLATE_ID -> new MassCancelDecoder().wrap(buffer, body, blockLength, version)
                    .toString();
                case ExecutionReportDecoder.TEMPLATE_ID -> new ExecutionReportDecoder().wrap(buffer, body, blockLength,
                    version).toString();
                case OrderAddedDecoder.TEMPLATE_ID -> new OrderAddedDecoder().wrap(buffer, body, blockLength, version)
                    .toString();
                case OrderExecutedDecoder.TEMPLATE_ID -> new OrderExecutedDecoder().wrap(buffer, body, blockLength,
                    version).toString();
                case OrderCanceledDecoder.TEMPLATE_ID -> new OrderCanceledDecoder().wrap(buffer, body, blockLength,
                    version).toString();
                case OrderReplacedDecoder.TEMPLATE_ID -> new OrderReplacedDecoder().wrap(buffer, body, blockLength,
                    version).toString();
                case TradeDecoder.TEMPLATE_ID -> new TradeDecoder().wrap(buffer, body, blockLength, version).toString();
                default -> hex(buffer, offset, length);
            };
        }
        catch (final RuntimeException ex)
        {
            return "template " + header.templateId() + " with an undefined value (" + ex.getMessage() + "): " +
                hex(buffer, offset, length);
        }
    }

    private static String hex(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[Math.max(0, Math.min(length, buffer.capacity() - offset))];
        buffer.getBytes(offset, bytes);
        return HexFormat.of().formatHex(bytes);
    }

    // ---------------------------------------------------------------- scenario and generator

    /**
     * What a run is made of.
     *
     * @param accounts    accounts that trade; one more sends a few orders to run into the account
     *                    capacity.
     * @param spreadTicks how far from the mid, in ticks, resting orders spread (a normal's deviation).
     * @param crossShare  share of limit orders priced at or through the other side's best.
     * @param takerShare  share of new orders that are IOC, FOK or MARKET.
     */
    record Scenario(String name, long seed, int operations, List<InstrumentSpec> instruments, int maxOrders,
        int maxAccounts, int accounts, double spreadTicks, double icebergShare, double crossShare, double takerShare)
    {
    }

    /** What the generator meant a request to do, for the printed mix. */
    enum Aim
    {
        LIMIT_DAY, LIMIT_GTC, LIMIT_IOC, LIMIT_FOK, MARKET_IOC, MARKET_FOK,
        POST_ONLY, ICEBERG, STP_CANCEL_RESTING, STP_CANCEL_AGGRESSING, STP_CANCEL_BOTH, STP_DECREMENT_AND_CANCEL,
        STP_ABSENT, VERSION_1, VERSION_3, NO_RECEIVE_TIME, SPARE_ACCOUNT, IOC_REUSING_A_LIVE_ID, EDGE_PRICE,
        FAR_PRICE, SWEEP,
        BAD_INSTRUMENT, BAD_QUANTITY, BAD_LOT, BAD_TICK, OUTSIDE_BAND, BAD_DISPLAY, MARKET_NOT_IMMEDIATE,
        IMMEDIATE_POST_ONLY, IMMEDIATE_ICEBERG, DUPLICATE_ID, BAD_SIDE, BAD_ORD_TYPE, BAD_TIME_IN_FORCE,
        BAD_POST_ONLY, BAD_STP,
        CANCEL_LIVE, CANCEL_NEVER_SEEN, CANCEL_WRONG_SIDE, CANCEL_WRONG_INSTRUMENT, CANCEL_OTHER_ACCOUNT,
        REPLACE_DECREASE, REPLACE_SAME_TERMS, REPLACE_INCREASE, REPLACE_PRICE, REPLACE_CROSSING, REPLACE_BAD_TICK,
        REPLACE_BAD_LOT, REPLACE_OUTSIDE_BAND, REPLACE_NOT_ABOVE_FILLED, REPLACE_DUPLICATE_ID, REPLACE_UNKNOWN,
        MASS_CANCEL_ACCOUNT, MASS_CANCEL_INSTRUMENT, MASS_CANCEL_NO_SUCH_INSTRUMENT, ENGINE_COMMAND, TRUNCATED,
        UNKNOWN_TEMPLATE, FLOOD_PHASE
    }

    /**
     * Seeded random requests. It reads the reference's books (never the engine's) to aim: at live
     * orders for cancels and replaces, at the other side's best price for crossing orders, and at
     * the number of resting orders, which it keeps near 60% of the capacity by canceling more as
     * the books fill. Every fifty thousand operations a stretch with no cancels and no takers fills
     * the books to their capacity.
     *
     * <p>Accounts are numbered 0 to N here (N is the spare one) and have wire ids from
     * {@link #ACCOUNT_IDS}, odd ones included; even-numbered accounts count their client order ids
     * 1, 2, 3..., odd-numbered ones scramble the count over all 64 bits.
     */
    static final class RequestGenerator
    {
        private static final long[] ACCOUNT_IDS = { 0, -3, 1L << 40, Long.MAX_VALUE, 7, 42, 9_000_000_001L };
        private static final int FLOOD_EVERY = 50_000;
        private static final int FLOOD_LENGTH = 4_000;

        private final Scenario scenario;
        private final ReferenceExchange reference;
        private final Random random;
        private final double[] mid;
        private final long[] clientOrderCount;
        /** Account number and client order id of orders that may be resting; dead ones go when met. */
        private final List<long[]> maybeResting = new ArrayList<>();
        private final long[] aims = new long[Aim.values().length];
        private final List<Aim> lastAims = new ArrayList<>();
        private final MessageHeaderEncoder header = new MessageHeaderEncoder();
        private final NewOrderEncoder newOrder = new NewOrderEncoder();
        private final CancelOrderEncoder cancel = new CancelOrderEncoder();
        private final ReplaceOrderEncoder replace = new ReplaceOrderEncoder();
        private final MassCancelEncoder massCancel = new MassCancelEncoder();
        private final EngineCommandEncoder command = new EngineCommandEncoder();
        private final HeartbeatEncoder heartbeat = new HeartbeatEncoder();
        private long operation;
        private long clock = 1_780_000_000_000_000_000L;
        private long[] lastDead;

        RequestGenerator(final Scenario scenario, final ReferenceExchange reference)
        {
            if (scenario.accounts + 1 > ACCOUNT_IDS.length)
            {
                throw new IllegalArgumentException("at most " + (ACCOUNT_IDS.length - 1) + " accounts");
            }
            this.scenario = scenario;
            this.reference = reference;
            this.random = new Random(scenario.seed);
            this.mid = new double[scenario.instruments.size()];
            for (int i = 0; i < mid.length; i++)
            {
                mid[i] = (scenario.instruments.get(i).priceSlots() - 1) / 2.0;
            }
            this.clientOrderCount = new long[scenario.accounts + 1];
        }

        String lastAims()
        {
            return lastAims.toString();
        }

        String describeMix()
        {
            final StringBuilder text = new StringBuilder("  requests sent:");
            for (final Aim aim : Aim.values())
            {
                text.append(' ').append(aim).append('=').append(aims[aim.ordinal()]);
            }
            return text.append('\n').toString();
        }

        private void aim(final Aim aim)
        {
            aims[aim.ordinal()]++;
            lastAims.add(aim);
        }

        /** Writes the next request at offset 0. @return its length. */
        int next(final MutableDirectBuffer buffer)
        {
            lastAims.clear();
            operation++;
            clock += 1 + random.nextInt(2_000);
            final boolean flooding = operation % FLOOD_EVERY > FLOOD_EVERY - FLOOD_LENGTH;
            if (flooding)
            {
                aim(Aim.FLOOD_PHASE);
            }
            final double fill = reference.restingCount() / (double)scenario.maxOrders;
            final double pressure = flooding ? 0 : Math.max(0.1, Math.min(9, Math.pow(fill / 0.6, 3)));
            final double newOrderWeight = 52;
            final double cancelWeight = 14 * pressure;
            final double replaceWeight = 18;
            final double massCancelWeight = 0.25 * pressure;
            final double otherWeight = 0.3;
            double pick = random.nextDouble() * (newOrderWeight + cancelWeight + replaceWeight + massCancelWeight +
                otherWeight);
            if ((pick -= newOrderWeight) < 0)
            {
                return newOrder(buffer, flooding);
            }
            if ((pick -= cancelWeight) < 0)
            {
                return cancel(buffer);
            }
            if ((pick -= replaceWeight) < 0)
            {
                return replace(buffer);
            }
            if ((pick -= massCancelWeight) < 0)
            {
                return massCancel(buffer);
            }
            return other(buffer);
        }

        private long accountId(final int account)
        {
            return ACCOUNT_IDS[account];
        }

        private long nextClientOrderId(final int account)
        {
            final long count = ++clientOrderCount[account];
            return account % 2 == 0 ? count : count * 0x9E37_79B9_7F4A_7C15L;
        }

        // ------------------------------------------------------------ new orders

        /** A new order's fields as they go on the wire, enums raw so that a rule can be broken. */
        private static final class OrderFields
        {
            int instrument;
            int account;
            long clientOrderId;
            short side;
            short ordType;
            short timeInForce;
            long price;
            long quantity;
            long display;
            short postOnly;
            short selfTradePrevention;
        }

        private int newOrder(final MutableDirectBuffer buffer, final boolean flooding)
        {
            final OrderFields order = new OrderFields();
            order.instrument = random.nextInt(scenario.instruments.size());
            order.account = random.nextInt(scenario.accounts);
            if (random.nextInt(200) == 0)
            {
                order.account = scenario.accounts;
                aim(Aim.SPARE_ACCOUNT);
            }
            order.clientOrderId = nextClientOrderId(order.account);
            final Side side = random.nextBoolean() ? Side.BUY : Side.SELL;
            order.side = side.value();
            chooseType(order, flooding);
            final boolean rests = order.timeInForce == TimeInForce.DAY.value() ||
                order.timeInForce == TimeInForce.GTC.value();
            final boolean market = order.ordType == OrdType.MARKET.value();
            order.price = market && random.nextBoolean() ? 0 : limitPrice(order.instrument, side, flooding);
            order.quantity = quantity(order.instrument);
            final long lot = spec(order.instrument).lotSize();
            if (market && random.nextInt(40) == 0)
            {
                aim(Aim.SWEEP);
                order.quantity = lot * 100_000;
            }
            if (rests && random.nextDouble() < scenario.icebergShare && order.quantity > lot)
            {
                aim(Aim.ICEBERG);
                order.display = lot * (1 + random.nextInt((int)Math.max(1, order.quantity / lot / 3)));
            }
            order.postOnly = rests && random.nextInt(10) == 0 ? BooleanType.TRUE.value() : BooleanType.FALSE.value();
            order.selfTradePrevention = random.nextInt(20) == 0 ? SelfTradePrevention.NULL_VAL.value() :
                (short)random.nextInt(4);
            if (!flooding && random.nextInt(10) == 0)
            {
                breakARule(order);
            }
            else if (!rests && random.nextInt(50) == 0)
            {
                final long[] live = pickLive();
                if (live != null)
                {
                    aim(Aim.IOC_REUSING_A_LIVE_ID);
                    order.account = (int)live[0];
                    order.clientOrderId = live[1];
                }
            }
            aimAtType(order);
            return encode(buffer, order);
        }

        private void chooseType(final OrderFields order, final boolean flooding)
        {
            final double type = random.nextDouble() * (flooding ? 1 - scenario.takerShare : 1);
            order.ordType = OrdType.LIMIT.value();
            final double dayShare = (1 - scenario.takerShare) * 0.55;
            if (type < dayShare)
            {
                order.timeInForce = TimeInForce.DAY.value();
            }
            else if (type < 1 - scenario.takerShare)
            {
                order.timeInForce = TimeInForce.GTC.value();
            }
            else if (type < 1 - scenario.takerShare * 0.55)
            {
                order.timeInForce = TimeInForce.IOC.value();
            }
            else if (type < 1 - scenario.takerShare * 0.25)
            {
                order.timeInForce = TimeInForce.FOK.value();
            }
            else
            {
                order.ordType = OrdType.MARKET.value();
                order.timeInForce = random.nextBoolean() ? TimeInForce.IOC.value() : TimeInForce.FOK.value();
            }
        }

        /** Makes the order break one rule (and only that one). */
        private void breakARule(final OrderFields order)
        {
            final long lot = spec(order.instrument).lotSize();
            switch (random.nextInt(15))
            {
                case 0 ->
                {
                    aim(Aim.BAD_INSTRUMENT);
                    order.instrument = random.nextBoolean() ? -1 : scenario.instruments.size() + random.nextInt(3);
                }
                case 1 ->
                {
                    aim(Aim.BAD_QUANTITY);
                    order.quantity = random.nextBoolean() ? 0 : -lot;
                }
                case 2 ->
                {
                    aim(Aim.BAD_LOT);
                    moveToCoarsestInstrument(order);
                    final long coarseLot = spec(order.instrument).lotSize();
                    order.quantity += coarseLot > 1 ? 1 + random.nextInt((int)coarseLot - 1) : 0;
                }
                case 3 ->
                {
                    aim(Aim.BAD_TICK);
                    moveToCoarsestInstrument(order);
                    final long tick = spec(order.instrument).tickSize();
                    order.ordType = OrdType.LIMIT.value();
                    order.price += tick > 1 ? 1 + random.nextInt((int)tick - 1) : 0;
                }
                case 4 ->
                {
                    aim(Aim.OUTSIDE_BAND);
                    final InstrumentSpec spec = spec(order.instrument);
                    order.ordType = OrdType.LIMIT.value();
                    order.price = random.nextBoolean() ? spec.minPrice() - spec.tickSize() * (1 + random.nextInt(5)) :
                        spec.maxPrice() + spec.tickSize() * (1 + random.nextInt(5));
                }
                case 5 ->
                {
                    aim(Aim.BAD_DISPLAY);
                    order.display = switch (random.nextInt(3))
                    {
                        case 0 -> order.quantity + lot;
                        case 1 -> -lot;
                        default -> lot > 1 ? lot / 2 : order.quantity + 1;
                    };
                }
                case 6 ->
                {
                    aim(Aim.MARKET_NOT_IMMEDIATE);
                    order.ordType = OrdType.MARKET.value();
                    order.timeInForce = random.nextBoolean() ? TimeInForce.DAY.value() : TimeInForce.GTC.value();
                    order.display = 0;
                    order.postOnly = BooleanType.FALSE.value();
                }
                case 7 ->
                {
                    aim(Aim.IMMEDIATE_POST_ONLY);
                    order.timeInForce = random.nextBoolean() ? TimeInForce.IOC.value() : TimeInForce.FOK.value();
                    order.postOnly = BooleanType.TRUE.value();
                }
                case 8 ->
                {
                    aim(Aim.IMMEDIATE_ICEBERG);
                    order.timeInForce = random.nextBoolean() ? TimeInForce.IOC.value() : TimeInForce.FOK.value();
                    order.display = lot;
                }
                case 9 -> duplicateALiveId(order);
                case 10 ->
                {
                    aim(Aim.BAD_SIDE);
                    order.side = (short)(random.nextBoolean() ? 0 : 3 + random.nextInt(253));
                }
                case 11 ->
                {
                    aim(Aim.BAD_ORD_TYPE);
                    order.ordType = (short)(random.nextBoolean() ? 0 : 3 + random.nextInt(253));
                }
                case 12 ->
                {
                    aim(Aim.BAD_TIME_IN_FORCE);
                    order.timeInForce = (short)(random.nextBoolean() ? 2 : 5 + random.nextInt(251));
                }
                case 13 ->
                {
                    aim(Aim.BAD_POST_ONLY);
                    order.postOnly = (short)(2 + random.nextInt(253));
                }
                default ->
                {
                    aim(Aim.BAD_STP);
                    order.selfTradePrevention = (short)(4 + random.nextInt(251));
                }
            }
        }

        /** A DAY order that takes the client order id of one of its account's resting orders. */
        private void duplicateALiveId(final OrderFields order)
        {
            final long[] live = pickLive();
            if (live == null)
            {
                return;
            }
            aim(Aim.DUPLICATE_ID);
            order.account = (int)live[0];
            order.clientOrderId = live[1];
            order.ordType = OrdType.LIMIT.value();
            order.timeInForce = TimeInForce.DAY.value();
            order.price = limitPrice(order.instrument, order.side == Side.BUY.value() ? Side.BUY : Side.SELL, false);
            order.display = 0;
        }

        private void moveToCoarsestInstrument(final OrderFields order)
        {
            int coarsest = 0;
            for (int i = 1; i < scenario.instruments.size(); i++)
            {
                if (spec(i).tickSize() * spec(i).lotSize() > spec(coarsest).tickSize() * spec(coarsest).lotSize())
                {
                    coarsest = i;
                }
            }
            order.instrument = coarsest;
            order.price = limitPrice(coarsest, order.side == Side.BUY.value() ? Side.BUY : Side.SELL, false);
            order.quantity = quantity(coarsest);
            order.display = 0;
        }

        private void aimAtType(final OrderFields order)
        {
            final short type = order.ordType;
            final short timeInForce = order.timeInForce;
            if (type == OrdType.MARKET.value() && timeInForce == TimeInForce.IOC.value())
            {
                aim(Aim.MARKET_IOC);
            }
            else if (type == OrdType.MARKET.value() && timeInForce == TimeInForce.FOK.value())
            {
                aim(Aim.MARKET_FOK);
            }
            else if (type == OrdType.LIMIT.value() && timeInForce <= TimeInForce.FOK.value())
            {
                aim(timeInForce == TimeInForce.DAY.value() ? Aim.LIMIT_DAY : timeInForce == TimeInForce.GTC.value() ?
                    Aim.LIMIT_GTC : timeInForce == TimeInForce.IOC.value() ? Aim.LIMIT_IOC : Aim.LIMIT_FOK);
            }
            if (order.postOnly == BooleanType.TRUE.value())
            {
                aim(Aim.POST_ONLY);
            }
            aim(switch (order.selfTradePrevention)
            {
                case 0 -> Aim.STP_CANCEL_RESTING;
                case 1 -> Aim.STP_CANCEL_AGGRESSING;
                case 2 -> Aim.STP_CANCEL_BOTH;
                case 3 -> Aim.STP_DECREMENT_AND_CANCEL;
                default -> order.selfTradePrevention == SelfTradePrevention.NULL_VAL.value() ? Aim.STP_ABSENT :
                    Aim.BAD_STP;
            });
        }

        private int encode(final MutableDirectBuffer buffer, final OrderFields order)
        {
            newOrder.wrapAndApplyHeader(buffer, 0, header)
                .clientOrderId(order.clientOrderId)
                .account(accountId(order.account))
                .instrumentId(order.instrument + 1)
                .price(order.price)
                .quantity(order.quantity)
                .sendingTime(clock - 700)
                .displayQuantity(order.display)
                .receiveTime(receiveTime());
            final int body = MessageHeaderEncoder.ENCODED_LENGTH;
            buffer.putByte(body + NewOrderEncoder.sideEncodingOffset(), (byte)order.side);
            buffer.putByte(body + NewOrderEncoder.ordTypeEncodingOffset(), (byte)order.ordType);
            buffer.putByte(body + NewOrderEncoder.timeInForceEncodingOffset(), (byte)order.timeInForce);
            buffer.putByte(body + NewOrderEncoder.postOnlyEncodingOffset(), (byte)order.postOnly);
            buffer.putByte(body + NewOrderEncoder.selfTradePreventionEncodingOffset(), (byte)order.selfTradePrevention);
            if (order.timeInForce == TimeInForce.DAY.value() || order.timeInForce == TimeInForce.GTC.value())
            {
                maybeResting.add(new long[] { order.account, order.clientOrderId });
            }
            return withVersion(buffer, NewOrderEncoder.postOnlyEncodingOffset(), newOrder.encodedLength());
        }

        /**
         * Now and then re-labels the request as a version-1 sender's (the fields version 2 appended
         * are cut off, so they read as absent) or a version-3 sender's (a longer block, whose
         * unknown tail is skipped).
         *
         * @return the request's length.
         */
        private int withVersion(final MutableDirectBuffer buffer, final int version1BlockLength, final int blockLength)
        {
            final int roll = random.nextInt(80);
            if (roll < 2)
            {
                aim(Aim.VERSION_1);
                header.wrap(buffer, 0).blockLength(version1BlockLength).version(1);
                return MessageHeaderEncoder.ENCODED_LENGTH + version1BlockLength;
            }
            if (roll == 2)
            {
                aim(Aim.VERSION_3);
                header.wrap(buffer, 0).blockLength(blockLength + 8).version(3);
                buffer.putLong(MessageHeaderEncoder.ENCODED_LENGTH + blockLength, random.nextLong());
                return MessageHeaderEncoder.ENCODED_LENGTH + blockLength + 8;
            }
            return MessageHeaderEncoder.ENCODED_LENGTH + blockLength;
        }

        private long receiveTime()
        {
            if (random.nextInt(100) == 0)
            {
                aim(Aim.NO_RECEIVE_TIME);
                return NewOrderEncoder.receiveTimeNullValue();
            }
            return clock;
        }

        private InstrumentSpec spec(final int instrument)
        {
            return scenario.instruments.get(instrument);
        }

        /**
         * A limit price: mostly on its own side of a drifting mid, spread like a normal; a share of
         * them at or through the other side's best (or the mid when that side is empty); a few
         * anywhere in the band or on its very edges.
         */
        private long limitPrice(final int instrument, final Side side, final boolean passiveOnly)
        {
            final InstrumentSpec spec = spec(instrument);
            final int slots = spec.priceSlots();
            final double margin = Math.min(slots / 2.0, 4 * scenario.spreadTicks + 10);
            mid[instrument] += random.nextGaussian() * 0.3 + ((slots - 1) / 2.0 - mid[instrument]) * 0.0005;
            mid[instrument] = Math.max(margin, Math.min(slots - 1 - margin, mid[instrument]));
            final int towardsOtherSide = side == Side.BUY ? 1 : -1;
            final int roll = random.nextInt(1_000);
            long ticks;
            if (roll < 5)
            {
                aim(Aim.EDGE_PRICE);
                ticks = random.nextBoolean() ? 0 : slots - 1;
            }
            else if (roll < 15)
            {
                aim(Aim.FAR_PRICE);
                ticks = random.nextInt(slots);
            }
            else if (!passiveOnly && random.nextDouble() < scenario.crossShare)
            {
                final Long best = reference.bestPrice(instrument + 1, side == Side.BUY ? Side.SELL : Side.BUY);
                final long anchor = best == null ? Math.round(mid[instrument]) :
                    (best - spec.minPrice()) / spec.tickSize();
                ticks = anchor + towardsOtherSide * random.nextInt(3);
            }
            else
            {
                ticks = Math.round(mid[instrument]) - towardsOtherSide *
                    (long)Math.floor(Math.abs(random.nextGaussian()) * scenario.spreadTicks);
            }
            ticks = Math.max(0, Math.min(slots - 1, ticks));
            return spec.minPrice() + ticks * spec.tickSize();
        }

        private long quantity(final int instrument)
        {
            final int roll = random.nextInt(100);
            final int lots = roll < 70 ? 1 + random.nextInt(10) : roll < 96 ? 1 + random.nextInt(40) :
                50 + random.nextInt(150);
            return lots * spec(instrument).lotSize();
        }

        /** @return account number and client order id of a resting order, or null when none is found. */
        private long[] pickLive()
        {
            for (int attempt = 0; attempt < 12 && !maybeResting.isEmpty(); attempt++)
            {
                final int index = random.nextInt(maybeResting.size());
                final long[] key = maybeResting.get(index);
                if (reference.find(accountId((int)key[0]), key[1]) != null)
                {
                    return key;
                }
                lastDead = key;
                maybeResting.set(index, maybeResting.get(maybeResting.size() - 1));
                maybeResting.remove(maybeResting.size() - 1);
            }
            return null;
        }

        // ------------------------------------------------------------ cancels, replaces, mass cancels

        private int cancel(final MutableDirectBuffer buffer)
        {
            final long[] live = pickLive();
            int account;
            long origClientOrderId;
            int instrumentId;
            Side side;
            if (live == null || random.nextInt(8) == 0)
            {
                aim(Aim.CANCEL_NEVER_SEEN);
                final long[] dead = lastDead != null && random.nextBoolean() ? lastDead : null;
                account = dead != null ? (int)dead[0] : random.nextInt(scenario.accounts);
                origClientOrderId = dead != null ? dead[1] : 1_000_000_000L + random.nextInt(1_000);
                instrumentId = 1 + random.nextInt(scenario.instruments.size());
                side = random.nextBoolean() ? Side.BUY : Side.SELL;
            }
            else
            {
                account = (int)live[0];
                origClientOrderId = live[1];
                final ReferenceExchange.RestingOrder order = reference.find(accountId(account), origClientOrderId);
                instrumentId = order.instrumentId();
                side = order.side();
                switch (random.nextInt(20))
                {
                    case 0 ->
                    {
                        aim(Aim.CANCEL_WRONG_SIDE);
                        side = side == Side.BUY ? Side.SELL : Side.BUY;
                    }
                    case 1 ->
                    {
                        aim(Aim.CANCEL_WRONG_INSTRUMENT);
                        instrumentId = instrumentId % (scenario.instruments.size() + 1) + 1;
                    }
                    case 2 ->
                    {
                        aim(Aim.CANCEL_OTHER_ACCOUNT);
                        account = (account + 1) % (scenario.accounts + 1);
                    }
                    default -> aim(Aim.CANCEL_LIVE);
                }
            }
            cancel.wrapAndApplyHeader(buffer, 0, header)
                .clientOrderId(nextClientOrderId(account))
                .origClientOrderId(origClientOrderId)
                .account(accountId(account))
                .instrumentId(instrumentId)
                .side(side)
                .sendingTime(clock - 700)
                .receiveTime(receiveTime());
            return withVersion(buffer, CancelOrderEncoder.receiveTimeEncodingOffset(), cancel.encodedLength());
        }

        private int replace(final MutableDirectBuffer buffer)
        {
            final long[] live = pickLive();
            if (live == null)
            {
                return newOrder(buffer, false);
            }
            final int account = (int)live[0];
            final ReferenceExchange.RestingOrder order = reference.find(accountId(account), live[1]);
            final InstrumentSpec spec = scenario.instruments.get(order.instrumentId() - 1);
            final long[] terms = { live[1], random.nextInt(10) == 0 ? live[1] : nextClientOrderId(account),
                order.price(), order.quantity() };
            changeTerms(account, order, spec, terms);
            final long origClientOrderId = terms[0];
            final long clientOrderId = terms[1];
            final long price = Math.max(spec.minPrice() - spec.tickSize(), Math.min(spec.maxPrice() + spec.tickSize(),
                terms[2]));
            if (clientOrderId != origClientOrderId)
            {
                maybeResting.add(new long[] { account, clientOrderId });
            }
            replace.wrapAndApplyHeader(buffer, 0, header)
                .clientOrderId(clientOrderId)
                .origClientOrderId(origClientOrderId)
                .account(accountId(account))
                .instrumentId(order.instrumentId())
                .side(order.side())
                .price(price)
                .quantity(terms[3])
                .sendingTime(clock - 700)
                .receiveTime(receiveTime());
            return withVersion(buffer, ReplaceOrderEncoder.receiveTimeEncodingOffset(), replace.encodedLength());
        }

        /**
         * Picks what a replace changes.
         *
         * @param terms original client order id, new client order id, price and quantity: changed in place.
         */
        private void changeTerms(final int account, final ReferenceExchange.RestingOrder order,
            final InstrumentSpec spec, final long[] terms)
        {
            final long lot = spec.lotSize();
            final long tick = spec.tickSize();
            final long leaves = order.quantity() - order.filled();
            final int kind = random.nextInt(100);
            if (kind < 20)
            {
                aim(Aim.REPLACE_DECREASE);
                terms[3] = leaves > lot ? order.filled() + lot * (1 + random.nextInt((int)(leaves / lot) - 1)) :
                    terms[3];
            }
            else if (kind < 24)
            {
                aim(Aim.REPLACE_SAME_TERMS);
            }
            else if (kind < 38)
            {
                aim(Aim.REPLACE_INCREASE);
                terms[3] += lot * (1 + random.nextInt(5));
            }
            else if (kind < 62)
            {
                aim(Aim.REPLACE_PRICE);
                terms[2] += tick * (random.nextInt(9) - 4);
                terms[3] = random.nextBoolean() ? order.filled() + lot * (1 + random.nextInt(10)) : terms[3];
            }
            else if (kind < 78)
            {
                aim(Aim.REPLACE_CROSSING);
                final int towardsOtherSide = order.side() == Side.BUY ? 1 : -1;
                final Long best = reference.bestPrice(order.instrumentId(), order.side() == Side.BUY ? Side.SELL :
                    Side.BUY);
                terms[2] = best == null ? terms[2] + towardsOtherSide * tick * 3 :
                    best + towardsOtherSide * tick * random.nextInt(3);
                terms[3] += random.nextBoolean() ? lot * random.nextInt(30) : 0;
            }
            else if (kind < 82)
            {
                aim(Aim.REPLACE_BAD_TICK);
                terms[2] += tick > 1 ? 1 + random.nextInt((int)tick - 1) : 0;
            }
            else if (kind < 86)
            {
                aim(Aim.REPLACE_BAD_LOT);
                terms[3] += lot > 1 ? 1 + random.nextInt((int)lot - 1) : 0;
            }
            else if (kind < 88)
            {
                aim(Aim.REPLACE_OUTSIDE_BAND);
                terms[2] = random.nextBoolean() ? spec.minPrice() - tick : spec.maxPrice() + tick;
            }
            else if (kind < 92)
            {
                aim(Aim.REPLACE_NOT_ABOVE_FILLED);
                terms[3] = order.filled() - lot * random.nextInt(2);
            }
            else if (kind < 96)
            {
                final long[] other = pickLive();
                final boolean sameAccount = other != null && other[0] == account && other[1] != terms[0];
                aim(sameAccount ? Aim.REPLACE_DUPLICATE_ID : Aim.REPLACE_SAME_TERMS);
                terms[1] = sameAccount ? other[1] : terms[1];
            }
            else
            {
                aim(Aim.REPLACE_UNKNOWN);
                terms[0] = random.nextBoolean() && lastDead != null && lastDead[0] == account ? lastDead[1] :
                    2_000_000_000L + random.nextInt(1_000);
            }
        }

        private int massCancel(final MutableDirectBuffer buffer)
        {
            final int account = random.nextInt(scenario.accounts + 1);
            final int roll = random.nextInt(20);
            final int instrumentId;
            if (roll < 9)
            {
                aim(Aim.MASS_CANCEL_ACCOUNT);
                instrumentId = 0;
            }
            else if (roll < 19)
            {
                aim(Aim.MASS_CANCEL_INSTRUMENT);
                instrumentId = 1 + random.nextInt(scenario.instruments.size());
            }
            else
            {
                aim(Aim.MASS_CANCEL_NO_SUCH_INSTRUMENT);
                instrumentId = scenario.instruments.size() + 1;
            }
            massCancel.wrapAndApplyHeader(buffer, 0, header)
                .clientOrderId(nextClientOrderId(account))
                .account(accountId(account))
                .instrumentId(instrumentId)
                .sendingTime(clock - 700)
                .receiveTime(receiveTime());
            return MessageHeaderEncoder.ENCODED_LENGTH + massCancel.encodedLength();
        }

        /** An engine command, a truncated message or one of a template the engine does not take: nothing comes out. */
        private int other(final MutableDirectBuffer buffer)
        {
            final int roll = random.nextInt(3);
            if (roll == 0)
            {
                aim(Aim.ENGINE_COMMAND);
                command.wrapAndApplyHeader(buffer, 0, header)
                    .command(random.nextBoolean() ? EngineCommandType.SNAPSHOT : EngineCommandType.DIGEST)
                    .sendingTime(clock - 700)
                    .receiveTime(clock);
                return MessageHeaderEncoder.ENCODED_LENGTH + command.encodedLength();
            }
            if (roll == 1)
            {
                aim(Aim.TRUNCATED);
                newOrder.wrapAndApplyHeader(buffer, 0, header).quantity(1);
                return MessageHeaderEncoder.ENCODED_LENGTH + random.nextInt(NewOrderEncoder.BLOCK_LENGTH);
            }
            aim(Aim.UNKNOWN_TEMPLATE);
            heartbeat.wrapAndApplyHeader(buffer, 0, header).sessionId(7).sendingTime(clock);
            return MessageHeaderEncoder.ENCODED_LENGTH + heartbeat.encodedLength();
        }
    }

    // ---------------------------------------------------------------- recording and counting

    /** Keeps what an exchange sent during one operation: per message its channel, length and bytes. */
    static final class Recorder implements EngineOutput
    {
        private static final byte EXECUTION_REPORT = 'E';
        private static final byte MARKET_DATA = 'M';
        private static final int ENTRY_HEADER = 5;

        final ExpandableArrayBuffer sent = new ExpandableArrayBuffer(4096);
        int length;

        void clear()
        {
            length = 0;
        }

        @Override
        public void executionReport(final DirectBuffer buffer, final int offset, final int messageLength)
        {
            append(EXECUTION_REPORT, buffer, offset, messageLength);
        }

        @Override
        public void marketData(final DirectBuffer buffer, final int offset, final int messageLength)
        {
            append(MARKET_DATA, buffer, offset, messageLength);
        }

        private void append(final byte channel, final DirectBuffer buffer, final int offset, final int messageLength)
        {
            sent.putByte(length, channel);
            sent.putInt(length + 1, messageLength);
            sent.putBytes(length + ENTRY_HEADER, buffer, offset, messageLength);
            length += ENTRY_HEADER + messageLength;
        }

        boolean sameAs(final Recorder other)
        {
            return length == other.length &&
                Arrays.equals(sent.byteArray(), 0, length, other.sent.byteArray(), 0, length);
        }

        void digestInto(final OutputDigest digest)
        {
            for (int at = 0; at < length; at += ENTRY_HEADER + sent.getInt(at + 1))
            {
                digest.update(sent, at + ENTRY_HEADER, sent.getInt(at + 1));
            }
        }

        /** @return per message: an execution report's type and reason, or a market data message's name. */
        List<String> summary()
        {
            final List<String> messages = new ArrayList<>();
            final MessageHeaderDecoder header = new MessageHeaderDecoder();
            final ExecutionReportDecoder report = new ExecutionReportDecoder();
            for (int at = 0; at < length; at += ENTRY_HEADER + sent.getInt(at + 1))
            {
                header.wrap(sent, at + ENTRY_HEADER);
                if (header.templateId() == ExecutionReportDecoder.TEMPLATE_ID)
                {
                    report.wrap(sent, at + ENTRY_HEADER + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(),
                        header.version());
                    messages.add(report.execType() + (report.rejectReason() == RejectReason.NONE ? "" :
                        " " + report.rejectReason()));
                }
                else
                {
                    final String described = describe(sent, at + ENTRY_HEADER, sent.getInt(at + 1));
                    messages.add(described.substring(1, described.indexOf(']')));
                }
            }
            return messages;
        }

        List<String> describeAll()
        {
            final List<String> messages = new ArrayList<>();
            for (int at = 0; at < length; at += ENTRY_HEADER + sent.getInt(at + 1))
            {
                final String channel = sent.getByte(at) == EXECUTION_REPORT ? "report " : "market ";
                messages.add(channel + describe(sent, at + ENTRY_HEADER, sent.getInt(at + 1)));
            }
            return messages;
        }
    }

    /** What came out of a run, counted from the bytes the engine sent. */
    static final class Tally
    {
        final long[] rejects = new long[256];
        final long[] cancels = new long[256];
        final long[] executions = new long[256];
        final long[] marketData = new long[64];
        final long[] paths = new long[ReferenceExchange.Path.values().length];
        long restated;
        long operations;
        long restingSum;
        int restingMax;
        /** The most orders at one price, sampled every thousand operations. */
        int deepestLevel;
        private final MessageHeaderDecoder header = new MessageHeaderDecoder();
        private final ExecutionReportDecoder report = new ExecutionReportDecoder();

        void count(final Recorder recorder, final int resting)
        {
            operations++;
            restingSum += resting;
            restingMax = Math.max(restingMax, resting);
            final ExpandableArrayBuffer sent = recorder.sent;
            for (int at = 0; at < recorder.length; at += Recorder.ENTRY_HEADER + sent.getInt(at + 1))
            {
                final int message = at + Recorder.ENTRY_HEADER;
                header.wrap(sent, message);
                if (header.templateId() != ExecutionReportDecoder.TEMPLATE_ID)
                {
                    marketData[header.templateId() - 30]++;
                    continue;
                }
                report.wrap(sent, message + MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(), header.version());
                final short execType = report.execTypeRaw();
                executions[execType]++;
                if (execType == ExecType.REJECTED.value())
                {
                    rejects[report.rejectReasonRaw()]++;
                }
                else if (execType == ExecType.CANCELED.value())
                {
                    cancels[report.rejectReasonRaw()]++;
                }
                else if (execType == ExecType.RESTATED.value())
                {
                    restated++;
                }
            }
        }

        void takePaths(final ReferenceExchange reference)
        {
            for (final ReferenceExchange.Path path : ReferenceExchange.Path.values())
            {
                paths[path.ordinal()] = reference.count(path);
            }
        }

        double averageResting()
        {
            return operations == 0 ? 0 : restingSum / (double)operations;
        }

        String describe()
        {
            final StringBuilder text = new StringBuilder("  execution reports:");
            for (final ExecType type : ExecType.values())
            {
                if (type != ExecType.NULL_VAL)
                {
                    text.append(' ').append(type).append('=').append(executions[type.value()]);
                }
            }
            text.append("\n  rejects by reason:");
            appendReasons(text, rejects);
            text.append("\n  cancels by reason:");
            appendReasons(text, cancels);
            text.append("\n  market data: OrderAdded=").append(marketData[OrderAddedDecoder.TEMPLATE_ID - 30])
                .append(" OrderExecuted=").append(marketData[OrderExecutedDecoder.TEMPLATE_ID - 30])
                .append(" OrderCanceled=").append(marketData[OrderCanceledDecoder.TEMPLATE_ID - 30])
                .append(" OrderReplaced=").append(marketData[OrderReplacedDecoder.TEMPLATE_ID - 30])
                .append(" Trade=").append(marketData[TradeDecoder.TEMPLATE_ID - 30]);
            text.append("\n  rule paths:");
            for (final ReferenceExchange.Path path : ReferenceExchange.Path.values())
            {
                text.append(' ').append(path).append('=').append(paths[path.ordinal()]);
            }
            text.append(String.format("%n  resting orders: %.0f on average, %d at most, up to %d at one price%n",
                averageResting(), restingMax, deepestLevel));
            return text.toString();
        }

        private static void appendReasons(final StringBuilder text, final long[] byReason)
        {
            for (final RejectReason reason : RejectReason.values())
            {
                if (reason != RejectReason.NULL_VAL && byReason[reason.value()] > 0)
                {
                    text.append(' ').append(reason).append('=').append(byReason[reason.value()]);
                }
            }
        }
    }
}
