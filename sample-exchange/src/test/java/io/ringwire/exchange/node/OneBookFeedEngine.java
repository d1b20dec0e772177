package io.ringwire.exchange.node;

import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.exchange.flow.OrderFlow;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A matching engine of one instrument whose market data goes to a feed once the test gives it one
 * (before that it goes nowhere, as to a market-data service not there yet), for the tests of the
 * feed's snapshots of a book of many orders.
 */
final class OneBookFeedEngine implements EngineOutput
{
    final EngineConfig config;
    final MatchingEngine engine;
    private final OrderFlow flow;
    private Outbound feed;

    /**
     * @param seed      the flow's seed.
     * @param maxOrders the engine's order capacity.
     */
    OneBookFeedEngine(final long seed, final int maxOrders)
    {
        flow = new OrderFlow(seed, 1, 100, 20, 10_000, 50, 4096);
        config = new EngineConfig(EngineConfig.uniformInstruments(1, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), maxOrders, 1_000, 0);
        engine = new MatchingEngine(config, this);
    }

    /** Applies the flow's requests until the book holds at least {@code orders} orders. */
    void fill(final int orders)
    {
        final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        for (int i = 0; i < 200_000 && engine.books().orders().live() < orders; i++)
        {
            engine.apply(request, 0, flow.next(request, 0));
        }
        assertTrue(engine.books().orders().live() >= orders, "the book holds " + engine.books().orders().live());
    }

    /** From now on the engine's market data goes to {@code feed}. */
    void feed(final Outbound feed)
    {
        this.feed = feed;
    }

    @Override
    public void executionReport(final DirectBuffer buffer, final int offset, final int length)
    {
    }

    @Override
    public void marketData(final DirectBuffer buffer, final int offset, final int length)
    {
        if (null != feed)
        {
            feed.send(buffer, offset, length);
        }
    }
}
