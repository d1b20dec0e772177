package io.ringwire.perf.host;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * One busy-polling side of a ping-pong (pinger or ponger): pins itself, runs its loop, and keeps
 * the outcome for the control thread. A failure ends the loop with a message instead of an
 * exception on the hot path.
 *
 * <p>Threading: {@link #run()} on the spinning thread; {@link #requestStop()} from any thread; the
 * results are read by the control thread after joining it (the join orders them).
 */
public abstract class SpinningTask implements Runnable
{
    /** How long either side waits for its peer before giving up. */
    public static final long PEER_SILENCE_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    /** Idle polls between two clock reads: keeps {@code nanoTime} off the busy loop. */
    public static final int CLOCK_CHECK_MASK = 1023;

    private final String role;
    private final int cpu;
    private final PrintStream warnings;
    private final WatchedConnection watched;
    protected final boolean yieldWhenIdle;

    private volatile boolean stopRequested;
    private String failure;
    private int pinnedCpu = CpuPlan.UNPINNED;

    // The measured window: written by the spinning thread, read after the join.
    private long compilationAtWindowStart;
    private long allocatedAtWindowStart = ThreadAllocation.UNKNOWN;
    private long measuredAllocatedBytes = ThreadAllocation.UNKNOWN;
    private boolean jitCompiledWhileMeasuring;
    private GcActivity gcAtWindowStart;
    private GcActivity measuredGc;

    // idleUntilCheck's and idleTooLong's state: the spinning thread only.
    private String idleFailure;
    private int idleRounds;
    private long progressAtLastCheck = -1;
    private long lastProgressNs;

    /**
     * For a loop with no connection to watch.
     *
     * @param role "pinger" or "ponger", for messages.
     * @param plan where the thread runs and how it idles.
     */
    protected SpinningTask(final String role, final ThreadPlan plan)
    {
        this(role, plan, WatchedConnection.NONE);
    }

    /**
     * @param role    "pinger" or "ponger", for messages.
     * @param plan    where the thread runs and how it idles.
     * @param watched the connection the loop watches at its clock checks.
     */
    protected SpinningTask(final String role, final ThreadPlan plan, final WatchedConnection watched)
    {
        this.role = role;
        this.cpu = plan.cpu();
        this.yieldWhenIdle = plan.yieldWhenIdle();
        this.warnings = plan.warnings();
        this.watched = watched;
    }

    @Override
    public final void run()
    {
        if (cpu != CpuPlan.UNPINNED)
        {
            final String reason = ThreadPinning.pinCurrentThread(cpu);
            if (null == reason)
            {
                pinnedCpu = cpu;
            }
            else
            {
                warnings.println("warning: could not pin the " + role + " to cpu " + cpu + " (" + reason +
                    "); continuing unpinned");
            }
        }
        try
        {
            final String outcome = runLoop();
            if (null != outcome)
            {
                failure = role + ": " + outcome;
            }
        }
        catch (final RuntimeException | Error ex)
        {
            failure = role + ": " + ex;
        }
    }

    /**
     * The loop. Allocation-free between warm-up and the end.
     *
     * @return null when it completed, else what went wrong.
     */
    protected abstract String runLoop();

    /**
     * Idles once and, every {@link #CLOCK_CHECK_MASK} + 1 idle rounds, reads the clock: the loop must
     * end when the pinger made no progress for {@link #PEER_SILENCE_TIMEOUT_NS} or a stop was
     * requested.
     *
     * @param progress messages handled so far.
     * @param what     what the pinger sends, for the message ("probe", "datagram", ...).
     * @return true when the loop must end; {@link #idleFailure()} says why.
     */
    protected final boolean idleTooLong(final long progress, final String what)
    {
        if (!idleUntilCheck())
        {
            return false;
        }
        final long nowNs = System.nanoTime();
        if (progress != progressAtLastCheck)
        {
            progressAtLastCheck = progress;
            lastProgressNs = nowNs;
        }
        else if (nowNs - lastProgressNs > PEER_SILENCE_TIMEOUT_NS)
        {
            idleFailure = "no " + what + " from the pinger for " + PEER_SILENCE_TIMEOUT_NS / 1_000_000 + " ms after " +
                progress + " echoes" + watchDetail();
            return true;
        }
        if (stopRequested())
        {
            idleFailure = "stopped because the pinger failed";
            return true;
        }
        return false;
    }

    /**
     * @return why {@link #idleTooLong} ended the loop.
     */
    protected final String idleFailure()
    {
        return idleFailure;
    }

    /**
     * Idles once and, every {@link #CLOCK_CHECK_MASK} + 1 idle rounds, does the watched
     * connection's housekeeping: the caller then checks its timeout. The clock is read only then,
     * while idle, so a busy loop pays nothing for the timeout.
     *
     * @return true when the caller is due to read the clock.
     */
    protected final boolean idleUntilCheck()
    {
        idle();
        if ((++idleRounds & CLOCK_CHECK_MASK) != 0)
        {
            return false;
        }
        watched.onWatch();
        return true;
    }

    /**
     * @return what a silence or timeout message adds: the watched connection's state, if any.
     */
    protected final String watchDetail()
    {
        return watched.watchDetail();
    }

    /**
     * Opens the measured window: from here to {@link #stopMeasuring()}, what this thread allocates
     * and whether the JIT compiles are kept for the control thread.
     */
    protected final void startMeasuring()
    {
        gcAtWindowStart = GcActivity.now(); // allocates, so before the allocation baseline
        compilationAtWindowStart = ThreadAllocation.compilationTimeMs();
        allocatedAtWindowStart = ThreadAllocation.currentThreadAllocatedBytes();
    }

    /**
     * Closes the window {@link #startMeasuring()} opened.
     */
    protected final void stopMeasuring()
    {
        final long allocatedNow = ThreadAllocation.currentThreadAllocatedBytes();
        if (allocatedAtWindowStart != ThreadAllocation.UNKNOWN && allocatedNow != ThreadAllocation.UNKNOWN)
        {
            measuredAllocatedBytes = allocatedNow - allocatedAtWindowStart;
        }
        jitCompiledWhileMeasuring = ThreadAllocation.compilationTimeMs() != compilationAtWindowStart;
        measuredGc = GcActivity.now().since(gcAtWindowStart);
    }

    /**
     * @return the garbage collections of this JVM between {@link #startMeasuring()} and
     *         {@link #stopMeasuring()} (every thread's doing, not only this one's), or null when this
     *         task opened no window; read after the thread ended.
     */
    public final GcActivity measuredGc()
    {
        return measuredGc;
    }

    /**
     * Called when a poll found nothing to do.
     */
    public final void idle()
    {
        if (yieldWhenIdle)
        {
            Thread.yield();
        }
        else
        {
            Thread.onSpinWait();
        }
    }

    /**
     * Asks the loop to end at its next clock check (the peer failed or the run is aborted).
     */
    public final void requestStop()
    {
        stopRequested = true;
    }

    /**
     * @return whether {@link #requestStop()} was called.
     */
    protected final boolean stopRequested()
    {
        return stopRequested;
    }

    /**
     * @return null when the loop completed, else the failure.
     */
    public final String failure()
    {
        return failure;
    }

    /**
     * @return the CPU the thread was pinned to, or {@link CpuPlan#UNPINNED}.
     */
    public final int pinnedCpu()
    {
        return pinnedCpu;
    }

    /**
     * @return bytes the thread allocated in its measured window, or {@link ThreadAllocation#UNKNOWN}.
     */
    public final long measuredAllocatedBytes()
    {
        return measuredAllocatedBytes;
    }

    /**
     * @return whether the JIT compiled anything (on any thread) during the measured window.
     */
    public final boolean jitCompiledWhileMeasuring()
    {
        return jitCompiledWhileMeasuring;
    }

    /**
     * @return "pinger" or "ponger".
     */
    public final String role()
    {
        return role;
    }
}
