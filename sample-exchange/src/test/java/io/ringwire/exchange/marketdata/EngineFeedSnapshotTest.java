package io.ringwire.exchange.marketdata;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's books as BookSnapshots ({@link io.ringwire.exchange.engine.MatchingEngine#feedSnapshotSource},
 * walked by {@link io.ringwire.exchange.book.BookWalk}): what the engine sends into the feed when a
 * market-data service connects anew. A replica that missed part of the feed, or that starts after
 * the feed began, takes them between two requests and from there follows the feed, equal to the
 * engine's public books; a replica that missed nothing ignores them. A real engine and a seeded
 * flow of every kind of request (icebergs among them, whose hidden quantity no snapshot shows).
 */
class EngineFeedSnapshotTest
{
    private static final int INSTRUMENTS = 6;

    private boolean feedReachesReplica = true;

    @ParameterizedTest(name = "{0} orders a part")
    @ValueSource(ints = { 3, SnapshotEncoder.MAX_ORDERS_PER_PART })
    void aReplicaThatMissedPartOfTheFeedRecoversFromTheEnginesSnapshotAndFollowsTheFeedAfterIt(final int perPart)
    {
        final MarketDataBooks replica = new MarketDataBooks(TestExchange.instruments(INSTRUMENTS), 200_000);
        final TestExchange exchange = exchangeFeeding(0x5EED5L, replica);
        exchange.run(5_000);
        feedReachesReplica = false; // the service gone: the feed drops what it cannot deliver
        exchange.run(5_000);
        feedReachesReplica = true;
        exchange.run(50); // changes after the gap: books they touch go stale
        assertTrue(replica.gaps() > 0, "the replica saw the gap");

        final int parts = sendEngineSnapshots(exchange, replica, perPart);
        exchange.run(5_000);

        assertTrue(parts > 0);
        assertTrue(replica.recoveries() > 0, "books recovered from the engine's snapshot");
        assertReplicaEqualsEngine(exchange, replica);
    }

    @ParameterizedTest(name = "{0} orders a part")
    @ValueSource(ints = { 3, SnapshotEncoder.MAX_ORDERS_PER_PART })
    void aReplicaStartedAfterTheFeedBeganTakesEveryBookFromTheEnginesSnapshot(final int perPart)
    {
        feedReachesReplica = false;
        final MarketDataBooks replica = new MarketDataBooks(TestExchange.instruments(INSTRUMENTS), 200_000);
        final TestExchange exchange = exchangeFeeding(0xBE1A7EL, replica);
        exchange.run(8_000);
        feedReachesReplica = true;

        sendEngineSnapshots(exchange, replica, perPart);
        // Right at once, before any further change shows a gap.
        assertEquals(exchange.digest(), replica.publicDigest(), "the replica right before any further change");
        exchange.run(3_000);

        assertEquals(0, replica.gaps(), "the snapshot closed every book's gap before its next change");
        assertReplicaEqualsEngine(exchange, replica);
    }

    @ParameterizedTest(name = "{0} orders a part")
    @ValueSource(ints = { 3, SnapshotEncoder.MAX_ORDERS_PER_PART })
    void aReplicaThatMissedNothingIgnoresTheEnginesSnapshot(final int perPart)
    {
        final MarketDataBooks replica = new MarketDataBooks(TestExchange.instruments(INSTRUMENTS), 200_000);
        final TestExchange exchange = new TestExchange(0xC0FFEEL, INSTRUMENTS,
            (buffer, offset, length) -> replica.onMessage(buffer, offset, length));
        exchange.run(5_000);

        sendEngineSnapshots(exchange, replica, perPart);
        exchange.run(1_000);

        assertEquals(0, replica.recoveries(), "no book taken again");
        assertReplicaEqualsEngine(exchange, replica);
    }

    @ParameterizedTest(name = "{0} orders a part")
    @ValueSource(ints = { 3, SnapshotEncoder.MAX_ORDERS_PER_PART })
    void encodingTheEnginesBooksAllocatesNothing(final int perPart)
    {
        final TestExchange exchange = new TestExchange(0xA110CL, INSTRUMENTS, (buffer, offset, length) -> { });
        exchange.run(20_000);
        final SnapshotEncoder encoder =
            new SnapshotEncoder(exchange.engine.feedSnapshotSource(), exchange.engine.books().walk(), perPart);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[encoder.maxPartLength()]);
        final long[] parts = new long[1];
        final SnapshotEncoder.PartSink count = (partBuffer, offset, length) -> parts[0]++;
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        long smallest = Long.MAX_VALUE;
        for (int round = 0; round < 20 && smallest > 0; round++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100; i++)
            {
                encoder.encode(0, buffer, 0, count);
            }
            smallest = Math.min(smallest, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertTrue(parts[0] > 0);
        assertEquals(0, smallest, "bytes allocated encoding every book a hundred times, in the quietest round");
    }

    /** What the engine's node does at a new connection: every changed book, between two requests. */
    private static int sendEngineSnapshots(final TestExchange exchange, final MarketDataBooks replica, final int perPart)
    {
        final SnapshotSource source = exchange.engine.feedSnapshotSource();
        final SnapshotEncoder encoder = new SnapshotEncoder(source, exchange.engine.books().walk(), perPart);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[encoder.maxPartLength()]);
        final int[] parts = new int[1];
        final int[] outcomes = new int[16];
        for (int slot = 0; slot < source.books(); slot++)
        {
            parts[0] += encoder.encodeSlot(slot, buffer, 0,
                (partBuffer, offset, length) -> outcomes[replica.onMessage(partBuffer, offset, length)]++);
        }
        assertEquals(0, outcomes[MarketDataBooks.INCONSISTENT] + outcomes[MarketDataBooks.CAPACITY_EXCEEDED] +
            outcomes[MarketDataBooks.MALFORMED], "every part fits the replica");
        return parts[0];
    }

    /** An exchange whose feed reaches the replica while {@link #feedReachesReplica} says so. */
    private TestExchange exchangeFeeding(final long seed, final MarketDataBooks replica)
    {
        return new TestExchange(seed, INSTRUMENTS, (buffer, offset, length) ->
        {
            if (feedReachesReplica)
            {
                replica.onMessage(buffer, offset, length);
            }
        });
    }

    private static void assertReplicaEqualsEngine(final TestExchange exchange, final MarketDataBooks replica)
    {
        final SnapshotSource engine = exchange.engine.feedSnapshotSource();
        for (int id = 1; id <= INSTRUMENTS; id++)
        {
            assertFalse(replica.isStale(id), "instrument " + id + " live");
            assertEquals(engine.sequence(id - 1), replica.sequence(id), "instrument " + id + "'s sequence");
        }
        assertEquals(0, replica.inconsistencies());
        assertTrue(replica.orderCount(1) > 10, "the books are deep: " + replica.orderCount(1));
        assertEquals(exchange.digest(), replica.publicDigest(), "the replica's public books are the engine's");
    }
}
