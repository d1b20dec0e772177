package io.ringwire.perf.baseline.nio;

import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.RttMessage;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;

/**
 * The ponger of the {@code nio-udp} and {@code nio-udp-unconnected} baselines: busy-polls its
 * non-blocking {@link NioUdpLink} and writes every datagram back unchanged. Ends after echoing
 * the pinger's {@link RttMessage#STOP_SEQUENCE} datagram.
 *
 * <p>Threading: the ponger thread only.
 */
public final class NioUdpPonger extends AbstractNioPonger
{
    private final NioUdpLink channel;
    private final UnsafeBuffer view;
    private final int messageLength;

    /**
     * @param channel       to the pinger, non-blocking.
     * @param messageLength bytes per message (one datagram).
     * @param plan          where the thread runs and how it idles.
     */
    public NioUdpPonger(final NioUdpLink channel, final int messageLength, final ThreadPlan plan)
    {
        // One byte more than a message, so a longer datagram shows as such instead of being truncated.
        super(messageLength + 1, plan);
        this.channel = channel;
        this.messageLength = messageLength;
        this.view = new UnsafeBuffer(buffer);
    }

    @Override
    protected String echoLoop() throws IOException
    {
        while (true)
        {
            buffer.clear();
            int read;
            while ((read = channel.read(buffer)) == 0)
            {
                if (idleTooLong(echoed, "datagram"))
                {
                    return idleFailure();
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
                if (idleTooLong(echoed, "datagram"))
                {
                    return idleFailure();
                }
            }
            if (stop)
            {
                return null;
            }
            echoed++;
        }
    }
}
