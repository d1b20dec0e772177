package io.ringwire.perf.jmh;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The SBE work every order and report costs, one message at a time in a direct buffer: encoding a
 * NewOrder and an ExecutionReport with their header, decoding them, and the bounds and enum checks
 * ({@link MessageValidator#validate}) a receiver runs before it decodes. Each returns what it
 * computed, so the JIT cannot drop the work.
 *
 * <p>Threading: one benchmark thread per state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SbeCodecBenchmark
{
    private static final int BUFFER_LENGTH = 1024;
    private static final int REPORT_OFFSET = 512;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(BUFFER_LENGTH));
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final NewOrderEncoder orderEncoder = new NewOrderEncoder();
    private final NewOrderDecoder orderDecoder = new NewOrderDecoder();
    private final ExecutionReportEncoder reportEncoder = new ExecutionReportEncoder();
    private final ExecutionReportDecoder reportDecoder = new ExecutionReportDecoder();
    private int orderLength;
    private int reportLength;
    private long sequence;

    /**
     * Encodes one message of each kind, for the decode and validate benchmarks to read.
     */
    @Setup
    public void encodeSamples()
    {
        orderLength = encodeNewOrder();
        reportLength = encodeExecutionReport();
    }

    /**
     * @return the NewOrder's encoded length, header included.
     */
    @Benchmark
    public int encodeNewOrder()
    {
        final long id = ++sequence;
        orderEncoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientOrderId(id)
            .account(7)
            .instrumentId(1)
            .side(Side.BUY)
            .ordType(OrdType.LIMIT)
            .timeInForce(TimeInForce.DAY)
            .price(10_050)
            .quantity(100)
            .sendingTime(id)
            .postOnly(BooleanType.FALSE)
            .displayQuantity(0)
            .selfTradePrevention(SelfTradePrevention.CANCEL_RESTING)
            .receiveTime(0)
            .gatewaySendTime(0);
        return MessageHeaderEncoder.ENCODED_LENGTH + orderEncoder.encodedLength();
    }

    /**
     * @return a sum of the decoded fields.
     */
    @Benchmark
    public long decodeNewOrder()
    {
        headerDecoder.wrap(buffer, 0);
        orderDecoder.wrap(buffer, MessageHeaderDecoder.ENCODED_LENGTH, headerDecoder.blockLength(),
            headerDecoder.version());
        return orderDecoder.clientOrderId() + orderDecoder.account() + orderDecoder.instrumentId() +
            orderDecoder.price() + orderDecoder.quantity() + orderDecoder.side().value() +
            orderDecoder.ordType().value() + orderDecoder.timeInForce().value();
    }

    /**
     * @return the validated length (negative when refused; the sample is valid).
     */
    @Benchmark
    public int validateNewOrder()
    {
        return MessageValidator.validate(buffer, 0, orderLength);
    }

    /**
     * @return the ExecutionReport's encoded length, header included.
     */
    @Benchmark
    public int encodeExecutionReport()
    {
        final long id = ++sequence;
        reportEncoder.wrapAndApplyHeader(buffer, REPORT_OFFSET, headerEncoder)
            .exchangeOrderId(id)
            .clientOrderId(id)
            .execId(id)
            .account(7)
            .instrumentId(1)
            .execType(ExecType.NEW)
            .ordStatus(OrdStatus.NEW)
            .side(Side.BUY)
            .rejectReason(RejectReason.NONE)
            .lastPrice(0)
            .lastQuantity(0)
            .leavesQuantity(100)
            .cumulativeQuantity(0)
            .transactTime(id)
            .price(10_050)
            .orderQuantity(100)
            .ordType(OrdType.LIMIT)
            .timeInForce(TimeInForce.DAY)
            .engineSequence(id)
            .clientSendTime(0)
            .gatewayInTime(0)
            .gatewayOutTime(0)
            .engineInTime(0)
            .engineOutTime(0)
            .gatewayReplyTime(0)
            .replySequence(id);
        return MessageHeaderEncoder.ENCODED_LENGTH + reportEncoder.encodedLength();
    }

    /**
     * @return a sum of the decoded fields.
     */
    @Benchmark
    public long decodeExecutionReport()
    {
        headerDecoder.wrap(buffer, REPORT_OFFSET);
        reportDecoder.wrap(buffer, REPORT_OFFSET + MessageHeaderDecoder.ENCODED_LENGTH, headerDecoder.blockLength(),
            headerDecoder.version());
        return reportDecoder.exchangeOrderId() + reportDecoder.execId() + reportDecoder.leavesQuantity() +
            reportDecoder.cumulativeQuantity() + reportDecoder.price() + reportDecoder.execType().value() +
            reportDecoder.ordStatus().value() + reportDecoder.engineSequence();
    }

    /**
     * @return the validated length (negative when refused; the sample is valid).
     */
    @Benchmark
    public int validateExecutionReport()
    {
        return MessageValidator.validate(buffer, REPORT_OFFSET, reportLength);
    }
}
