package io.ringwire.perf.exchange;

import io.ringwire.exchange.engine.EngineConfig;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The matching benchmark's flow, generated and SBE-encoded before anything is timed: requests end
 * to end in one off-heap buffer, request {@code i} from {@code offsets[i]} to {@code offsets[i + 1]}.
 * The first {@link #prefill} requests fill the books and are applied before a measurement; the
 * rest are measured. With the engine's configuration and what the generator saw of the flow it
 * made (its mix, its books), for the report and for checking a replay.
 *
 * <p>Threading: read-only once made; replayed by one thread.
 *
 * @param requests      the SBE requests.
 * @param offsets       where each request starts; the last entry is the end of the last.
 * @param kinds         each request's {@link RequestKind} ordinal.
 * @param prefill       requests that fill the books (not measured).
 * @param config        the engine the flow is made for: its instruments' bands and capacities.
 * @param kindCounts    measured requests of each {@link RequestKind}, by ordinal.
 * @param tradingCounts measured requests of each kind that traded, by ordinal.
 * @param restingPerBook resting orders per book, averaged over the measured requests.
 * @param levelsPerBook price levels per book at the end (bid and ask levels together).
 * @param liveOrdersAtEnd orders resting in all books at the end: what a replay must leave.
 */
record RecordedFlow(
    UnsafeBuffer requests,
    int[] offsets,
    byte[] kinds,
    int prefill,
    EngineConfig config,
    long[] kindCounts,
    long[] tradingCounts,
    double restingPerBook,
    double levelsPerBook,
    int liveOrdersAtEnd)
{
    /** @return all requests, the prefill's and the measured ones. */
    int count()
    {
        return offsets.length - 1;
    }

    /** @return the measured requests. */
    int measured()
    {
        return count() - prefill;
    }

    /** @return bytes of the measured requests. */
    long measuredBytes()
    {
        return offsets[count()] - offsets[prefill];
    }

    /** @return measured requests that traded. */
    long tradingCount()
    {
        long count = 0;
        for (final long trading : tradingCounts)
        {
            count += trading;
        }
        return count;
    }

    /** @return the fraction of the measured requests of a kind that traded. */
    double tradingShare(final RequestKind kind)
    {
        final long count = kindCounts[kind.ordinal()];
        return count == 0 ? 0 : tradingCounts[kind.ordinal()] / (double)count;
    }

    /** @return the fraction of measured requests of a kind. */
    double share(final RequestKind kind)
    {
        return kindCounts[kind.ordinal()] / (double)measured();
    }
}
