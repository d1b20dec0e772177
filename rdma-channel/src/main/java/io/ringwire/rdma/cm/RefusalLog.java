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
    private static final long INTERVAL_SECONDS = 10;
    private static final long INTERVAL_NS = TimeUnit.SECONDS.toNanos(INTERVAL_SECONDS);

    private final System.Logger logger;
    private final ConcurrentHashMap<InetAddress, long[]> bySource = new ConcurrentHashMap<>();

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
        final long[] entry = bySource.computeIfAbsent(source, address -> new long[] { now - INTERVAL_NS, 0 });
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
}
