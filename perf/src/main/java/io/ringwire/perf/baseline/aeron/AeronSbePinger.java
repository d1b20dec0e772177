package io.ringwire.perf.baseline.aeron;

import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.host.WatchedConnection;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
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
    private final Subscription subscription;
    private final AeronProbeWriter writer;
    /** Reassembles a probe longer than Aeron's MTU; allocation-free once its buffer has grown. */
    private final FragmentAssembler assembler = new FragmentAssembler(this);

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
        this.subscription = side.subscription;
        this.writer = new AeronProbeWriter(side.publication, messageLength);
    }

    @Override
    protected boolean sendProbe(final long sequence, final long sendNs)
    {
        long result;
        while ((result = writer.tryWrite(messageLength, sequence, sendNs, zeroPadding, paddingLength)) < 0)
        {
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
            {
                failureDetail = "claim failed: " + Publication.errorString(result);
                return false;
            }
            if (idleWhileWaiting(sendNs, "the publication took no probe (" + Publication.errorString(result) + ")"))
            {
                return false;
            }
        }
        return true;
    }

    @Override
    protected int pollEchoes()
    {
        return subscription.poll(assembler, AeronIpcSide.FRAGMENT_LIMIT);
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        onProbe(buffer, offset, length);
    }
}
