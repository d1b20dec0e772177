package io.ringwire.exchange.node;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The market-data service passes on what its replica takes from the engine's feed, and nothing its
 * replica found malformed: that is counted once, at the service, not by every subscriber.
 *
 * <p>Thread layout: the test's thread plays the engine's feed, the service and one subscriber.
 */
class MarketDataNodeFeedTest
{
    @TempDir
    Path directory;

    @Test
    void aMalformedFeedMessageIsCountedByTheServiceAndReachesNoSubscriber() throws Exception
    {
        // Three of a real engine's feed messages, as it would send them.
        final List<byte[]> sent = new ArrayList<>();
        final OneBookFeedEngine source = new OneBookFeedEngine(0xFEEDL, 1_000);
        final MatchingEngine engine = new MatchingEngine(source.config, new EngineOutput()
        {
            @Override
            public void executionReport(final DirectBuffer buffer, final int offset, final int length)
            {
            }

            @Override
            public void marketData(final DirectBuffer buffer, final int offset, final int length)
            {
                final byte[] message = new byte[length];
                buffer.getBytes(offset, message);
                sent.add(message);
            }
        });
        final OrderFlow flow = new OrderFlow(0xFEEDL, 1, 100, 20, 10_000, 50, 4096);
        final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        for (int i = 0; i < 10_000 && sent.size() < 3; i++)
        {
            engine.apply(request, 0, flow.next(request, 0));
        }
        assertTrue(sent.size() >= 3, "the engine sent " + sent.size() + " feed messages");

        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 1, 1);
        final MessagingContext context = ExchangeDemo.context(layout, directory.resolve("shm"),
            "");
        final List<Integer> received = new ArrayList<>();
        try (MarketDataNode service = new MarketDataNode(context, layout, source.config, new RunFlag());
             Publication feed = Publication.open(context, layout.marketDataFeedPublication(), ExchangeLayout.FEED_STREAM);
             Subscription subscriber = Subscription.open(context, layout.marketDataClientSubscription(0),
                 ExchangeLayout.MARKET_DATA_STREAM))
        {
            final Runnable serviceAndSubscriber = () ->
            {
                feed.doWork();
                service.doWork();
                subscriber.poll((buffer, offset, length, header) -> received.add(length), 64);
            };
            RoleContexts.await(() -> service.isConnected() && feed.isConnected(), Duration.ofSeconds(30),
                "the feed and the subscriber connected", serviceAndSubscriber);

            // The second message goes first one byte short (its block runs past the end), then whole.
            final UnsafeBuffer first = new UnsafeBuffer(sent.get(0));
            final UnsafeBuffer second = new UnsafeBuffer(sent.get(1));
            final UnsafeBuffer third = new UnsafeBuffer(sent.get(2));
            offer(feed, first, first.capacity(), serviceAndSubscriber);
            offer(feed, second, second.capacity() - 1, serviceAndSubscriber);
            offer(feed, second, second.capacity(), serviceAndSubscriber);
            offer(feed, third, third.capacity(), serviceAndSubscriber);
            RoleContexts.await(() -> service.published() >= 3 && received.size() >= 3, Duration.ofSeconds(30),
                "the whole messages passed on", serviceAndSubscriber);
            for (int i = 0; i < 1_000; i++)
            {
                serviceAndSubscriber.run();
            }

            assertEquals(1, service.replica().malformed(), "the short message counted at the service");
            assertEquals(3, service.published(), "only the whole messages published");
            assertEquals(List.of(first.capacity(), second.capacity(), third.capacity()), received,
                "the subscriber received the whole messages, in order, and nothing else");
        }
    }

    private static void offer(final Publication feed, final UnsafeBuffer message, final int length,
        final Runnable others)
    {
        RoleContexts.await(() -> feed.offer(message, 0, length) > 0, Duration.ofSeconds(10), "a feed message sent",
            others);
    }
}
