package io.ringwire.messaging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Counts the machine's online CPUs from {@code /sys/devices/system/cpu/online}: after a thread is
 * pinned, {@link Runtime#availableProcessors()} reports only its own affinity set.
 */
public final class OnlineCpus
{
    private OnlineCpus()
    {
    }

    /**
     * @return online CPUs (falls back to availableProcessors when /sys is unreadable).
     */
    public static int count()
    {
        try
        {
            return parse(Files.readString(Path.of("/sys/devices/system/cpu/online")).trim());
        }
        catch (final IOException | RuntimeException ex)
        {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /**
     * @param list a kernel CPU list such as "0-3,6".
     * @return how many CPUs it names.
     */
    public static int parse(final String list)
    {
        int count = 0;
        for (final String part : list.split(","))
        {
            if (part.isBlank())
            {
                continue;
            }
            final int dash = part.indexOf('-');
            count += dash < 0 ? 1 : Integer.parseInt(part.substring(dash + 1).trim()) -
                Integer.parseInt(part.substring(0, dash).trim()) + 1;
        }
        return count;
    }

    /**
     * @return the kernel's list of online CPUs (e.g. "0-3"), or "0-(n-1)" from availableProcessors
     *         when /sys is unreadable.
     */
    public static String list()
    {
        try
        {
            return Files.readString(Path.of("/sys/devices/system/cpu/online")).trim();
        }
        catch (final IOException ex)
        {
            return "0-" + (Runtime.getRuntime().availableProcessors() - 1);
        }
    }

    /**
     * @param cpu a CPU number.
     * @return true when the kernel lists it as online.
     */
    public static boolean isOnline(final int cpu)
    {
        return contains(list(), cpu);
    }

    /**
     * @param list a kernel CPU list such as "0-3,6".
     * @param cpu  a CPU number.
     * @return true when the list names it.
     */
    public static boolean contains(final String list, final int cpu)
    {
        for (final String part : list.split(","))
        {
            if (part.isBlank())
            {
                continue;
            }
            final int dash = part.indexOf('-');
            final int first = Integer.parseInt((dash < 0 ? part : part.substring(0, dash)).trim());
            final int last = dash < 0 ? first : Integer.parseInt(part.substring(dash + 1).trim());
            if (cpu >= first && cpu <= last)
            {
                return true;
            }
        }
        return false;
    }
}
