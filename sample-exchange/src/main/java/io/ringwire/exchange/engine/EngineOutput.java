package io.ringwire.exchange.engine;

import org.agrona.DirectBuffer;

/**
 * Where the engine's messages go: execution reports to the gateway, order-level market data to the
 * feed. Each call hands one complete SBE message (header included) in a buffer the engine reuses:
 * copy it before returning if it must outlive the call.
 */
public interface EngineOutput
{
    /** Discards everything: an engine measured alone, or replayed for its digest. */
    EngineOutput NONE = new EngineOutput()
    {
        @Override
        public void executionReport(final DirectBuffer buffer, final int offset, final int length)
        {
        }

        @Override
        public void marketData(final DirectBuffer buffer, final int offset, final int length)
        {
        }
    };

    /**
     * @param buffer holds an ExecutionReport from {@code offset}.
     * @param offset where it starts.
     * @param length its length.
     */
    void executionReport(DirectBuffer buffer, int offset, int length);

    /**
     * @param buffer holds an OrderAdded, OrderExecuted, OrderCanceled, OrderReplaced or Trade.
     * @param offset where it starts.
     * @param length its length.
     */
    void marketData(DirectBuffer buffer, int offset, int length);

    /**
     * Names the engine's life ({@link JournaledEngine#life()}) before its first message, recovery's
     * included: an output that carries reports off the process stamps it into each, so the gateway
     * tells an engine restarted on a new journal from the same one resending.
     *
     * @param life the life, positive.
     */
    default void engineLife(final long life)
    {
    }

    /**
     * Whether every message handed over so far has left this process's own memory (a kill loses
     * what has not). An engine that writes its own snapshots writes one only then: recovery replays
     * and sends again only what comes after the newest snapshot, so a snapshot must never be ahead
     * of what was sent.
     *
     * @return true when nothing waits in a backlog of this output's.
     */
    default boolean isSent()
    {
        return true;
    }
}
