package io.ringwire.perf.baseline.nio;

import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.Pinger;
import io.ringwire.perf.pingpong.RttMessage;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * What the pingers of the raw NIO baselines ({@link NioPinger} over TCP, {@link NioUdpPinger} over
 * UDP) share: a direct buffer each way, the ping stamped into one and the echo checked in the
 * other. Each subclass moves the bytes its own way, in private methods its {@code roundTrip} calls
 * along with these final ones: sharing the round trip itself would put a virtual call for the I/O
 * inside the timed loop.
 *
 * <p>Threading: the pinger thread only.
 */
abstract class AbstractNioPinger extends Pinger
{
    /** Bytes per message. */
    protected final int messageLength;
    /** The ping, written whole each round trip. */
    protected final ByteBuffer sendBuffer;
    /** Where the echo is read. */
    protected final ByteBuffer receiveBuffer;
    private final UnsafeBuffer sendView;
    private final UnsafeBuffer receiveView;

    /**
     * @param messageLength   bytes per message.
     * @param receiveCapacity bytes the receive buffer holds (a message, or more to see a longer one).
     * @param plan            where the thread runs and how it idles.
     * @param warmup          unrecorded round trips.
     * @param messages        recorded round trips.
     */
    AbstractNioPinger(final int messageLength, final int receiveCapacity, final ThreadPlan plan, final long warmup,
        final long messages)
    {
        super(plan, warmup, messages);
        this.messageLength = messageLength;
        this.sendBuffer = ByteBuffer.allocateDirect(messageLength);
        this.sendView = new UnsafeBuffer(sendBuffer);
        this.receiveBuffer = ByteBuffer.allocateDirect(receiveCapacity);
        this.receiveView = new UnsafeBuffer(receiveBuffer);
    }

    /**
     * Writes ping {@code sequence} into the send buffer, ready to send.
     *
     * @param sequence the ping's sequence.
     * @return its send timestamp.
     */
    protected final long stampPing(final long sequence)
    {
        return RttMessage.stamp(sendView, 0, sequence);
    }

    /**
     * Reads the clock and checks the echo the receive buffer holds.
     *
     * @param sequence the ping's sequence.
     * @param sentNs   its send timestamp.
     * @return the round trip in ns, or {@link #FAILED} when the echo does not match the ping.
     */
    protected final long echoRoundTrip(final long sequence, final long sentNs)
    {
        final long receivedNs = System.nanoTime();
        return echoMatches(sequence, sentNs, receiveView.getLong(RttMessage.SEQUENCE_OFFSET),
            receiveView.getLong(RttMessage.TIMESTAMP_OFFSET)) ? receivedNs - sentNs : FAILED;
    }
}
