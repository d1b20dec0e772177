package io.ringwire.perf.output;

import org.HdrHistogram.Histogram;

import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One histogram of a run, as its files name it.
 *
 * @param name      file stem of its {@code .hdr} and {@code .hgrm} files: letters, digits, '.', '_'
 *                  and '-' only, so it is safe in any file system and link.
 * @param group     the plot it is drawn in ({@code <group>.png}), with the histograms of the same
 *                  group (one row's service and due-time latencies); same characters as the name.
 * @param label     its legend in the plot and its line in results.md.
 * @param histogram the values, in nanoseconds.
 * @param intervals the same values cut into time intervals, oldest first, each with its start and
 *                  end time stamps; empty when the run kept none (its log then has one interval).
 */
public record RecordedHistogram(String name, String group, String label, Histogram histogram,
    List<Histogram> intervals)
{
    private static final Pattern FILE_SAFE = Pattern.compile("[A-Za-z0-9._-]+");

    /**
     * Refuses a name or group that would not make a safe file name.
     */
    public RecordedHistogram
    {
        intervals = Collections.unmodifiableList(intervals); // not copied: a lazily decoding view stays one
        if (!FILE_SAFE.matcher(name).matches() || !FILE_SAFE.matcher(group).matches())
        {
            throw new IllegalArgumentException("histogram name '" + name + "' and group '" + group +
                "' must be letters, digits, '.', '_' or '-'");
        }
    }

    /**
     * A histogram kept whole, with no intervals.
     *
     * @param name      file stem.
     * @param group     plot.
     * @param label     legend.
     * @param histogram the values, in nanoseconds.
     */
    public RecordedHistogram(final String name, final String group, final String label, final Histogram histogram)
    {
        this(name, group, label, histogram, List.of());
    }
}
