package io.ringwire.perf.baseline.nio;

import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * What the pongers of the raw NIO baselines ({@link NioPonger} over TCP, {@link NioUdpPonger} over
 * UDP) share: one direct buffer the ping is read into and echoed from, the count of echoes and the
 * report of a socket's failure. Each subclass echoes in its own loop ({@link #echoLoop()}, entered
 * once per run, so no call is added per message).
 *
 * <p>Threading: the ponger thread only.
 */
abstract class AbstractNioPonger extends SpinningTask
{
    /** The ping as read, echoed from the same bytes. */
    protected final ByteBuffer buffer;
    /** Pings echoed; the ponger thread only, read after it ended. */
    protected long echoed;

    /**
     * @param capacity bytes the buffer holds.
     * @param plan     where the thread runs and how it idles.
     */
    AbstractNioPonger(final int capacity, final ThreadPlan plan)
    {
        super("ponger", plan);
        this.buffer = ByteBuffer.allocateDirect(capacity);
    }

    @Override
    protected final String runLoop()
    {
        try
        {
            return echoLoop();
        }
        catch (final IOException ex)
        {
            return "I/O error after " + echoed + " echoes: " + ex;
        }
    }

    /**
     * Echoes until the pinger ends the run.
     *
     * @return null when it did, else what went wrong.
     * @throws IOException when the socket fails.
     */
    protected abstract String echoLoop() throws IOException;

    /**
     * @return pings echoed (read after the ponger thread ended).
     */
    final long echoed()
    {
        return echoed;
    }
}
