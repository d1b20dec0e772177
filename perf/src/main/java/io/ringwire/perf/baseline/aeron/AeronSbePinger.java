package io.ringwire.perf.baseline.aeron;

import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.Pinger;
import io.ringwire.perf.rtt.MessagingPinger;
import org.agrona.DirectBuffer;

/**
 * The pinger of the {@code aeron-ipc-sbe} baseline: RingWire messaging's pinger over Aeron IPC.
 * It claims, encodes and commits an SBE {@code LatencyProbe} ({@link AeronProbeWriter}), then polls
 * until its handler has validated ({@code MessageValidator.validate}) and decoded the echo
 * ({@link LatencyProbeCodec}), timed from before the claim to after the decode, as
 * {@link MessagingPinger} is. It is its own fragment handler, so polling allocates nothing.
 *
 * <p>Threading: the pinger thread only.
 */
public final class AeronSbePinger extends Pinger implements FragmentHandler
{
    private final Subscription subscription;
    private final AeronProbeWriter writer;
    private final LatencyProbeCodec codec = new LatencyProbeCodec();
    /** Reassembles a probe longer than Aeron's MTU; allocation-free once its buffer has grown. */
    private final FragmentAssembler assembler = new FragmentAssembler(this);
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
     * @param side          the pinger's publication and subscription, connected.
     * @param messageLength bytes per probe ({@link LatencyProbeCodec#messageLength(int)}).
     * @param plan          where the thread runs and how it idles.
     * @param warmup        unrecorded round trips.
     * @param messages      recorded round trips.
     */
    public AeronSbePinger(final AeronIpcSide side, final int messageLength, final ThreadPlan plan, final long warmup,
        final long messages)
    {
        super(plan, warmup, messages);
        this.subscription = side.subscription;
        this.messageLength = messageLength;
        this.paddingLength = LatencyProbeCodec.paddingLength(messageLength);
        this.zeroPadding = LatencyProbeCodec.zeroPadding(paddingLength);
        this.writer = new AeronProbeWriter(side.publication, messageLength);
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
