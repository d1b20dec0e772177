package io.ringwire.perf;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The ponger of the {@code nio-udp} and {@code nio-udp-unconnected} baselines: busy-polls its
 * non-blocking {@link NioUdpLink} and writes every datagram back unchanged. Ends after echoing
 * the pinger's {@link RttMessage#STOP_SEQUENCE} datagram.
 *
 * <p>Threading: the ponger thread only.
 */
final class NioUdpPonger extends SpinningTask
{
    private final NioUdpLink channel;
    private final ByteBuffer buffer;
    private final UnsafeBuffer view;
    private final int messageLength;

    // Ponger thread only.
    private long echoed;
    private String idleFailure;

    /**
     * @param channel       to the pinger, non-blocking.
     * @param messageLength bytes per message (one datagram).
     * @param plan          where the thread runs and how it idles.
     */
    NioUdpPonger(final NioUdpLink channel, final int messageLength, final ThreadPlan plan)
    {
        super("ponger", plan);
        this.channel = channel;
        this.messageLength = messageLength;
        this.buffer = ByteBuffer.allocateDirect(messageLength + 1);
        this.view = new UnsafeBuffer(buffer);
    }

    @Override
    protected String runLoop()
    {
        try
        {
            while (true)
            {
                buffer.clear();
                int read;
                while ((read = channel.read(buffer)) == 0)
                {
                    if (idleTooLong())
                    {
                        return idleFailure;
                    }
                }
                if (read != messageLength)
                {
                    return "a ping datagram of " + read + " bytes after " + echoed + " echoes, expected " + messageLength;
                }
                final boolean stop = view.getLong(RttMessage.SEQUENCE_OFFSET) == RttMessage.STOP_SEQUENCE;
                buffer.flip();
                while (channel.write(buffer) == 0)
                {
                    if (idleTooLong())
                    {
                        return idleFailure;
                    }
                }
                if (stop)
                {
                    return null;
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
        idleFailure = idleAndWatch(echoed, "datagram");
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
