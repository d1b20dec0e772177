package io.ringwire.rdma.cm;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Warnings about refused management connections, at most one per source address every
 * {@value #INTERVAL_SECONDS} seconds, each saying how many were refused since the last: a flood of
 * connections is refused as fast as it comes, and logging each would slow the accept loop and drown
 * the log. The counters keep the exact numbers.
 *
 * <p>Threading: any thread.
 */
final class RefusalLog
{
    /**
     * Sources remembered at once: a flood from ever new addresses (an IPv6 host holds many) shares
     * one entry past this, so the log's memory stays bounded while the warnings go on.
     */
    static final int MAX_SOURCES = 1_024;

    private static final long INTERVAL_SECONDS = 10;
    private static final long INTERVAL_NS = TimeUnit.SECONDS.toNanos(INTERVAL_SECONDS);

    private final System.Logger logger;
    private final ConcurrentHashMap<InetAddress, long[]> bySource = new ConcurrentHashMap<>();
    private final long[] otherSources = { System.nanoTime() - INTERVAL_NS, 0 };
    private long lastSweepNs = System.nanoTime() - INTERVAL_NS;

    RefusalLog(final System.Logger logger)
    {
        this.logger = logger;
    }

    /**
     * Logs {@code message} for {@code source} unless it was logged within the interval; counts it.
     *
     * @param source  the refused peer's address.
     * @param message what was refused and why.
     */
    void warn(final InetAddress source, final String message)
    {
        final long now = System.nanoTime();
        long[] entry = bySource.get(source);
        if (null == entry)
        {
            if (bySource.size() >= MAX_SOURCES)
            {
                sweep(now);
            }
            entry = bySource.size() < MAX_SOURCES ?
                bySource.computeIfAbsent(source, address -> new long[] { now - INTERVAL_NS, 0 }) : otherSources;
        }
        final long suppressed;
        synchronized (entry)
        {
            if (now - entry[0] < INTERVAL_NS)
            {
                entry[1]++;
                return;
            }
            entry[0] = now;
            suppressed = entry[1];
            entry[1] = 0;
        }
        logger.log(Level.WARNING, message + (suppressed > 0 ? " (and " + suppressed + " more from it since the last " +
            "warning)" : ""));
    }

    /** Forgets the sources not warned about within the interval, at most once an interval. */
    private synchronized void sweep(final long now)
    {
        if (now - lastSweepNs < INTERVAL_NS)
        {
            return;
        }
        lastSweepNs = now;
        bySource.values().removeIf(entry ->
        {
            synchronized (entry)
            {
                return now - entry[0] >= INTERVAL_NS;
            }
        });
    }

    /** @return the sources remembered now. */
    int sources()
    {
        return bySource.size();
    }
}
