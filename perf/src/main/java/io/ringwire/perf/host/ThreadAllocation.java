package io.ringwire.perf.host;

import java.lang.management.ManagementFactory;

/**
 * Bytes allocated by the calling thread, to prove a measured loop allocates nothing (an allocation
 * on the hot path would show up in the tail as GC pauses), and the JIT's total compilation time, to
 * tell whether it compiled during a measured window: HotSpot then allocates a little, once, on the
 * thread whose code it recompiles (it resolves String constants there), which the zero-allocation
 * tests excuse as the other modules' do.
 */
public final class ThreadAllocation
{
    /** Returned when the JVM cannot count allocations per thread. */
    public static final long UNKNOWN = -1;

    // Looked up once: ManagementFactory.getThreadMXBean() itself allocates on every call.
    private static final java.lang.management.ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean SUPPORTED = THREADS instanceof com.sun.management.ThreadMXBean threads &&
        threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled();
    private static final java.lang.management.CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
    private static final boolean JIT_TIME_SUPPORTED = null != JIT && JIT.isCompilationTimeMonitoringSupported();

    private ThreadAllocation()
    {
    }

    /**
     * @return bytes allocated so far by the calling thread, or {@link #UNKNOWN}.
     */
    public static long currentThreadAllocatedBytes()
    {
        return SUPPORTED ? ((com.sun.management.ThreadMXBean)THREADS).getCurrentThreadAllocatedBytes() : UNKNOWN;
    }

    /**
     * @return the JIT's total compilation time so far in ms, or {@link #UNKNOWN}.
     */
    public static long compilationTimeMs()
    {
        return JIT_TIME_SUPPORTED ? JIT.getTotalCompilationTime() : UNKNOWN;
    }
}
