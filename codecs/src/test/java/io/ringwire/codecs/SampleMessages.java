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
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Test support: valid encoded messages of every template of the schema, and of the released
 * version 1 of each template version 2 appended fields to (from the frozen codecs in
 * {@code io.ringwire.codecs.trading.v1}), and a decoder that reads every field, every group entry and
 * every var-data field of any trading message the way a receiver must: with the block length and
 * version from the header.
 */
final class SampleMessages
{
    static final int HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH;

    /** Every template id of the schema, in schema order. */
    static final int[] TEMPLATE_IDS = {
        LogonEncoder.TEMPLATE_ID,
        LogonResponseEncoder.TEMPLATE_ID,
        LogoutEncoder.TEMPLATE_ID,
        HeartbeatEncoder.TEMPLATE_ID,
        NewOrderEncoder.TEMPLATE_ID,
        CancelOrderEncoder.TEMPLATE_ID,
        ReplaceOrderEncoder.TEMPLATE_ID,
        MassCancelEncoder.TEMPLATE_ID,
        EngineCommandEncoder.TEMPLATE_ID,
        ExecutionReportEncoder.TEMPLATE_ID,
        BookUpdateEncoder.TEMPLATE_ID,
        TradeEncoder.TEMPLATE_ID,
        OrderAddedEncoder.TEMPLATE_ID,
        OrderExecutedEncoder.TEMPLATE_ID,
        OrderCanceledEncoder.TEMPLATE_ID,
        OrderReplacedEncoder.TEMPLATE_ID,
        BookSnapshotEncoder.TEMPLATE_ID,
        SnapshotRequestEncoder.TEMPLATE_ID,
        LatencyProbeEncoder.TEMPLATE_ID,
    };

    /** The block length of each of {@link #TEMPLATE_IDS} at the schema's version, same order. */
    static final int[] BLOCK_LENGTHS = {
        LogonEncoder.BLOCK_LENGTH,
        LogonResponseEncoder.BLOCK_LENGTH,
        LogoutEncoder.BLOCK_LENGTH,
        HeartbeatEncoder.BLOCK_LENGTH,
        NewOrderEncoder.BLOCK_LENGTH,
        CancelOrderEncoder.BLOCK_LENGTH,
        ReplaceOrderEncoder.BLOCK_LENGTH,
        MassCancelEncoder.BLOCK_LENGTH,
        EngineCommandEncoder.BLOCK_LENGTH,
        ExecutionReportEncoder.BLOCK_LENGTH,
        BookUpdateEncoder.BLOCK_LENGTH,
        TradeEncoder.BLOCK_LENGTH,
        OrderAddedEncoder.BLOCK_LENGTH,
        OrderExecutedEncoder.BLOCK_LENGTH,
        OrderCanceledEncoder.BLOCK_LENGTH,
        OrderReplacedEncoder.BLOCK_LENGTH,
        BookSnapshotEncoder.BLOCK_LENGTH,
        SnapshotRequestEncoder.BLOCK_LENGTH,
        LatencyProbeEncoder.BLOCK_LENGTH,
    };

    /** Templates of version 1 that version 2 appended fields to. */
    static final int[] GROWN_IN_VERSION_2_TEMPLATE_IDS = {
        io.ringwire.codecs.trading.v1.NewOrderEncoder.TEMPLATE_ID,
        io.ringwire.codecs.trading.v1.CancelOrderEncoder.TEMPLATE_ID,
        io.ringwire.codecs.trading.v1.ReplaceOrderEncoder.TEMPLATE_ID,
        io.ringwire.codecs.trading.v1.ExecutionReportEncoder.TEMPLATE_ID,
        io.ringwire.codecs.trading.v1.TradeEncoder.TEMPLATE_ID,
    };

    private SampleMessages()
    {
    }

    /**
     * One valid encoded message and where its length fields sit (offsets from the message start),
     * so a fuzzer can aim at them.
     *
     * @param name             for messages.
     * @param templateId       of the message.
     * @param bytes            exactly the encoded message, header included.
     * @param groupHeaders     offsets of group dimension headers.
     * @param varDataLengths   offsets of var-data length prefixes.
     * @param varDataWidths    widths of those prefixes (2 or 4).
     */
    record Encoded(
        String name, int templateId, byte[] bytes, int[] groupHeaders, int[] varDataLengths, int[] varDataWidths)
    {
        int length()
        {
            return bytes.length;
        }

        UnsafeBuffer exactBuffer()
        {
            return new UnsafeBuffer(bytes.clone());
        }

        @Override
        public String toString()
        {
            return name + "(" + bytes.length + " bytes)";
        }
    }

    /** A copy of {@code length} bytes of {@code src} from 0 in a buffer of exactly that capacity. */
    static UnsafeBuffer exactCopy(final DirectBuffer src, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        src.getBytes(offset, bytes, 0, length);
        return new UnsafeBuffer(bytes);
    }

    /**
     * A valid message of the template, every field set, with values drawn from {@code random}.
     *
     * @param templateId of the schema.
     * @param random     source of values, group counts and var-data lengths.
     * @return the message.
     */
    static Encoded randomValid(final int templateId, final Random random)
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        final List<Integer> groupHeaders = new ArrayList<>();
        final List<Integer> varDataLengths = new ArrayList<>();
        final List<Integer> varDataWidths = new ArrayList<>();
        final String name;
        final int length;
        switch (templateId)
        {
            case LogonEncoder.TEMPLATE_ID ->
            {
                name = "Logon";
                final LogonEncoder encoder = new LogonEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .sessionId(random.nextLong())
                    .heartbeatIntervalMs(random.nextInt())
                    .sendingTime(random.nextLong())
                    .nextReplySequence(random.nextLong());
                varDataLengths.add(encoder.limit());
                varDataWidths.add(LogonEncoder.credentialsHeaderLength());
                final byte[] credentials = randomBytes(random, random.nextInt(48));
                encoder.putCredentials(credentials, 0, credentials.length);
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case LogonResponseEncoder.TEMPLATE_ID ->
            {
                name = "LogonResponse";
                final LogonResponseEncoder encoder = new LogonResponseEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .sessionId(random.nextLong())
                    .status(pick(random, LogonStatus.values()))
                    .rejectReason(pick(random, LogonRejectReason.values()))
                    .heartbeatIntervalMs(random.nextInt())
                    .sendingTime(random.nextLong())
                    .nextReplySequence(random.nextLong());
                varDataLengths.add(encoder.limit());
                varDataWidths.add(LogonResponseEncoder.reasonTextHeaderLength());
                final byte[] text = randomBytes(random, random.nextInt(48));
                encoder.putReasonText(text, 0, text.length);
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case LogoutEncoder.TEMPLATE_ID ->
            {
                name = "Logout";
                final LogoutEncoder encoder = new LogoutEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .sessionId(random.nextLong())
                    .sendingTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case HeartbeatEncoder.TEMPLATE_ID ->
            {
                name = "Heartbeat";
                final HeartbeatEncoder encoder = new HeartbeatEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .sessionId(random.nextLong())
                    .sendingTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case NewOrderEncoder.TEMPLATE_ID ->
            {
                name = "NewOrder";
                final NewOrderEncoder encoder = new NewOrderEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .clientOrderId(random.nextLong())
                    .account(random.nextLong())
                    .instrumentId(random.nextInt())
                    .side(pick(random, Side.values()))
                    .ordType(pick(random, OrdType.values()))
                    .timeInForce(pick(random, TimeInForce.values()))
                    .price(random.nextLong())
                    .quantity(random.nextLong() & Long.MAX_VALUE)
                    .sendingTime(random.nextLong())
                    .postOnly(pick(random, BooleanType.values()))
                    .displayQuantity(random.nextLong() & Long.MAX_VALUE)
                    .selfTradePrevention(pick(random, SelfTradePrevention.values()))
                    .receiveTime(random.nextLong())
                    .gatewaySendTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case CancelOrderEncoder.TEMPLATE_ID ->
            {
                name = "CancelOrder";
                final CancelOrderEncoder encoder = new CancelOrderEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .clientOrderId(random.nextLong())
                    .origClientOrderId(random.nextLong())
                    .account(random.nextLong())
                    .instrumentId(random.nextInt())
                    .side(pick(random, Side.values()))
                    .sendingTime(random.nextLong())
                    .receiveTime(random.nextLong())
                    .gatewaySendTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case ReplaceOrderEncoder.TEMPLATE_ID ->
            {
                name = "ReplaceOrder";
                final ReplaceOrderEncoder encoder = new ReplaceOrderEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .clientOrderId(random.nextLong())
                    .origClientOrderId(random.nextLong())
                    .account(random.nextLong())
                    .instrumentId(random.nextInt())
                    .side(pick(random, Side.values()))
                    .price(random.nextLong())
                    .quantity(random.nextLong() & Long.MAX_VALUE)
                    .sendingTime(random.nextLong())
                    .receiveTime(random.nextLong())
                    .gatewaySendTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case MassCancelEncoder.TEMPLATE_ID ->
            {
                name = "MassCancel";
                final MassCancelEncoder encoder = new MassCancelEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .clientOrderId(random.nextLong())
                    .account(random.nextLong())
                    .instrumentId(random.nextInt(4) == 0 ? 0 : random.nextInt())
                    .sendingTime(random.nextLong())
                    .receiveTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case EngineCommandEncoder.TEMPLATE_ID ->
            {
                name = "EngineCommand";
                final EngineCommandEncoder encoder = new EngineCommandEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .command(pick(random, EngineCommandType.values()))
                    .sendingTime(random.nextLong())
                    .receiveTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case ExecutionReportEncoder.TEMPLATE_ID ->
            {
                name = "ExecutionReport";
                final ExecutionReportEncoder encoder = new ExecutionReportEncoder()
                    .wrapAndApplyHeader(buffer, 0, header)
                    .exchangeOrderId(random.nextLong())
                    .clientOrderId(random.nextLong())
                    .execId(random.nextLong())
                    .account(random.nextLong())
                    .instrumentId(random.nextInt())
                    .execType(pick(random, ExecType.values()))
                    .ordStatus(pick(random, OrdStatus.values()))
                    .side(pick(random, Side.values()))
                    .rejectReason(pick(random, RejectReason.values()))
                    .lastPrice(random.nextLong())
                    .lastQuantity(random.nextLong() & Long.MAX_VALUE)
                    .leavesQuantity(random.nextLong() & Long.MAX_VALUE)
                    .cumulativeQuantity(random.nextLong() & Long.MAX_VALUE)
                    .transactTime(random.nextLong())
                    .price(random.nextLong())
                    .orderQuantity(random.nextLong() & Long.MAX_VALUE)
                    .ordType(pick(random, OrdType.values()))
                    .timeInForce(pick(random, TimeInForce.values()))
                    .engineSequence(random.nextLong())
                    .clientSendTime(random.nextLong())
                    .gatewayInTime(random.nextLong())
                    .gatewayOutTime(random.nextLong())
                    .engineInTime(random.nextLong())
                    .engineOutTime(random.nextLong())
                    .gatewayReplyTime(random.nextLong())
                    .replySequence(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case BookUpdateEncoder.TEMPLATE_ID ->
            {
                name = "BookUpdate";
                final BookUpdateEncoder encoder = new BookUpdateEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .instrumentId(random.nextInt())
                    .sequenceNumber(random.nextLong())
                    .transactTime(random.nextLong());
                groupHeaders.add(encoder.limit());
                final int count = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(8);
                final BookUpdateEncoder.LevelsEncoder levels = encoder.levelsCount(count);
                for (int i = 0; i < count; i++)
                {
                    levels.next()
                        .action(pick(random, BookAction.values()))
                        .side(pick(random, Side.values()))
                        .price(random.nextLong())
                        .quantity(random.nextLong() & Long.MAX_VALUE)
                        .orderCount(random.nextInt(1000));
                }
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case TradeEncoder.TEMPLATE_ID ->
            {
                name = "Trade";
                final TradeEncoder encoder = new TradeEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .instrumentId(random.nextInt())
                    .sequenceNumber(random.nextLong())
                    .tradeId(random.nextLong())
                    .price(random.nextLong())
                    .quantity(random.nextLong() & Long.MAX_VALUE)
                    .aggressorSide(pick(random, Side.values()))
                    .transactTime(random.nextLong())
                    .streamSequence(random.nextLong())
                    .buyOrderId(random.nextLong())
                    .sellOrderId(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case OrderAddedEncoder.TEMPLATE_ID ->
            {
                name = "OrderAdded";
                final OrderAddedEncoder encoder = new OrderAddedEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .instrumentId(random.nextInt())
                    .sequenceNumber(random.nextLong())
                    .streamSequence(random.nextLong())
                    .orderId(random.nextLong())
                    .side(pick(random, Side.values()))
                    .price(random.nextLong())
                    .quantity(random.nextLong() & Long.MAX_VALUE)
                    .transactTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case OrderExecutedEncoder.TEMPLATE_ID ->
            {
                name = "OrderExecuted";
                final OrderExecutedEncoder encoder = new OrderExecutedEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .instrumentId(random.nextInt())
                    .sequenceNumber(random.nextLong())
                    .streamSequence(random.nextLong())
                    .orderId(random.nextLong())
                    .executedQuantity(random.nextLong() & Long.MAX_VALUE)
                    .price(random.nextLong())
                    .matchId(random.nextLong())
                    .transactTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case OrderCanceledEncoder.TEMPLATE_ID ->
            {
                name = "OrderCanceled";
                final OrderCanceledEncoder encoder = new OrderCanceledEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .instrumentId(random.nextInt())
                    .sequenceNumber(random.nextLong())
                    .streamSequence(random.nextLong())
                    .orderId(random.nextLong())
                    .canceledQuantity(random.nextLong() & Long.MAX_VALUE)
                    .remainingQuantity(random.nextBoolean() ? 0 : random.nextLong() & Long.MAX_VALUE)
                    .transactTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case OrderReplacedEncoder.TEMPLATE_ID ->
            {
                name = "OrderReplaced";
                final OrderReplacedEncoder encoder = new OrderReplacedEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .instrumentId(random.nextInt())
                    .sequenceNumber(random.nextLong())
                    .streamSequence(random.nextLong())
                    .orderId(random.nextLong())
                    .price(random.nextLong())
                    .quantity(random.nextLong() & Long.MAX_VALUE)
                    .keepsPriority(pick(random, BooleanType.values()))
                    .transactTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case BookSnapshotEncoder.TEMPLATE_ID ->
            {
                name = "BookSnapshot";
                final BookSnapshotEncoder encoder = new BookSnapshotEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .instrumentId(random.nextInt())
                    .sequenceNumber(random.nextLong())
                    .streamSequence(random.nextLong())
                    .part(random.nextInt(BookSnapshotEncoder.partMaxValue() + 1))
                    .lastPart(pick(random, BooleanType.values()));
                groupHeaders.add(encoder.limit());
                // A quarter are empty: the snapshot of an empty book is one empty last part.
                final int count = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(8);
                final BookSnapshotEncoder.OrdersEncoder orders = encoder.ordersCount(count);
                for (int i = 0; i < count; i++)
                {
                    orders.next()
                        .orderId(random.nextLong())
                        .side(pick(random, Side.values()))
                        .price(random.nextLong())
                        .quantity(random.nextLong() & Long.MAX_VALUE);
                }
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case SnapshotRequestEncoder.TEMPLATE_ID ->
            {
                name = "SnapshotRequest";
                final SnapshotRequestEncoder encoder = new SnapshotRequestEncoder()
                    .wrapAndApplyHeader(buffer, 0, header)
                    .instrumentId(random.nextInt(4) == 0 ? 0 : random.nextInt())
                    .requesterId(random.nextInt() & 0xFFFF_FFFFL);
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case LatencyProbeEncoder.TEMPLATE_ID ->
            {
                name = "LatencyProbe";
                final LatencyProbeEncoder encoder = new LatencyProbeEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .sequence(random.nextLong())
                    .sendTimestampNs(random.nextLong())
                    .echoTimestampNs(random.nextLong());
                varDataLengths.add(encoder.limit());
                varDataWidths.add(LatencyProbeEncoder.paddingHeaderLength());
                final byte[] padding = randomBytes(random, random.nextInt(4) == 0 ? 0 : random.nextInt(96));
                encoder.putPadding(padding, 0, padding.length);
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            default -> throw new IllegalArgumentException("no such template " + templateId);
        }

        return new Encoded(name, templateId, Arrays.copyOf(buffer.byteArray(), length),
            toArray(groupHeaders), toArray(varDataLengths), toArray(varDataWidths));
    }

    /**
     * A valid message of the released version 1, from its frozen codecs: a version-1 header and
     * version 1's shorter block.
     *
     * @param templateId one of {@link #GROWN_IN_VERSION_2_TEMPLATE_IDS}.
     * @param random     source of values.
     * @return the message.
     */
    static Encoded randomValidVersion1(final int templateId, final Random random)
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
        final io.ringwire.codecs.trading.v1.MessageHeaderEncoder header =
            new io.ringwire.codecs.trading.v1.MessageHeaderEncoder();
        final String name;
        final int length;
        switch (templateId)
        {
            case io.ringwire.codecs.trading.v1.NewOrderEncoder.TEMPLATE_ID ->
            {
                name = "NewOrder.v1";
                final io.ringwire.codecs.trading.v1.NewOrderEncoder encoder =
                    new io.ringwire.codecs.trading.v1.NewOrderEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .clientOrderId(random.nextLong())
                    .account(random.nextLong())
                    .instrumentId(random.nextInt())
                    .side(pick(random, io.ringwire.codecs.trading.v1.Side.values()))
                    .ordType(pick(random, io.ringwire.codecs.trading.v1.OrdType.values()))
                    .timeInForce(pick(random, io.ringwire.codecs.trading.v1.TimeInForce.values()))
                    .price(random.nextLong())
                    .quantity(random.nextLong() & Long.MAX_VALUE)
                    .sendingTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case io.ringwire.codecs.trading.v1.CancelOrderEncoder.TEMPLATE_ID ->
            {
                name = "CancelOrder.v1";
                final io.ringwire.codecs.trading.v1.CancelOrderEncoder encoder =
                    new io.ringwire.codecs.trading.v1.CancelOrderEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .clientOrderId(random.nextLong())
                    .origClientOrderId(random.nextLong())
                    .account(random.nextLong())
                    .instrumentId(random.nextInt())
                    .side(pick(random, io.ringwire.codecs.trading.v1.Side.values()))
                    .sendingTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case io.ringwire.codecs.trading.v1.ReplaceOrderEncoder.TEMPLATE_ID ->
            {
                name = "ReplaceOrder.v1";
                final io.ringwire.codecs.trading.v1.ReplaceOrderEncoder encoder =
                    new io.ringwire.codecs.trading.v1.ReplaceOrderEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .clientOrderId(random.nextLong())
                    .origClientOrderId(random.nextLong())
                    .account(random.nextLong())
                    .instrumentId(random.nextInt())
                    .side(pick(random, io.ringwire.codecs.trading.v1.Side.values()))
                    .price(random.nextLong())
                    .quantity(random.nextLong() & Long.MAX_VALUE)
                    .sendingTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case io.ringwire.codecs.trading.v1.ExecutionReportEncoder.TEMPLATE_ID ->
            {
                name = "ExecutionReport.v1";
                final io.ringwire.codecs.trading.v1.ExecutionReportEncoder encoder =
                    new io.ringwire.codecs.trading.v1.ExecutionReportEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .exchangeOrderId(random.nextLong())
                    .clientOrderId(random.nextLong())
                    .execId(random.nextLong())
                    .account(random.nextLong())
                    .instrumentId(random.nextInt())
                    .execType(pick(random, io.ringwire.codecs.trading.v1.ExecType.values()))
                    .ordStatus(pick(random, io.ringwire.codecs.trading.v1.OrdStatus.values()))
                    .side(pick(random, io.ringwire.codecs.trading.v1.Side.values()))
                    .rejectReason(pick(random, io.ringwire.codecs.trading.v1.RejectReason.values()))
                    .lastPrice(random.nextLong())
                    .lastQuantity(random.nextLong() & Long.MAX_VALUE)
                    .leavesQuantity(random.nextLong() & Long.MAX_VALUE)
                    .cumulativeQuantity(random.nextLong() & Long.MAX_VALUE)
                    .transactTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            case io.ringwire.codecs.trading.v1.TradeEncoder.TEMPLATE_ID ->
            {
                name = "Trade.v1";
                final io.ringwire.codecs.trading.v1.TradeEncoder encoder =
                    new io.ringwire.codecs.trading.v1.TradeEncoder().wrapAndApplyHeader(buffer, 0, header)
                    .instrumentId(random.nextInt())
                    .sequenceNumber(random.nextLong())
                    .tradeId(random.nextLong())
                    .price(random.nextLong())
                    .quantity(random.nextLong() & Long.MAX_VALUE)
                    .aggressorSide(pick(random, io.ringwire.codecs.trading.v1.Side.values()))
                    .transactTime(random.nextLong());
                length = HEADER_LENGTH + encoder.encodedLength();
            }
            default -> throw new IllegalArgumentException("not a template version 2 appended fields to: " + templateId);
        }

        return new Encoded(name, templateId, Arrays.copyOf(buffer.byteArray(), length), new int[0], new int[0],
            new int[0]);
    }

    /** One valid example of every template, each with a non-empty group or var data where it has one. */
    static List<Encoded> oneOfEach()
    {
        final Random random = new Random(0x5EED_0001L);
        final List<Encoded> messages = new ArrayList<>();
        for (final int templateId : TEMPLATE_IDS)
        {
            Encoded encoded;
            do
            {
                encoded = randomValid(templateId, random);
            }
            while (!hasNonEmptyTail(encoded));
            messages.add(encoded);
        }
        return messages;
    }

    private static boolean hasNonEmptyTail(final Encoded encoded)
    {
        final UnsafeBuffer buffer = encoded.exactBuffer();
        for (final int at : encoded.groupHeaders())
        {
            if (0 == buffer.getShort(at + 2, MessageHeaderDecoder.BYTE_ORDER))
            {
                return false;
            }
        }
        for (int i = 0; i < encoded.varDataLengths().length; i++)
        {
            final int at = encoded.varDataLengths()[i];
            final long length = 2 == encoded.varDataWidths()[i] ?
                buffer.getShort(at, MessageHeaderDecoder.BYTE_ORDER) : buffer.getInt(at, MessageHeaderDecoder.BYTE_ORDER);
            if (0 == length)
            {
                return false;
            }
        }
        return true;
    }

    static byte[] randomBytes(final Random random, final int length)
    {
        final byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    /** A random constant of the enum, never its NULL_VAL. */
    static <E extends Enum<E>> E pick(final Random random, final E[] values)
    {
        E value;
        do
        {
            value = values[random.nextInt(values.length)];
        }
        while ("NULL_VAL".equals(value.name()));
        return value;
    }

    private static int[] toArray(final List<Integer> list)
    {
        return list.stream().mapToInt(Integer::intValue).toArray();
    }

    /** A string of exactly {@code byteLength} UTF-8 bytes, mixing one- and multi-byte characters. */
    static String utf8OfLength(final int byteLength)
    {
        final StringBuilder builder = new StringBuilder();
        int bytes = 0;
        int i = 0;
        while (bytes < byteLength)
        {
            final String next = (byteLength - bytes >= 3 && i % 4 == 3) ? "\u20AC" : String.valueOf((char)('a' + i % 26));
            builder.append(next);
            bytes += next.getBytes(StandardCharsets.UTF_8).length;
            i++;
        }
        return builder.toString();
    }

    /**
     * Reads a whole trading message as a receiver does: header first, then the template's decoder
     * wrapped with the header's block length and version, every fixed field, every group entry and
     * every var-data field (copied into a byte[]). Enum fields are read raw: the validator checks
     * structure, not enum values. Fields a version appended read as their null values, without
     * touching the buffer, when the header's version predates them.
     */
    static final class FullDecoder
    {
        private final MessageHeaderDecoder header = new MessageHeaderDecoder();
        private final LogonDecoder logon = new LogonDecoder();
        private final LogonResponseDecoder logonResponse = new LogonResponseDecoder();
        private final LogoutDecoder logout = new LogoutDecoder();
        private final HeartbeatDecoder heartbeat = new HeartbeatDecoder();
        private final NewOrderDecoder newOrder = new NewOrderDecoder();
        private final CancelOrderDecoder cancelOrder = new CancelOrderDecoder();
        private final ReplaceOrderDecoder replaceOrder = new ReplaceOrderDecoder();
        private final MassCancelDecoder massCancel = new MassCancelDecoder();
        private final EngineCommandDecoder engineCommand = new EngineCommandDecoder();
        private final ExecutionReportDecoder executionReport = new ExecutionReportDecoder();
        private final BookUpdateDecoder bookUpdate = new BookUpdateDecoder();
        private final TradeDecoder trade = new TradeDecoder();
        private final OrderAddedDecoder orderAdded = new OrderAddedDecoder();
        private final OrderExecutedDecoder orderExecuted = new OrderExecutedDecoder();
        private final OrderCanceledDecoder orderCanceled = new OrderCanceledDecoder();
        private final OrderReplacedDecoder orderReplaced = new OrderReplacedDecoder();
        private final BookSnapshotDecoder bookSnapshot = new BookSnapshotDecoder();
        private final SnapshotRequestDecoder snapshotRequest = new SnapshotRequestDecoder();
        private final LatencyProbeDecoder latencyProbe = new LatencyProbeDecoder();

        /** Sum of everything read, so the reads have an observable result. */
        long checksum;
        /** Group entries and var-data bytes read so far. */
        long groupEntriesRead;
        long varDataBytesRead;

        /**
         * @param buffer holding the message.
         * @param offset of its header.
         * @return bytes the decoder consumed, header included (its final limit minus {@code offset}).
         * @throws IndexOutOfBoundsException when a read leaves the buffer.
         */
        int decode(final DirectBuffer buffer, final int offset)
        {
            header.wrap(buffer, offset);
            final int body = offset + header.encodedLength();
            final int blockLength = header.blockLength();
            final int version = header.version();
            long sum = header.schemaId() + header.templateId();
            final int limit;
            switch (header.templateId())
            {
                case LogonDecoder.TEMPLATE_ID ->
                {
                    final LogonDecoder d = logon.wrap(buffer, body, blockLength, version);
                    sum += d.sessionId() + d.heartbeatIntervalMs() + d.sendingTime();
                    final byte[] credentials = new byte[d.credentialsLength()];
                    d.getCredentials(credentials, 0, credentials.length);
                    sum += sum(credentials);
                    limit = d.limit();
                }
                case LogonResponseDecoder.TEMPLATE_ID ->
                {
                    final LogonResponseDecoder d = logonResponse.wrap(buffer, body, blockLength, version);
                    sum += d.sessionId() + d.statusRaw() + d.rejectReasonRaw() + d.heartbeatIntervalMs() +
                        d.sendingTime();
                    final byte[] text = new byte[d.reasonTextLength()];
                    d.getReasonText(text, 0, text.length);
                    sum += sum(text);
                    limit = d.limit();
                }
                case LogoutDecoder.TEMPLATE_ID ->
                {
                    final LogoutDecoder d = logout.wrap(buffer, body, blockLength, version);
                    sum += d.sessionId() + d.sendingTime();
                    limit = d.limit();
                }
                case HeartbeatDecoder.TEMPLATE_ID ->
                {
                    final HeartbeatDecoder d = heartbeat.wrap(buffer, body, blockLength, version);
                    sum += d.sessionId() + d.sendingTime();
                    limit = d.limit();
                }
                case NewOrderDecoder.TEMPLATE_ID ->
                {
                    final NewOrderDecoder d = newOrder.wrap(buffer, body, blockLength, version);
                    sum += d.clientOrderId() + d.account() + d.instrumentId() + d.sideRaw() + d.ordTypeRaw() +
                        d.timeInForceRaw() + d.price() + d.quantity() + d.sendingTime() + d.postOnlyRaw() +
                        d.displayQuantity() + d.selfTradePreventionRaw() + d.receiveTime() + d.gatewaySendTime();
                    limit = d.limit();
                }
                case CancelOrderDecoder.TEMPLATE_ID ->
                {
                    final CancelOrderDecoder d = cancelOrder.wrap(buffer, body, blockLength, version);
                    sum += d.clientOrderId() + d.origClientOrderId() + d.account() + d.instrumentId() +
                        d.sideRaw() + d.sendingTime() + d.receiveTime() + d.gatewaySendTime();
                    limit = d.limit();
                }
                case ReplaceOrderDecoder.TEMPLATE_ID ->
                {
                    final ReplaceOrderDecoder d = replaceOrder.wrap(buffer, body, blockLength, version);
                    sum += d.clientOrderId() + d.origClientOrderId() + d.account() + d.instrumentId() +
                        d.sideRaw() + d.price() + d.quantity() + d.sendingTime() + d.receiveTime() +
                        d.gatewaySendTime();
                    limit = d.limit();
                }
                case MassCancelDecoder.TEMPLATE_ID ->
                {
                    final MassCancelDecoder d = massCancel.wrap(buffer, body, blockLength, version);
                    sum += d.clientOrderId() + d.account() + d.instrumentId() + d.sendingTime() + d.receiveTime();
                    limit = d.limit();
                }
                case EngineCommandDecoder.TEMPLATE_ID ->
                {
                    final EngineCommandDecoder d = engineCommand.wrap(buffer, body, blockLength, version);
                    sum += d.commandRaw() + d.sendingTime() + d.receiveTime();
                    limit = d.limit();
                }
                case ExecutionReportDecoder.TEMPLATE_ID ->
                {
                    final ExecutionReportDecoder d = executionReport.wrap(buffer, body, blockLength, version);
                    sum += d.exchangeOrderId() + d.clientOrderId() + d.execId() + d.account() + d.instrumentId() +
                        d.execTypeRaw() + d.ordStatusRaw() + d.sideRaw() + d.rejectReasonRaw() + d.lastPrice() +
                        d.lastQuantity() + d.leavesQuantity() + d.cumulativeQuantity() + d.transactTime() +
                        d.price() + d.orderQuantity() + d.ordTypeRaw() + d.timeInForceRaw() + d.engineSequence() +
                        d.clientSendTime() + d.gatewayInTime() + d.gatewayOutTime() + d.engineInTime() +
                        d.engineOutTime() + d.gatewayReplyTime() + d.replySequence();
                    limit = d.limit();
                }
                case BookUpdateDecoder.TEMPLATE_ID ->
                {
                    final BookUpdateDecoder d = bookUpdate.wrap(buffer, body, blockLength, version);
                    sum += d.instrumentId() + d.sequenceNumber() + d.transactTime();
                    for (final BookUpdateDecoder.LevelsDecoder level : d.levels())
                    {
                        sum += level.actionRaw() + level.sideRaw() + level.price() + level.quantity() +
                            level.orderCount();
                        groupEntriesRead++;
                    }
                    limit = d.limit();
                }
                case TradeDecoder.TEMPLATE_ID ->
                {
                    final TradeDecoder d = trade.wrap(buffer, body, blockLength, version);
                    sum += d.instrumentId() + d.sequenceNumber() + d.tradeId() + d.price() + d.quantity() +
                        d.aggressorSideRaw() + d.transactTime() + d.streamSequence() + d.buyOrderId() +
                        d.sellOrderId();
                    limit = d.limit();
                }
                case OrderAddedDecoder.TEMPLATE_ID ->
                {
                    final OrderAddedDecoder d = orderAdded.wrap(buffer, body, blockLength, version);
                    sum += d.instrumentId() + d.sequenceNumber() + d.streamSequence() + d.orderId() + d.sideRaw() +
                        d.price() + d.quantity() + d.transactTime();
                    limit = d.limit();
                }
                case OrderExecutedDecoder.TEMPLATE_ID ->
                {
                    final OrderExecutedDecoder d = orderExecuted.wrap(buffer, body, blockLength, version);
                    sum += d.instrumentId() + d.sequenceNumber() + d.streamSequence() + d.orderId() +
                        d.executedQuantity() + d.price() + d.matchId() + d.transactTime();
                    limit = d.limit();
                }
                case OrderCanceledDecoder.TEMPLATE_ID ->
                {
                    final OrderCanceledDecoder d = orderCanceled.wrap(buffer, body, blockLength, version);
                    sum += d.instrumentId() + d.sequenceNumber() + d.streamSequence() + d.orderId() +
                        d.canceledQuantity() + d.remainingQuantity() + d.transactTime();
                    limit = d.limit();
                }
                case OrderReplacedDecoder.TEMPLATE_ID ->
                {
                    final OrderReplacedDecoder d = orderReplaced.wrap(buffer, body, blockLength, version);
                    sum += d.instrumentId() + d.sequenceNumber() + d.streamSequence() + d.orderId() + d.price() +
                        d.quantity() + d.keepsPriorityRaw() + d.transactTime();
                    limit = d.limit();
                }
                case BookSnapshotDecoder.TEMPLATE_ID ->
                {
                    final BookSnapshotDecoder d = bookSnapshot.wrap(buffer, body, blockLength, version);
                    sum += d.instrumentId() + d.sequenceNumber() + d.streamSequence() + d.part() + d.lastPartRaw();
                    for (final BookSnapshotDecoder.OrdersDecoder order : d.orders())
                    {
                        sum += order.orderId() + order.sideRaw() + order.price() + order.quantity();
                        groupEntriesRead++;
                    }
                    limit = d.limit();
                }
                case SnapshotRequestDecoder.TEMPLATE_ID ->
                {
                    final SnapshotRequestDecoder d = snapshotRequest.wrap(buffer, body, blockLength, version);
                    sum += d.instrumentId() + d.requesterId();
                    limit = d.limit();
                }
                case LatencyProbeDecoder.TEMPLATE_ID ->
                {
                    final LatencyProbeDecoder d = latencyProbe.wrap(buffer, body, blockLength, version);
                    sum += d.sequence() + d.sendTimestampNs() + d.echoTimestampNs();
                    final byte[] padding = new byte[d.paddingLength()];
                    d.getPadding(padding, 0, padding.length);
                    sum += sum(padding);
                    limit = d.limit();
                }
                default -> throw new IllegalArgumentException("not a trading template: " + header.templateId());
            }
            checksum += sum;
            return limit - offset;
        }

        private long sum(final byte[] bytes)
        {
            varDataBytesRead += bytes.length;
            long sum = 0;
            for (final byte b : bytes)
            {
                sum = sum * 31 + b;
            }
            return sum;
        }
    }

    /** Writes a header; for crafting messages the encoders would refuse to produce. */
    static void putHeader(
        final MutableDirectBuffer buffer,
        final int offset,
        final int blockLength,
        final int templateId,
        final int schemaId,
        final int version)
    {
        new MessageHeaderEncoder().wrap(buffer, offset)
            .blockLength(blockLength)
            .templateId(templateId)
            .schemaId(schemaId)
            .version(version);
    }
}
