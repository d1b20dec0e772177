package io.ringwire.exchange.engine;

import io.ringwire.exchange.flow.OrderFlow;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Matching allocates nothing per order in steady state: after a warm-up, a window of 1M requests
 * (new orders, IOCs and market orders that trade, cancels, replaces and mass cancels, with their
 * execution reports, market data and digest) allocates zero bytes on the engine's thread, by the
 * JVM's per-thread allocation counter. A window with a one-off allocation by the JIT's
 * recompilation may be followed by another; a per-order allocation shows in every window.
 */
class MatchingEngineAllocationTest
{
    private static final int WINDOW = 1_000_000;
    private static final int WINDOWS = 5;

    @Test
    void aMillionOrdersAfterWarmUpAllocateNothing()
    {
        final OrderFlow flow = new OrderFlow(0xA110CL, 10, 100, 50, 10_000, 50, 4096);
        final EngineConfig config = new EngineConfig(
            EngineConfig.uniformInstruments(10, flow.minPrice(), (int)(flow.maxPrice() - flow.minPrice() + 1)),
            200_000, 1_000, 0);
        final MatchingEngine engine = new MatchingEngine(config, EngineOutput.NONE);
        final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

        run(engine, flow, request, 2 * WINDOW);
        long smallest = Long.MAX_VALUE;
        for (int window = 0; window < WINDOWS && smallest > 0; window++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            run(engine, flow, request, WINDOW);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            System.out.printf("window %d: %d bytes over %d requests%n", window, allocated, WINDOW);
            smallest = Math.min(smallest, allocated);
        }
        assertEquals(0, smallest, "bytes allocated over " + WINDOW + " requests in the quietest window");
        assertTrue(engine.counters().trades() > 0 && engine.counters().rejected() > 0 &&
            engine.books().orders().live() > 1000, "the flow trades, rejects and keeps books: " + engine.counters().trades() +
            " trades, " + engine.counters().rejected() + " rejects, " + engine.books().orders().live() + " resting");
    }

    private static void run(final MatchingEngine engine, final OrderFlow flow, final UnsafeBuffer request, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final int length = flow.next(request, 0);
            if (engine.apply(request, 0, length) < 0)
            {
                throw new IllegalStateException("the flow wrote a request the engine could not decode at " + i);
            }
        }
    }
}
