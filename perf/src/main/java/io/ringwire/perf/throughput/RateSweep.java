package io.ringwire.perf.throughput;

import java.util.concurrent.TimeUnit;

/**
 * The rule of the latency-against-offered-rate sweep: offered rates double from a start rate, and
 * the sweep stops at the first step whose achieved rate misses its target by more than
 * {@link #MISS_FRACTION} or whose p99 exceeds {@link #P99_LIMIT_NS}, since past that point the
 * transport is saturated and a higher offered rate only grows the queue. That step is still
 * reported: it shows where saturation began.
 */
final class RateSweep
{
    /** How far the achieved rate may fall below the offered one before the sweep stops. */
    static final double MISS_FRACTION = 0.05;
    /** The p99 above which the sweep stops. */
    static final long P99_LIMIT_NS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The default first offered rate, per second. */
    static final long DEFAULT_START_RATE = 10_000;

    private RateSweep()
    {
    }

    /**
     * @param startRate the first offered rate, per second.
     * @param step      0, 1, 2, ...
     * @return the offered rate of that step: the start rate doubled {@code step} times.
     */
    static long offeredRate(final long startRate, final int step)
    {
        return startRate << step;
    }

    /**
     * @param offeredRate  the step's target, per second.
     * @param achievedRate what arrived, per second.
     * @return whether the achieved rate missed the target by more than {@link #MISS_FRACTION}.
     */
    static boolean missed(final long offeredRate, final double achievedRate)
    {
        return achievedRate < offeredRate * (1.0 - MISS_FRACTION);
    }

    /**
     * @param offeredRate  the step's target, per second.
     * @param achievedRate what arrived, per second.
     * @param p99Ns        the step's one-way p99 from due time, ns.
     * @return whether the sweep ends after this step.
     */
    static boolean stopsAfter(final long offeredRate, final double achievedRate, final long p99Ns)
    {
        return missed(offeredRate, achievedRate) || p99Ns > P99_LIMIT_NS;
    }
}
