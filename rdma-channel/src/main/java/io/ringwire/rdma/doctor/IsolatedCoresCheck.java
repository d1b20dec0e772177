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
        final String cmdline = cmdline(host);
        final BitSet isolated = isolated(host, cmdline);
        final BitSet nohzFull = nohzFull(host, cmdline);
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
        // The process's affinity is no bound (isolcpus itself starts every process off the isolated cores, and an
        // agent pins itself onto them); its cgroup's cpuset is: a container confined elsewhere cannot use them.
        final BitSet cpuset = cpuset(host);
        final BitSet reachable = (BitSet)reserved.clone();
        if (null != cpuset)
        {
            reachable.and(cpuset);
        }
        if (reachable.isEmpty())
        {
            return new Finding(NAME, Status.WARN, "cores " + CpuList.format(reserved) + " are reserved for " +
                "spinning agents, but this process's cpuset allows " + CpuList.format(cpuset) + " only", details,
                "give the process's cgroup (a container's --cpuset-cpus, a systemd AllowedCPUs=) the reserved " +
                "cores, then pin the agents to them");
        }
        if (!reachable.equals(reserved))
        {
            details.add("this process's cpuset: " + CpuList.format(cpuset));
            return new Finding(NAME, Status.OK, "cores reserved for spinning agents: " + CpuList.format(reachable) +
                " (of " + CpuList.format(reserved) + "; this process's cpuset leaves out the others)", details,
                "pin RingWire's spinning agents to these cores");
        }
        return new Finding(NAME, Status.OK, "cores reserved for spinning agents: " + CpuList.format(reserved), details,
            "pin RingWire's spinning agents to these cores");
    }

    /**
     * @return the cores isolated (isolcpus) or tickless (nohz_full), which spinning agents pin themselves to.
     */
    static BitSet reserved(final Host host)
    {
        final String cmdline = cmdline(host);
        final BitSet reserved = isolated(host, cmdline);
        reserved.or(nohzFull(host, cmdline));
        return reserved;
    }

    private static String cmdline(final Host host)
    {
        return host.read("/proc/cmdline").orElse("").trim();
    }

    private static BitSet isolated(final Host host, final String cmdline)
    {
        final BitSet isolated = CpuList.parseLenient(host.read("/sys/devices/system/cpu/isolated").orElse(""));
        isolated.or(CpuList.parseLenient(parameter(cmdline, "isolcpus")));
        return isolated;
    }

    private static BitSet nohzFull(final Host host, final String cmdline)
    {
        final BitSet nohzFull = CpuList.parseLenient(host.read("/sys/devices/system/cpu/nohz_full").orElse(""));
        nohzFull.or(CpuList.parseLenient(parameter(cmdline, "nohz_full")));
        return nohzFull;
    }

    /**
     * The nearest group at or above this process's that has the cpuset file: a cgroup v2 group has
     * {@code cpuset.cpus.effective} only where its parent enables the controller for it (a systemd
     * slice with AllowedCPUs= over scopes without it), and a cgroup v1 container sees its own group at
     * the mount's root, not at the path {@code /proc/self/cgroup} names.
     *
     * @return the cores this process's cgroup lets it use ({@code cpuset.cpus.effective} of cgroup v2,
     *         {@code cpuset.effective_cpus} of the v1 cpuset controller), or null when unknown.
     */
    static BitSet cpuset(final Host host)
    {
        for (final String line : host.read("/proc/self/cgroup").orElse("").split("\n"))
        {
            final String[] fields = line.split(":", 3);
            if (fields.length != 3 || !fields[2].startsWith("/"))
            {
                continue;
            }
            final String base;
            final String file;
            if ("0".equals(fields[0]) && fields[1].isEmpty())
            {
                base = "/sys/fs/cgroup";
                file = "/cpuset.cpus.effective";
            }
            else if (List.of(fields[1].split(",")).contains("cpuset"))
            {
                base = "/sys/fs/cgroup/cpuset";
                file = "/cpuset.effective_cpus";
            }
            else
            {
                continue;
            }
            String group = "/".equals(fields[2]) ? "" : fields[2];
            while (true)
            {
                final BitSet cpus = CpuList.parseLenient(host.read(base + group + file).orElse("").trim());
                if (!cpus.isEmpty())
                {
                    return cpus;
                }
                if (group.isEmpty())
                {
                    break;
                }
                group = group.substring(0, group.lastIndexOf('/'));
            }
        }
        return null;
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
