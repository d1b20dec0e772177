package io.ringwire.perf.output;

import org.HdrHistogram.Histogram;

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
 */
public record RecordedHistogram(String name, String group, String label, Histogram histogram)
{
    private static final Pattern FILE_SAFE = Pattern.compile("[A-Za-z0-9._-]+");

    /**
     * Refuses a name or group that would not make a safe file name.
     */
    public RecordedHistogram
    {
        if (!FILE_SAFE.matcher(name).matches() || !FILE_SAFE.matcher(group).matches())
        {
            throw new IllegalArgumentException("histogram name '" + name + "' and group '" + group +
                "' must be letters, digits, '.', '_' or '-'");
        }
    }
}
