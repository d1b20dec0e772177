package io.ringwire.perf.testing;

import io.ringwire.perf.host.ThreadAllocation;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rule the perf module's zero-allocation checks share: a measuring thread allocates nothing over
 * its window, except that a window in which the JIT compiled is not steady state: HotSpot then
 * allocates once, a few hundred bytes, on the thread whose code it recompiles (it resolves String
 * constants there). Only that is excused: at most {@link #JIT_EXCUSE_BYTES}, and only when the JIT
 * compiled during the window.
 */
public final class SteadyStateAllocation
{
    /** The most a window in which the JIT compiled may allocate. */
    static final long JIT_EXCUSE_BYTES = 2048;

    private SteadyStateAllocation()
    {
    }

    /**
     * @param what        the thread and run, for the message.
     * @param allocated   bytes it allocated over its window.
     * @param jitCompiled whether the JIT compiled during the window.
     */
    public static void assertAllocationFree(final String what, final long allocated, final boolean jitCompiled)
    {
        assertTrue(allocated != ThreadAllocation.UNKNOWN, what + " measured nothing");
        if (allocated > 0 && jitCompiled)
        {
            System.out.println(what + ": " + allocated + " bytes while the JIT compiled during the window (excused up to " +
                JIT_EXCUSE_BYTES + ")");
        }
        assertTrue(allocated == 0 || (jitCompiled && allocated <= JIT_EXCUSE_BYTES),
            what + " allocated " + allocated + " bytes (JIT compiled during the window: " + jitCompiled + ")");
    }
}
