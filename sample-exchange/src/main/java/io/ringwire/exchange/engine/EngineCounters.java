package io.ringwire.exchange.engine;

import io.ringwire.exchange.book.OrderTerms;

/**
 * What the engine counts: messages applied and refused, rejects by reason, cancels by reason,
 * trades. Plain fields written by the engine's thread; a reader on another thread sees them late
 * but never torn (longs on a 64-bit JVM).
 */
public final class EngineCounters
{
    /** Messages applied (journaled requests and commands). */
    long applied;
    /** Messages the engine could not decode: dropped before the journal and counted. */
    long malformed;
    /** Messages of a template the engine does not take. */
    long unknownTemplates;
    long newOrders;
    long cancels;
    long replaces;
    long massCancels;
    long trades;
    long executionReports;
    long marketDataMessages;
    final long[] rejects = new long[OrderTerms.MAX_REASON + 1];
    final long[] canceledBy = new long[OrderTerms.MAX_REASON + 1];

    public long applied()
    {
        return applied;
    }

    public long malformed()
    {
        return malformed;
    }

    public long unknownTemplates()
    {
        return unknownTemplates;
    }

    public long newOrders()
    {
        return newOrders;
    }

    public long cancels()
    {
        return cancels;
    }

    public long replaces()
    {
        return replaces;
    }

    public long massCancels()
    {
        return massCancels;
    }

    public long trades()
    {
        return trades;
    }

    public long executionReports()
    {
        return executionReports;
    }

    public long marketDataMessages()
    {
        return marketDataMessages;
    }

    /**
     * @param reason one of {@link OrderTerms}' reasons.
     * @return requests rejected for it.
     */
    public long rejects(final int reason)
    {
        return rejects[reason];
    }

    /**
     * @param reason one of {@link OrderTerms}' reasons.
     * @return orders canceled for it.
     */
    public long canceled(final int reason)
    {
        return canceledBy[reason];
    }

    /** @return requests rejected for any reason. */
    public long rejected()
    {
        long total = 0;
        for (final long count : rejects)
        {
            total += count;
        }
        return total;
    }
}
