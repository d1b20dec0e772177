package io.ringwire.perf.host;

import net.openhft.affinity.Affinity;

/**
 * Pins the calling thread to one CPU with OpenHFT affinity ({@code sched_setaffinity} through JNA).
 * Failure is not fatal to a benchmark: the caller warns and runs unpinned.
 */
public final class ThreadPinning
{
    static
    {
        // Affinity logs through SLF4J; with no binding on the class path SLF4J prints a three-line
        // warning on the first pin. Failures reach us as exceptions, so its log is not needed.
        if (null == System.getProperty("slf4j.internal.verbosity"))
        {
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
    }

    private ThreadPinning()
    {
    }

    /**
     * @param cpu the CPU to run the calling thread on.
     * @return null when pinned, else why not.
     */
    public static String pinCurrentThread(final int cpu)
    {
        try
        {
            Affinity.setAffinity(cpu);
            final int current = Affinity.getCpu();
            if (current >= 0 && current != cpu)
            {
                return "thread still runs on cpu " + current + " after pinning to cpu " + cpu;
            }
            return null;
        }
        catch (final RuntimeException | LinkageError ex)
        {
            return ex.toString();
        }
    }
}
