package io.ringwire.rdma.doctor;

import io.ringwire.rdma.host.CpuList;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Cores kept free of other work for the spinning agents: {@code /sys/devices/system/cpu/isolated}
 * and the kernel command line's {@code isolcpus=} (no scheduler load balancing), {@code nohz_full=}
 * (no timer tick while one task runs) and {@code rcu_nocbs=} (RCU callbacks elsewhere).
 */
public final class IsolatedCoresCheck implements Check
{
    /** The check's name in reports. */
    public static final String NAME = "isolated-cores";

    @Override
    public Finding run(final Host host)
    {
        final String cmdline = host.read("/proc/cmdline").orElse("").trim();
        final BitSet isolated = CpuList.parseLenient(host.read("/sys/devices/system/cpu/isolated").orElse(""));
        isolated.or(CpuList.parseLenient(parameter(cmdline, "isolcpus")));
        final BitSet nohzFull = CpuList.parseLenient(host.read("/sys/devices/system/cpu/nohz_full").orElse(""));
        nohzFull.or(CpuList.parseLenient(parameter(cmdline, "nohz_full")));
        final BitSet rcuNocbs = CpuList.parseLenient(parameter(cmdline, "rcu_nocbs"));
        final List<String> details = new ArrayList<>();
        details.add("isolated (isolcpus): " + CpuList.format(isolated));
        details.add("tickless (nohz_full): " + CpuList.format(nohzFull));
        details.add("RCU callbacks offloaded (rcu_nocbs): " + CpuList.format(rcuNocbs));
        if (isolated.isEmpty() && nohzFull.isEmpty())
        {
            final BitSet online = CpuList.parseLenient(host.read("/sys/devices/system/cpu/online").orElse(""));
            final BitSet usable = CoreCountCheck.allowed(host, online);
            if (usable.isEmpty())
            {
                return new Finding(NAME, Status.WARN, "no isolated cores: the scheduler may run anything on the " +
                    "spinning agents' cores", details, "reserve cores for the agents: add isolcpus=CORES " +
                    "nohz_full=CORES rcu_nocbs=CORES (all but the first of the cores this process may run on) to " +
                    "the kernel command line, reboot, and pin the agents there");
            }
            if (usable.cardinality() < 2)
            {
                return new Finding(NAME, Status.WARN, "no isolated cores, and this process may run on one core (" +
                    CpuList.format(usable) + ") only", details, "isolating the one core would leave nothing for " +
                    "the OS: give the process at least two cores (a container's cpuset, taskset), then isolate " +
                    "all but one of them for the spinning agents");
            }
            final String example = exampleCores(usable);
            return new Finding(NAME, Status.WARN, "no isolated cores: the scheduler may run anything on the spinning " +
                "agents' cores", details, "reserve cores for the agents: add isolcpus=" + example + " nohz_full=" +
                example + " rcu_nocbs=" + example + " to the kernel command line, reboot, and pin the agents there");
        }
        final BitSet reserved = (BitSet)isolated.clone();
        reserved.or(nohzFull);
        final BitSet online = CpuList.parseLenient(host.read("/sys/devices/system/cpu/online").orElse(""));
        final BitSet allowed = CoreCountCheck.allowed(host, online);
        final BitSet reachable = (BitSet)reserved.clone();
        if (!allowed.isEmpty())
        {
            reachable.and(allowed);
        }
        if (reachable.isEmpty())
        {
            // A container's cpuset or a taskset that leaves out the isolated cores makes them useless to this
            // process: its agents would spin among the OS's work however the kernel was booted.
            return new Finding(NAME, Status.WARN, "cores " + CpuList.format(reserved) + " are reserved for " +
                "spinning agents, but this process may run on " + CpuList.format(allowed) + " only", details,
                "start the process on the reserved cores as well (taskset -c, a container's cpuset), then pin the " +
                "agents to them");
        }
        if (!reachable.equals(reserved))
        {
            details.add("this process may run on: " + CpuList.format(allowed));
            return new Finding(NAME, Status.OK, "cores reserved for spinning agents: " + CpuList.format(reachable) +
                " (of " + CpuList.format(reserved) + "; this process may not run on the others)", details,
                "pin RingWire's spinning agents to these cores");
        }
        return new Finding(NAME, Status.OK, "cores reserved for spinning agents: " + CpuList.format(reserved), details,
            "pin RingWire's spinning agents to these cores");
    }

    /**
     * The last two cores this process may run on (one when there are only two), leaving the first
     * for the OS.
     */
    private static String exampleCores(final BitSet online)
    {
        final BitSet example = new BitSet();
        final int last = online.length() - 1;
        example.set(last);
        if (online.cardinality() >= 3)
        {
            example.set(online.previousSetBit(last - 1));
        }
        return CpuList.format(example).replace('-', ',');
    }

    /**
     * @param cmdline the kernel command line.
     * @param name    a parameter name.
     * @return its value, "" when absent.
     */
    static String parameter(final String cmdline, final String name)
    {
        for (final String token : cmdline.split("\\s+"))
        {
            if (token.startsWith(name + "="))
            {
                return token.substring(name.length() + 1);
            }
        }
        return "";
    }
}
