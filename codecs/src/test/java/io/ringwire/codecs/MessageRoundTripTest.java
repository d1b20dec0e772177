package io.ringwire.codecs;

import io.ringwire.codecs.trading.BookAction;
import io.ringwire.codecs.trading.BookSnapshotDecoder;
import io.ringwire.codecs.trading.BookSnapshotEncoder;
import io.ringwire.codecs.trading.BookUpdateDecoder;
import io.ringwire.codecs.trading.BookUpdateEncoder;
import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.EngineCommandDecoder;
import io.ringwire.codecs.trading.EngineCommandEncoder;
import io.ringwire.codecs.trading.EngineCommandType;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.HeartbeatDecoder;
import io.ringwire.codecs.trading.HeartbeatEncoder;
import io.ringwire.codecs.trading.LatencyProbeDecoder;
import io.ringwire.codecs.trading.LatencyProbeEncoder;
import io.ringwire.codecs.trading.LogonDecoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.LogonRejectReason;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonResponseEncoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.LogoutEncoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.OrderAddedDecoder;
import io.ringwire.codecs.trading.OrderAddedEncoder;
import io.ringwire.codecs.trading.OrderCanceledDecoder;
import io.ringwire.codecs.trading.OrderCanceledEncoder;
import io.ringwire.codecs.trading.OrderExecutedDecoder;
import io.ringwire.codecs.trading.OrderExecutedEncoder;
import io.ringwire.codecs.trading.OrderReplacedDecoder;
import io.ringwire.codecs.trading.OrderReplacedEncoder;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.SnapshotRequestDecoder;
import io.ringwire.codecs.trading.SnapshotRequestEncoder;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.codecs.trading.TradeDecoder;
import io.ringwire.codecs.trading.TradeEncoder;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every message of the trading schema survives encode, validate, decode with every field intact,
 * and the schema's message list is exactly what the validator and these tests know.
 *
 * <p>Each round trip copies the encoded bytes into a buffer of exactly the encoded length before
 * validating and decoding, so a decoder reading one byte too far throws instead of passing.
 */
class MessageRoundTripTest
{
    /** Names the schema message a test method round-trips; the schema coverage test collects them. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @interface RoundTrips
    {
        String value();
    }

    private static final long SENDING_TIME = 1_767_225_600_123_456_789L;
    /** Above Long.MAX_VALUE as an unsigned uint64: proves the timestamp is carried as 64 raw bits. */
    private static final long HIGH_BIT_TIME = 0xF123_4567_89AB_CDEFL;

    private final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();

    // ---------------------------------------------------------------------------------------------- session

    @RoundTrips("Logon")
    @ParameterizedTest(name = "credentials of {0} UTF-8 bytes")
    @ValueSource(ints = { 0, 1, 37, 1024 })
    void logonRoundTripsEveryFieldAndCredentialsUpToTheSchemaMaximum(final int credentialsBytes)
    {
        final String credentials = SampleMessages.utf8OfLength(credentialsBytes);
        final LogonEncoder encoder = new LogonEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .sessionId(0x0102_0304_0506_0708L)
            .heartbeatIntervalMs(30_000)
            .sendingTime(HIGH_BIT_TIME)
            .nextReplySequence(0x7000_0000_0000_0011L)
            .credentials(credentials);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), LogonDecoder.TEMPLATE_ID,
            LogonDecoder.BLOCK_LENGTH);
        final LogonDecoder decoder = new LogonDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(0x0102_0304_0506_0708L, decoder.sessionId());
        assertEquals(30_000, decoder.heartbeatIntervalMs());
        assertEquals(HIGH_BIT_TIME, decoder.sendingTime());
        assertEquals(0x7000_0000_0000_0011L, decoder.nextReplySequence());
        assertEquals(credentialsBytes, decoder.credentialsLength());
        assertEquals(credentials, decoder.credentials());
        assertConsumedExactly(received, decoder.limit());
    }

    static Stream<Arguments> logonResponseOutcomes()
    {
        final List<Arguments> outcomes = new ArrayList<>();
        for (final LogonStatus status : values(LogonStatus.values()))
        {
            for (final LogonRejectReason reason : values(LogonRejectReason.values()))
            {
                outcomes.add(Arguments.of(status, reason));
            }
        }
        return outcomes.stream();
    }

    @RoundTrips("LogonResponse")
    @ParameterizedTest(name = "{0} / {1}")
    @MethodSource("logonResponseOutcomes")
    void logonResponseRoundTripsEveryStatusAndRejectReason(final LogonStatus status, final LogonRejectReason reason)
    {
        final String text = LogonStatus.ACCEPTED == status ? "" : "rejected: " + reason + " \u2013 see docs";
        final LogonResponseEncoder encoder = new LogonResponseEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .sessionId(-77L)
            .status(status)
            .rejectReason(reason)
            .heartbeatIntervalMs(Integer.MAX_VALUE)
            .sendingTime(SENDING_TIME)
            .nextReplySequence(4_097L)
            .reasonText(text);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), LogonResponseDecoder.TEMPLATE_ID,
            LogonResponseDecoder.BLOCK_LENGTH);
        final LogonResponseDecoder decoder = new LogonResponseDecoder().wrap(received,
            headerDecoder.encodedLength(), headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(-77L, decoder.sessionId());
        assertEquals(status, decoder.status());
        assertEquals(reason, decoder.rejectReason());
        assertEquals(Integer.MAX_VALUE, decoder.heartbeatIntervalMs());
        assertEquals(SENDING_TIME, decoder.sendingTime());
        assertEquals(4_097L, decoder.nextReplySequence());
        assertEquals(text, decoder.reasonText());
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("Logout")
    @Test
    void logoutRoundTripsSessionAndSendingTime()
    {
        final LogoutEncoder encoder = new LogoutEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .sessionId(Long.MIN_VALUE + 1)
            .sendingTime(HIGH_BIT_TIME);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), LogoutDecoder.TEMPLATE_ID,
            LogoutDecoder.BLOCK_LENGTH);
        final LogoutDecoder decoder = new LogoutDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(Long.MIN_VALUE + 1, decoder.sessionId());
        assertEquals(HIGH_BIT_TIME, decoder.sendingTime());
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("Heartbeat")
    @Test
    void heartbeatRoundTripsSessionAndSendingTime()
    {
        final HeartbeatEncoder encoder = new HeartbeatEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .sessionId(Long.MAX_VALUE)
            .sendingTime(SENDING_TIME);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), HeartbeatDecoder.TEMPLATE_ID,
            HeartbeatDecoder.BLOCK_LENGTH);
        final HeartbeatDecoder decoder = new HeartbeatDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(Long.MAX_VALUE, decoder.sessionId());
        assertEquals(SENDING_TIME, decoder.sendingTime());
        assertConsumedExactly(received, decoder.limit());
    }

    // ---------------------------------------------------------------------------------------------- orders

    /**
     * Every Side x OrdType x TimeInForce, with postOnly and selfTradePrevention stepping through
     * their values across the cases.
     */
    static Stream<Arguments> newOrderEnumCombinations()
    {
        final BooleanType[] postOnlyValues = values(BooleanType.values());
        final SelfTradePrevention[] selfTradePreventions = values(SelfTradePrevention.values());
        final List<Arguments> combinations = new ArrayList<>();
        int i = 0;
        for (final Side side : values(Side.values()))
        {
            for (final OrdType ordType : values(OrdType.values()))
            {
                for (final TimeInForce timeInForce : values(TimeInForce.values()))
                {
                    combinations.add(Arguments.of(side, ordType, timeInForce, postOnlyValues[i % postOnlyValues.length],
                        selfTradePreventions[(i / postOnlyValues.length) % selfTradePreventions.length]));
                    i++;
                }
            }
        }
        return combinations.stream();
    }

    @Test
    void newOrderCasesCoverEveryEnumValue()
    {
        assertCasesCoverEveryValue(newOrderEnumCombinations(), Side.values(), OrdType.values(), TimeInForce.values(),
            BooleanType.values(), SelfTradePrevention.values());
    }

    @RoundTrips("NewOrder")
    @ParameterizedTest(name = "{0} {1} {2} postOnly={3} {4}")
    @MethodSource("newOrderEnumCombinations")
    void newOrderRoundTripsEveryFieldForEveryEnumValue(
        final Side side,
        final OrdType ordType,
        final TimeInForce timeInForce,
        final BooleanType postOnly,
        final SelfTradePrevention selfTradePrevention)
    {
        final NewOrderEncoder encoder = new NewOrderEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientOrderId(0x1111_2222_3333_4444L)
            .account(-987_654_321_012L)
            .instrumentId(-42)
            .side(side)
            .ordType(ordType)
            .timeInForce(timeInForce)
            .price(-1_234_567L)
            .quantity(Long.MAX_VALUE - 3)
            .sendingTime(HIGH_BIT_TIME)
            .postOnly(postOnly)
            .displayQuantity(Long.MAX_VALUE - 7)
            .selfTradePrevention(selfTradePrevention)
            .receiveTime(SENDING_TIME)
            .gatewaySendTime(SENDING_TIME + 1_500)
            .engineLife(0x11FE_0000_0000_0010L);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), NewOrderDecoder.TEMPLATE_ID,
            NewOrderDecoder.BLOCK_LENGTH);
        final NewOrderDecoder decoder = new NewOrderDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(0x1111_2222_3333_4444L, decoder.clientOrderId());
        assertEquals(-987_654_321_012L, decoder.account());
        assertEquals(-42, decoder.instrumentId());
        assertEquals(side, decoder.side());
        assertEquals(ordType, decoder.ordType());
        assertEquals(timeInForce, decoder.timeInForce());
        assertEquals(-1_234_567L, decoder.price());
        assertEquals(Long.MAX_VALUE - 3, decoder.quantity());
        assertEquals(HIGH_BIT_TIME, decoder.sendingTime());
        assertEquals(postOnly, decoder.postOnly());
        assertEquals(Long.MAX_VALUE - 7, decoder.displayQuantity());
        assertEquals(selfTradePrevention, decoder.selfTradePrevention());
        assertEquals(SENDING_TIME, decoder.receiveTime());
        assertEquals(SENDING_TIME + 1_500, decoder.gatewaySendTime());
        assertEquals(0x11FE_0000_0000_0010L, decoder.engineLife());
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("CancelOrder")
    @ParameterizedTest
    @EnumSource(value = Side.class, mode = EnumSource.Mode.EXCLUDE, names = "NULL_VAL")
    void cancelOrderRoundTripsEveryFieldForEverySide(final Side side)
    {
        final CancelOrderEncoder encoder = new CancelOrderEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientOrderId(555L)
            .origClientOrderId(0x7EAD_BEEF_0000_0001L)
            .account(31_337L)
            .instrumentId(Integer.MAX_VALUE)
            .side(side)
            .sendingTime(SENDING_TIME)
            .receiveTime(HIGH_BIT_TIME)
            .gatewaySendTime(HIGH_BIT_TIME + 900)
            .engineLife(0x11FE_0000_0000_0011L);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), CancelOrderDecoder.TEMPLATE_ID,
            CancelOrderDecoder.BLOCK_LENGTH);
        final CancelOrderDecoder decoder = new CancelOrderDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(555L, decoder.clientOrderId());
        assertEquals(0x7EAD_BEEF_0000_0001L, decoder.origClientOrderId());
        assertEquals(31_337L, decoder.account());
        assertEquals(Integer.MAX_VALUE, decoder.instrumentId());
        assertEquals(side, decoder.side());
        assertEquals(SENDING_TIME, decoder.sendingTime());
        assertEquals(HIGH_BIT_TIME, decoder.receiveTime());
        assertEquals(HIGH_BIT_TIME + 900, decoder.gatewaySendTime());
        assertEquals(0x11FE_0000_0000_0011L, decoder.engineLife());
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("ReplaceOrder")
    @ParameterizedTest
    @EnumSource(value = Side.class, mode = EnumSource.Mode.EXCLUDE, names = "NULL_VAL")
    void replaceOrderRoundTripsEveryFieldForEverySide(final Side side)
    {
        final ReplaceOrderEncoder encoder = new ReplaceOrderEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientOrderId(9_001L)
            .origClientOrderId(9_000L)
            .account(-1L)
            .instrumentId(123_456)
            .side(side)
            .price(Long.MIN_VALUE + 1)
            .quantity(17L)
            .sendingTime(HIGH_BIT_TIME)
            .receiveTime(HIGH_BIT_TIME + 1)
            .gatewaySendTime(HIGH_BIT_TIME + 2)
            .engineLife(0x11FE_0000_0000_0012L);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), ReplaceOrderDecoder.TEMPLATE_ID,
            ReplaceOrderDecoder.BLOCK_LENGTH);
        final ReplaceOrderDecoder decoder = new ReplaceOrderDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(9_001L, decoder.clientOrderId());
        assertEquals(9_000L, decoder.origClientOrderId());
        assertEquals(-1L, decoder.account());
        assertEquals(123_456, decoder.instrumentId());
        assertEquals(side, decoder.side());
        assertEquals(Long.MIN_VALUE + 1, decoder.price());
        assertEquals(17L, decoder.quantity());
        assertEquals(HIGH_BIT_TIME, decoder.sendingTime());
        assertEquals(HIGH_BIT_TIME + 1, decoder.receiveTime());
        assertEquals(HIGH_BIT_TIME + 2, decoder.gatewaySendTime());
        assertEquals(0x11FE_0000_0000_0012L, decoder.engineLife());
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("MassCancel")
    @ParameterizedTest(name = "instrument {0}")
    @ValueSource(ints = { 0, 1, Integer.MAX_VALUE, -1 })
    void massCancelRoundTripsEveryFieldForOneInstrumentOrAll(final int instrumentId)
    {
        final MassCancelEncoder encoder = new MassCancelEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientOrderId(0x4D41_5353_0000_0001L)
            .account(-31_337L)
            .instrumentId(instrumentId)
            .sendingTime(SENDING_TIME)
            .receiveTime(HIGH_BIT_TIME)
            .engineLife(0x11FE_0000_0000_0013L);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), MassCancelDecoder.TEMPLATE_ID,
            MassCancelDecoder.BLOCK_LENGTH);
        final MassCancelDecoder decoder = new MassCancelDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(0x4D41_5353_0000_0001L, decoder.clientOrderId());
        assertEquals(-31_337L, decoder.account());
        assertEquals(instrumentId, decoder.instrumentId());
        assertEquals(SENDING_TIME, decoder.sendingTime());
        assertEquals(HIGH_BIT_TIME, decoder.receiveTime());
        assertEquals(0x11FE_0000_0000_0013L, decoder.engineLife());
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("EngineCommand")
    @ParameterizedTest
    @EnumSource(value = EngineCommandType.class, mode = EnumSource.Mode.EXCLUDE, names = "NULL_VAL")
    void engineCommandRoundTripsEveryFieldForEveryCommand(final EngineCommandType command)
    {
        final EngineCommandEncoder encoder = new EngineCommandEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .command(command)
            .sendingTime(HIGH_BIT_TIME)
            .receiveTime(SENDING_TIME);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), EngineCommandDecoder.TEMPLATE_ID,
            EngineCommandDecoder.BLOCK_LENGTH);
        final EngineCommandDecoder decoder = new EngineCommandDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(command, decoder.command());
        assertEquals(HIGH_BIT_TIME, decoder.sendingTime());
        assertEquals(SENDING_TIME, decoder.receiveTime());
        assertConsumedExactly(received, decoder.limit());
    }

    // ---------------------------------------------------------------------------------------------- executions

    /**
     * Cases that together use every ExecType, OrdStatus, Side, RejectReason, OrdType and TimeInForce
     * value: every ExecType x Side pair, with OrdStatus following ExecType and the other enums
     * stepping through their values, for as many cases as the longest of them needs.
     */
    static Stream<Arguments> executionReportEnumCombinations()
    {
        final ExecType[] execTypes = values(ExecType.values());
        final OrdStatus[] ordStatuses = values(OrdStatus.values());
        final Side[] sides = values(Side.values());
        final RejectReason[] rejectReasons = values(RejectReason.values());
        final OrdType[] ordTypes = values(OrdType.values());
        final TimeInForce[] timeInForces = values(TimeInForce.values());
        final int cases = Math.max(execTypes.length * sides.length, rejectReasons.length);
        final List<Arguments> combinations = new ArrayList<>();
        for (int i = 0; i < cases; i++)
        {
            final ExecType execType = execTypes[i % execTypes.length];
            combinations.add(Arguments.of(
                execType,
                ordStatuses[execType.ordinal() % ordStatuses.length],
                sides[(i / execTypes.length) % sides.length],
                rejectReasons[i % rejectReasons.length],
                ordTypes[i % ordTypes.length],
                timeInForces[i % timeInForces.length]));
        }
        return combinations.stream();
    }

    @Test
    void executionReportCasesCoverEveryEnumValueAndEveryExecTypeOnBothSides()
    {
        assertCasesCoverEveryValue(executionReportEnumCombinations(), ExecType.values(), OrdStatus.values(),
            Side.values(), RejectReason.values(), OrdType.values(), TimeInForce.values());
        final Set<List<Object>> execTypeSides = new HashSet<>();
        executionReportEnumCombinations().forEach(arguments ->
            execTypeSides.add(List.of(arguments.get()[0], arguments.get()[2])));
        assertEquals(values(ExecType.values()).length * values(Side.values()).length, execTypeSides.size());
    }

    @RoundTrips("ExecutionReport")
    @ParameterizedTest(name = "{0} {1} {2} {3} {4} {5}")
    @MethodSource("executionReportEnumCombinations")
    void executionReportRoundTripsEveryFieldForEveryEnumValue(
        final ExecType execType,
        final OrdStatus ordStatus,
        final Side side,
        final RejectReason rejectReason,
        final OrdType ordType,
        final TimeInForce timeInForce)
    {
        final ExecutionReportEncoder encoder = new ExecutionReportEncoder()
            .wrapAndApplyHeader(buffer, 0, headerEncoder)
            .exchangeOrderId(0x0EEE_0000_0000_0001L)
            .clientOrderId(4_242L)
            .execId(-5L)
            .account(8_675_309L)
            .instrumentId(7)
            .execType(execType)
            .ordStatus(ordStatus)
            .side(side)
            .rejectReason(rejectReason)
            .lastPrice(-250L)
            .lastQuantity(100L)
            .leavesQuantity(900L)
            .cumulativeQuantity(1_100L)
            .transactTime(HIGH_BIT_TIME)
            .price(-275L)
            .orderQuantity(2_000L)
            .ordType(ordType)
            .timeInForce(timeInForce)
            .engineSequence(Long.MAX_VALUE - 11)
            .clientSendTime(SENDING_TIME)
            .gatewayInTime(SENDING_TIME + 1_000)
            .gatewayOutTime(SENDING_TIME + 2_000)
            .engineInTime(SENDING_TIME + 3_000)
            .engineOutTime(SENDING_TIME + 4_000)
            .gatewayReplyTime(HIGH_BIT_TIME)
            .replySequence(Long.MAX_VALUE - 12)
            .engineLife(Long.MAX_VALUE - 13);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), ExecutionReportDecoder.TEMPLATE_ID,
            ExecutionReportDecoder.BLOCK_LENGTH);
        final ExecutionReportDecoder decoder = new ExecutionReportDecoder().wrap(received,
            headerDecoder.encodedLength(), headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(0x0EEE_0000_0000_0001L, decoder.exchangeOrderId());
        assertEquals(4_242L, decoder.clientOrderId());
        assertEquals(-5L, decoder.execId());
        assertEquals(8_675_309L, decoder.account());
        assertEquals(7, decoder.instrumentId());
        assertEquals(execType, decoder.execType());
        assertEquals(ordStatus, decoder.ordStatus());
        assertEquals(side, decoder.side());
        assertEquals(rejectReason, decoder.rejectReason());
        assertEquals(-250L, decoder.lastPrice());
        assertEquals(100L, decoder.lastQuantity());
        assertEquals(900L, decoder.leavesQuantity());
        assertEquals(1_100L, decoder.cumulativeQuantity());
        assertEquals(HIGH_BIT_TIME, decoder.transactTime());
        assertEquals(-275L, decoder.price());
        assertEquals(2_000L, decoder.orderQuantity());
        assertEquals(ordType, decoder.ordType());
        assertEquals(timeInForce, decoder.timeInForce());
        assertEquals(Long.MAX_VALUE - 11, decoder.engineSequence());
        assertEquals(SENDING_TIME, decoder.clientSendTime());
        assertEquals(SENDING_TIME + 1_000, decoder.gatewayInTime());
        assertEquals(SENDING_TIME + 2_000, decoder.gatewayOutTime());
        assertEquals(SENDING_TIME + 3_000, decoder.engineInTime());
        assertEquals(SENDING_TIME + 4_000, decoder.engineOutTime());
        assertEquals(HIGH_BIT_TIME, decoder.gatewayReplyTime());
        assertEquals(Long.MAX_VALUE - 12, decoder.replySequence());
        assertEquals(Long.MAX_VALUE - 13, decoder.engineLife());
        assertConsumedExactly(received, decoder.limit());
    }

    // ---------------------------------------------------------------------------------------------- market data

    /** Level i of a test book: every BookAction x Side pair appears within the first six levels. */
    private static BookAction levelAction(final int i)
    {
        return values(BookAction.values())[i % 3];
    }

    private static Side levelSide(final int i)
    {
        return values(Side.values())[(i / 3) % 2];
    }

    private static long levelPrice(final int i)
    {
        return (i % 2 == 0 ? 1 : -1) * (10_000L + 7L * i);
    }

    private static long levelQuantity(final int i)
    {
        return 1_000_000_000_000L + i;
    }

    private static int levelOrderCount(final int i)
    {
        return 1 + i * 3;
    }

    @RoundTrips("BookUpdate")
    @ParameterizedTest(name = "{0} levels")
    @ValueSource(ints = { 0, 1, 6, 4096 })
    void bookUpdateRoundTripsEveryFieldOfEveryLevelFromZeroToTheMaximumCount(final int levelCount)
    {
        final BookUpdateEncoder encoder = new BookUpdateEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .instrumentId(314_159)
            .sequenceNumber(2_718_281_828L)
            .transactTime(HIGH_BIT_TIME);
        final BookUpdateEncoder.LevelsEncoder levels = encoder.levelsCount(levelCount);
        for (int i = 0; i < levelCount; i++)
        {
            levels.next()
                .action(levelAction(i))
                .side(levelSide(i))
                .price(levelPrice(i))
                .quantity(levelQuantity(i))
                .orderCount(levelOrderCount(i));
        }
        assertEquals(BookUpdateEncoder.BLOCK_LENGTH + 4 + levelCount * BookUpdateEncoder.LevelsEncoder.sbeBlockLength(),
            encoder.encodedLength());

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), BookUpdateDecoder.TEMPLATE_ID,
            BookUpdateDecoder.BLOCK_LENGTH);
        final BookUpdateDecoder decoder = new BookUpdateDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(314_159, decoder.instrumentId());
        assertEquals(2_718_281_828L, decoder.sequenceNumber());
        assertEquals(HIGH_BIT_TIME, decoder.transactTime());
        final BookUpdateDecoder.LevelsDecoder decodedLevels = decoder.levels();
        assertEquals(levelCount, decodedLevels.count());
        int i = 0;
        for (final BookUpdateDecoder.LevelsDecoder level : decodedLevels)
        {
            assertEquals(levelAction(i), level.action(), "action of level " + i);
            assertEquals(levelSide(i), level.side(), "side of level " + i);
            assertEquals(levelPrice(i), level.price(), "price of level " + i);
            assertEquals(levelQuantity(i), level.quantity(), "quantity of level " + i);
            assertEquals(levelOrderCount(i), level.orderCount(), "order count of level " + i);
            i++;
        }
        assertEquals(levelCount, i);
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("Trade")
    @ParameterizedTest
    @EnumSource(value = Side.class, mode = EnumSource.Mode.EXCLUDE, names = "NULL_VAL")
    void tradeRoundTripsEveryFieldForEveryAggressorSide(final Side aggressorSide)
    {
        final TradeEncoder encoder = new TradeEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .instrumentId(-1)
            .sequenceNumber(Long.MAX_VALUE)
            .tradeId(0x0DDB_A11L)
            .price(99_950L)
            .quantity(3L)
            .aggressorSide(aggressorSide)
            .transactTime(SENDING_TIME)
            .streamSequence(Long.MAX_VALUE - 1)
            .buyOrderId(0x0B0B_0000_0000_0001L)
            .sellOrderId(0x05E1_0000_0000_0002L);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), TradeDecoder.TEMPLATE_ID,
            TradeDecoder.BLOCK_LENGTH);
        final TradeDecoder decoder = new TradeDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(-1, decoder.instrumentId());
        assertEquals(Long.MAX_VALUE, decoder.sequenceNumber());
        assertEquals(0x0DDB_A11L, decoder.tradeId());
        assertEquals(99_950L, decoder.price());
        assertEquals(3L, decoder.quantity());
        assertEquals(aggressorSide, decoder.aggressorSide());
        assertEquals(SENDING_TIME, decoder.transactTime());
        assertEquals(Long.MAX_VALUE - 1, decoder.streamSequence());
        assertEquals(0x0B0B_0000_0000_0001L, decoder.buyOrderId());
        assertEquals(0x05E1_0000_0000_0002L, decoder.sellOrderId());
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("OrderAdded")
    @ParameterizedTest
    @EnumSource(value = Side.class, mode = EnumSource.Mode.EXCLUDE, names = "NULL_VAL")
    void orderAddedRoundTripsEveryFieldForEverySide(final Side side)
    {
        final OrderAddedEncoder encoder = new OrderAddedEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .instrumentId(271_828)
            .sequenceNumber(1L)
            .streamSequence(Long.MAX_VALUE)
            .orderId(0x0ADD_0000_0000_0003L)
            .side(side)
            .price(-99_999L)
            .quantity(250L)
            .transactTime(HIGH_BIT_TIME);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), OrderAddedDecoder.TEMPLATE_ID,
            OrderAddedDecoder.BLOCK_LENGTH);
        final OrderAddedDecoder decoder = new OrderAddedDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(271_828, decoder.instrumentId());
        assertEquals(1L, decoder.sequenceNumber());
        assertEquals(Long.MAX_VALUE, decoder.streamSequence());
        assertEquals(0x0ADD_0000_0000_0003L, decoder.orderId());
        assertEquals(side, decoder.side());
        assertEquals(-99_999L, decoder.price());
        assertEquals(250L, decoder.quantity());
        assertEquals(HIGH_BIT_TIME, decoder.transactTime());
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("OrderExecuted")
    @Test
    void orderExecutedRoundTripsEveryField()
    {
        final OrderExecutedEncoder encoder = new OrderExecutedEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .instrumentId(-7)
            .sequenceNumber(Long.MAX_VALUE - 2)
            .streamSequence(3L)
            .orderId(0x0E0E_0000_0000_0004L)
            .executedQuantity(Long.MAX_VALUE)
            .price(Long.MIN_VALUE + 5)
            .matchId(0x0DDB_A11L)
            .transactTime(SENDING_TIME);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), OrderExecutedDecoder.TEMPLATE_ID,
            OrderExecutedDecoder.BLOCK_LENGTH);
        final OrderExecutedDecoder decoder = new OrderExecutedDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(-7, decoder.instrumentId());
        assertEquals(Long.MAX_VALUE - 2, decoder.sequenceNumber());
        assertEquals(3L, decoder.streamSequence());
        assertEquals(0x0E0E_0000_0000_0004L, decoder.orderId());
        assertEquals(Long.MAX_VALUE, decoder.executedQuantity());
        assertEquals(Long.MIN_VALUE + 5, decoder.price());
        assertEquals(0x0DDB_A11L, decoder.matchId());
        assertEquals(SENDING_TIME, decoder.transactTime());
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("OrderCanceled")
    @ParameterizedTest(name = "{0} remaining")
    @ValueSource(longs = { 0L, 1L, Long.MAX_VALUE })
    void orderCanceledRoundTripsEveryFieldWhetherTheOrderLeavesTheBookOrStays(final long remainingQuantity)
    {
        final OrderCanceledEncoder encoder = new OrderCanceledEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .instrumentId(Integer.MIN_VALUE)
            .sequenceNumber(44L)
            .streamSequence(45L)
            .orderId(0x0CA4_0000_0000_0005L)
            .canceledQuantity(600L)
            .remainingQuantity(remainingQuantity)
            .transactTime(HIGH_BIT_TIME);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), OrderCanceledDecoder.TEMPLATE_ID,
            OrderCanceledDecoder.BLOCK_LENGTH);
        final OrderCanceledDecoder decoder = new OrderCanceledDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(Integer.MIN_VALUE, decoder.instrumentId());
        assertEquals(44L, decoder.sequenceNumber());
        assertEquals(45L, decoder.streamSequence());
        assertEquals(0x0CA4_0000_0000_0005L, decoder.orderId());
        assertEquals(600L, decoder.canceledQuantity());
        assertEquals(remainingQuantity, decoder.remainingQuantity());
        assertEquals(HIGH_BIT_TIME, decoder.transactTime());
        assertConsumedExactly(received, decoder.limit());
    }

    @RoundTrips("OrderReplaced")
    @ParameterizedTest(name = "keepsPriority={0}")
    @EnumSource(value = BooleanType.class, mode = EnumSource.Mode.EXCLUDE, names = "NULL_VAL")
    void orderReplacedRoundTripsEveryFieldWhetherTheOrderKeepsItsPriorityOrNot(final BooleanType keepsPriority)
    {
        final OrderReplacedEncoder encoder = new OrderReplacedEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .instrumentId(99)
            .sequenceNumber(Long.MAX_VALUE - 4)
            .streamSequence(Long.MAX_VALUE - 5)
            .orderId(0x0EE1_0000_0000_0006L)
            .price(-12_345L)
            .quantity(Long.MAX_VALUE - 6)
            .keepsPriority(keepsPriority)
            .transactTime(SENDING_TIME);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), OrderReplacedDecoder.TEMPLATE_ID,
            OrderReplacedDecoder.BLOCK_LENGTH);
        final OrderReplacedDecoder decoder = new OrderReplacedDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(99, decoder.instrumentId());
        assertEquals(Long.MAX_VALUE - 4, decoder.sequenceNumber());
        assertEquals(Long.MAX_VALUE - 5, decoder.streamSequence());
        assertEquals(0x0EE1_0000_0000_0006L, decoder.orderId());
        assertEquals(-12_345L, decoder.price());
        assertEquals(Long.MAX_VALUE - 6, decoder.quantity());
        assertEquals(keepsPriority, decoder.keepsPriority());
        assertEquals(SENDING_TIME, decoder.transactTime());
        assertConsumedExactly(received, decoder.limit());
    }

    // ---------------------------------------------------------------------------------------------- snapshots

    /** Order i of a test snapshot part: both sides, prices of both signs, ids and quantities that differ per entry. */
    private static long snapshotOrderId(final int i)
    {
        return 0x0500_0000_0000_0000L + 31L * i;
    }

    private static Side snapshotOrderSide(final int i)
    {
        return values(Side.values())[i % 2];
    }

    private static long snapshotOrderPrice(final int i)
    {
        return (i % 3 == 0 ? -1 : 1) * (20_000L + 11L * i);
    }

    private static long snapshotOrderQuantity(final int i)
    {
        return Long.MAX_VALUE - i;
    }

    /**
     * Entry counts from none to the schema's maximum, with a part index up to the largest uint16
     * that is not its null value, and both lastPart values: an empty book is a single, empty last
     * part.
     */
    static Stream<Arguments> bookSnapshotParts()
    {
        return Stream.of(
            Arguments.of(0, 0, BooleanType.TRUE),
            Arguments.of(1, 0, BooleanType.FALSE),
            Arguments.of(7, 3, BooleanType.TRUE),
            Arguments.of(4096, BookSnapshotEncoder.partMaxValue(), BooleanType.FALSE));
    }

    @RoundTrips("BookSnapshot")
    @ParameterizedTest(name = "{0} orders, part {1}, lastPart={2}")
    @MethodSource("bookSnapshotParts")
    void bookSnapshotRoundTripsEveryFieldOfEveryOrderFromZeroToTheMaximumCount(
        final int orderCount, final int part, final BooleanType lastPart)
    {
        final BookSnapshotEncoder encoder = new BookSnapshotEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .instrumentId(-161_803)
            .sequenceNumber(Long.MAX_VALUE - 8)
            .streamSequence(0x5EC0_0000_0000_0009L)
            .part(part)
            .lastPart(lastPart)
            .engineLife(0x11FE_0000_0000_0005L);
        final BookSnapshotEncoder.OrdersEncoder orders = encoder.ordersCount(orderCount);
        for (int i = 0; i < orderCount; i++)
        {
            orders.next()
                .orderId(snapshotOrderId(i))
                .side(snapshotOrderSide(i))
                .price(snapshotOrderPrice(i))
                .quantity(snapshotOrderQuantity(i));
        }
        assertEquals(BookSnapshotEncoder.BLOCK_LENGTH + 4 +
            orderCount * BookSnapshotEncoder.OrdersEncoder.sbeBlockLength(), encoder.encodedLength());

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), BookSnapshotDecoder.TEMPLATE_ID,
            BookSnapshotDecoder.BLOCK_LENGTH);
        final BookSnapshotDecoder decoder = new BookSnapshotDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(-161_803, decoder.instrumentId());
        assertEquals(Long.MAX_VALUE - 8, decoder.sequenceNumber());
        assertEquals(0x5EC0_0000_0000_0009L, decoder.streamSequence());
        assertEquals(part, decoder.part());
        assertEquals(lastPart, decoder.lastPart());
        assertEquals(0x11FE_0000_0000_0005L, decoder.engineLife());
        final BookSnapshotDecoder.OrdersDecoder decodedOrders = decoder.orders();
        assertEquals(orderCount, decodedOrders.count());
        int i = 0;
        for (final BookSnapshotDecoder.OrdersDecoder order : decodedOrders)
        {
            assertEquals(snapshotOrderId(i), order.orderId(), "order id of entry " + i);
            assertEquals(snapshotOrderSide(i), order.side(), "side of entry " + i);
            assertEquals(snapshotOrderPrice(i), order.price(), "price of entry " + i);
            assertEquals(snapshotOrderQuantity(i), order.quantity(), "quantity of entry " + i);
            i++;
        }
        assertEquals(orderCount, i);
        assertConsumedExactly(received, decoder.limit());
    }

    /** One instrument or all (0), and requester ids across the uint32 range, above Integer.MAX_VALUE included. */
    static Stream<Arguments> snapshotRequests()
    {
        return Stream.of(
            Arguments.of(0, 0L),
            Arguments.of(1, 1L),
            Arguments.of(Integer.MAX_VALUE, 0x8000_0000L),
            Arguments.of(-1, SnapshotRequestEncoder.requesterIdMaxValue()));
    }

    @RoundTrips("SnapshotRequest")
    @ParameterizedTest(name = "instrument {0}, requester {1}")
    @MethodSource("snapshotRequests")
    void snapshotRequestRoundTripsEveryFieldForOneInstrumentOrAllWithRequesterIdsUpToTheUint32Maximum(
        final int instrumentId, final long requesterId)
    {
        final SnapshotRequestEncoder encoder = new SnapshotRequestEncoder()
            .wrapAndApplyHeader(buffer, 0, headerEncoder)
            .instrumentId(instrumentId)
            .requesterId(requesterId);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), SnapshotRequestDecoder.TEMPLATE_ID,
            SnapshotRequestDecoder.BLOCK_LENGTH);
        final SnapshotRequestDecoder decoder = new SnapshotRequestDecoder().wrap(received,
            headerDecoder.encodedLength(), headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(instrumentId, decoder.instrumentId());
        assertEquals(requesterId, decoder.requesterId());
        assertConsumedExactly(received, decoder.limit());
    }

    // ---------------------------------------------------------------------------------------------- benchmarks

    @RoundTrips("LatencyProbe")
    @ParameterizedTest(name = "{0} bytes of padding")
    @ValueSource(ints = { 0, 1, 200, 4096, 70_000 })
    void latencyProbeRoundTripsTimestampsAndPaddingIncludingPaddingLongerThan64KiB(final int paddingLength)
    {
        final byte[] padding = SampleMessages.randomBytes(new Random(paddingLength), paddingLength);
        final LatencyProbeEncoder encoder = new LatencyProbeEncoder().wrapAndApplyHeader(buffer, 0, headerEncoder)
            .sequence(123_456_789L)
            .sendTimestampNs(-9_876_543_210L)
            .echoTimestampNs(Long.MAX_VALUE)
            .putPadding(padding, 0, paddingLength);

        final DirectBuffer received = validatedCopy(encoder.encodedLength(), LatencyProbeDecoder.TEMPLATE_ID,
            LatencyProbeDecoder.BLOCK_LENGTH);
        final LatencyProbeDecoder decoder = new LatencyProbeDecoder().wrap(received, headerDecoder.encodedLength(),
            headerDecoder.blockLength(), headerDecoder.version());

        assertEquals(123_456_789L, decoder.sequence());
        assertEquals(-9_876_543_210L, decoder.sendTimestampNs());
        assertEquals(Long.MAX_VALUE, decoder.echoTimestampNs());
        assertEquals(paddingLength, decoder.paddingLength());
        final byte[] decodedPadding = new byte[decoder.paddingLength()];
        assertEquals(paddingLength, decoder.getPadding(decodedPadding, 0, decodedPadding.length));
        assertArrayEquals(padding, decodedPadding);
        assertConsumedExactly(received, decoder.limit());
    }

    // ---------------------------------------------------------------------------------------------- the schema

    @Test
    void schemaMessageIdsAreExactlyTheTemplatesTheValidatorKnows() throws Exception
    {
        final Set<Integer> schemaIds = new TreeSet<>(schemaMessages().values());
        final Set<Integer> validatorIds = new TreeSet<>();
        IntStream.rangeClosed(-1, 0xFFFF).filter(MessageValidator::isKnownTemplate).forEach(validatorIds::add);

        assertEquals(schemaIds, validatorIds);
    }

    @Test
    void schemaMessageIdsMatchTheGeneratedDecodersTemplateIds() throws Exception
    {
        for (final Map.Entry<String, Integer> message : schemaMessages().entrySet())
        {
            final Class<?> decoder = Class.forName("io.ringwire.codecs.trading." + message.getKey() + "Decoder");
            assertEquals(message.getValue(), decoder.getField("TEMPLATE_ID").get(null), message.getKey());
        }
    }

    @Test
    void everySchemaMessageHasARoundTripTestAndEveryRoundTripTestIsASchemaMessage() throws Exception
    {
        final Set<String> covered = new TreeSet<>();
        for (final Method method : MessageRoundTripTest.class.getDeclaredMethods())
        {
            final RoundTrips roundTrips = method.getAnnotation(RoundTrips.class);
            if (null != roundTrips)
            {
                assertTrue(covered.add(roundTrips.value()), "two round-trip tests claim " + roundTrips.value());
            }
        }

        assertEquals(new TreeSet<>(schemaMessages().keySet()), covered);
    }

    @Test
    void schemaGroupsAreFlatWithNoNestedGroupsOrVarDataInsideThemAsTheValidatorRequires() throws Exception
    {
        final NodeList groups = schema().getElementsByTagName("group");
        assertTrue(groups.getLength() > 0, "the schema has at least BookUpdate.levels");
        for (int i = 0; i < groups.getLength(); i++)
        {
            final Element group = (Element)groups.item(i);
            assertEquals(0, group.getElementsByTagName("group").getLength(),
                "group " + group.getAttribute("name") + " has a nested group");
            assertEquals(0, group.getElementsByTagName("data").getLength(),
                "group " + group.getAttribute("name") + " has var data inside its entries");
            final Element parent = (Element)group.getParentNode();
            assertEquals("message", parent.getLocalName(), "group " + group.getAttribute("name") + " parent");
        }
    }

    @Test
    void schemaIdAndVersionAreTheOnesTheGeneratedHeaderCarries() throws Exception
    {
        final Element root = schema().getDocumentElement();
        assertEquals(String.valueOf(MessageHeaderDecoder.SCHEMA_ID), root.getAttribute("id"));
        assertEquals(String.valueOf(MessageHeaderDecoder.SCHEMA_VERSION), root.getAttribute("version"));
        assertEquals("littleEndian", root.getAttribute("byteOrder"));
    }

    // ---------------------------------------------------------------------------------------------- support

    /**
     * Validates the message encoded at 0 of {@link #buffer} and returns a copy of exactly its bytes,
     * with {@link #headerDecoder} wrapped on the copy and checked.
     */
    private DirectBuffer validatedCopy(final int bodyLength, final int templateId, final int blockLength)
    {
        final int length = MessageHeaderEncoder.ENCODED_LENGTH + bodyLength;
        final DirectBuffer received = SampleMessages.exactCopy(buffer, 0, length);

        final int result = MessageValidator.validate(received, 0, length);
        assertEquals(length, result, () -> "validate: " + MessageValidator.describe(result));

        headerDecoder.wrap(received, 0);
        assertEquals(templateId, headerDecoder.templateId());
        assertEquals(MessageHeaderDecoder.SCHEMA_ID, headerDecoder.schemaId());
        assertEquals(MessageHeaderDecoder.SCHEMA_VERSION, headerDecoder.version());
        assertEquals(blockLength, headerDecoder.blockLength());
        return received;
    }

    private static void assertConsumedExactly(final DirectBuffer received, final int decoderLimit)
    {
        assertEquals(received.capacity(), decoderLimit, "the decoder's limit after reading everything");
    }

    /** Every value (but NULL_VAL) of each enum appears in some case, and the cases use nothing else. */
    private static void assertCasesCoverEveryValue(final Stream<Arguments> cases, final Enum<?>[]... enums)
    {
        final Set<Object> used = new HashSet<>();
        cases.forEach(arguments -> used.addAll(Arrays.asList(arguments.get())));
        final Set<Object> expected = new HashSet<>();
        for (final Enum<?>[] enumValues : enums)
        {
            expected.addAll(Arrays.asList(values(enumValues)));
        }
        assertEquals(expected, used);
    }

    /** The enum's constants without its NULL_VAL sentinel. */
    private static <E extends Enum<?>> E[] values(final E[] values)
    {
        final E[] real = Arrays.stream(values).filter(v -> !"NULL_VAL".equals(v.name()))
            .toArray(n -> Arrays.copyOf(values, n));
        assertFalse(real.length == values.length, "expected a NULL_VAL sentinel");
        return real;
    }

    private static Document schema() throws Exception
    {
        return SchemaXml.parse(SchemaXml.TRADING);
    }

    private static Map<String, Integer> schemaMessages() throws Exception
    {
        return SchemaXml.messages(schema());
    }
}
