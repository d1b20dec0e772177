package io.ringwire.perf.baseline.nio;

import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.Pinger;
import io.ringwire.perf.pingpong.RttMessage;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * What the pingers of the raw NIO baselines ({@link NioPinger} over TCP, {@link NioUdpPinger} over
 * UDP) share: a direct buffer each way and the round trip, the ping stamped into one and the echo
 * checked in the other. Each subclass moves the bytes its own way; with two final subclasses the
 * calls to them are bimorphic, which the JIT inlines behind a class check, so the shared round trip
 * costs the timed loop no virtual call.
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

    @Override
    protected final long roundTrip(final long sequence) throws IOException
    {
        final long sentNs = RttMessage.stamp(sendView, 0, sequence);
        sendBuffer.clear();
        if (!send(sentNs))
        {
            return FAILED;
        }
        receiveBuffer.clear();
        if (!receive(sentNs))
        {
            return FAILED;
        }
        final long receivedNs = System.nanoTime();
        return echoMatches(sequence, sentNs, receiveView.getLong(RttMessage.SEQUENCE_OFFSET),
            receiveView.getLong(RttMessage.TIMESTAMP_OFFSET)) ? receivedNs - sentNs : FAILED;
    }

    /**
     * Sends the whole ping the send buffer holds (its position at 0).
     *
     * @param startNs when the round trip began, for the wait's timeout.
     * @return false, with {@link #failureDetail} set, when it could not.
     * @throws IOException when the socket fails.
     */
    protected abstract boolean send(long startNs) throws IOException;

    /**
     * Receives the whole echo into the receive buffer (its position at 0).
     *
     * @param startNs when the round trip began, for the wait's timeout.
     * @return false, with {@link #failureDetail} set, when it could not or the echo is not a message.
     * @throws IOException when the socket fails.
     */
    protected abstract boolean receive(long startNs) throws IOException;
}
