package io.ringwire.perf.baseline.aeron;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.host.ThreadPinning;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The media driver of the {@code aeron-udp} baseline, laid out as the host allows: one driver for
 * both clients, as one driver per host is Aeron's usual deployment. Over UDP the driver is on the
 * data path: its sender sends each message and its receiver places it in the subscriber's image.
 *
 * <p>Where the host has a CPU for each of the driver's threads beside the pinger's and the ponger's
 * ({@link CpuPlan#CPUS_FOR_DEDICATED_DRIVER}), the driver runs as Aeron's users run one for latency:
 * DEDICATED, its conductor, sender and receiver each busy-spinning on a CPU of its own. The row is
 * then a fair peer of roce's.
 *
 * <p>Where it does not, the driver runs SHARED (one agent thread for conductor, sender and receiver)
 * with a backoff idle strategy ({@link #SHARED_IDLE}): it spins and yields while messages flow, and
 * parks at most {@link #SHARED_MAX_PARK_NS} ns only after it has been idle a while, so it takes CPU
 * time from the spinners only while it has work. Its thread is not pinned: it shares the cores with
 * them, which is the cost an Aeron UDP user pays on such a host; and with no CPU to spare the
 * benchmark's pinger and ponger yield when idle (see {@code RttBenchmark}), or the driver would run
 * only when the scheduler preempts a spinner, milliseconds per message. A busy-spinning driver is no
 * better there: a third spinner on two cores waits for the scheduler's time slices in the same way.
 * The parks a backoff ends in last at least the kernel's timer slack, so the row shows the driver's
 * wake-ups as much as Aeron's UDP path, and ratios against it are marked not comparable
 * ({@link #notComparableReason()}).
 *
 * @param cpus           the conductor's, sender's and receiver's CPUs for a dedicated driver; empty for
 *                       a shared one.
 * @param onlineCpuCount CPUs online, for the reason a shared driver's row is not comparable.
 */
public record AeronUdpDriver(List<Integer> cpus, int onlineCpuCount)
{
    /** The argument that names a shared driver to the ponger process. */
    static final String SHARED = "shared";
    /** Spins of the shared driver's idle strategy before it yields. */
    private static final int SHARED_MAX_SPINS = 100;
    /** Yields of the shared driver's idle strategy before it parks. */
    private static final int SHARED_MAX_YIELDS = 10;
    /** Shortest park of the shared driver's idle strategy. */
    private static final long SHARED_MIN_PARK_NS = TimeUnit.MICROSECONDS.toNanos(1);
    /** Longest park of the shared driver's idle strategy: bounds what an idle driver adds to a message. */
    static final long SHARED_MAX_PARK_NS = TimeUnit.MICROSECONDS.toNanos(100);
    /** How the shared driver idles, as its layout is printed. */
    static final String SHARED_IDLE = "BackoffIdleStrategy(spins " + SHARED_MAX_SPINS + ", yields " +
        SHARED_MAX_YIELDS + ", park " + SHARED_MIN_PARK_NS + " to " + SHARED_MAX_PARK_NS + " ns)";
    private static final String[] ROLES = { "conductor", "sender", "receiver" };

    /**
     * Copies the list.
     */
    public AeronUdpDriver
    {
        cpus = List.copyOf(cpus);
        if (!cpus.isEmpty() && cpus.size() != CpuPlan.DRIVER_THREADS)
        {
            throw new IllegalArgumentException("a dedicated driver takes " + CpuPlan.DRIVER_THREADS + " CPUs, got " +
                cpus);
        }
    }

    /**
     * @param cpuPlan where the run's threads go.
     * @return a dedicated driver on the plan's driver CPUs where it has them, else a shared one.
     */
    public static AeronUdpDriver of(final CpuPlan cpuPlan)
    {
        return new AeronUdpDriver(cpuPlan.driverCpus(), cpuPlan.onlineCpuCount());
    }

    /**
     * @return whether conductor, sender and receiver each spin on a CPU of their own.
     */
    public boolean dedicated()
    {
        return !cpus.isEmpty();
    }

    /**
     * @return null for a dedicated driver; for a shared one, why its row is no fair peer of roce's:
     *         the CPUs a dedicated one needs and the CPUs there are.
     */
    public String notComparableReason()
    {
        return dedicated() ? null : "aeron-udp's media driver needs " + CpuPlan.CPUS_FOR_DEDICATED_DRIVER +
            " CPUs to run dedicated (pinger, ponger, conductor, sender, receiver), this host has " + onlineCpuCount;
    }

    /**
     * @return the driver's layout, for the log of a run.
     */
    public String layout()
    {
        if (dedicated())
        {
            return "aeron-udp: media driver DEDICATED, conductor on cpu " + cpus.get(0) + ", sender on cpu " +
                cpus.get(1) + ", receiver on cpu " + cpus.get(2) + ", each with a BusySpinIdleStrategy";
        }
        return "aeron-udp: media driver SHARED (conductor, sender and receiver on one unpinned thread), idle " +
            SHARED_IDLE + "; " + notComparableReason() + ", so its ratios with roce are not comparable here";
    }

    /**
     * @return the driver's CPUs as the ponger process takes them ({@code 2,3,4}, or {@link #SHARED}).
     */
    public String toArgument()
    {
        final List<String> values = new ArrayList<>();
        cpus.forEach(cpu -> values.add(Integer.toString(cpu)));
        return cpus.isEmpty() ? SHARED : String.join(",", values);
    }

    /**
     * @param value          {@link #toArgument()}'s text.
     * @param onlineCpuCount CPUs online.
     * @return the driver it names.
     * @throws NumberFormatException when a CPU is not a number.
     */
    public static AeronUdpDriver parse(final String value, final int onlineCpuCount)
    {
        final List<Integer> cpus = new ArrayList<>();
        if (!SHARED.equals(value))
        {
            for (final String cpu : value.split(","))
            {
                cpus.add(Integer.parseInt(cpu.trim()));
            }
        }
        return new AeronUdpDriver(cpus, onlineCpuCount);
    }

    /**
     * Starts the driver in this process.
     *
     * @param directory the Aeron directory (deleted on start and on close).
     * @param warnings  where a driver thread that could not be pinned is reported.
     * @return the driver; close it after both sides closed.
     */
    public MediaDriver launch(final Path directory, final PrintStream warnings)
    {
        final MediaDriver.Context context = AeronIpcSide.driverContext(directory);
        if (!dedicated())
        {
            return MediaDriver.launch(context.threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new BackoffIdleStrategy(SHARED_MAX_SPINS, SHARED_MAX_YIELDS, SHARED_MIN_PARK_NS,
                    SHARED_MAX_PARK_NS)));
        }
        return MediaDriver.launch(context.threadingMode(ThreadingMode.DEDICATED)
            .conductorIdleStrategy(new BusySpinIdleStrategy())
            .senderIdleStrategy(new BusySpinIdleStrategy())
            .receiverIdleStrategy(new BusySpinIdleStrategy())
            .conductorThreadFactory(pinnedThreads(0, warnings))
            .senderThreadFactory(pinnedThreads(1, warnings))
            .receiverThreadFactory(pinnedThreads(2, warnings)));
    }

    /**
     * @param thread   0 for the conductor, 1 the sender, 2 the receiver.
     * @param warnings where a thread that could not be pinned is reported.
     * @return threads that pin themselves to that thread's CPU before they run the driver's agent.
     */
    private ThreadFactory pinnedThreads(final int thread, final PrintStream warnings)
    {
        final int cpu = cpus.get(thread);
        final String role = ROLES[thread];
        // Aeron names each thread after its agent once it has it.
        return agent ->
        {
            final Thread pinned = new Thread(() ->
            {
                final String reason = ThreadPinning.pinCurrentThread(cpu);
                if (null != reason)
                {
                    warnings.println("warning: could not pin aeron-udp's driver " + role + " to cpu " + cpu + " (" +
                        reason + "); continuing unpinned");
                }
                agent.run();
            });
            pinned.setDaemon(true); // a driver that does not stop must not keep the JVM alive
            return pinned;
        };
    }
}
