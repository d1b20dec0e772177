package io.ringwire.rdma.host;

import java.util.BitSet;

/**
 * The kernel's CPU list format ({@code /sys/devices/system/cpu/online}, {@code isolcpus=}):
 * comma-separated CPUs and ranges, e.g. {@code 0-3,8,10-11}, and the group form
 * {@code first-last:used/group} (the first {@code used} CPUs of every {@code group}).
 *
 * <p>Threading: stateless; any thread.
 */
public final class CpuList
{
    private CpuList()
    {
    }

    /**
     * Parses a list the kernel wrote; surrounding white space is ignored.
     *
     * @param text a CPU list, possibly empty.
     * @return the CPUs in it.
     * @throws IllegalArgumentException when it is not a CPU list.
     */
    public static BitSet parse(final String text)
    {
        final BitSet cpus = new BitSet();
        for (final String part : text.trim().split(","))
        {
            final String item = part.trim();
            if (!item.isEmpty() && !addItem(cpus, item))
            {
                throw new IllegalArgumentException("not a CPU list: '" + text.trim() + "'");
            }
        }
        return cpus;
    }

    /**
     * Parses a kernel command-line value, which may carry flags before the list
     * ({@code isolcpus=domain,managed_irq,2-3}): flags and parts in a form this parser does not know
     * are skipped.
     *
     * @param text the parameter's value, possibly empty.
     * @return the CPUs in it.
     */
    public static BitSet parseLenient(final String text)
    {
        final BitSet cpus = new BitSet();
        for (final String part : text.trim().split(","))
        {
            final String item = part.trim();
            if (!item.isEmpty())
            {
                addItem(cpus, item);
            }
        }
        return cpus;
    }

    /**
     * @param cpus a set.
     * @return it in the kernel's format, e.g. "2-3,6"; "none" when empty.
     */
    public static String format(final BitSet cpus)
    {
        if (cpus.isEmpty())
        {
            return "none";
        }
        final StringBuilder sb = new StringBuilder();
        int start = cpus.nextSetBit(0);
        while (start >= 0)
        {
            final int end = cpus.nextClearBit(start) - 1;
            sb.append(sb.isEmpty() ? "" : ",").append(start);
            if (end > start)
            {
                sb.append('-').append(end);
            }
            start = cpus.nextSetBit(end + 1);
        }
        return sb.toString();
    }

    /** Adds one {@code n}, {@code a-b} or {@code a-b:used/group} item; false when it is none of those. */
    private static boolean addItem(final BitSet cpus, final String item)
    {
        try
        {
            final int dash = item.indexOf('-');
            if (dash < 0)
            {
                cpus.set(Integer.parseInt(item));
                return true;
            }
            final int colon = item.indexOf(':');
            final int first = Integer.parseInt(item.substring(0, dash));
            final int last = Integer.parseInt(item.substring(dash + 1, colon < 0 ? item.length() : colon));
            if (last < first)
            {
                return false;
            }
            if (colon < 0)
            {
                cpus.set(first, last + 1);
                return true;
            }
            final int slash = item.indexOf('/', colon);
            final int used = Integer.parseInt(item.substring(colon + 1, slash));
            final int group = Integer.parseInt(item.substring(slash + 1));
            if (used < 1 || group < 1)
            {
                return false;
            }
            for (int start = first; start <= last; start += group)
            {
                cpus.set(start, Math.min(start + used - 1, last) + 1);
            }
            return true;
        }
        catch (final NumberFormatException | IndexOutOfBoundsException ex)
        {
            return false;
        }
    }
}
