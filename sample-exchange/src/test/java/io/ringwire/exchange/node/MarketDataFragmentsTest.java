package io.ringwire.exchange.node;

import io.ringwire.exchange.demo.LatencyLedger;
import io.ringwire.exchange.demo.MarketDataClient;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.exchange.marketdata.PublicBookDigest;
import io.ringwire.exchange.marketdata.SnapshotEncoder;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.rdma.cm.Identity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Market data over rings whose frames are shorter than a book snapshot's part (a process given a
 * small {@code ringwire.messaging.ring.bytes}): the part comes in fragments, and the market-data
 * service and its subscriber each take it whole.
 *
 * <p>Thread layout: the test's thread drives the engine's side, the service and the subscriber.
 */
class MarketDataFragmentsTest
{
    private static final int RING = 16 << 10;
    private static final int LIVENESS_MS = 5_000;

    @TempDir
    Path directory;

    @Test
    void aSnapshotPartLongerThanAFrameReachesTheServiceAndItsSubscriberWhole()
    {
        assertTrue(SnapshotEncoder.partLength(SnapshotEncoder.MAX_ORDERS_PER_PART) > FrameDescriptor.maxPayloadLength(RING),
            "the test's ring fragments a part");
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 1, 1);
        final Map<String, Identity> identities = new HashMap<>();
        for (final String name : layout.identities())
        {
            identities.put(name, Identity.generate(name));
        }
        final String subscriberName = layout.marketDataSubscribers().getFirst();
        final MessagingContext engineSide = RoleContexts.context(directory, identities, List.of(ExchangeLayout.ENGINE),
            List.of(ExchangeLayout.MARKET_DATA), LIVENESS_MS, RING);
        final MessagingContext serviceSide = RoleContexts.context(directory, identities,
            List.of(ExchangeLayout.MARKET_DATA), List.of(ExchangeLayout.ENGINE, subscriberName), LIVENESS_MS, RING);
        final MessagingContext subscriberSide = RoleContexts.context(directory, identities, List.of(subscriberName),
            List.of(ExchangeLayout.MARKET_DATA), LIVENESS_MS, RING);

        // The book fills before the service is there: its snapshot is what brings it over.
        final OneBookFeedEngine source = new OneBookFeedEngine(0xF4A6L, 3_000);
        source.fill(600);
        final EngineConfig config = source.config;
        final MatchingEngine engine = source.engine;
        final RunFlag running = new RunFlag();
        try (MarketDataNode service = new MarketDataNode(serviceSide, layout, config, running);
             MarketDataClient subscriber = new MarketDataClient(subscriberSide, layout, 0, config, new LatencyLedger(),
                 running);
             Publication toService = Publication.open(engineSide, layout.marketDataFeedPublication(),
                 ExchangeLayout.FEED_STREAM))
        {
            final Outbound feed = new Outbound(toService, FeedSnapshots.backlogBytes(config.maxOrders(),
                Outbound.MAX_BACKLOG));
            source.feed(feed);
            final FeedSnapshots snapshots = new FeedSnapshots(engine, feed);
            final String expected = PublicBookDigest.of(engine.books());
            RoleContexts.await(() -> expected.equals(service.replica().publicDigest()) &&
                    expected.equals(subscriber.books().publicDigest()),
                Duration.ofSeconds(30), "the service's replica and the subscriber's books to hold the engine's book",
                () ->
                {
                    feed.doWork();
                    snapshots.doWork();
                    service.doWork();
                    subscriber.doWork();
                });
            assertEquals(0, service.replica().inconsistencies());
            assertEquals(0, subscriber.books().inconsistencies());
            assertTrue(service.engineSnapshotParts() >= 3, "parts " + service.engineSnapshotParts());
        }
    }
}
