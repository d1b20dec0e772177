package io.ringwire.perf.baseline.nio;

import io.ringwire.perf.host.ThreadPlan;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * The pinger of the {@code nio-tcp} baseline: writes each ping (direct buffer, non-blocking
 * {@link SocketChannel}, TCP_NODELAY) and busy-polls {@code read} until the whole echo is back.
 * Ends the run by shutting its output down, which the ponger reads as end of stream.
 *
 * <p>Threading: the pinger thread only.
 */
public final class NioPinger extends AbstractNioPinger
{
    private final SocketChannel channel;

    /**
     * @param channel       connected to the ponger, non-blocking.
     * @param messageLength bytes per message.
     * @param plan          where the thread runs and how it idles.
     * @param warmup        unrecorded round trips.
     * @param messages      recorded round trips.
     */
    public NioPinger(final SocketChannel channel, final int messageLength, final ThreadPlan plan,
        final long warmup, final long messages)
    {
        super(messageLength, messageLength, plan, warmup, messages);
        this.channel = channel;
    }

    @Override
    protected boolean send(final long startNs) throws IOException
    {
        while (sendBuffer.hasRemaining())
        {
            if (channel.write(sendBuffer) == 0 && idleWhileWaiting(startNs, "the ponger took no bytes"))
            {
                return false;
            }
        }
        return true;
    }

    @Override
    protected boolean receive(final long startNs) throws IOException
    {
        while (receiveBuffer.hasRemaining())
        {
            final int read = channel.read(receiveBuffer);
            if (read < 0)
            {
                failureDetail = "the ponger closed the connection";
                return false;
            }
            if (read == 0 && idleWhileWaiting(startNs, "no echo"))
            {
                return false;
            }
        }
        return true;
    }

    @Override
    protected String finish()
    {
        try
        {
            channel.shutdownOutput();
            return null;
        }
        catch (final IOException ex)
        {
            return "stopping the ponger: " + ex;
        }
    }
}
