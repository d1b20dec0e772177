package io.ringwire.perf.pingpong;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;
import org.HdrHistogram.ValueRecorder;

import java.nio.ByteBuffer;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.DataFormatException;

/**
 * A histogram of a whole run and, beside it, the same values cut into intervals: the measuring
 * thread records each value into both; the control thread closes an interval when it likes (once a
 * second) without stopping the writer, through HdrHistogram's {@link SingleWriterRecorder}, which
 * swaps its two histograms under a writer-reader phaser. The whole histogram gives the run's
 * percentiles, the intervals the interval log ({@code .hdr}) that shows when a stall happened.
 *
 * <p>Each closed interval is kept compressed (HdrHistogram's compressed encoding, typically a few
 * hundred bytes) and its histogram is handed back to the recorder, so keeping a run's intervals
 * costs the control thread little allocation: a full histogram a second would fill the young
 * generation and cost the run the very collections it is meant to show it does not need.
 *
 * <p>Threading: {@link #recordValue} from one writer thread, allocation-free; {@link #closeInterval}
 * and {@link #intervals} from one control thread; {@link #whole} after the writer has been joined.
 */
public final class IntervalHistogram implements ValueRecorder
{
    private final long highestTrackable;
    private final Histogram whole;
    private final SingleWriterRecorder recorder;
    private final List<EncodedInterval> intervals = new ArrayList<>();
    /** The recorder's histogram last handed out, handed back at the next interval. */
    private Histogram spare;
    /** Where an interval is compressed before its bytes are copied out; grows when needed. */
    private ByteBuffer encoding = ByteBuffer.allocate(0);

    /** One interval, compressed, with its time stamps (ms since the epoch). */
    private record EncodedInterval(long startMs, long endMs, byte[] compressed)
    {
    }

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
        final Histogram interval = recorder.getIntervalHistogram(spare);
        spare = interval;
        if (interval.getTotalCount() > 0)
        {
            final int needed = interval.getNeededByteBufferCapacity();
            if (encoding.capacity() < needed)
            {
                encoding = ByteBuffer.allocate(needed);
            }
            encoding.clear();
            final int length = interval.encodeIntoCompressedByteBuffer(encoding);
            final byte[] compressed = new byte[length];
            encoding.flip();
            encoding.get(compressed);
            intervals.add(new EncodedInterval(interval.getStartTimeStamp(), interval.getEndTimeStamp(), compressed));
        }
    }

    /**
     * @return the closed intervals, oldest first, each with its start and end time stamps (ms): a
     *         view that decodes an interval each time it is read, so a writer going through a long
     *         run's intervals holds one full histogram at a time, not one per second of the run.
     */
    public List<Histogram> intervals()
    {
        final List<EncodedInterval> encoded = List.copyOf(intervals);
        return new AbstractList<>()
        {
            @Override
            public Histogram get(final int index)
            {
                return decode(encoded.get(index));
            }

            @Override
            public int size()
            {
                return encoded.size();
            }
        };
    }

    private Histogram decode(final EncodedInterval interval)
    {
        try
        {
            final Histogram histogram = Histogram.decodeFromCompressedByteBuffer(
                ByteBuffer.wrap(interval.compressed()), highestTrackable);
            histogram.setStartTimeStamp(interval.startMs());
            histogram.setEndTimeStamp(interval.endMs());
            return histogram;
        }
        catch (final DataFormatException ex)
        {
            throw new IllegalStateException("an interval encoded here does not decode", ex);
        }
    }

    /**
     * @return every value recorded since the last {@link #reset()}.
     */
    public Histogram whole()
    {
        return whole;
    }
}
