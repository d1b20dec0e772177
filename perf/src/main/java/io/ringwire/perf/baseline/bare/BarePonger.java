package io.ringwire.perf.baseline.bare;

import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;
import org.agrona.concurrent.UnsafeBuffer;


/**
 * The ponger of the {@code bare} and {@code bare-notified} baselines: spins on the ping slot (or
 * the ping's notification ring) of {@link BareLines}; for each new ping copies its bytes into the
 * echo slot and publishes the echo ({@link BareLines#publish}). Ends after echoing
 * {@link BareLines#STOP_SEQUENCE}.
 *
 * <p>Threading: the ponger thread only.
 */
public final class BarePonger extends SpinningTask
{
    private final BareLines memory;
    private final UnsafeBuffer lines;
    private final int pingOffset;
    private final int echoOffset;
    private final int payloadLength;

    // Ponger thread only.
    private long echoed;

    /**
     * @param lines the slots (shared with the pinger).
     * @param plan  where the thread runs and how it idles.
     */
    public BarePonger(final BareLines lines, final ThreadPlan plan)
    {
        super("ponger", plan);
        this.memory = lines;
        this.lines = lines.buffer();
        this.pingOffset = lines.pingOffset();
        this.echoOffset = lines.echoOffset();
        this.payloadLength = lines.payloadLength();
    }

    @Override
    protected String runLoop()
    {
        // Not read from the slot: the pinger may have written its first ping before this thread runs.
        long last = BareLines.NO_SEQUENCE;
        while (true)
        {
            if (!memory.arrived(pingOffset, echoed, last))
            {
                if (idleTooLong(echoed, "ping"))
                {
                    return idleFailure();
                }
                continue;
            }
            final long sequence = lines.getLong(pingOffset + BareLines.SEQUENCE_OFFSET);
            if (payloadLength > 0)
            {
                lines.putBytes(echoOffset + Long.BYTES, lines, pingOffset + Long.BYTES, payloadLength);
            }
            memory.publish(echoOffset, echoed, sequence);
            last = sequence;
            echoed++;
            if (sequence == BareLines.STOP_SEQUENCE)
            {
                return null;
            }
        }
    }

    /**
     * @return pings echoed, the stop ping included (read after the ponger thread ended).
     */
    long echoed()
    {
        return echoed;
    }
}
