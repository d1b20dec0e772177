package io.ringwire.perf.path;

import io.ringwire.messaging.BufferClaim;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.Publication;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.rtt.MessagingPeer;
import io.ringwire.perf.rtt.MessagingPinger;
import io.ringwire.perf.rtt.MessagingPonger;
import org.agrona.DirectBuffer;

/**
 * Messaging's hops on one thread: an SBE {@code LatencyProbe} claimed, encoded and committed into
 * one side's publication, validated and decoded in the other side's fragment handler, which answers
 * with the echo from inside the handler, as the two-thread ping-pong ({@link MessagingPinger},
 * {@link MessagingPonger}) does.
 *
 * <p>Threading: one thread.
 */
final class PathMessagingHops extends PathHops
{
    private final MessagingPeer pinger;
    private final MessagingPeer ponger;
    private final LatencyProbeCodec codec = new LatencyProbeCodec();
    private final BufferClaim claim = new BufferClaim();
    private final DirectBuffer padding;
    private final int paddingLength;
    private final FragmentHandler pingerHandler = this::onEcho;
    private final FragmentHandler pongerHandler = this::onPing;

    private PathMessagingHops(final MessagingPeer pinger, final MessagingPeer ponger)
    {
        super(pinger, ponger);
        this.pinger = pinger;
        this.ponger = ponger;
        this.paddingLength = LatencyProbeCodec.paddingLength(pinger.messageLength);
        this.padding = LatencyProbeCodec.zeroPadding(paddingLength);
    }

    /**
     * @param provider     shm, socket or roce.
     * @param shmDirectory the shm provider's directory.
     * @param size         the size asked for (a probe is at least {@link LatencyProbeCodec#MIN_LENGTH}).
     * @return both sides, connected both ways.
     */
    static PathMessagingHops open(final String provider, final String shmDirectory, final int size)
    {
        final String secret = MessagingPeer.newSecret();
        return openBoth(() -> MessagingPeer.open(provider, shmDirectory, secret, size), (pinger, ponger) ->
        {
            pinger.connectTo(ponger.port());
            ponger.connectTo(pinger.port());
            MessagingPeer.connect(pinger, ponger);
            return new PathMessagingHops(pinger, ponger);
        });
    }

    @Override
    protected void sendPing()
    {
        send(pinger.publication, ponger, pongerHandler, pings);
    }

    @Override
    protected int pollPonger()
    {
        return ponger.subscription.poll(pongerHandler, MessagingPinger.POLL_BATCH);
    }

    @Override
    protected int pollPinger()
    {
        return pinger.subscription.poll(pingerHandler, MessagingPinger.POLL_BATCH);
    }

    @Override
    protected String describe()
    {
        return pinger.provider + " messaging (pinger: " + pinger.connectionState() + "; ponger: " +
            ponger.connectionState() + ")";
    }

    /**
     * Claims, encodes and commits a probe; while back-pressured, polls the receiving side, whose
     * subscription returns the credit (never the subscription whose handler may be calling this).
     */
    private void send(final Publication publication, final MessagingPeer receiver, final FragmentHandler receiverHandler,
        final long sequence)
    {
        long result;
        while ((result = publication.tryClaim(pinger.messageLength, claim)) < 0)
        {
            if (result != Publication.BACK_PRESSURED && result != Publication.ADMIN_ACTION)
            {
                failure = "tryClaim returned " + MessagingPeer.statusName(result);
                return;
            }
            receiver.subscription.poll(receiverHandler, MessagingPinger.POLL_BATCH);
        }
        codec.encode(claim.buffer(), claim.offset(), sequence, 0, 0, padding, 0, paddingLength);
        result = claim.commit();
        if (result < 0 && null == failure)
        {
            failure = "commit returned " + MessagingPeer.statusName(result);
        }
    }

    private void onPing(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        if (decode(buffer, offset, length))
        {
            pings++;
            send(ponger.publication, pinger, pingerHandler, codec.sequence());
        }
    }

    private void onEcho(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        if (decode(buffer, offset, length))
        {
            echoes++;
        }
    }

    private boolean decode(final DirectBuffer buffer, final int offset, final int length)
    {
        final int decoded = codec.decode(buffer, offset, length);
        if (decoded < 0 && null == failure)
        {
            failure = "probe refused: " + LatencyProbeCodec.describe(decoded);
        }
        return decoded >= 0;
    }
}
