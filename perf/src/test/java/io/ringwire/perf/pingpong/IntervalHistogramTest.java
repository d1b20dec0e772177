package io.ringwire.perf.pingpong;

import io.ringwire.perf.host.ThreadAllocation;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IntervalHistogramTest
{
    @Test
    void eachValueIsInTheWholeRunAndInTheIntervalItWasRecordedIn()
    {
        final IntervalHistogram histogram = new IntervalHistogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        histogram.reset();
        for (int i = 0; i < 100; i++)
        {
            histogram.recordValue(1_000);
        }
        histogram.closeInterval();
        histogram.closeInterval();
        histogram.recordValue(10_000_000);
        histogram.recordValueWithCount(2_000, 9);
        histogram.closeInterval();

        final List<Histogram> intervals = histogram.intervals();
        assertEquals(2, intervals.size(), "an interval with no value is not kept");
        assertEquals(100, intervals.get(0).getTotalCount());
        assertEquals(10, intervals.get(1).getTotalCount());
        assertEquals(10_000_000, intervals.get(1).getMaxValue(), 10_000_000 / 1000.0,
            "the stall is in the second interval only");
        assertTrue(intervals.get(0).getMaxValue() < 1_100, intervals.get(0).getMaxValue() + " ns");
        assertTrue(intervals.get(0).getStartTimeStamp() <= intervals.get(1).getStartTimeStamp());
        assertEquals(110, histogram.whole().getTotalCount());
    }

    @Test
    void resetForgetsTheWarmUpAndStartsTheFirstIntervalAfresh()
    {
        final IntervalHistogram histogram = new IntervalHistogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        histogram.recordValue(5_000);
        histogram.reset();
        histogram.recordValue(7_000);
        histogram.closeInterval();
        assertEquals(1, histogram.whole().getTotalCount());
        assertEquals(1, histogram.intervals().getFirst().getTotalCount());
    }

    @Test
    void keepingAnIntervalCostsTheControlThreadAFractionOfAHistogram()
    {
        final IntervalHistogram histogram = new IntervalHistogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        for (int warm = 0; warm < 3; warm++)
        {
            record(histogram);
            histogram.closeInterval();
        }
        final int intervals = 20;
        long allocated = 0;
        for (int interval = 0; interval < intervals; interval++)
        {
            record(histogram);
            final long before = ThreadAllocation.currentThreadAllocatedBytes();
            histogram.closeInterval();
            allocated += ThreadAllocation.currentThreadAllocatedBytes() - before;
        }
        final long footprint = histogram.whole().getEstimatedFootprintInBytes();
        assertTrue(allocated / intervals < footprint / 10, allocated / intervals + " bytes an interval against a " +
            footprint + "-byte histogram");
        assertEquals(intervals + 3, histogram.intervals().size());
        assertEquals(histogram.whole().getTotalCount(),
            histogram.intervals().stream().mapToLong(Histogram::getTotalCount).sum(), "nothing lost in the encoding");
        assertEquals(histogram.whole().getMaxValue(),
            histogram.intervals().stream().mapToLong(Histogram::getMaxValue).max().orElseThrow());
    }

    private static void record(final IntervalHistogram histogram)
    {
        for (int i = 0; i < 10_000; i++)
        {
            histogram.recordValue(150 + (i * 37L) % 50_000);
        }
    }

    @Test
    void recordingAllocatesNothingOnceCompiled()
    {
        final IntervalHistogram histogram = new IntervalHistogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        long allocated = -1;
        // Rounds until one runs fully compiled: the JIT allocates on the thread whose code it
        // compiles, so an early round may carry its bytes.
        for (int round = 0; round < 10 && allocated != 0; round++)
        {
            final long before = ThreadAllocation.currentThreadAllocatedBytes();
            for (int i = 0; i < 1_000_000; i++)
            {
                histogram.recordValue(100 + (i & 4095));
            }
            allocated = ThreadAllocation.currentThreadAllocatedBytes() - before;
        }
        assertEquals(0, allocated, "bytes allocated over 1M recorded values in the last round");
    }
}
