package io.ringwire.rdma.doctor;

import java.util.List;

/**
 * Huge pages ({@code /proc/meminfo}: HugePages_Total, HugePages_Free, Hugepagesize). Rings and
 * regions backed by huge pages take far fewer TLB entries (and the NIC fewer translations); RingWire
 * runs without them, so their absence is only advice.
 */
public final class HugePagesCheck implements Check
{
    /** The check's name in reports. */
    public static final String NAME = "hugepages";

    @Override
    public Finding run(final Host host)
    {
        final String meminfo = host.read("/proc/meminfo").orElse("");
        final long total = field(meminfo, "HugePages_Total:");
        final long free = field(meminfo, "HugePages_Free:");
        final long sizeKb = field(meminfo, "Hugepagesize:");
        if (total < 0)
        {
            return new Finding(NAME, Status.INFO, "huge pages unknown (/proc/meminfo unreadable)", List.of(),
                "nothing to change");
        }
        final String size = sizeKb > 0 ? sizeKb / 1024 + " MiB" : "unknown size";
        if (total == 0)
        {
            return new Finding(NAME, Status.INFO, "no huge pages reserved (page size " + size + ")", List.of(),
                "optional: reserve some for large rings (sysctl vm.nr_hugepages=512, or hugepages=512 on the kernel " +
                    "command line) to cut TLB misses");
        }
        return new Finding(NAME, Status.OK, total + " huge pages of " + size + " reserved, " + free + " free",
            List.of(), "nothing to change");
    }

    private static long field(final String meminfo, final String name)
    {
        for (final String line : meminfo.split("\n"))
        {
            if (line.startsWith(name))
            {
                final String[] parts = line.substring(name.length()).trim().split("\\s+");
                try
                {
                    return Long.parseLong(parts[0]);
                }
                catch (final NumberFormatException ex)
                {
                    return -1;
                }
            }
        }
        return -1;
    }
}
