package io.ringwire.perf.baseline.aeron;

import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.host.WatchedConnection;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.PingOffer;
import io.ringwire.perf.pingpong.ProbePinger;
import org.agrona.DirectBuffer;

/**
 * The pinger of the {@code aeron-ipc-sbe} baseline: RingWire messaging's pinger over Aeron IPC.
 * It claims, encodes and commits an SBE {@code LatencyProbe} ({@link AeronProbeWriter}), then polls
 * until its handler has validated ({@code MessageValidator.validate}) and decoded the echo
 * ({@link LatencyProbeCodec}), timed from before the claim to after the decode, as
 * rtt's messaging pinger is. It is its own fragment handler, so polling allocates nothing.
 *
 * <p>Threading: the pinger thread only.
 */
public final class AeronSbePinger extends ProbePinger implements FragmentHandler
{
    private final AeronEnd end;
    private final AeronProbeWriter writer;
    /** Claims, encodes and commits a probe of zero padding. */
    private final PingOffer offer = new AeronPingOffer("claim", "probe")
    {
        @Override
        public long offer(final long sequence, final long sendNs)
        {
            return writer.tryWrite(messageLength, sequence, sendNs, zeroPadding, paddingLength);
        }
    };

    /**
     * @param side          the pinger's publication and subscription, connected.
     * @param messageLength bytes per probe ({@link LatencyProbeCodec#messageLength(int)}).
     * @param plan          where the thread runs and how it idles.
     * @param warmup        unrecorded round trips.
     * @param messages      recorded round trips.
     */
    public AeronSbePinger(final AeronIpcSide side, final int messageLength, final ThreadPlan plan, final long warmup,
        final long messages)
    {
        super(plan, WatchedConnection.NONE, messageLength, warmup, messages);
        this.end = new AeronEnd(side, this);
        this.writer = new AeronProbeWriter(side.publication, messageLength);
    }

    @Override
    protected boolean sendProbe(final long sequence, final long sendNs)
    {
        return sendUntilTaken(offer, sequence, sendNs);
    }

    @Override
    protected int pollEchoes()
    {
        return end.poll();
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        onProbe(buffer, offset, length);
    }
}
