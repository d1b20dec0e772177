package io.ringwire.perf.rtt;

import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.Subscription;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.ProbePinger;
import org.agrona.DirectBuffer;

/**
 * The pinger through messaging, end to end: for each round trip it reads the clock, claims a frame
 * of its publication ({@code tryClaim}: the frame lies in registered memory and is sent as it lies),
 * encodes a {@code LatencyProbe} into it (sequence, that timestamp, zero padding up to the size) and
 * commits; then polls its subscription until its handler has validated and decoded the echo, and
 * reads the clock again. The round trip is the second reading minus the decoded send timestamp, so
 * it covers claim, encode, commit, both transports, the ponger's decode and re-encode, and the
 * decode here ({@link ProbePinger}). It is its own fragment handler, so polling allocates nothing.
 *
 * <p>Threading: the pinger thread only, after the control thread connected both sides.
 */
public final class MessagingPinger extends ProbePinger implements FragmentHandler
{
    /** Completions handled per poll. */
    public static final int POLL_BATCH = 16;

    private final Subscription subscription;
    private final ProbeSender sender;

    /**
     * @param peer     this side, connected both ways.
     * @param plan     where the thread runs and how it idles.
     * @param warmup   unrecorded round trips.
     * @param messages recorded round trips.
     */
    MessagingPinger(final MessagingPeer peer, final ThreadPlan plan, final long warmup, final long messages)
    {
        super(plan, peer, peer.messageLength, warmup, messages);
        this.subscription = peer.subscription;
        this.sender = new ProbeSender(peer, this::idle);
    }

    @Override
    protected boolean sendProbe(final long sequence, final long sendNs)
    {
        final String failure = sender.send(messageLength, sequence, sendNs, 0, zeroPadding, paddingLength, sendNs);
        if (null != failure)
        {
            failureDetail = failure;
            return false;
        }
        return true;
    }

    @Override
    protected int pollEchoes()
    {
        return subscription.poll(this, POLL_BATCH);
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        onProbe(buffer, offset, length);
    }
}
