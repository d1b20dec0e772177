package io.ringwire.perf.host;

import java.io.PrintStream;

/**
 * How one spinning thread runs: the CPU it pins itself to, whether it yields instead of spinning
 * when a poll finds nothing, and where it reports that it could not pin itself.
 *
 * @param cpu           CPU to pin to, or {@link CpuPlan#UNPINNED}.
 * @param yieldWhenIdle yield instead of spinning when idle.
 * @param warnings      where a pinning failure is reported.
 */
public record ThreadPlan(int cpu, boolean yieldWhenIdle, PrintStream warnings)
{
}
