package io.ringwire.perf.pingpong;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;
import org.HdrHistogram.ValueRecorder;

import java.util.ArrayList;
import java.util.List;

/**
 * A histogram of a whole run and, beside it, the same values cut into intervals: the measuring
 * thread records each value into both; the control thread closes an interval when it likes (once a
 * second) without stopping the writer, through HdrHistogram's {@link SingleWriterRecorder}, which
 * swaps its two histograms under a writer-reader phaser. The whole histogram gives the run's
 * percentiles, the intervals the interval log ({@code .hdr}) that shows when a stall happened.
 *
 * <p>Threading: {@link #recordValue} from one writer thread, allocation-free; {@link #closeInterval}
 * and {@link #intervals} from one control thread (they allocate); {@link #whole} after the writer
 * has been joined.
 */
public final class IntervalHistogram implements ValueRecorder
{
    private final long highestTrackable;
    private final Histogram whole;
    private final SingleWriterRecorder recorder;
    private final List<Histogram> intervals = new ArrayList<>();

    /**
     * @param highestTrackable the largest value tracked (ns); callers clamp to it.
     * @param significantDigits HdrHistogram's precision, 3 for these benchmarks.
     */
    public IntervalHistogram(final long highestTrackable, final int significantDigits)
    {
        this.highestTrackable = highestTrackable;
        this.whole = new Histogram(highestTrackable, significantDigits);
        this.recorder = new SingleWriterRecorder(highestTrackable, significantDigits);
    }

    @Override
    public void recordValue(final long value)
    {
        whole.recordValue(value);
        recorder.recordValue(value);
    }

    @Override
    public void recordValueWithCount(final long value, final long count)
    {
        whole.recordValueWithCount(value, count);
        recorder.recordValueWithCount(value, count);
    }

    @Override
    public void recordValueWithExpectedInterval(final long value, final long expectedIntervalBetweenValueSamples)
    {
        whole.recordValueWithExpectedInterval(value, expectedIntervalBetweenValueSamples);
        recorder.recordValueWithExpectedInterval(value, expectedIntervalBetweenValueSamples);
    }

    /**
     * Starts the first interval now, forgetting what was recorded before; called by the writer
     * before its first value, so the first interval's start time is the run's. Intervals closed
     * before hold no value and were not kept.
     */
    @Override
    public void reset()
    {
        whole.reset();
        recorder.reset();
    }

    /**
     * Ends the current interval now and starts the next; an interval with no value is not kept.
     */
    public void closeInterval()
    {
        final Histogram interval = recorder.getIntervalHistogram();
        if (interval.getTotalCount() > 0)
        {
            intervals.add(interval);
        }
    }

    /**
     * @return the closed intervals, oldest first, each with its start and end time stamps (ms).
     */
    public List<Histogram> intervals()
    {
        return List.copyOf(intervals);
    }

    /**
     * @return every value recorded since the last {@link #reset()}.
     */
    public Histogram whole()
    {
        return whole;
    }

    /**
     * @return the largest value tracked.
     */
    public long highestTrackable()
    {
        return highestTrackable;
    }
}
