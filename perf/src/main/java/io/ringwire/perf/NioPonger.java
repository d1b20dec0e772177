package io.ringwire.perf;

import java.io.IOException;
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
    private String idleFailure;

    /**
     * @param channel       connected to the pinger, non-blocking.
     * @param messageLength bytes per message.
     * @param plan          where the thread runs and how it idles.
     */
    NioPonger(final SocketChannel channel, final int messageLength, final ThreadPlan plan)
    {
        super("ponger", plan);
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
     * {@link #idleAndWatch}, keeping its answer in {@link #idleFailure}.
     *
     * @return true when the loop must end.
     */
    private boolean idleTooLong()
    {
        idleFailure = idleAndWatch(echoed, "complete message");
        return null != idleFailure;
    }

    /**
     * @return pings echoed (read after the ponger thread ended).
     */
    long echoed()
    {
        return echoed;
    }
}
