package io.ringwire.rdma.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The CPU frequency governor of each core ({@code /sys/devices/system/cpu/cpu*}{@code /cpufreq/scaling_governor}):
 * anything but {@code performance} lets the clock drop while agents wait and ramp up when a
 * message arrives, which costs microseconds exactly when latency matters.
 */
public final class CpuGovernorCheck implements Check
{
    /** The check's name in reports. */
    public static final String NAME = "cpu-governor";

    @Override
    public Finding run(final Host host)
    {
        final Map<String, List<String>> coresByGovernor = new TreeMap<>();
        for (final String entry : host.list("/sys/devices/system/cpu"))
        {
            if (!entry.matches("cpu[0-9]+"))
            {
                continue;
            }
            host.read("/sys/devices/system/cpu/" + entry + "/cpufreq/scaling_governor").ifPresent(governor ->
                coresByGovernor.computeIfAbsent(governor.trim(), g -> new ArrayList<>()).add(entry));
        }
        if (coresByGovernor.isEmpty())
        {
            return new Finding(NAME, Status.INFO, "CPU frequency governor not visible (no cpufreq: a virtual machine, " +
                "or no frequency driver)", List.of(), "nothing to change here; on the host (or in the BIOS) choose " +
                "the performance profile and disable deep C-states");
        }
        final List<String> details = new ArrayList<>();
        coresByGovernor.forEach((governor, cores) -> details.add(governor + ": " + String.join(" ", cores)));
        if (coresByGovernor.size() == 1 && coresByGovernor.containsKey("performance"))
        {
            return new Finding(NAME, Status.OK, "every core uses the performance governor", details,
                "nothing to change");
        }
        final List<String> slow = new ArrayList<>(coresByGovernor.keySet());
        slow.remove("performance");
        return new Finding(NAME, Status.WARN, "cores run the " + String.join(", ", slow) + " governor: the clock " +
            "drops while agents wait", details, "set the performance governor: cpupower frequency-set -g performance " +
            "(or echo performance | tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)");
    }
}
