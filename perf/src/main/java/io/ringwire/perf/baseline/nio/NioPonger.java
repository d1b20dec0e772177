package io.ringwire.perf.baseline.nio;

import io.ringwire.perf.host.ThreadPlan;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * The ponger of the {@code nio-tcp} baseline: busy-polls {@code read} until a whole ping is in, then
 * writes the same bytes back. Ends at the pinger's end of stream between two messages.
 *
 * <p>Threading: the ponger thread only.
 */
public final class NioPonger extends AbstractNioPonger
{
    private final SocketChannel channel;

    /**
     * @param channel       connected to the pinger, non-blocking.
     * @param messageLength bytes per message.
     * @param plan          where the thread runs and how it idles.
     */
    public NioPonger(final SocketChannel channel, final int messageLength, final ThreadPlan plan)
    {
        super(messageLength, plan);
        this.channel = channel;
    }

    @Override
    protected String echoLoop() throws IOException
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
                if (read == 0 && idleTooLong(echoed, "complete message"))
                {
                    return idleFailure();
                }
            }
            buffer.flip();
            while (buffer.hasRemaining())
            {
                if (channel.write(buffer) == 0 && idleTooLong(echoed, "complete message"))
                {
                    return idleFailure();
                }
            }
            echoed++;
        }
    }
}
