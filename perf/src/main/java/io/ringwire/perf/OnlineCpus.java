package io.ringwire.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPUs the kernel has online, from {@code /sys/devices/system/cpu/online} (a list such as
 * {@code 0-3,6,8-9}). {@link Runtime#availableProcessors()} is no substitute: once a thread is
 * pinned it reports the pinned set, 1 for a thread pinned to one CPU.
 */
final class OnlineCpus
{
    /** Where Linux lists the online CPUs. */
    static final Path SYSFS_ONLINE = Path.of("/sys/devices/system/cpu/online");

    private OnlineCpus()
    {
    }

    /**
     * @return the online CPUs in ascending order; when sysfs cannot be read (not Linux), CPUs 0 to
     *         {@code availableProcessors() - 1}.
     */
    static List<Integer> read()
    {
        try
        {
            return parse(Files.readString(SYSFS_ONLINE, StandardCharsets.US_ASCII));
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            final List<Integer> cpus = new ArrayList<>();
            for (int cpu = 0; cpu < Runtime.getRuntime().availableProcessors(); cpu++)
            {
                cpus.add(cpu);
            }
            return cpus;
        }
    }

    /**
     * @param list a kernel CPU list, e.g. {@code 0-3,6}; surrounding white space is ignored.
     * @return the CPUs it names, ascending, without duplicates.
     * @throws IllegalArgumentException when it is not a CPU list.
     */
    static List<Integer> parse(final String list)
    {
        final List<Integer> cpus = new ArrayList<>();
        final String trimmed = list.trim();
        if (trimmed.isEmpty())
        {
            return cpus;
        }
        for (final String range : trimmed.split(","))
        {
            final int dash = range.indexOf('-');
            final int first;
            final int last;
            try
            {
                first = Integer.parseInt(dash < 0 ? range.trim() : range.substring(0, dash).trim());
                last = dash < 0 ? first : Integer.parseInt(range.substring(dash + 1).trim());
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("not a CPU list: '" + list + "'", ex);
            }
            if (first < 0 || last < first)
            {
                throw new IllegalArgumentException("not a CPU list: '" + list + "'");
            }
            for (int cpu = first; cpu <= last; cpu++)
            {
                if (!cpus.contains(cpu))
                {
                    cpus.add(cpu);
                }
            }
        }
        cpus.sort(null);
        return cpus;
    }
}
