package io.ringwire.rdma.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The machine's online CPUs, from {@code /sys/devices/system/cpu/online}, read once. Sizing core
 * sets needs this rather than {@link Runtime#availableProcessors()}: once a thread is pinned, that
 * reports only the pinned set, 1 for a thread pinned to one CPU.
 *
 * <p>Threading: immutable after class initialisation; any thread.
 */
public final class OnlineCpus
{
    /** Where Linux lists the online CPUs. */
    public static final Path SYSFS_ONLINE = Path.of("/sys/devices/system/cpu/online");

    private static final BitSet ONLINE = read();

    private OnlineCpus()
    {
    }

    /**
     * @return how many CPUs are online.
     */
    public static int count()
    {
        return ONLINE.cardinality();
    }

    /**
     * @param cpu a CPU number.
     * @return true when the kernel lists it as online.
     */
    public static boolean isOnline(final int cpu)
    {
        return cpu >= 0 && ONLINE.get(cpu);
    }

    /**
     * @return the online CPUs in the kernel's list format, e.g. "0-3".
     */
    public static String list()
    {
        return CpuList.format(ONLINE);
    }

    /**
     * @return the online CPUs in ascending order.
     */
    public static List<Integer> asList()
    {
        final List<Integer> cpus = new ArrayList<>(ONLINE.cardinality());
        for (int cpu = ONLINE.nextSetBit(0); cpu >= 0; cpu = ONLINE.nextSetBit(cpu + 1))
        {
            cpus.add(cpu);
        }
        return cpus;
    }

    /** The kernel's list; CPUs 0 to availableProcessors - 1 where it cannot be read (not Linux). */
    private static BitSet read()
    {
        try
        {
            final BitSet cpus = CpuList.parse(Files.readString(SYSFS_ONLINE));
            if (!cpus.isEmpty())
            {
                return cpus;
            }
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            // fall back below
        }
        final BitSet cpus = new BitSet();
        cpus.set(0, Runtime.getRuntime().availableProcessors());
        return cpus;
    }
}
