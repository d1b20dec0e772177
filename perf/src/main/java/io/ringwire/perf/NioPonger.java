package io.ringwire.perf;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The ponger of the {@code nio-tcp} baseline: busy-polls {@code read} until a whole ping is in, then
 * writes the same bytes back. Ends at the pinger's end of stream between two messages.
 *
 * <p>Threading: the ponger thread only.
 */
final class NioPonger extends SpinningTask
{
    private final SocketChannel channel;
    private final ByteBuffer buffer;

    // Ponger thread only.
    private long echoed;
    private int idleSpins;
    private long echoedAtLastCheck;
    private long lastActivityNs;
    private String idleFailure;

    /**
     * @param channel       connected to the pinger, non-blocking.
     * @param messageLength bytes per message.
     * @param cpu           CPU to pin to, or {@link CpuPlan#UNPINNED}.
     * @param yieldWhenIdle yield instead of spinning when idle.
     * @param warnings      where a pinning failure is reported.
     */
    NioPonger(final SocketChannel channel, final int messageLength, final int cpu, final boolean yieldWhenIdle,
        final PrintStream warnings)
    {
        super("ponger", cpu, yieldWhenIdle, warnings);
        this.channel = channel;
        this.buffer = ByteBuffer.allocateDirect(messageLength);
    }

    @Override
    protected String runLoop()
    {
        try
        {
            while (true)
            {
                buffer.clear();
                while (buffer.hasRemaining())
                {
                    final int read = channel.read(buffer);
                    if (read < 0)
                    {
                        return buffer.position() == 0 ? null :
                            "the pinger closed the connection in the middle of message " + echoed;
                    }
                    if (read == 0 && idleTooLong())
                    {
                        return idleFailure;
                    }
                }
                buffer.flip();
                while (buffer.hasRemaining())
                {
                    if (channel.write(buffer) == 0 && idleTooLong())
                    {
                        return idleFailure;
                    }
                }
                echoed++;
            }
        }
        catch (final IOException ex)
        {
            return "I/O error after " + echoed + " echoes: " + ex;
        }
    }

    /**
     * Idles once; every {@link #CLOCK_CHECK_MASK} + 1 idle spins, reads the clock and checks that
     * echoes still progress and nobody asked to stop. The clock is read only while idle, so a busy
     * ponger pays nothing for the timeout.
     *
     * @return true, with {@link #idleFailure} set, when the loop must end.
     */
    private boolean idleTooLong()
    {
        idle();
        if ((++idleSpins & CLOCK_CHECK_MASK) != 0)
        {
            return false;
        }
        final long nowNs = System.nanoTime();
        if (echoed != echoedAtLastCheck || 0 == lastActivityNs)
        {
            echoedAtLastCheck = echoed;
            lastActivityNs = nowNs;
        }
        else if (nowNs - lastActivityNs > PEER_SILENCE_TIMEOUT_NS)
        {
            idleFailure = "no complete message from the pinger for " + PEER_SILENCE_TIMEOUT_NS / 1_000_000 +
                " ms after " + echoed + " echoes";
            return true;
        }
        if (stopRequested())
        {
            idleFailure = "stopped because the pinger failed";
            return true;
        }
        return false;
    }

    /**
     * @return pings echoed (read after the ponger thread ended).
     */
    long echoed()
    {
        return echoed;
    }
}
