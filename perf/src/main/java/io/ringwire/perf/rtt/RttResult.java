package io.ringwire.perf.rtt;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.host.GcActivity;
import io.ringwire.perf.host.ThreadAllocation;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import org.HdrHistogram.Histogram;

/**
 * The round trips of one transport through one path (channel, messaging or raw sockets), summarised
 * from its histogram. Times in nanoseconds.
 *
 * @param provider               an RDMA provider (shm, socket, roce, ibverbs) or a raw baseline.
 * @param api                    {@link Transports#API_CHANNEL}, {@link Transports#API_MESSAGING} or, for the
 *                               NIO baselines, {@link Transports#API_RAW}.
 * @param processes              1 or 2.
 * @param size                   bytes per message on this path (a messaging probe is at least
 *                               {@link LatencyProbeCodec#MIN_LENGTH}).
 * @param count                  round trips recorded.
 * @param p50                    median.
 * @param p90                    90th percentile.
 * @param p99                    99th percentile.
 * @param p99_9                  99.9th percentile.
 * @param p99_99                 99.99th percentile.
 * @param max                    largest.
 * @param mean                   arithmetic mean.
 * @param pingerCpu              CPU of the pinger, or {@link CpuPlan#UNPINNED}.
 * @param pongerCpu              CPU of the ponger, or {@link CpuPlan#UNPINNED}.
 * @param pingerAllocatedBytes   bytes the pinger thread allocated while measuring (0 expected), or
 *                               {@link ThreadAllocation#UNKNOWN}.
 * @param pingerJitCompiled      whether the JIT compiled anything while the pinger measured (so a
 *                               few hundred allocated bytes may be HotSpot's, not the loop's).
 * @param gc                     collections in the pinger's measured window (after the warm-up), in the
 *                               pinger's JVM and, with two processes, the ponger's (its whole run when
 *                               it cannot tell the window).
 * @param dueTime                in an open loop ({@code --rate}), the latencies from each message's due
 *                               time (the fields above are then the service time); null in a closed loop.
 * @param notComparableReason    why this row is no fair baseline on this host (an aeron-udp driver
 *                               that could not have CPUs of its own), or null when it is one.
 */
public record RttResult(
    String provider,
    String api,
    int processes,
    int size,
    long count,
    long p50,
    long p90,
    long p99,
    long p99_9,
    long p99_99,
    long max,
    double mean,
    int pingerCpu,
    int pongerCpu,
    long pingerAllocatedBytes,
    boolean pingerJitCompiled,
    GcActivity gc,
    RttDueTime dueTime,
    String notComparableReason) implements RttPercentiles
{
    /**
     * A row that is a fair baseline: every component but the last, as the record's comment has them.
     */
    public RttResult(final String provider, final String api, final int processes, final int size, final long count,
        final long p50, final long p90, final long p99, final long p99_9, final long p99_99, final long max,
        final double mean, final int pingerCpu, final int pongerCpu, final long pingerAllocatedBytes,
        final boolean pingerJitCompiled, final GcActivity gc, final RttDueTime dueTime)
    {
        this(provider, api, processes, size, count, p50, p90, p99, p99_9, p99_99, max, mean, pingerCpu, pongerCpu,
            pingerAllocatedBytes, pingerJitCompiled, gc, dueTime, null);
    }

    /**
     * @param reason why this row is no fair baseline here, or null when it is one.
     * @return this row, so marked.
     */
    public RttResult notComparableBecause(final String reason)
    {
        return new RttResult(provider, api, processes, size, count, p50, p90, p99, p99_9, p99_99, max, mean,
            pingerCpu, pongerCpu, pingerAllocatedBytes, pingerJitCompiled, gc, dueTime, reason);
    }

    /**
     * Summarises a histogram (percentiles are HdrHistogram's highest equivalent values at 3
     * significant digits).
     *
     * @param provider             transport name.
     * @param api                  the path measured.
     * @param processes            1 or 2.
     * @param size                 bytes per message.
     * @param histogram            round trips in ns.
     * @param pingerCpu            CPU of the pinger, or {@link CpuPlan#UNPINNED}.
     * @param pongerCpu            CPU of the ponger, or {@link CpuPlan#UNPINNED}.
     * @param pingerAllocatedBytes bytes allocated while measuring, or {@link ThreadAllocation#UNKNOWN}.
     * @param pingerJitCompiled    whether the JIT compiled while the pinger measured.
     * @return the result.
     */
    static RttResult of(final String provider, final String api, final int processes, final int size,
        final Histogram histogram, final int pingerCpu, final int pongerCpu, final long pingerAllocatedBytes,
        final boolean pingerJitCompiled)
    {
        return of(provider, api, processes, size, histogram, pingerCpu, pongerCpu, pingerAllocatedBytes,
            pingerJitCompiled, GcActivity.NONE, null);
    }

    /**
     * Summarises a histogram as {@link #of(String, String, int, int, Histogram, int, int, long, boolean)}
     * does, with an open loop's due-time latencies.
     *
     * @param gc      collections during the run.
     * @param dueTime the due-time summary, or null in a closed loop.
     * @return the result.
     */
    static RttResult of(final String provider, final String api, final int processes, final int size,
        final Histogram histogram, final int pingerCpu, final int pongerCpu, final long pingerAllocatedBytes,
        final boolean pingerJitCompiled, final GcActivity gc, final RttDueTime dueTime)
    {
        return new RttResult(provider, api, processes, size, histogram.getTotalCount(),
            histogram.getValueAtPercentile(50.0), histogram.getValueAtPercentile(90.0),
            histogram.getValueAtPercentile(99.0), histogram.getValueAtPercentile(99.9),
            histogram.getValueAtPercentile(99.99), histogram.getMaxValue(), histogram.getMean(),
            pingerCpu, pongerCpu, pingerAllocatedBytes, pingerJitCompiled, gc, dueTime);
    }
}
