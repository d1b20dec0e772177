package io.ringwire.perf.baseline.aeron;

import io.aeron.ExclusivePublication;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.host.WatchedConnection;
import io.ringwire.perf.pingpong.EchoPinger;
import io.ringwire.perf.pingpong.PingOffer;
import io.ringwire.perf.pingpong.RttMessage;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;


/**
 * The pinger of the {@code aeron-ipc} baseline: offers each ping on its exclusive IPC publication,
 * then busy-polls its subscription until the echo is back, and checks the echo's sequence and
 * timestamp. Ends the run with a ping carrying {@link RttMessage#STOP_SEQUENCE}, which the ponger
 * echoes before it stops. It is its own fragment handler, so polling allocates nothing.
 *
 * <p>Threading: the pinger thread only.
 */
public final class AeronIpcPinger extends EchoPinger implements FragmentHandler
{
    private final ExclusivePublication publication;
    private final AeronEnd end;
    private final int messageLength;
    private final UnsafeBuffer message;
    /** Offers the ping the round trip stamped into {@link #message}. */
    private final PingOffer offer = new AeronPingOffer("offer", "ping")
    {
        @Override
        public long offer(final long sequence, final long sendNs)
        {
            return publication.offer(message, 0, messageLength);
        }
    };

    /**
     * @param side          the pinger's publication and subscription, connected.
     * @param messageLength bytes per message.
     * @param plan          where the thread runs and how it idles.
     * @param warmup        unrecorded round trips.
     * @param messages      recorded round trips.
     */
    public AeronIpcPinger(final AeronIpcSide side, final int messageLength, final ThreadPlan plan,
        final long warmup, final long messages)
    {
        super(plan, WatchedConnection.NONE, warmup, messages);
        this.publication = side.publication;
        this.end = new AeronEnd(side, this);
        this.messageLength = messageLength;
        this.message = AeronIpcSide.messageBuffer(messageLength);
    }

    @Override
    protected long roundTrip(final long sequence)
    {
        final long sentNs = RttMessage.stamp(message, 0, sequence);
        if (!sendUntilTaken(offer, sequence, sentNs) || !awaitEcho(sentNs, messageLength))
        {
            return FAILED;
        }
        final long receivedNs = System.nanoTime();
        return echoMatchesPing(sequence, sentNs) ? receivedNs - sentNs : FAILED;
    }

    @Override
    protected String finish()
    {
        return stopWith(RttMessage.STOP_SEQUENCE);
    }

    @Override
    protected int pollEchoes()
    {
        return end.poll();
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        echoed(buffer.getLong(offset + RttMessage.SEQUENCE_OFFSET),
            buffer.getLong(offset + RttMessage.TIMESTAMP_OFFSET), length);
    }
}
