package io.ringwire.exchange.node;

import io.ringwire.exchange.book.OrderStore;
import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.exchange.marketdata.MarketDataBooks;
import io.ringwire.exchange.marketdata.PublicBookDigest;
import io.ringwire.exchange.marketdata.SnapshotEncoder;
import io.ringwire.exchange.marketdata.SnapshotSchedule;
import io.ringwire.messaging.FragmentAssembler;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableRingBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The engine's feed snapshots over real shm messaging, with a real matching engine whose market
 * data goes to the feed's {@link Outbound} as the engine node sends it: a feed message dropped while
 * the service is connected (its backlog full behind a service that stopped reading) starts a new
 * round, so the service's replica, which found the gap, recovers every book once it reads again,
 * with no further change to show it. Everything runs on the test's thread.
 */
class FeedSnapshotsTest
{
    private static final int INSTRUMENTS = 3;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(30);

    @TempDir
    Path directory;

    @Test
    void aFeedMessageDroppedWhileTheServiceIsConnectedStartsARoundThatRecoversItsReplica() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 1, 1);
        final MessagingContext context = ExchangeDemo.context(layout, directory.resolve("shm"), "");
        final OrderFlow flow = new OrderFlow(0xD20FL, INSTRUMENTS, 100, 20, 10_000, 50, 4096);
        final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(INSTRUMENTS, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), 100_000, 1_000, 0);
        final MarketDataBooks replica = new MarketDataBooks(config.instruments(), config.maxOrders());
        final FragmentHandler toReplica = (buffer, offset, length, header) -> replica.onMessage(buffer, offset, length);
        try (Subscription service = Subscription.open(context, layout.marketDataFeedSubscription(),
                ExchangeLayout.FEED_STREAM);
            Publication publication = Publication.open(context, layout.marketDataFeedPublication(),
                ExchangeLayout.FEED_STREAM))
        {
            final Outbound feed = new Outbound(publication, 4096);
            final MatchingEngine engine = new MatchingEngine(config, new EngineOutput()
            {
                @Override
                public void executionReport(final DirectBuffer buffer, final int offset, final int length)
                {
                }

                @Override
                public void marketData(final DirectBuffer buffer, final int offset, final int length)
                {
                    feed.send(buffer, offset, length);
                }
            });
            final FeedSnapshots snapshots = new FeedSnapshots(engine, feed, 0);
            final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
            await(() -> publication.isConnected(), "the feed connected", () -> service.poll(toReplica, 64) +
                feed.doWork());

            // The engine trades while the service reads; its first round (at the connection) sends
            // every book, at the sequence it holds when its turn comes, which the replica, having
            // missed nothing, ignores.
            for (int i = 0; i < 3_000; i++)
            {
                feed.doWork();
                snapshots.doWork();
                if (!feed.isBehind())
                {
                    engine.apply(request, 0, flow.next(request, 0));
                }
                service.poll(toReplica, 64);
            }
            assertEquals(INSTRUMENTS, snapshots.booksSent());
            assertEquals(0, replica.recoveries(), "a replica that missed nothing ignores the round");

            // The service stops reading; the feed's ring and then its backlog fill, and the engine's
            // next message is dropped with the service still connected.
            for (int i = 0; i < 1_000_000 && feed.dropped() == 0; i++)
            {
                engine.apply(request, 0, flow.next(request, 0));
                feed.doWork();
            }
            assertTrue(feed.dropped() > 0, "a feed message dropped");
            assertTrue(publication.isConnected(), "with the service connected");

            // It reads again; no request follows, so nothing but the round can bring its book the
            // changes the drop took.
            await(() -> !feed.isBehind() && snapshots.booksSent() >= 2 * INSTRUMENTS &&
                replicaEqualsEngine(replica, engine),
                "the replica recovered from the round", () -> feed.doWork() + snapshots.doWork() +
                service.poll(toReplica, 64));
            assertTrue(replica.recoveries() >= 1, "the book the drop left behind recovered");
            assertEquals(0, replica.inconsistencies());
        }
    }

    @Test
    void aBookOfManyOrdersGoesIntoTheFeedWholeBehindAServiceNotReadingAndItsReplicaRecovers() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 1, 1);
        final MessagingContext context = ExchangeDemo.context(layout, directory.resolve("shm"), "");
        // The book fills before any service is there: only a snapshot can bring it to one.
        final OneBookFeedEngine source = new OneBookFeedEngine(0xB16L, 3_000);
        source.fill(1_200);
        final EngineConfig config = source.config;
        final MatchingEngine engine = source.engine;
        final MarketDataBooks replica = new MarketDataBooks(config.instruments(), config.maxOrders());
        // A part is longer than a frame of this ring: it comes in fragments.
        final FragmentHandler toReplica = new FragmentAssembler(
            (buffer, offset, length, header) -> replica.onMessage(buffer, offset, length));
        try (Subscription service = Subscription.open(context, layout.marketDataFeedSubscription(),
                ExchangeLayout.FEED_STREAM);
            Publication publication = Publication.open(context, layout.marketDataFeedPublication() + "|ring=16384",
                ExchangeLayout.FEED_STREAM))
        {
            // The feed keeps 4 KiB for its ordinary messages; its ring holds two or three of the book's parts.
            final Outbound feed = new Outbound(publication, FeedSnapshots.backlogBytes(config.maxOrders(), 4096));
            source.feed(feed);
            final FeedSnapshots snapshots = new FeedSnapshots(engine, feed, 0);
            await(() -> publication.isConnected(), "the feed connected", () -> service.poll(toReplica, 64) +
                feed.doWork());

            assertTrue(snapshots.doWork() > 2, "the book went as several parts at once");
            assertEquals(0, feed.dropped(), "none cut by the backlog");
            assertTrue(feed.isBehind(), "the service has read none of it yet");
            await(() -> !feed.isBehind() && replicaEqualsEngine(replica, engine, 1), "the replica recovered",
                () -> feed.doWork() + snapshots.doWork() + service.poll(toReplica, 64));

            assertEquals(1, snapshots.booksSent(), "one round, not one round after another");
            assertEquals(0, feed.dropped());
            assertEquals(0, replica.inconsistencies());
        }
    }

    @Test
    void theFeedsBacklogHoldsAWholeBookOfTheMostOrdersAStoreHolds()
    {
        final long part = BitUtil.align(SnapshotEncoder.partLength(SnapshotEncoder.MAX_ORDERS_PER_PART) +
            ExpandableRingBuffer.HEADER_LENGTH, ExpandableRingBuffer.HEADER_ALIGNMENT);
        final int most = OrderStore.MAX_CAPACITY;
        final int backlog = FeedSnapshots.backlogBytes(most, Outbound.MAX_BACKLOG);
        // A book's parts, and a part's worth of padding where they wrap round the ring's end.
        assertTrue(backlog >= (most / SnapshotEncoder.MAX_ORDERS_PER_PART + 2) * part, backlog + " bytes");
        // Just under a power of two, the book alone would fit, and the padding would not.
        final int tight = (int)(((1L << 28) / part - 1) * SnapshotEncoder.MAX_ORDERS_PER_PART);
        assertEquals(1 << 29, FeedSnapshots.backlogBytes(tight, Outbound.MAX_BACKLOG));
        assertEquals(Integer.bitCount(backlog), 1, "a power of two");
        assertEquals(Outbound.MAX_BACKLOG, FeedSnapshots.backlogBytes(1 << 20, Outbound.MAX_BACKLOG),
            "an engine of the default capacity keeps the usual backlog");
    }

    @Test
    void theServicesFanOutBacklogHoldsOneCallOfSnapshotsOfTheMostOrdersAStoreHolds()
    {
        final long part = BitUtil.align(SnapshotEncoder.partLength(SnapshotEncoder.MAX_ORDERS_PER_PART) +
            ExpandableRingBuffer.HEADER_LENGTH, ExpandableRingBuffer.HEADER_ALIGNMENT);
        final int most = OrderStore.MAX_CAPACITY;
        final long backlog = MarketDataNode.fanOutBacklogBytes(most);
        // Eight books holding every order between them, each ending on a short part, and a part of padding.
        assertTrue(backlog >= (most / SnapshotEncoder.MAX_ORDERS_PER_PART + SnapshotSchedule.BOOKS_PER_CALL + 1) * part,
            backlog + " bytes");
        assertEquals(Outbound.MAX_BACKLOG, MarketDataNode.fanOutBacklogBytes(1 << 20),
            "a service of the default capacity keeps the usual backlog");
    }

    /** @return whether every replica book is live, at the engine's sequence, and the public books are the engine's. */
    private static boolean replicaEqualsEngine(final MarketDataBooks replica, final MatchingEngine engine)
    {
        return replicaEqualsEngine(replica, engine, INSTRUMENTS);
    }

    private static boolean replicaEqualsEngine(final MarketDataBooks replica, final MatchingEngine engine,
        final int instruments)
    {
        for (int id = 1; id <= instruments; id++)
        {
            if (replica.isStale(id) || replica.sequence(id) != engine.feedSnapshotSource().sequence(id - 1))
            {
                return false;
            }
        }
        return replica.publicDigest().equals(PublicBookDigest.of(engine.books()));
    }

    private static void await(final BooleanSupplier condition, final String what,
        final java.util.function.IntSupplier duty) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("waiting for " + what);
            }
            if (duty.getAsInt() == 0)
            {
                Thread.sleep(0, 100_000);
            }
        }
    }
}
