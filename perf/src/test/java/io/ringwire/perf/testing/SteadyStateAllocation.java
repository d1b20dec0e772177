package io.ringwire.perf.testing;

import io.ringwire.perf.host.ThreadAllocation;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rule the perf module's zero-allocation checks share: a measuring thread allocates nothing over
 * its window, except that a window in which the JIT compiled is not steady state: HotSpot then
 * allocates once, a few hundred bytes, on the thread whose code it recompiles (it resolves String
 * constants there). Only that is excused: at most {@link #JIT_EXCUSE_BYTES}, and only when the JIT
 * compiled during the window.
 *
 * <p>A window in which a thread allocated while the JIT compiled cannot tell HotSpot's bytes from a
 * hot path that allocates, nor can one in which a thread allocated a few bytes with no compile seen
 * to end in it (a compile ending just after the window; a deoptimization, which rebuilds the objects
 * a compiled frame had kept in registers), so {@link #assertSteadyAllocationFree} measures such a
 * run again, up to a number of windows, and judges the last by the rule above. A window with no
 * compile in which a thread allocated more than {@link #JIT_EXCUSE_BYTES} is judged as it is.
 */
public final class SteadyStateAllocation
{
    /** The most a window in which the JIT compiled may allocate. */
    static final long JIT_EXCUSE_BYTES = 2048;

    private SteadyStateAllocation()
    {
    }

    /**
     * One thread's allocation over one window.
     *
     * @param what        the thread and run, for the message.
     * @param bytes       bytes it allocated over its window.
     * @param jitCompiled whether the JIT compiled during the window.
     */
    public record Measured(String what, long bytes, boolean jitCompiled)
    {
        /**
         * @return whether this window may still be settling: the thread allocated while the JIT
         *         compiled, or a few bytes (as HotSpot does) without a compile seen.
         */
        boolean settling()
        {
            return bytes > 0 && (jitCompiled || bytes <= JIT_EXCUSE_BYTES);
        }
    }

    /**
     * A run that measures one window of its threads' allocation (and asserts whatever else it checks).
     */
    @FunctionalInterface
    public interface Window
    {
        List<Measured> measure() throws Exception;
    }

    /**
     * Measures windows until none of its threads is settling or {@code attempts} were measured,
     * then asserts each thread of the last window allocation free.
     */
    public static void assertSteadyAllocationFree(final int attempts, final Window window) throws Exception
    {
        for (int attempt = 1; ; attempt++)
        {
            final List<Measured> threads = window.measure();
            if (attempt >= attempts || threads.stream().noneMatch(Measured::settling))
            {
                threads.forEach(t -> assertAllocationFree(t.what(), t.bytes(), t.jitCompiled()));
                return;
            }
            System.out.println("window " + attempt + " of " + attempts + " allocated, " + threads +
                ": not steady state yet, measuring again");
        }
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
