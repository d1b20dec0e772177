package io.ringwire.rdma.doctor;

import java.util.BitSet;

/**
 * The kernel's CPU list format ({@code /sys/devices/system/cpu/online}, {@code isolcpus=}):
 * comma-separated CPUs and ranges, e.g. {@code 0-3,8,10-11}. Kernel command line values may carry
 * flags before the list ({@code isolcpus=domain,managed_irq,2-3}); those are skipped.
 */
final class CpuList
{
    private CpuList()
    {
    }

    /**
     * @param text a CPU list, possibly empty.
     * @return the CPUs in it; unparseable parts are ignored.
     */
    static BitSet parse(final String text)
    {
        final BitSet cpus = new BitSet();
        for (final String part : text.trim().split(","))
        {
            final String item = part.trim();
            if (item.isEmpty() || !Character.isDigit(item.charAt(0)))
            {
                continue;
            }
            try
            {
                final int dash = item.indexOf('-');
                if (dash < 0)
                {
                    cpus.set(Integer.parseInt(item));
                }
                else
                {
                    setRange(cpus, item, dash);
                }
            }
            catch (final NumberFormatException | IndexOutOfBoundsException ignored)
            {
                // not a CPU number: a flag or a format this parser does not know
            }
        }
        return cpus;
    }

    /** {@code a-b}, or {@code a-b:used/group}: the first {@code used} CPUs of every {@code group} from a to b. */
    private static void setRange(final BitSet cpus, final String item, final int dash)
    {
        final int colon = item.indexOf(':');
        final int first = Integer.parseInt(item.substring(0, dash));
        final int last = Integer.parseInt(item.substring(dash + 1, colon < 0 ? item.length() : colon));
        if (colon < 0)
        {
            cpus.set(first, last + 1);
            return;
        }
        final int slash = item.indexOf('/', colon);
        final int used = Integer.parseInt(item.substring(colon + 1, slash));
        final int group = Integer.parseInt(item.substring(slash + 1));
        for (int start = first; start <= last && group > 0; start += group)
        {
            cpus.set(start, Math.min(start + used - 1, last) + 1);
        }
    }

    /**
     * @param cpus a set.
     * @return it in the kernel's format, e.g. "2-3,6"; "none" when empty.
     */
    static String format(final BitSet cpus)
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
}
