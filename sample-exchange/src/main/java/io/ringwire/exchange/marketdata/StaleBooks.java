package io.ringwire.exchange.marketdata;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The books a subscriber asks a snapshot for again. A book goes stale at a gap, which asks at
 * once, but also when a snapshot is abandoned (a part out of order), a change does not fit its
 * capacity, or the request itself could not go; and a snapshot whose last parts are lost leaves
 * its book loading for good. The service sends books only when asked, so such a book would stay
 * stale. Every {@link #INTERVAL_NS} each book that is stale and took no snapshot part since the
 * last scan is asked for again; past {@link #MAX_SINGLE_REQUESTS} of them, one request asks for
 * every book (the service coalesces requests, a book at most once per
 * {@link SnapshotSchedule#MIN_INTERVAL_NS}).
 *
 * <p>Threading: the subscriber's. Allocation: none.
 */
public final class StaleBooks
{
    /** How often stale books are asked for again: well past the service's own interval. */
    public static final long INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);
    /** Books asked for one by one in a scan; more are asked for with one request for all (instrument 0). */
    public static final int MAX_SINGLE_REQUESTS = 8;

    private static final long NOT_LOADING = -1;

    private final int[] instrumentIds;
    private final long[] progressAtScan;
    private final boolean[] wanted;
    private long nextScanNs;

    /**
     * @param instrumentIds the books' instruments.
     * @param nowNs         now: the first scan is an interval later.
     */
    public StaleBooks(final int[] instrumentIds, final long nowNs)
    {
        this.instrumentIds = instrumentIds.clone();
        this.progressAtScan = new long[instrumentIds.length];
        this.wanted = new boolean[instrumentIds.length];
        restart(nowNs);
    }

    /**
     * The subscriber (re)joined and asked for every book: the next scan is an interval later.
     */
    public void restart(final long nowNs)
    {
        nextScanNs = nowNs + INTERVAL_NS;
        Arrays.fill(progressAtScan, NOT_LOADING);
    }

    /**
     * @param request takes the instrument of each book to ask for, or 0 for every book.
     * @return books found stale without progress.
     */
    public int poll(final long nowNs, final MarketDataBooks books, final IntConsumer request)
    {
        if (nowNs - nextScanNs < 0)
        {
            return 0;
        }
        nextScanNs = nowNs + INTERVAL_NS;
        int stalled = 0;
        for (int i = 0; i < instrumentIds.length; i++)
        {
            final boolean stale = books.isStale(instrumentIds[i]);
            final long progress = stale ? books.snapshotProgress(instrumentIds[i]) : NOT_LOADING;
            wanted[i] = stale && (progress == NOT_LOADING || progress == progressAtScan[i]);
            progressAtScan[i] = progress;
            stalled += wanted[i] ? 1 : 0;
        }
        if (stalled > MAX_SINGLE_REQUESTS)
        {
            request.accept(0);
        }
        else if (stalled > 0)
        {
            for (int i = 0; i < instrumentIds.length; i++)
            {
                if (wanted[i])
                {
                    request.accept(instrumentIds[i]);
                }
            }
        }
        return stalled;
    }
}
