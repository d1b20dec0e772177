package io.ringwire.perf;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.PrintStream;

/**
 * The ponger of the {@code bare} baseline: spins on the ping slot of {@link BareLines}; for each new
 * sequence copies the ping's bytes into the echo slot, then writes the sequence there with release
 * order. Ends after echoing {@link BareLines#STOP_SEQUENCE}.
 *
 * <p>Threading: the ponger thread only.
 */
final class BarePonger extends SpinningTask
{
    private final UnsafeBuffer lines;
    private final int pingOffset;
    private final int echoOffset;
    private final int payloadLength;

    // Ponger thread only.
    private long echoed;

    /**
     * @param lines         the slots (shared with the pinger).
     * @param cpu           CPU to pin to, or {@link CpuPlan#UNPINNED}.
     * @param yieldWhenIdle yield instead of spinning when idle.
     * @param warnings      where a pinning failure is reported.
     */
    BarePonger(final BareLines lines, final int cpu, final boolean yieldWhenIdle, final PrintStream warnings)
    {
        super("ponger", cpu, yieldWhenIdle, warnings);
        this.lines = lines.buffer();
        this.pingOffset = lines.pingOffset();
        this.echoOffset = lines.echoOffset();
        this.payloadLength = Math.max(0, lines.messageLength() - Long.BYTES);
    }

    @Override
    protected String runLoop()
    {
        // Not read from the slot: the pinger may have written its first ping before this thread runs.
        long last = BareLines.NO_SEQUENCE;
        while (true)
        {
            final long sequence = lines.getLongAcquire(pingOffset + BareLines.SEQUENCE_OFFSET);
            if (sequence == last)
            {
                final String failure = idleAndWatch(echoed, "ping");
                if (null != failure)
                {
                    return failure;
                }
                continue;
            }
            if (payloadLength > 0)
            {
                lines.putBytes(echoOffset + Long.BYTES, lines, pingOffset + Long.BYTES, payloadLength);
            }
            lines.putLongRelease(echoOffset + BareLines.SEQUENCE_OFFSET, sequence);
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
