package io.ringwire.exchange.marketdata;

import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.exchange.flow.OrderFlow;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * A real matching engine driven by a seeded {@link OrderFlow} (limit orders, icebergs, post-only,
 * IOC and market orders that trade, cancels, replaces that keep or lose priority, mass cancels and
 * self-trade prevention) on several instruments, handing each market-data message to a listener as
 * the engine sends it, so a test can put a replica, a drop or a snapshot anywhere on the stream.
 */
final class TestExchange
{
    /** Takes each market-data message; the buffer is the engine's and is reused after the call. */
    @FunctionalInterface
    interface Listener
    {
        void onMarketData(DirectBuffer buffer, int offset, int length);
    }

    final MatchingEngine engine;
    private final OrderFlow flow;
    private final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    long marketDataMessages;

    TestExchange(final long seed, final int instruments, final Listener listener)
    {
        flow = flow(seed, instruments);
        final EngineConfig config = new EngineConfig(instruments(instruments), 200_000, 1_000, 0);
        engine = new MatchingEngine(config, new EngineOutput()
        {
            @Override
            public void executionReport(final DirectBuffer buffer, final int offset, final int length)
            {
            }

            @Override
            public void marketData(final DirectBuffer buffer, final int offset, final int length)
            {
                marketDataMessages++;
                listener.onMarketData(buffer, offset, length);
            }
        });
    }

    /**
     * @return instruments 1 to {@code count} as the engine has them (bands wide enough for every
     *         price the flow sends), for the replicas the tests feed.
     */
    static List<InstrumentSpec> instruments(final int count)
    {
        final OrderFlow flow = flow(0, count);
        return EngineConfig.uniformInstruments(count, flow.minPrice(), (int)(flow.maxPrice() - flow.minPrice() + 1));
    }

    private static OrderFlow flow(final long seed, final int instruments)
    {
        return new OrderFlow(seed, instruments, 100, 20, 10_000, 50, 4096);
    }

    /** Applies the flow's next {@code count} requests. */
    void run(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final int length = flow.next(request, 0);
            if (engine.apply(request, 0, length) < 0)
            {
                throw new IllegalStateException("the flow wrote a request the engine could not decode");
            }
        }
    }

    /** @return the digest of the engine's public books. */
    String digest()
    {
        return PublicBookDigest.of(engine.books());
    }
}
