package io.ringwire.perf.baseline.bare;

import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.Pinger;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The pinger of the {@code bare} and {@code bare-notified} baselines: the floors under {@code shm}.
 * Writes each ping's bytes into the ping slot of {@link BareLines} and publishes it (its sequence
 * with release order, or a notification line after it), then spins until the echo is published:
 * the cache-line ping-pong that any shared-memory transport is built on, with no queue pair,
 * check or completion in between.
 *
 * <p>Threading: the pinger thread only.
 */
public final class BarePinger extends Pinger
{
    private final BareLines memory;
    private final UnsafeBuffer lines;
    private final int pingOffset;
    private final int echoOffset;
    private final int payloadLength;
    private final UnsafeBuffer payload;

    // Pinger thread only.
    private long sent;
    private long received;
    private long lastEchoSequence = BareLines.NO_SEQUENCE;

    /**
     * @param lines    the slots (shared with the ponger).
     * @param plan     where the thread runs and how it idles.
     * @param warmup   unrecorded round trips.
     * @param messages recorded round trips.
     */
    public BarePinger(final BareLines lines, final ThreadPlan plan, final long warmup, final long messages)
    {
        super(plan, warmup, messages);
        this.memory = lines;
        this.lines = lines.buffer();
        this.pingOffset = lines.pingOffset();
        this.echoOffset = lines.echoOffset();
        this.payloadLength = lines.payloadLength();
        this.payload = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(1, payloadLength)));
    }

    @Override
    protected long roundTrip(final long sequence)
    {
        final long sentNs = System.nanoTime();
        send(sequence);
        if (!awaitEcho(sequence, sentNs))
        {
            return FAILED;
        }
        return System.nanoTime() - sentNs;
    }

    @Override
    protected String finish()
    {
        return stopWith(BareLines.STOP_SEQUENCE);
    }

    private void send(final long sequence)
    {
        if (payloadLength > 0)
        {
            lines.putBytes(pingOffset + Long.BYTES, payload, 0, payloadLength);
        }
        memory.publish(pingOffset, sent++, sequence);
    }

    private boolean awaitEcho(final long sequence, final long startNs)
    {
        while (!memory.arrived(echoOffset, received, lastEchoSequence))
        {
            if (idleWhileWaiting(startNs, "no echo"))
            {
                return false;
            }
        }
        received++;
        lastEchoSequence = lines.getLong(echoOffset + BareLines.SEQUENCE_OFFSET);
        if (lastEchoSequence != sequence)
        {
            failureDetail = "echo carries sequence " + lastEchoSequence + ", expected " + sequence;
            return false;
        }
        return true;
    }
}
