package io.ringwire.perf.host;

import io.ringwire.perf.cli.UsageException;
import io.ringwire.rdma.host.OnlineCpus;

import java.io.PrintStream;
import java.util.List;

/**
 * Where the benchmark's spinning threads run: each on its own CPU when the machine has enough,
 * otherwise (only with {@code --allow-oversubscribe}) unpinned and yielding when idle, since two
 * busy-spinners sharing one CPU would each wait a scheduler tick for the other. Where the machine
 * also has a CPU for each thread of an Aeron media driver ({@link #CPUS_FOR_DEDICATED_DRIVER}), it
 * names them, so that a driver on the data path can run as Aeron's users run it.
 *
 * @param pingerCpu      CPU for the pinger, or {@link #UNPINNED}.
 * @param pongerCpu      CPU for the ponger, or {@link #UNPINNED}.
 * @param yieldWhenIdle  whether the loops yield instead of spinning when there is nothing to do.
 * @param onlineCpuCount CPUs online.
 * @param driverCpus     CPUs for a media driver's conductor, sender and receiver, in that order, none
 *                       of them the pinger's or the ponger's; empty when the machine has too few.
 */
public record CpuPlan(int pingerCpu, int pongerCpu, boolean yieldWhenIdle, int onlineCpuCount,
    List<Integer> driverCpus)
{
    /** No pinning. */
    public static final int UNPINNED = -1;
    /** The pinger and the ponger. */
    public static final int SPINNING_THREADS = 2;
    /** A dedicated media driver's busy-spinning threads: conductor, sender and receiver. */
    public static final int DRIVER_THREADS = 3;
    /** CPUs a run needs for every spinning thread, a dedicated driver's included, to have its own. */
    public static final int CPUS_FOR_DEDICATED_DRIVER = SPINNING_THREADS + DRIVER_THREADS;

    /**
     * Copies the list.
     */
    public CpuPlan
    {
        driverCpus = List.copyOf(driverCpus);
    }

    /**
     * Chooses CPUs: the last two online ones for the pinger and the ponger (CPU 0 usually takes most
     * of the housekeeping and interrupts), and the three before them for a driver where there are.
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
            final List<Integer> driverCpus = count >= CPUS_FOR_DEDICATED_DRIVER ?
                onlineCpus.subList(count - CPUS_FOR_DEDICATED_DRIVER, count - SPINNING_THREADS) : List.of();
            return new CpuPlan(onlineCpus.get(count - 2), onlineCpus.get(count - 1), false, count, driverCpus);
        }
        if (!allowOversubscribe)
        {
            throw new UsageException("refusing to run " + SPINNING_THREADS + " spinning threads (pinger and ponger) " +
                "on " + count + " online CPU(s) " + onlineCpus + ": they would starve each other and the result " +
                "would measure the scheduler. Use a machine with at least " + SPINNING_THREADS + " CPUs, or pass " +
                "--allow-oversubscribe to run anyway (the loops then yield when idle).");
        }
        return new CpuPlan(UNPINNED, UNPINNED, true, count, List.of());
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
