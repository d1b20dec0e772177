package io.ringwire.exchange.marketdata;

import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The books a subscriber asks a snapshot for again. A book goes stale at a gap, which asks at
 * once, but also when a snapshot is abandoned (a part lost or out of order), a change does not fit
 * its capacity, or the request itself could not go; the service sends books only when asked, so
 * such a book would stay stale for good. Every {@link #INTERVAL_NS} each book stale and not taking
 * a snapshot is asked for again (the service coalesces requests, a book at most once per
 * {@link SnapshotSchedule#MIN_INTERVAL_NS}).
 *
 * <p>Threading: the subscriber's. Allocation: none.
 */
public final class StaleBooks
{
    /** How often stale books are asked for again: well past the service's own interval. */
    public static final long INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);

    private final int[] instrumentIds;
    private long nextScanNs;

    /**
     * @param instrumentIds the books' instruments.
     * @param nowNs         now: the first scan is an interval later, the start's own request being
     *                      under way.
     */
    public StaleBooks(final int[] instrumentIds, final long nowNs)
    {
        this.instrumentIds = instrumentIds.clone();
        this.nextScanNs = nowNs + INTERVAL_NS;
    }

    /**
     * @param request takes the instrument of each book to ask for.
     * @return books asked for.
     */
    public int poll(final long nowNs, final MarketDataBooks books, final IntConsumer request)
    {
        if (nowNs - nextScanNs < 0)
        {
            return 0;
        }
        nextScanNs = nowNs + INTERVAL_NS;
        int asked = 0;
        for (final int instrument : instrumentIds)
        {
            if (books.isStale(instrument) && !books.isLoadingSnapshot(instrument))
            {
                request.accept(instrument);
                asked++;
            }
        }
        return asked;
    }
}
