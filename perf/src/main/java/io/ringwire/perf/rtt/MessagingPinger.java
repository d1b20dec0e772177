package io.ringwire.perf.rtt;

import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.Subscription;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.Pinger;
import org.agrona.DirectBuffer;

/**
 * The pinger through messaging, end to end: for each round trip it reads the clock, claims a frame
 * of its publication ({@code tryClaim}: the frame lies in registered memory and is sent as it lies),
 * encodes a {@code LatencyProbe} into it (sequence, that timestamp, zero padding up to the size) and
 * commits; then polls its subscription until its handler has validated and decoded the echo, and
 * reads the clock again. The round trip is the second reading minus the decoded send timestamp, so
 * it covers claim, encode, commit, both transports, the ponger's decode and re-encode, and the
 * decode here. It is its own fragment handler, so polling allocates nothing.
 *
 * <p>Threading: the pinger thread only, after the control thread connected both sides.
 */
public final class MessagingPinger extends Pinger implements FragmentHandler
{
    /** Completions handled per poll. */
    public static final int POLL_BATCH = 16;

    private final Subscription subscription;
    private final ProbeSender sender;
    private final LatencyProbeCodec codec = new LatencyProbeCodec();
    private final DirectBuffer zeroPadding;
    private final int messageLength;
    private final int paddingLength;

    // Written by the fragment handler, which runs on the pinger thread inside poll.
    private long echoes;
    private long echoedSequence;
    private long echoedSendNs;
    private int echoedLength;
    private long roundTripNs;
    private int refusedEcho;

    /**
     * @param peer     this side, connected both ways.
     * @param plan     where the thread runs and how it idles.
     * @param warmup   unrecorded round trips.
     * @param messages recorded round trips.
     */
    MessagingPinger(final MessagingPeer peer, final ThreadPlan plan, final long warmup, final long messages)
    {
        super(plan, peer, warmup, messages);
        this.subscription = peer.subscription;
        this.messageLength = peer.messageLength;
        this.paddingLength = LatencyProbeCodec.paddingLength(messageLength);
        this.zeroPadding = LatencyProbeCodec.zeroPadding(paddingLength);
        this.sender = new ProbeSender(peer, this);
    }

    @Override
    protected long roundTrip(final long sequence)
    {
        final long sendNs = System.nanoTime();
        if (!send(sequence, sendNs) || !awaitEcho(sendNs) ||
            !echoMatches(sequence, sendNs, echoedSequence, echoedSendNs))
        {
            return FAILED;
        }
        return roundTripNs;
    }

    @Override
    protected String finish()
    {
        return stopWith(LatencyProbeCodec.STOP_SEQUENCE);
    }

    private boolean send(final long sequence, final long sendNs)
    {
        final String failure = sender.send(messageLength, sequence, sendNs, zeroPadding, paddingLength, sendNs);
        if (null != failure)
        {
            failureDetail = failure;
            return false;
        }
        return true;
    }

    private boolean awaitEcho(final long startNs)
    {
        final long expectedEchoes = echoes + 1;
        while (echoes < expectedEchoes)
        {
            if (subscription.poll(this, POLL_BATCH) == 0 && idleWhileWaiting(startNs, "no echo"))
            {
                return false;
            }
        }
        if (refusedEcho < 0)
        {
            failureDetail = "echo refused: " + LatencyProbeCodec.describe(refusedEcho);
            return false;
        }
        return echoLengthMatches("echo", echoedLength, messageLength);
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final int decoded = codec.decode(buffer, offset, length);
        final long receivedNs = System.nanoTime();
        echoes++;
        if (decoded < 0)
        {
            refusedEcho = decoded;
            return;
        }
        echoedSequence = codec.sequence();
        echoedSendNs = codec.sendTimestampNs();
        echoedLength = length;
        roundTripNs = receivedNs - echoedSendNs;
    }
}
