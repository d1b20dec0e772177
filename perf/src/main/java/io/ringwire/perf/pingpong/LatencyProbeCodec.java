package io.ringwire.perf.pingpong;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.LatencyProbeDecoder;
import io.ringwire.codecs.trading.LatencyProbeEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The SBE {@code LatencyProbe} (template 90 of the trading schema) as the messaging ping-pong sends
 * it, encoded straight into a publication's claimed frame and decoded in place from a subscription's
 * ring:
 *
 * <pre>
 *   0: message header (8)  | 8: sequence (8) | 16: sendTimestampNs (8) | 24: echoTimestampNs (8)
 *  32: padding length (4)  | 36: padding bytes up to --size
 * </pre>
 *
 * The pinger sends echoTimestampNs 0 and zero padding; the ponger echoes sequence, send timestamp
 * and padding unchanged, and leaves echoTimestampNs 0 (it reads no clock, like the bare channel's
 * ponger it is compared with). A probe with sequence {@link #STOP_SEQUENCE} ends
 * the run after it is echoed.
 *
 * <p>Decoding validates first with {@link MessageValidator}, as every receiver of the schema does.
 *
 * <p>Threading: one instance per thread (it holds flyweights). Allocation-free after construction.
 */
public final class LatencyProbeCodec
{
    /** Smallest probe: header, the three fixed fields and the padding's length. */
    public static final int MIN_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH + LatencyProbeEncoder.BLOCK_LENGTH +
        LatencyProbeEncoder.paddingHeaderLength();
    /** Sequence of the last probe of a run. */
    public static final long STOP_SEQUENCE = -1;
    /** {@link #decode} result: a valid message of another template. */
    static final int NOT_A_PROBE = -1000;
    /** {@link #decode} result: the message does not fill the frame's payload exactly. */
    static final int LENGTH_MISMATCH = -1001;

    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final LatencyProbeEncoder encoder = new LatencyProbeEncoder();
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final LatencyProbeDecoder decoder = new LatencyProbeDecoder();
    /** The decoded probe's padding, in place. */
    private final UnsafeBuffer padding = new UnsafeBuffer(new byte[0]);

    private long sequence;
    private long sendTimestampNs;
    private long echoTimestampNs;

    /**
     * @param size the size asked for (--size).
     * @return the length of the probe sent for it: {@code size}, at least {@link #MIN_LENGTH}.
     */
    public static int messageLength(final int size)
    {
        return Math.max(size, MIN_LENGTH);
    }

    /**
     * @param messageLength a probe's length.
     * @return the padding bytes that make it that long.
     */
    public static int paddingLength(final int messageLength)
    {
        return messageLength - MIN_LENGTH;
    }

    /**
     * @param paddingLength bytes of padding a probe carries.
     * @return that many zero bytes, to send as its padding.
     */
    public static DirectBuffer zeroPadding(final int paddingLength)
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, paddingLength)));
    }

    /**
     * Encodes a probe.
     *
     * @param buffer          to encode into (a claimed frame).
     * @param offset          where the message starts.
     * @param sequence        the probe's sequence.
     * @param sendTimestampNs the pinger's clock before it claimed the frame.
     * @param echoTimestampNs the echo's timestamp (0 on both ways in the benchmark).
     * @param paddingSource   the padding bytes.
     * @param paddingOffset   where they start.
     * @param paddingLength   how many.
     * @return the encoded length.
     */
    public int encode(final MutableDirectBuffer buffer, final int offset, final long sequence, final long sendTimestampNs,
        final long echoTimestampNs, final DirectBuffer paddingSource, final int paddingOffset, final int paddingLength)
    {
        encoder.wrapAndApplyHeader(buffer, offset, headerEncoder)
            .sequence(sequence)
            .sendTimestampNs(sendTimestampNs)
            .echoTimestampNs(echoTimestampNs)
            .putPadding(paddingSource, paddingOffset, paddingLength);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    /**
     * Validates and decodes a probe; the fields are then available from the accessors.
     *
     * @param buffer holding the message.
     * @param offset of the message header.
     * @param length the frame's payload length.
     * @return the message length, or a negative code for {@link #describe(int)}.
     */
    public int decode(final DirectBuffer buffer, final int offset, final int length)
    {
        final int validated = MessageValidator.validate(buffer, offset, length);
        if (validated < 0)
        {
            return validated;
        }
        if (validated != length)
        {
            return LENGTH_MISMATCH;
        }
        headerDecoder.wrap(buffer, offset);
        if (headerDecoder.templateId() != LatencyProbeDecoder.TEMPLATE_ID)
        {
            return NOT_A_PROBE;
        }
        decoder.wrap(buffer, offset + MessageHeaderDecoder.ENCODED_LENGTH, headerDecoder.blockLength(),
            headerDecoder.version());
        sequence = decoder.sequence();
        sendTimestampNs = decoder.sendTimestampNs();
        echoTimestampNs = decoder.echoTimestampNs();
        decoder.wrapPadding(padding);
        return validated;
    }

    /**
     * @param code a negative result of {@link #decode}.
     * @return why the message was refused.
     */
    public static String describe(final int code)
    {
        return switch (code)
        {
            case NOT_A_PROBE -> "a valid message, but not a LatencyProbe";
            case LENGTH_MISMATCH -> "the LatencyProbe does not fill its frame";
            default -> MessageValidator.describe(code);
        };
    }

    /** @return the decoded sequence. */
    public long sequence()
    {
        return sequence;
    }

    /** @return the decoded send timestamp. */
    public long sendTimestampNs()
    {
        return sendTimestampNs;
    }

    /** @return the decoded echo timestamp. */
    public long echoTimestampNs()
    {
        return echoTimestampNs;
    }

    /** @return the decoded padding, in place (valid until the handler returns). */
    public DirectBuffer padding()
    {
        return padding;
    }
}
