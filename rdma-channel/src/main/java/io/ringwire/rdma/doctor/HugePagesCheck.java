package io.ringwire.rdma.doctor;

import io.ringwire.rdma.ibverbs.LockedMemoryLimit;

import java.util.ArrayList;
import java.util.List;

/**
 * Huge pages: every size's pool ({@code /sys/kernel/mm/hugepages/hugepages-*kB}), else the default
 * size's ({@code /proc/meminfo}: HugePages_Total, HugePages_Free, Hugepagesize). Rings and
 * regions backed by huge pages take far fewer TLB entries (and the NIC fewer translations); RingWire
 * runs without them, so their absence is only advice.
 */
public final class HugePagesCheck implements Check
{
    /** The check's name in reports. */
    public static final String NAME = "hugepages";

    private static final String POOLS = "/sys/kernel/mm/hugepages";

    @Override
    public Finding run(final Host host)
    {
        final String meminfo = host.read("/proc/meminfo").orElse("");
        final long sizeKb = field(meminfo, "Hugepagesize:");
        final String size = sizeKb > 0 ? LockedMemoryLimit.humanBytes(sizeKb * 1024) : "unknown size";
        // /proc/meminfo counts the default size's pool alone; a host may reserve others (1 GiB pages).
        final List<String> pools = new ArrayList<>();
        long reserved = 0;
        for (final String name : host.list(POOLS))
        {
            if (!name.startsWith("hugepages-") || !name.endsWith("kB"))
            {
                continue;
            }
            final long poolKb = number(name.substring("hugepages-".length(), name.length() - 2));
            final long total = number(host.read(POOLS + "/" + name + "/nr_hugepages").orElse("").trim());
            final long free = number(host.read(POOLS + "/" + name + "/free_hugepages").orElse("").trim());
            if (poolKb > 0 && total > 0)
            {
                reserved += total;
                pools.add(total + " of " + LockedMemoryLimit.humanBytes(poolKb * 1024) + " (" + free + " free)");
            }
        }
        if (!pools.isEmpty())
        {
            return new Finding(NAME, Status.OK, reserved + " huge pages reserved: " + String.join(", ", pools),
                List.of(), "nothing to change");
        }
        final long total = field(meminfo, "HugePages_Total:");
        final long free = field(meminfo, "HugePages_Free:");
        if (total < 0)
        {
            return new Finding(NAME, Status.INFO, "huge pages unknown (/proc/meminfo unreadable)", List.of(),
                "nothing to change");
        }
        if (total == 0)
        {
            return new Finding(NAME, Status.INFO, "no huge pages reserved (page size " + size + ")", List.of(),
                "optional: reserve some for large rings (sysctl vm.nr_hugepages=512, or hugepages=512 on the kernel " +
                    "command line) to cut TLB misses");
        }
        return new Finding(NAME, Status.OK, total + " huge pages of " + size + " reserved, " + free + " free",
            List.of(), "nothing to change");
    }

    private static long number(final String text)
    {
        try
        {
            return Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
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
