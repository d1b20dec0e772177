package io.ringwire.perf.oneway;

import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.Subscription;
import io.ringwire.perf.host.PaddedCount;
import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.Pinger;
import io.ringwire.perf.rtt.MessagingPeer;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;

/**
 * The receiving end of a one-way run through messaging: busy-polls its subscription, decodes each
 * {@code LatencyProbe} in place and checks its sequence; from the probe with the warm-up's sequence
 * on, it reads the clock and records the receive time minus the send stamp and, when the probe
 * carries a due time, the receive time minus that. Both ends read {@code System.nanoTime} on one
 * host, so the difference is a one-way latency without clock synchronisation. It counts messages
 * and bytes for throughput and ends at the stop probe.
 *
 * <p>Threading: {@link #run()} on the receiver thread; {@link #received()} and {@link #bytes()} may
 * be read by the control thread at any time (release writes); the histograms and times after the
 * receiver thread ended.
 */
final class OneWayReceiver implements Runnable, FragmentHandler
{
    private static final int POLL_BATCH = 64;

    private final Subscription subscription;
    private final ThreadPlan plan;
    private final long warmup;
    private final LatencyProbeCodec codec = new LatencyProbeCodec();
    private final Histogram latency = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
    private final Histogram dueLatency = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
    private final PaddedCount receivedCount = new PaddedCount();
    private final PaddedCount receivedBytes = new PaddedCount();

    // Written by the fragment handler, on the receiver thread.
    private boolean stopReceived;
    private long expectedSequence;
    private long firstMeasuredDueNs;
    private long firstMeasuredReceiveNs;
    private long lastReceiveNs;
    private String failure;

    /**
     * @param peer   the receiving side, connected.
     * @param plan   where the thread runs and how it idles.
     * @param warmup messages not recorded in the histograms.
     */
    OneWayReceiver(final MessagingPeer peer, final ThreadPlan plan, final long warmup)
    {
        this.subscription = peer.subscription;
        this.plan = plan;
        this.warmup = warmup;
    }

    @Override
    public void run()
    {
        OneWayThreads.pin("receiver", plan);
        long lastProgressNs = System.nanoTime();
        long lastCount = 0;
        int idlePolls = 0;
        while (!stopReceived && null == failure)
        {
            if (subscription.poll(this, POLL_BATCH) > 0)
            {
                continue;
            }
            if ((++idlePolls & SpinningTask.CLOCK_CHECK_MASK) == 0)
            {
                subscription.doWork();
                final long nowNs = System.nanoTime();
                final long count = receivedCount.get();
                if (count != lastCount)
                {
                    lastCount = count;
                    lastProgressNs = nowNs;
                }
                else if (nowNs - lastProgressNs > SpinningTask.PEER_SILENCE_TIMEOUT_NS)
                {
                    failure = "no message for " + SpinningTask.PEER_SILENCE_TIMEOUT_NS / 1_000_000 + " ms after " +
                        count + " received";
                }
            }
            OneWayThreads.idle(plan);
        }
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final int decoded = codec.decode(buffer, offset, length);
        if (decoded < 0)
        {
            failure = "message " + receivedCount.get() + " refused: " + LatencyProbeCodec.describe(decoded);
            return;
        }
        final long sequence = codec.sequence();
        if (LatencyProbeCodec.STOP_SEQUENCE == sequence)
        {
            stopReceived = true;
            return;
        }
        if (sequence != expectedSequence)
        {
            failure = "message " + sequence + " arrived where " + expectedSequence + " was expected";
            return;
        }
        expectedSequence++;
        if (sequence >= warmup)
        {
            // Read only for a measured probe: a flood (warm-up without end) reads no clock a message.
            final long receiveNs = System.nanoTime();
            final long dueNs = codec.echoTimestampNs();
            if (sequence == warmup)
            {
                firstMeasuredReceiveNs = receiveNs;
                firstMeasuredDueNs = dueNs;
            }
            latency.recordValue(Math.min(receiveNs - codec.sendTimestampNs(), Pinger.HIGHEST_TRACKABLE_NS));
            if (0 != dueNs)
            {
                dueLatency.recordValue(Math.min(receiveNs - dueNs, Pinger.HIGHEST_TRACKABLE_NS));
            }
            lastReceiveNs = receiveNs;
        }
        receivedBytes.lazySet(receivedBytes.get() + length);
        receivedCount.lazySet(receivedCount.get() + 1);
    }

    /**
     * @return messages received, the stop probe not counted; what {@link OneWaySender.Pacing#ONE_IN_FLIGHT}
     *         waits on.
     */
    PaddedCount receivedCounter()
    {
        return receivedCount;
    }

    /**
     * @return messages received so far.
     */
    long received()
    {
        return receivedCount.get();
    }

    /**
     * @return payload bytes received so far.
     */
    long bytes()
    {
        return receivedBytes.get();
    }

    /**
     * @return receive minus send stamp of each measured message, ns.
     */
    Histogram latency()
    {
        return latency;
    }

    /**
     * @return receive minus due time of each measured message, ns; empty without a rate.
     */
    Histogram dueLatency()
    {
        return dueLatency;
    }

    /**
     * @return the rate the measured messages arrived at, per second, from the first one's due time
     *         (its receive time when it had none) to the last one's receive time; 0 with fewer than
     *         two.
     */
    double achievedRatePerSecond()
    {
        final long measured = latency.getTotalCount();
        final long fromNs = 0 != firstMeasuredDueNs ? firstMeasuredDueNs : firstMeasuredReceiveNs;
        return measured < 2 ? 0 : ThroughputArithmetic.perSecond(measured, lastReceiveNs - fromNs);
    }

    /**
     * @return null when every message arrived in order and decoded, else what went wrong.
     */
    String failure()
    {
        return failure;
    }
}
