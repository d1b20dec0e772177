package io.ringwire.perf.rtt;

import org.HdrHistogram.Histogram;

/**
 * An open-loop row's latencies from each message's due time ({@code rtt --rate}), summarised as
 * {@link RttResult} summarises the service time. Times in nanoseconds.
 *
 * @param ratePerSecond messages due per second.
 * @param p50           median.
 * @param p90           90th percentile.
 * @param p99           99th percentile.
 * @param p99_9         99.9th percentile.
 * @param p99_99        99.99th percentile.
 * @param max           largest.
 * @param mean          arithmetic mean.
 */
public record RttDueTime(long ratePerSecond, long p50, long p90, long p99, long p99_9, long p99_99, long max,
    double mean) implements RttPercentiles
{
    /**
     * @param ratePerSecond messages due per second.
     * @param histogram     latencies from the due time, ns; null in a closed loop.
     * @return the summary, or null for a null histogram.
     */
    static RttDueTime of(final long ratePerSecond, final Histogram histogram)
    {
        if (null == histogram)
        {
            return null;
        }
        return new RttDueTime(ratePerSecond, histogram.getValueAtPercentile(50.0),
            histogram.getValueAtPercentile(90.0), histogram.getValueAtPercentile(99.0),
            histogram.getValueAtPercentile(99.9), histogram.getValueAtPercentile(99.99), histogram.getMaxValue(),
            histogram.getMean());
    }
}
