package io.ringwire.perf.baseline.aeron;

import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.Pinger;
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
public final class AeronIpcPinger extends Pinger implements FragmentHandler
{
    private final ExclusivePublication publication;
    private final Subscription subscription;
    private final int messageLength;
    /** Reassembles a message longer than Aeron's MTU; allocation-free once its buffer has grown. */
    private final FragmentAssembler assembler = new FragmentAssembler(this);
    private final UnsafeBuffer message;

    // Written by the fragment handler, which runs on the pinger thread inside poll.
    private long echoes;
    private long echoedSequence;
    private long echoedSentNs;
    private int echoedLength;

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
        super(plan, warmup, messages);
        this.publication = side.publication;
        this.subscription = side.subscription;
        this.messageLength = messageLength;
        this.message = AeronIpcSide.messageBuffer(messageLength);
    }

    @Override
    protected long roundTrip(final long sequence)
    {
        final long sentNs = RttMessage.stamp(message, 0, sequence);
        if (!send(sentNs) || !awaitEcho(sentNs))
        {
            return FAILED;
        }
        final long receivedNs = System.nanoTime();
        if (!echoMatches(sequence, sentNs, echoedSequence, echoedSentNs))
        {
            return FAILED;
        }
        return receivedNs - sentNs;
    }

    @Override
    protected String finish()
    {
        return stopWith(RttMessage.STOP_SEQUENCE);
    }

    private boolean send(final long startNs)
    {
        long result;
        while ((result = publication.offer(message, 0, messageLength)) < 0)
        {
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
            {
                failureDetail = "offer failed: " + Publication.errorString(result);
                return false;
            }
            // NOT_CONNECTED, BACK_PRESSURED, ADMIN_ACTION: transient, until the peer timeout.
            if (idleWhileWaiting(startNs, "the publication took no ping (" + Publication.errorString(result) + ")"))
            {
                return false;
            }
        }
        return true;
    }

    private boolean awaitEcho(final long startNs)
    {
        final long expectedEchoes = echoes + 1;
        while (echoes < expectedEchoes)
        {
            if (subscription.poll(assembler, AeronIpcSide.FRAGMENT_LIMIT) == 0 && idleWhileWaiting(startNs, "no echo"))
            {
                return false;
            }
        }
        return echoLengthMatches("an echo", echoedLength, messageLength);
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        echoedLength = length;
        echoedSequence = buffer.getLong(offset + RttMessage.SEQUENCE_OFFSET);
        echoedSentNs = buffer.getLong(offset + RttMessage.TIMESTAMP_OFFSET);
        echoes++;
    }
}
