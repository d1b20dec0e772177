package io.ringwire.perf.rtt;

import io.ringwire.messaging.BufferClaim;
import io.ringwire.messaging.Publication;
import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import org.agrona.DirectBuffer;

/**
 * Sends {@code LatencyProbe}s through one messaging side's publication, for every measurement that
 * sends them (rtt's pinger and ponger, oneway's sender, path's hops): claims a frame
 * ({@code tryClaim}), waiting out back pressure and admin actions for at most
 * {@link SpinningTask#PEER_SILENCE_TIMEOUT_NS}, encodes the probe straight into it and commits.
 * Allocation-free unless it fails.
 *
 * <p>Threading: the spinning thread that owns the side.
 */
public final class ProbeSender
{
    /** For {@link #send}: the caller read no clock, so a wait is timed from its first clock read. */
    public static final long CLOCK_NOT_READ = Long.MIN_VALUE;

    private final MessagingPeer peer;
    private final Publication publication;
    private final Runnable idle;
    private final BufferClaim claim = new BufferClaim();
    private final LatencyProbeCodec codec = new LatencyProbeCodec();

    /**
     * @param peer the side, connected both ways.
     * @param idle what to do between refused claims (idle, drive the side that returns the credit),
     *             or null to retry at once (a handler answering from inside {@code poll}).
     */
    public ProbeSender(final MessagingPeer peer, final Runnable idle)
    {
        this.peer = peer;
        this.publication = peer.publication;
        this.idle = idle;
    }

    /**
     * Claims, encodes and commits one probe.
     *
     * @param length          the probe's length.
     * @param sequence        its sequence.
     * @param sendTimestampNs its send timestamp.
     * @param echoTimestampNs its echo timestamp (oneway's due time; 0 for none).
     * @param padding         its padding bytes, from offset 0.
     * @param paddingLength   how many.
     * @param waitingSinceNs  when the send began, or {@link #CLOCK_NOT_READ}.
     * @return null when committed, else what failed.
     */
    public String send(final int length, final long sequence, final long sendTimestampNs, final long echoTimestampNs,
        final DirectBuffer padding, final int paddingLength, final long waitingSinceNs)
    {
        long result;
        int refusals = 0;
        long sinceNs = waitingSinceNs;
        while ((result = publication.tryClaim(length, claim)) < 0)
        {
            if (result != Publication.BACK_PRESSURED && result != Publication.ADMIN_ACTION)
            {
                return "tryClaim returned " + MessagingPeer.statusName(result) + "; " + peer.connectionState();
            }
            if ((++refusals & SpinningTask.CLOCK_CHECK_MASK) == 0)
            {
                final long nowNs = System.nanoTime();
                sinceNs = CLOCK_NOT_READ == sinceNs ? nowNs : sinceNs;
                if (nowNs - sinceNs > SpinningTask.PEER_SILENCE_TIMEOUT_NS)
                {
                    return "the publication stayed " + MessagingPeer.statusName(result) + " for " +
                        SpinningTask.PEER_SILENCE_TIMEOUT_NS / 1_000_000 + " ms";
                }
            }
            if (null != idle)
            {
                idle.run();
            }
        }
        codec.encode(claim.buffer(), claim.offset(), sequence, sendTimestampNs, echoTimestampNs, padding, 0,
            paddingLength);
        result = claim.commit();
        return result < 0 ? "commit returned " + MessagingPeer.statusName(result) + "; " + peer.connectionState() :
            null;
    }
}
