package io.ringwire.rdma.doctor;

import io.ringwire.rdma.host.CpuList;

import java.util.BitSet;
import java.util.List;

/**
 * Online cores ({@code /sys/devices/system/cpu/online}): each publisher, subscriber or matching
 * engine agent busy-spins on a core of its own, and the operating system needs one more.
 */
public final class CoreCountCheck implements Check
{
    /** The check's name in reports. */
    public static final String NAME = "cores";
    /** Two spinning agents (one round trip: sender and receiver) plus the OS and housekeeping. */
    public static final int RECOMMENDED_CORES = 4;

    @Override
    public Finding run(final Host host)
    {
        final String online = host.read("/sys/devices/system/cpu/online").orElse("").trim();
        if (online.isEmpty())
        {
            return new Finding(NAME, Status.INFO, "online cores unknown (/sys/devices/system/cpu/online unreadable)",
                List.of(), "nothing to change");
        }
        final BitSet cpus = CpuList.parseLenient(online);
        final BitSet usable = allowed(host, cpus);
        final int count = usable.cardinality();
        final String observed = count == cpus.cardinality() ?
            count + " online core" + (count == 1 ? "" : "s") + " (" + online + ")" :
            count + " usable core" + (count == 1 ? "" : "s") + " (" + CpuList.format(usable) + ") of " +
                cpus.cardinality() + " online: this process's CPU affinity (a cpuset, taskset) allows only those";
        if (count >= RECOMMENDED_CORES)
        {
            return new Finding(NAME, Status.OK, observed, List.of(), "nothing to change");
        }
        return new Finding(NAME, Status.WARN, observed + ": fewer than " + RECOMMENDED_CORES + " for spinning agents",
            List.of("every busy-spinning agent wants a core of its own; with " + count + ", spinners share cores with " +
                "each other and the OS, and latency follows the scheduler's time slices"),
            "run on a machine (or VM) with at least " + RECOMMENDED_CORES + " cores, or use at most " +
                Math.max(1, count - 1) + " spinning thread(s) and a backing-off idle strategy for the rest");
    }

    /**
     * @return the online CPUs this process may run on: those of its affinity ({@code Cpus_allowed_list} of
     *         {@code /proc/self/status}: a container's cpuset, taskset; all online ones when unreadable), and
     *         the isolated cores its cgroup's cpuset allows, which isolcpus keeps out of every process's affinity
     *         at start and its agents pin themselves onto.
     */
    static BitSet allowed(final Host host, final BitSet online)
    {
        final BitSet allowed = affinity(host, online);
        final BitSet reserved = IsolatedCoresCheck.reserved(host);
        final BitSet cpuset = IsolatedCoresCheck.cpuset(host);
        if (null != cpuset)
        {
            reserved.and(cpuset);
        }
        reserved.and(online);
        allowed.or(reserved);
        return allowed;
    }

    private static BitSet affinity(final Host host, final BitSet online)
    {
        for (final String line : host.read("/proc/self/status").orElse("").split("\n"))
        {
            if (line.startsWith("Cpus_allowed_list:"))
            {
                final BitSet allowed = CpuList.parseLenient(line.substring("Cpus_allowed_list:".length()).trim());
                allowed.and(online);
                return allowed.isEmpty() ? (BitSet)online.clone() : allowed;
            }
        }
        return (BitSet)online.clone();
    }
}
