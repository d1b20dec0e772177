package io.ringwire.exchange.marketdata;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Applying incrementals allocates nothing in steady state: after a warm-up, a window of 1M
 * market-data messages from a real engine (orders added, executed, canceled and replaced, and
 * trades) applied to a replica allocates zero bytes on the thread, by the JVM's per-thread
 * allocation counter. The engine runs on the same thread and allocates nothing itself (see
 * MatchingEngineAllocationTest), so every byte counted would be the replica's. A window with a
 * one-off allocation by the JIT's recompilation may be followed by another; a per-message
 * allocation shows in every window.
 */
class MarketDataBooksAllocationTest
{
    private static final long WINDOW = 1_000_000;
    private static final int WINDOWS = 5;

    @Test
    void aMillionIncrementalsAfterWarmUpAllocateNothing()
    {
        final MarketDataBooks replica = new MarketDataBooks(TestExchange.instruments(16), 200_000);
        final long[] outcomes = new long[16];
        final TestExchange exchange = new TestExchange(0xA110CL, 10,
            (buffer, offset, length) -> outcomes[replica.onMessage(buffer, offset, length)]++);
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

        runMessages(exchange, 2 * WINDOW);
        long smallest = Long.MAX_VALUE;
        for (int window = 0; window < WINDOWS && smallest > 0; window++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            final long messages = runMessages(exchange, WINDOW);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            System.out.printf("window %d: %d bytes over %d market-data messages%n", window, allocated, messages);
            smallest = Math.min(smallest, allocated);
        }
        assertEquals(0, smallest, "bytes allocated over " + WINDOW + " incrementals in the quietest window");
        assertEquals(exchange.marketDataMessages, outcomes[MarketDataBooks.APPLIED], "every message applied");
        assertTrue(replica.orderCount(1) > 100, "the books stay deep: " + replica.orderCount(1));
        assertEquals(exchange.digest(), replica.publicDigest());
    }

    /** Runs requests, a thousand at a time, until at least {@code count} market-data messages went out. */
    private static long runMessages(final TestExchange exchange, final long count)
    {
        final long start = exchange.marketDataMessages;
        while (exchange.marketDataMessages - start < count)
        {
            exchange.run(1_000);
        }
        return exchange.marketDataMessages - start;
    }
}
