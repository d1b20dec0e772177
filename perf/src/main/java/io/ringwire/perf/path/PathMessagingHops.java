package io.ringwire.perf.path;

import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.rtt.MessagingPeer;
import io.ringwire.perf.rtt.MessagingPinger;
import io.ringwire.perf.rtt.MessagingPonger;
import io.ringwire.perf.rtt.ProbeSender;
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
    /** Decodes pings and echoes alike. */
    private final LatencyProbeCodec codec = new LatencyProbeCodec();
    private final DirectBuffer padding;
    private final int paddingLength;
    private final FragmentHandler pingerHandler = this::onEcho;
    private final FragmentHandler pongerHandler = this::onPing;
    /** Pings; while back-pressured it polls the ponger, whose subscription returns the credit. */
    private final ProbeSender pingSender;
    /** Echoes; while back-pressured it polls the pinger. */
    private final ProbeSender echoSender;

    private PathMessagingHops(final MessagingPeer pinger, final MessagingPeer ponger)
    {
        super(pinger, ponger);
        this.pinger = pinger;
        this.ponger = ponger;
        this.paddingLength = LatencyProbeCodec.paddingLength(pinger.messageLength);
        this.padding = LatencyProbeCodec.zeroPadding(paddingLength);
        this.pingSender = new ProbeSender(pinger, this::pollPonger);
        this.echoSender = new ProbeSender(ponger, this::pollPinger);
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
        send(pingSender, pings);
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
     * Sends a probe; a sender polls only the receiving side while back-pressured, never the
     * subscription whose handler may be calling this.
     */
    private void send(final ProbeSender sender, final long sequence)
    {
        final String refused = sender.send(pinger.messageLength, sequence, 0, 0, padding, paddingLength,
            ProbeSender.CLOCK_NOT_READ);
        if (null != refused && null == failure)
        {
            failure = refused;
        }
    }

    private void onPing(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        if (decode(buffer, offset, length))
        {
            pings++;
            send(echoSender, codec.sequence());
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
