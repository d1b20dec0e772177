package io.ringwire.messaging.system;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * One thread's allocation over a window of messages in steady state, as a zero-allocation test
 * measures it in each of its processes: the thread calls {@link #start()} when {@link #steady()}
 * says so, {@link #sample(long)} after each message (recording, without allocating, where the JVM's
 * per-thread counter moved), and {@link #finish()} at the end.
 *
 * <p>Steady state ({@link #awaitSteadyState}) is this JVM's: at least a warm-up count of messages,
 * and then, for {@link #JIT_QUIET_NS}, no JIT compilation and no allocation on the measured thread.
 * The second condition waits out code the JIT leaves without escape analysis for a while (a roce
 * subscriber's ACK send, for one, whose FFM call allocates its errno capture slice until C2 inlines
 * it, which on a loaded machine can take longer than a whole window); a thread that allocates on
 * every message never gets there, and the test fails for want of a steady state. Before that,
 * HotSpot itself allocates on the thread that asks for a C2 compilation (it resolves the String
 * constants of the method's class there: a one-off few hundred bytes at random points of a
 * count-based warm-up). A window during which the JIT still compiled excuses at most
 * {@link #JIT_ALLOCATIONS_EXCUSED} such allocations, 2 KiB in all ({@link #allocationFree()}); a
 * window without JIT activity must allocate nothing.
 *
 * <p>A test measures two windows in a row and reports the second: the first takes the code that
 * runs only at a window's start and end through its first execution (a deoptimization where the
 * compiled loop never took that branch, and the recompilation that follows, which allocate on the
 * thread), so the reported window runs the measured loop as it runs from then on.
 *
 * <p>Threading: {@link #awaitSteadyState} on a watching thread; the rest on the measured thread,
 * except the results, read after it finished.
 */
final class AllocationWindow
{
    /** Looked up once: {@code ManagementFactory.getThreadMXBean()} allocates on every call. */
    static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
    static final long JIT_QUIET_NS = TimeUnit.SECONDS.toNanos(2);
    /**
     * Recompilations a window with JIT activity may see on one thread (on a loaded 2-core machine
     * tiered compilation goes on for longer, so one thread's code may be recompiled more than once).
     */
    static final int JIT_ALLOCATIONS_EXCUSED = 3;
    static final long JIT_BYTES_EXCUSED = 2048;

    private static final CompilationMXBean COMPILATION = ManagementFactory.getCompilationMXBean();

    private final long[] atMessage = new long[16];
    private final long[] bytes = new long[16];
    private volatile boolean steady;
    private int count;
    private long before;
    private long last;
    private long compilationAtStartMs;
    private volatile long allocated = -1;
    private volatile boolean jitRan;

    /**
     * @throws AssertionError when this JVM counts neither per-thread allocation nor compilation time.
     */
    AllocationWindow()
    {
        if (!THREADS.isThreadAllocatedMemorySupported() || !THREADS.isThreadAllocatedMemoryEnabled() ||
            !COMPILATION.isCompilationTimeMonitoringSupported())
        {
            throw new AssertionError("this JVM does not count per-thread allocation or compilation time");
        }
    }

    /**
     * Waits until {@code progress} reaches {@code warmUp} and then, for {@link #JIT_QUIET_NS}, the
     * JIT has compiled nothing and {@code measured} has allocated nothing; then marks the state
     * steady. Samples the JVM's compilation time and the thread's allocation counter every 50 ms (a
     * sampling interval, not a synchronisation).
     *
     * @param measured  the thread whose allocation is measured.
     * @param progress  messages so far.
     * @param warmUp    messages before measuring may start.
     * @param timeoutNs how long to wait.
     * @param stop      true when the measured side gave up.
     * @return how long it took, or -1 when the JIT or the thread never settled in time (then marked steady anyway,
     *         so the measured thread finishes and the test reports it).
     */
    long awaitSteadyState(final Thread measured, final LongSupplier progress, final long warmUp, final long timeoutNs,
        final java.util.function.BooleanSupplier stop)
    {
        final long startNs = System.nanoTime();
        long compilationMs = COMPILATION.getTotalCompilationTime();
        long allocatedBytes = THREADS.getThreadAllocatedBytes(measured.threadId());
        long quietSinceNs = startNs;
        try
        {
            while (true)
            {
                final long nowNs = System.nanoTime();
                if (nowNs - startNs > timeoutNs)
                {
                    return -1;
                }
                if (stop.getAsBoolean())
                {
                    return nowNs - startNs;
                }
                final long compiledMs = COMPILATION.getTotalCompilationTime();
                final long allocated = THREADS.getThreadAllocatedBytes(measured.threadId());
                if (compiledMs != compilationMs || allocated != allocatedBytes)
                {
                    compilationMs = compiledMs;
                    allocatedBytes = allocated;
                    quietSinceNs = nowNs;
                }
                else if (progress.getAsLong() >= warmUp && nowNs - quietSinceNs >= JIT_QUIET_NS)
                {
                    return nowNs - startNs;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
        finally
        {
            steady = true;
        }
    }

    /** @return true once the watcher found (or gave up waiting for) steady state. */
    boolean steady()
    {
        return steady;
    }

    /** Starts (or restarts) the window on the measured thread. */
    void start()
    {
        count = 0;
        compilationAtStartMs = COMPILATION.getTotalCompilationTime();
        before = THREADS.getCurrentThreadAllocatedBytes();
        last = before;
    }

    /**
     * Records where the counter moved, if it did. Allocation-free.
     *
     * @param message the message just handled.
     */
    void sample(final long message)
    {
        final long now = THREADS.getCurrentThreadAllocatedBytes();
        if (now != last)
        {
            if (count < atMessage.length)
            {
                atMessage[count] = message;
                bytes[count] = now - last;
            }
            count++;
            last = now;
        }
    }

    /** Ends the window on the measured thread. */
    void finish()
    {
        allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        jitRan = COMPILATION.getTotalCompilationTime() != compilationAtStartMs;
    }

    /** @return bytes the thread allocated in the window, or -1 before {@link #finish()}. */
    long allocated()
    {
        return allocated;
    }

    /** @return true when the JIT compiled during the window. */
    boolean jitRan()
    {
        return jitRan;
    }

    /** @return nothing allocated, or only what a window with JIT activity excuses. */
    boolean allocationFree()
    {
        return allocated == 0 || (jitRan && allocated <= JIT_BYTES_EXCUSED && count <= JIT_ALLOCATIONS_EXCUSED);
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder().append(allocated).append(" bytes in ").append(count)
            .append(" allocation(s)");
        for (int i = 0; i < Math.min(count, atMessage.length); i++)
        {
            text.append(i == 0 ? ": " : ", ").append(bytes[i]).append(" B at message ").append(atMessage[i]);
        }
        return text.append(jitRan ? "; the JIT compiled during the window" : "; no JIT activity").toString();
    }
}
