package io.ringwire.exchange.node;

import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.SnapshotRequestEncoder;
import io.ringwire.exchange.demo.LatencyLedger;
import io.ringwire.exchange.demo.MarketDataClient;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.exchange.marketdata.PublicBookDigest;
import io.ringwire.exchange.marketdata.SnapshotEncoder;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import io.ringwire.messaging.protocol.FrameDescriptor;
import io.ringwire.rdma.cm.Identity;
import org.agrona.concurrent.UnsafeBuffer;
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
 * service and its subscriber each take it whole; parts that wait behind a subscriber who then goes
 * are dropped, and not counted as sent.
 *
 * <p>Thread layout: the test's thread drives the engine's side, the service and the subscriber.
 */
class MarketDataFragmentsTest
{
    private static final int RING = 16 << 10;
    private static final int LIVENESS_MS = 5_000;

    @TempDir
    Path directory;

    /** The engine's, the service's and one subscriber's contexts, each with its own identity, on small rings. */
    private record Sides(ExchangeLayout layout, MessagingContext engine, MessagingContext service,
        MessagingContext subscriber)
    {
    }

    private Sides sides()
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 1, 1);
        final Map<String, Identity> identities = new HashMap<>();
        for (final String name : layout.identities())
        {
            identities.put(name, Identity.generate(name));
        }
        final String subscriberName = layout.marketDataSubscribers().getFirst();
        return new Sides(layout,
            RoleContexts.context(directory, identities, List.of(ExchangeLayout.ENGINE),
                List.of(ExchangeLayout.MARKET_DATA), LIVENESS_MS, RING),
            RoleContexts.context(directory, identities, List.of(ExchangeLayout.MARKET_DATA),
                List.of(ExchangeLayout.ENGINE, subscriberName), LIVENESS_MS, RING),
            RoleContexts.context(directory, identities, List.of(subscriberName), List.of(ExchangeLayout.MARKET_DATA),
                LIVENESS_MS, RING));
    }

    @Test
    void aSnapshotPartLongerThanAFrameReachesTheServiceAndItsSubscriberWhole()
    {
        assertTrue(SnapshotEncoder.partLength(SnapshotEncoder.MAX_ORDERS_PER_PART) > FrameDescriptor.maxPayloadLength(RING),
            "the test's ring fragments a part");
        final Sides sides = sides();
        final ExchangeLayout layout = sides.layout();
        final MessagingContext engineSide = sides.engine();
        final MessagingContext serviceSide = sides.service();
        final MessagingContext subscriberSide = sides.subscriber();

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
            final FeedSnapshots snapshots = new FeedSnapshots(engine, feed, 0);
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

    @Test
    void snapshotPartsThatWaitedForASubscriberWhoWentAreCountedDroppedNotSent()
    {
        final Sides sides = sides();
        final ExchangeLayout layout = sides.layout();
        final MessagingContext engineSide = sides.engine();
        final MessagingContext serviceSide = sides.service();
        final MessagingContext subscriberSide = sides.subscriber();

        // Five parts of the book, some two rings' worth: a subscriber that reads none holds the rest back.
        final OneBookFeedEngine source = new OneBookFeedEngine(0xC07L, 3_000);
        source.fill(1_200);
        final int parts = (source.engine.books().orders().live() + SnapshotEncoder.MAX_ORDERS_PER_PART - 1) /
            SnapshotEncoder.MAX_ORDERS_PER_PART;
        assertTrue(parts >= 4, "parts " + parts);
        final UnsafeBuffer request = new UnsafeBuffer(new byte[64]);
        final int requestLength = MessageHeaderEncoder.ENCODED_LENGTH + new SnapshotRequestEncoder()
            .wrapAndApplyHeader(request, 0, new MessageHeaderEncoder()).instrumentId(0).requesterId(1).encodedLength();
        try (MarketDataNode service = new MarketDataNode(serviceSide, layout, source.config, new RunFlag());
             Publication requests = Publication.open(subscriberSide, layout.snapshotRequestsPublication(0),
                 ExchangeLayout.SNAPSHOT_REQUESTS_STREAM);
             Publication toService = Publication.open(engineSide, layout.marketDataFeedPublication(),
                 ExchangeLayout.FEED_STREAM))
        {
            final Subscription subscriber = Subscription.open(subscriberSide, layout.marketDataClientSubscription(0),
                ExchangeLayout.MARKET_DATA_STREAM);
            final Outbound feed = new Outbound(toService, FeedSnapshots.backlogBytes(source.config.maxOrders(),
                Outbound.MAX_BACKLOG));
            source.feed(feed);
            final FeedSnapshots snapshots = new FeedSnapshots(source.engine, feed, 0);
            final Runnable engineAndService = () ->
            {
                feed.doWork();
                snapshots.doWork();
                service.doWork();
            };
            final String expected = PublicBookDigest.of(source.engine.books());
            final Runnable everyone = () ->
            {
                engineAndService.run();
                subscriber.poll((buffer, offset, length, header) -> { }, 64);
                requests.doWork();
            };
            RoleContexts.await(() -> expected.equals(service.replica().publicDigest()) && service.isConnected() &&
                requests.isConnected(), Duration.ofSeconds(30), "the replica to hold the book, all connected",
                everyone);
            // The engine's own snapshot round may still be passing through the service: counted from
            // once the fan-out has been quiet a while.
            final long[] quiet = { service.published(), 0 };
            RoleContexts.await(() ->
            {
                final long published = service.published();
                quiet[1] = published == quiet[0] ? quiet[1] + 1 : 0;
                quiet[0] = published;
                return quiet[1] >= 2_000;
            }, Duration.ofSeconds(30), "the feed quiet", everyone);
            final long publishedBefore = service.published();
            final long droppedBefore = service.dropped();
            final long booksBefore = service.booksSnapshotted();

            RoleContexts.await(() -> requests.offer(request, 0, requestLength) > 0, Duration.ofSeconds(10),
                "the request sent", requests::doWork);
            RoleContexts.await(() -> service.booksSnapshotted() > booksBefore, Duration.ofSeconds(10),
                "the book's snapshot under way", () ->
                {
                    engineAndService.run();
                    requests.doWork();
                });
            assertTrue(service.snapshotParts() < parts, "some parts wait: " + service.snapshotParts());
            subscriber.close(); // the only subscriber goes: what waits for it has nowhere to go
            RoleContexts.await(() -> service.dropped() > droppedBefore && !service.isConnected(),
                Duration.ofSeconds(30), "the waiting parts dropped", engineAndService);
            for (int i = 0; i < 10; i++)
            {
                engineAndService.run();
            }

            assertEquals(publishedBefore, service.published(), "no feed message went since: none was a part");
            assertEquals(parts, service.snapshotParts() + service.dropped() - droppedBefore,
                "each part counted once: sent, or dropped");
        }
    }
}
