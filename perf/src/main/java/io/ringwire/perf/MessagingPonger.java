package io.ringwire.perf;

import io.ringwire.messaging.BufferClaim;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.DirectBuffer;


/**
 * The ponger through messaging: busy-polls its subscription; its handler validates and decodes each
 * {@code LatencyProbe} in place and echoes it at once through its own publication (tryClaim, encode
 * the same sequence, send timestamp and padding with {@code echoTimestampNs} set, commit). Ends
 * after echoing the probe with {@link LatencyProbeCodec#STOP_SEQUENCE}.
 *
 * <p>It measures its own allocation over the pinger's measured window: from the probe whose
 * sequence is the warm-up count to the stop probe.
 *
 * <p>Threading: the ponger thread only, after its side was connected both ways; the measurements
 * are read after that thread ended.
 */
final class MessagingPonger extends SpinningTask implements FragmentHandler
{
    private final MessagingPeer peer;
    private final Publication publication;
    private final Subscription subscription;
    private final BufferClaim claim = new BufferClaim();
    private final LatencyProbeCodec codec = new LatencyProbeCodec();
    private final long warmup;

    // Written by the fragment handler (inside poll) and the loop, both on the ponger thread.
    private long received;
    private boolean stopReceived;
    private String error;
    private long allocatedAtWindowStart = ThreadAllocation.UNKNOWN;
    private long compilationAtWindowStart;
    private long measuredAllocatedBytes = ThreadAllocation.UNKNOWN;
    private boolean jitCompiledWhileMeasuring;

    /**
     * @param peer   this side, connected both ways.
     * @param plan   where the thread runs and how it idles.
     * @param warmup the pinger's unrecorded round trips (where the allocation window starts).
     */
    MessagingPonger(final MessagingPeer peer, final ThreadPlan plan, final long warmup)
    {
        super("ponger", plan);
        this.peer = peer;
        this.publication = peer.publication;
        this.subscription = peer.subscription;
        this.warmup = warmup;
    }

    /** Heartbeats and liveness while the pinger is quiet. */
    @Override
    protected void onWatch()
    {
        publication.doWork();
    }

    @Override
    protected String watchDetail()
    {
        return " (" + peer.connectionState() + ")";
    }

    @Override
    protected String runLoop()
    {
        while (true)
        {
            if (subscription.poll(this, MessagingPinger.POLL_BATCH) == 0)
            {
                final String failure = idleAndWatch(received, "probe");
                if (null != failure)
                {
                    return failure;
                }
            }
            if (null != error)
            {
                return error;
            }
            if (stopReceived)
            {
                return null;
            }
        }
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final int decoded = codec.decode(buffer, offset, length);
        if (decoded < 0)
        {
            error = "probe " + received + " refused: " + LatencyProbeCodec.describe(decoded);
            return;
        }
        final long sequence = codec.sequence();
        if (sequence == warmup)
        {
            compilationAtWindowStart = ThreadAllocation.compilationTimeMs();
            allocatedAtWindowStart = ThreadAllocation.currentThreadAllocatedBytes();
        }
        else if (sequence == LatencyProbeCodec.STOP_SEQUENCE)
        {
            endAllocationWindow();
        }
        long result;
        int refusals = 0;
        long refusedSinceNs = 0;
        while ((result = publication.tryClaim(length, claim)) < 0)
        {
            if (result != Publication.BACK_PRESSURED && result != Publication.ADMIN_ACTION)
            {
                error = "echo of probe " + sequence + ": tryClaim returned " + MessagingPeer.statusName(result) + "; " +
                    peer.connectionState();
                return;
            }
            if ((++refusals & CLOCK_CHECK_MASK) == 0)
            {
                final long nowNs = System.nanoTime();
                refusedSinceNs = 0 == refusedSinceNs ? nowNs : refusedSinceNs;
                if (nowNs - refusedSinceNs > PEER_SILENCE_TIMEOUT_NS)
                {
                    error = "echo of probe " + sequence + ": the publication stayed " +
                        MessagingPeer.statusName(result) + " for " + PEER_SILENCE_TIMEOUT_NS / 1_000_000 + " ms";
                    return;
                }
            }
        }
        final DirectBuffer padding = codec.padding();
        // echoTimestampNs stays 0: the bare channel's ponger, the baseline this path is compared
        // with, reads no clock, so a clock read here would count against messaging alone.
        codec.encode(claim.buffer(), claim.offset(), sequence, codec.sendTimestampNs(), 0, padding, 0,
            padding.capacity());
        result = claim.commit();
        if (result < 0)
        {
            error = "echo of probe " + sequence + ": commit returned " + MessagingPeer.statusName(result) + "; " +
                peer.connectionState();
            return;
        }
        received++;
        stopReceived = sequence == LatencyProbeCodec.STOP_SEQUENCE;
    }

    private void endAllocationWindow()
    {
        final long allocatedNow = ThreadAllocation.currentThreadAllocatedBytes();
        if (allocatedAtWindowStart != ThreadAllocation.UNKNOWN && allocatedNow != ThreadAllocation.UNKNOWN)
        {
            measuredAllocatedBytes = allocatedNow - allocatedAtWindowStart;
            jitCompiledWhileMeasuring = ThreadAllocation.compilationTimeMs() != compilationAtWindowStart;
        }
    }

    /**
     * @return probes echoed, the stop probe included (read after the ponger thread ended).
     */
    long echoed()
    {
        return received;
    }

    /**
     * @return bytes the ponger thread allocated over the pinger's measured window, or
     *         {@link ThreadAllocation#UNKNOWN} (read after the ponger thread ended).
     */
    long measuredAllocatedBytes()
    {
        return measuredAllocatedBytes;
    }

    /**
     * @return whether the JIT compiled anything during that window (read after the thread ended).
     */
    boolean jitCompiledWhileMeasuring()
    {
        return jitCompiledWhileMeasuring;
    }
}
