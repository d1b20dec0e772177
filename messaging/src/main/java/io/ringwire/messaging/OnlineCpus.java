package io.ringwire.messaging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * The machine's online CPUs from {@code /sys/devices/system/cpu/online}: after a thread is pinned,
 * {@link Runtime#availableProcessors()} reports only its own affinity set.
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
        return online().cardinality();
    }

    /**
     * @param cpu a CPU number.
     * @return true when the kernel lists it as online.
     */
    public static boolean isOnline(final int cpu)
    {
        return cpu >= 0 && online().get(cpu);
    }

    /** The online CPUs; CPUs 0 to availableProcessors - 1 when the kernel's list is unreadable. */
    private static BitSet online()
    {
        try
        {
            return cpus(list());
        }
        catch (final NumberFormatException ex)
        {
            return cpus("0-" + (Runtime.getRuntime().availableProcessors() - 1));
        }
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
     * @param list a kernel CPU list such as "0-3,6".
     * @return how many CPUs it names.
     */
    public static int parse(final String list)
    {
        return cpus(list).cardinality();
    }

    /**
     * @param list a kernel CPU list such as "0-3,6".
     * @return the CPUs it names.
     * @throws NumberFormatException when it is not such a list.
     */
    public static BitSet cpus(final String list)
    {
        final BitSet cpus = new BitSet();
        for (final String part : list.split(","))
        {
            if (part.isBlank())
            {
                continue;
            }
            final int dash = part.indexOf('-');
            final int first = Integer.parseInt((dash < 0 ? part : part.substring(0, dash)).trim());
            final int last = dash < 0 ? first : Integer.parseInt(part.substring(dash + 1).trim());
            cpus.set(first, last + 1);
        }
        return cpus;
    }
}
