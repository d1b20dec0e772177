package io.ringwire.perf.host;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * Garbage collections of this JVM, every collector summed: read before and after a run, the
 * difference is what the run cost in collections (a steady-state loop that allocates nothing
 * costs none).
 *
 * @param collections collections (young, mixed, full and, for concurrent collectors, cycles).
 * @param timeMs      their accumulated time, ms, as the collectors report it.
 */
public record GcActivity(long collections, long timeMs)
{
    /** No collection. */
    public static final GcActivity NONE = new GcActivity(0, 0);

    /**
     * Reads the collectors now. Allocates (the management beans' lists): call it outside a measured
     * window.
     *
     * @return the totals since the JVM started.
     */
    public static GcActivity now()
    {
        long collections = 0;
        long timeMs = 0;
        for (final GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans())
        {
            collections += Math.max(0, collector.getCollectionCount());
            timeMs += Math.max(0, collector.getCollectionTime());
        }
        return new GcActivity(collections, timeMs);
    }

    /**
     * @param before an earlier reading of the same JVM.
     * @return what happened between {@code before} and this reading.
     */
    public GcActivity since(final GcActivity before)
    {
        return new GcActivity(collections - before.collections, timeMs - before.timeMs);
    }

    /**
     * @param other another JVM's activity over the same run.
     * @return both together.
     */
    public GcActivity plus(final GcActivity other)
    {
        return new GcActivity(collections + other.collections, timeMs + other.timeMs);
    }
}
