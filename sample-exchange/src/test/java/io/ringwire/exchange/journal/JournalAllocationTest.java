package io.ringwire.exchange.journal;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link Journal#append} allocates nothing in steady state, nor does the journaller's idle work
 * between appends ({@link Journal#prepareAhead}, touching pages ahead): after a warm-up, windows of
 * a million appends are measured with the JVM's per-thread allocation counter.
 *
 * <p>The JIT can allocate on the thread that triggers a compilation (HotSpot resolves constants
 * there), so the test waits for the JIT to go quiet after the warm-up, and judges windows from the
 * second on (the first takes the window's own start and end through their first execution). A
 * window during which nothing was compiled must allocate nothing; one during which the JIT ran is
 * excused a few small allocations and another window is measured.
 *
 * <p>Steady state means within a segment: rolling to a new segment creates and maps a file, which
 * allocates, once per segment. The segment here holds every record of the test, so no window rolls.
 */
class JournalAllocationTest
{
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
    private static final CompilationMXBean COMPILATION = ManagementFactory.getCompilationMXBean();

    /** A 64-byte record with its header: an order-sized message. */
    private static final int PAYLOAD_LENGTH = 56;
    private static final int WARM_UP_APPENDS = 300_000;
    private static final int WINDOW_APPENDS = 1_000_000;
    private static final int MAX_WINDOWS = 4;
    private static final int SEGMENT_LENGTH = 1 << 29;
    private static final long JIT_QUIET_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long JIT_QUIET_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final int JIT_ALLOCATIONS_EXCUSED = 3;
    private static final long JIT_BYTES_EXCUSED = 2048;

    private final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(PAYLOAD_LENGTH));
    private final long[] allocationAtAppend = new long[16];
    private final long[] allocationBytes = new long[16];
    private int allocations;
    private long failedAppends;

    @TempDir
    Path directory;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void appendAndPreparingAheadAllocateNothingInSteadyState()
    {
        assertTrue(THREADS.isThreadAllocatedMemorySupported() && THREADS.isThreadAllocatedMemoryEnabled() &&
            COMPILATION.isCompilationTimeMonitoringSupported(), "this JVM counts neither allocation nor compilation");
        payload.setMemory(0, PAYLOAD_LENGTH, (byte)0x5A);
        final JournalContext context = new JournalContext().directory(directory).segmentLength(SEGMENT_LENGTH)
            .conclude();
        try (Journal journal = Journal.open(context))
        {
            appendWindow(journal, WARM_UP_APPENDS);
            awaitJitQuiet();
            final StringBuilder report = new StringBuilder();
            for (int window = 1; window <= MAX_WINDOWS; window++)
            {
                final long compilationMs = COMPILATION.getTotalCompilationTime();
                final long allocated = appendWindow(journal, WINDOW_APPENDS);
                final boolean jitRan = COMPILATION.getTotalCompilationTime() != compilationMs;
                report.append("\nwindow ").append(window).append(": ").append(describe(allocated, jitRan));
                assertEquals(0, failedAppends, "appends failed");
                if (1 == window)
                {
                    continue;
                }
                if (0 == allocated)
                {
                    assertEquals(WARM_UP_APPENDS + (long)window * WINDOW_APPENDS, journal.recordCount());
                    return;
                }
                if (!jitRan || allocated > JIT_BYTES_EXCUSED || allocations > JIT_ALLOCATIONS_EXCUSED)
                {
                    fail("append allocated in steady state:" + report);
                }
            }
            System.out.println("every window saw the JIT compile, and allocated no more than it excuses:" + report);
        }
    }

    /**
     * Appends {@code count} records, noting where the thread's allocation counter moved.
     *
     * @return bytes the thread allocated meanwhile.
     */
    private long appendWindow(final Journal journal, final int count)
    {
        allocations = 0;
        final long before = THREADS.getCurrentThreadAllocatedBytes();
        long last = before;
        for (int i = 0; i < count; i++)
        {
            if (journal.append(payload, 0, PAYLOAD_LENGTH) < 0)
            {
                failedAppends++;
            }
            if ((i & 15) == 0)
            {
                journal.prepareAhead(1);
            }
            final long now = THREADS.getCurrentThreadAllocatedBytes();
            if (now != last)
            {
                if (allocations < allocationAtAppend.length)
                {
                    allocationAtAppend[allocations] = i;
                    allocationBytes[allocations] = now - last;
                }
                allocations++;
                last = now;
            }
        }
        return last - before;
    }

    private String describe(final long allocated, final boolean jitRan)
    {
        final StringBuilder text = new StringBuilder().append(allocated).append(" bytes in ").append(allocations)
            .append(" allocation(s)");
        for (int i = 0; i < Math.min(allocations, allocationAtAppend.length); i++)
        {
            text.append(0 == i ? ": " : ", ").append(allocationBytes[i]).append(" B at append ")
                .append(allocationAtAppend[i]);
        }
        return text.append(jitRan ? "; the JIT compiled meanwhile" : "; no JIT activity").toString();
    }

    /** Waits, bounded, until the JIT has compiled nothing for {@link #JIT_QUIET_NS}; samples every 50 ms. */
    private static void awaitJitQuiet()
    {
        final long startNs = System.nanoTime();
        long compilationMs = COMPILATION.getTotalCompilationTime();
        long quietSinceNs = startNs;
        while (System.nanoTime() - quietSinceNs < JIT_QUIET_NS)
        {
            if (System.nanoTime() - startNs > JIT_QUIET_TIMEOUT_NS)
            {
                return; // the windows then see the JIT at work and say so
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            final long nowMs = COMPILATION.getTotalCompilationTime();
            if (nowMs != compilationMs)
            {
                compilationMs = nowMs;
                quietSinceNs = System.nanoTime();
            }
        }
    }
}
