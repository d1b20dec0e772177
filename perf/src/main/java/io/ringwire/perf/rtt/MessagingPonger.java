package io.ringwire.perf.rtt;

import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.Subscription;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.ProbePonger;
import org.agrona.DirectBuffer;

/**
 * The ponger through messaging: busy-polls its subscription; its handler validates and decodes each
 * {@code LatencyProbe} in place and echoes it at once through its own publication (tryClaim, encode
 * the same sequence, send timestamp and padding, {@code echoTimestampNs} left 0, commit). Ends
 * after echoing the probe with {@link LatencyProbeCodec#STOP_SEQUENCE}.
 *
 * <p>It measures its own allocation over the pinger's measured window: from the probe whose
 * sequence is the warm-up count to the stop probe.
 *
 * <p>Threading: the ponger thread only, after its side was connected both ways; the measurements
 * are read after that thread ended.
 */
public final class MessagingPonger extends ProbePonger implements FragmentHandler
{
    private final Subscription subscription;
    private final ProbeSender sender;
    private final long warmup;

    /**
     * @param peer   this side, connected both ways.
     * @param plan   where the thread runs and how it idles.
     * @param warmup the pinger's unrecorded round trips (where the allocation window starts).
     */
    MessagingPonger(final MessagingPeer peer, final ThreadPlan plan, final long warmup)
    {
        super(plan, peer);
        this.subscription = peer.subscription;
        this.warmup = warmup;
        this.sender = new ProbeSender(peer, null);
    }

    @Override
    protected int pollProbes()
    {
        return subscription.poll(this, MessagingPinger.POLL_BATCH);
    }

    @Override
    protected void beforeEcho(final long sequence)
    {
        if (sequence == warmup)
        {
            startMeasuring();
        }
        else if (sequence == LatencyProbeCodec.STOP_SEQUENCE)
        {
            stopMeasuring();
        }
    }

    @Override
    protected String echo(final int length, final long sequence, final long sendNs, final DirectBuffer padding)
    {
        // echoTimestampNs stays 0: the bare channel's ponger, the baseline this path is compared
        // with, reads no clock, so a clock read here would count against messaging alone.
        return sender.send(length, sequence, sendNs, 0, padding, padding.capacity(), ProbeSender.CLOCK_NOT_READ);
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        onProbe(buffer, offset, length);
    }
}
