package io.ringwire.perf.host;

import io.ringwire.perf.cli.UsageException;
import io.ringwire.rdma.host.OnlineCpus;

import java.io.PrintStream;
import java.util.List;

/**
 * Where the benchmark's spinning threads run: each on its own CPU when the machine has enough,
 * otherwise (only with {@code --allow-oversubscribe}) unpinned and yielding when idle, since two
 * busy-spinners sharing one CPU would each wait a scheduler tick for the other.
 *
 * @param pingerCpu      CPU for the pinger, or {@link #UNPINNED}.
 * @param pongerCpu      CPU for the ponger, or {@link #UNPINNED}.
 * @param yieldWhenIdle  whether the loops yield instead of spinning when there is nothing to do.
 * @param onlineCpuCount CPUs online.
 */
public record CpuPlan(int pingerCpu, int pongerCpu, boolean yieldWhenIdle, int onlineCpuCount)
{
    /** No pinning. */
    public static final int UNPINNED = -1;
    /** The pinger and the ponger. */
    public static final int SPINNING_THREADS = 2;

    /**
     * Chooses CPUs: the last two online ones (CPU 0 usually takes most of the housekeeping and
     * interrupts).
     *
     * @param onlineCpus         the online CPUs, ascending ({@link OnlineCpus#read()}).
     * @param allowOversubscribe whether fewer CPUs than spinning threads is acceptable.
     * @return the plan.
     * @throws UsageException when there are fewer CPUs than spinning threads and that is not allowed.
     */
    public static CpuPlan decide(final List<Integer> onlineCpus, final boolean allowOversubscribe)
    {
        final int count = onlineCpus.size();
        if (count >= SPINNING_THREADS)
        {
            return new CpuPlan(onlineCpus.get(count - 2), onlineCpus.get(count - 1), false, count);
        }
        if (!allowOversubscribe)
        {
            throw new UsageException("refusing to run " + SPINNING_THREADS + " spinning threads (pinger and ponger) " +
                "on " + count + " online CPU(s) " + onlineCpus + ": they would starve each other and the result " +
                "would measure the scheduler. Use a machine with at least " + SPINNING_THREADS + " CPUs, or pass " +
                "--allow-oversubscribe to run anyway (the loops then yield when idle).");
        }
        return new CpuPlan(UNPINNED, UNPINNED, true, count);
    }

    /**
     * @param warnings where a pinning failure is reported.
     * @return how the pinger's thread runs.
     */
    public ThreadPlan pinger(final PrintStream warnings)
    {
        return new ThreadPlan(pingerCpu, yieldWhenIdle, warnings);
    }

    /**
     * @param warnings where a pinning failure is reported.
     * @return how the ponger's thread runs.
     */
    public ThreadPlan ponger(final PrintStream warnings)
    {
        return new ThreadPlan(pongerCpu, yieldWhenIdle, warnings);
    }

    /**
     * @return whether the threads share CPUs.
     */
    public boolean oversubscribed()
    {
        return onlineCpuCount < SPINNING_THREADS;
    }
}
