package io.ringwire.perf.baseline.nio;

import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.RttMessage;

import java.io.IOException;

/**
 * The pinger of the {@code nio-udp} and {@code nio-udp-unconnected} baselines: each ping is one
 * datagram (a direct buffer written to a non-blocking {@link NioUdpLink}); it then busy-polls the
 * link until the echo datagram is back. Ends the run with a datagram carrying
 * {@link RttMessage#STOP_SEQUENCE}, which the ponger echoes before it stops.
 *
 * <p>Loopback UDP does not lose datagrams unless a socket buffer overflows, which one message in
 * flight cannot do; a lost datagram would end the run with "no echo" after the peer timeout rather
 * than be retransmitted, since a baseline must not hide work the transport does not do.
 *
 * <p>Threading: the pinger thread only.
 */
public final class NioUdpPinger extends AbstractNioPinger
{
    private final NioUdpLink channel;

    /**
     * @param channel       to the ponger, non-blocking.
     * @param messageLength bytes per message (one datagram).
     * @param plan          where the thread runs and how it idles.
     * @param warmup        unrecorded round trips.
     * @param messages      recorded round trips.
     */
    public NioUdpPinger(final NioUdpLink channel, final int messageLength, final ThreadPlan plan,
        final long warmup, final long messages)
    {
        // One byte more than a message, so a longer datagram shows as such instead of being truncated.
        super(messageLength, messageLength + 1, plan, warmup, messages);
        this.channel = channel;
    }

    @Override
    protected boolean send(final long startNs) throws IOException
    {
        // A datagram goes whole or not at all: 0 means the socket buffer is full for now.
        while (channel.write(sendBuffer) == 0)
        {
            if (idleWhileWaiting(startNs, "the socket took no datagram"))
            {
                return false;
            }
        }
        return true;
    }

    @Override
    protected boolean receive(final long startNs) throws IOException
    {
        int read;
        while ((read = channel.read(receiveBuffer)) == 0)
        {
            if (idleWhileWaiting(startNs, "no echo"))
            {
                return false;
            }
        }
        return echoLengthMatches("an echo datagram", read, messageLength);
    }

    @Override
    protected String finish()
    {
        return stopWith(RttMessage.STOP_SEQUENCE);
    }
}
