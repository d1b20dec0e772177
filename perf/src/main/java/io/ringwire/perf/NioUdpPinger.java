package io.ringwire.perf;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;

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
final class NioUdpPinger extends Pinger
{
    private final NioUdpLink channel;
    private final int messageLength;
    private final ByteBuffer sendBuffer;
    private final UnsafeBuffer sendView;
    private final ByteBuffer receiveBuffer;
    private final UnsafeBuffer receiveView;

    /**
     * @param channel       to the ponger, non-blocking.
     * @param messageLength bytes per message (one datagram).
     * @param plan          where the thread runs and how it idles.
     * @param warmup        unrecorded round trips.
     * @param messages      recorded round trips.
     */
    NioUdpPinger(final NioUdpLink channel, final int messageLength, final ThreadPlan plan,
        final long warmup, final long messages)
    {
        super(plan, warmup, messages);
        this.channel = channel;
        this.messageLength = messageLength;
        this.sendBuffer = ByteBuffer.allocateDirect(messageLength);
        this.sendView = new UnsafeBuffer(sendBuffer);
        // One byte more than a message, so a longer datagram shows as such instead of being truncated.
        this.receiveBuffer = ByteBuffer.allocateDirect(messageLength + 1);
        this.receiveView = new UnsafeBuffer(receiveBuffer);
    }

    @Override
    protected long roundTrip(final long sequence)
    {
        sendView.putLong(RttMessage.SEQUENCE_OFFSET, sequence);
        final long sentNs = System.nanoTime();
        sendView.putLong(RttMessage.TIMESTAMP_OFFSET, sentNs);
        try
        {
            if (!send(sentNs) || !receive(sentNs))
            {
                return FAILED;
            }
        }
        catch (final IOException ex)
        {
            failureDetail = "I/O error: " + ex;
            return FAILED;
        }
        final long receivedNs = System.nanoTime();
        if (!echoMatches(sequence, sentNs, receiveView.getLong(RttMessage.SEQUENCE_OFFSET),
            receiveView.getLong(RttMessage.TIMESTAMP_OFFSET)))
        {
            return FAILED;
        }
        return receivedNs - sentNs;
    }

    private boolean send(final long startNs) throws IOException
    {
        sendBuffer.clear();
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

    private boolean receive(final long startNs) throws IOException
    {
        receiveBuffer.clear();
        int read;
        while ((read = channel.read(receiveBuffer)) == 0)
        {
            if (idleWhileWaiting(startNs, "no echo"))
            {
                return false;
            }
        }
        if (read != messageLength)
        {
            failureDetail = "an echo datagram of " + read + " bytes, expected " + messageLength;
            return false;
        }
        return true;
    }

    @Override
    protected String finish()
    {
        sendView.putLong(RttMessage.SEQUENCE_OFFSET, RttMessage.STOP_SEQUENCE);
        final long nowNs = System.nanoTime();
        sendView.putLong(RttMessage.TIMESTAMP_OFFSET, nowNs);
        try
        {
            if (!send(nowNs) || !receive(nowNs))
            {
                return "stopping the ponger: " + failureDetail;
            }
        }
        catch (final IOException ex)
        {
            return "stopping the ponger: " + ex;
        }
        return null;
    }
}
