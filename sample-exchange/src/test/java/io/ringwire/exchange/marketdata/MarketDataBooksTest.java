package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.trading.Side;
import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.book.OrderBooks;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.MatchingEngine;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static io.ringwire.exchange.marketdata.MarketDataBooks.APPLIED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.CAPACITY_EXCEEDED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.DUPLICATE;
import static io.ringwire.exchange.marketdata.MarketDataBooks.GAP;
import static io.ringwire.exchange.marketdata.MarketDataBooks.IGNORED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.INCONSISTENT;
import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;
import static io.ringwire.exchange.marketdata.MarketDataBooks.RECOVERED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.STALE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The book rules of the feed, one at a time, on hand-written messages: where an order goes in its
 * level, what a gap, a stale book and a snapshot do, and what the digest sees.
 */
class MarketDataBooksTest
{
    private final MarketDataBooks books = new MarketDataBooks(instruments(4), 100);
    private final Messages feed = new Messages(1);

    @Test
    void anIcebergRefillJoinsTheBackOfItsLevel()
    {
        apply(feed.added(1, Side.BUY, 100, 10));
        apply(feed.added(2, Side.BUY, 100, 5));
        apply(feed.executed(1, 10, 100));
        apply(feed.added(1, Side.BUY, 100, 10));

        assertEquals(List.of(2L, 1L), ordersAt(Side.BUY, 0));
        assertEquals(15, books.levelQuantity(books.bestLevel(1, Side.BUY)));
    }

    @Test
    void aReplaceInPlaceKeepsItsPlaceAndAnyOtherGoesToTheBackOfItsNewLevel()
    {
        apply(feed.added(1, Side.SELL, 100, 10));
        apply(feed.added(2, Side.SELL, 100, 10));
        apply(feed.added(3, Side.SELL, 101, 10));

        apply(feed.replaced(1, 100, 4, true));
        assertEquals(List.of(1L, 2L), ordersAt(Side.SELL, 0));
        assertEquals(14, books.levelQuantity(books.bestLevel(1, Side.SELL)));

        apply(feed.replaced(1, 100, 20, false));
        assertEquals(List.of(2L, 1L), ordersAt(Side.SELL, 0));

        apply(feed.replaced(2, 101, 10, false));
        apply(feed.replaced(1, 99, 10, false));
        assertEquals(List.of(1L), ordersAt(Side.SELL, 0));
        assertEquals(List.of(3L, 2L), ordersAt(Side.SELL, 1));
        assertEquals(99, books.levelPrice(books.bestLevel(1, Side.SELL)));
        assertEquals(2, levels(Side.SELL));
    }

    @Test
    void aCancelToSomethingLeavesTheOrderInPlaceAndToNothingTakesItOut()
    {
        apply(feed.added(1, Side.BUY, 100, 10));
        apply(feed.added(2, Side.BUY, 100, 10));
        apply(feed.canceled(1, 6, 4));
        assertEquals(List.of(1L, 2L), ordersAt(Side.BUY, 0));
        assertEquals(4, books.shown(books.firstOrder(books.bestLevel(1, Side.BUY))));

        apply(feed.canceled(1, 4, 0));
        apply(feed.canceled(2, 10, 0));
        assertEquals(NONE, books.bestLevel(1, Side.BUY));
        assertEquals(0, books.orderCount(1));
    }

    @Test
    void anIncrementalThatDoesNotFitTheBookIsCountedAndMarksItStale()
    {
        apply(feed.added(1, Side.BUY, 100, 10));
        assertEquals(INCONSISTENT, books.onMessage(feed.buffer, 0, feed.canceled(1, 11, 0)), "more than it shows");
        assertTrue(books.isStale(1));

        final MarketDataBooks negative = new MarketDataBooks(instruments(4), 100);
        final Messages negativeFeed = new Messages(1);
        assertEquals(APPLIED, negative.onMessage(negativeFeed.buffer, 0, negativeFeed.added(1, Side.BUY, 100, 100)));
        assertEquals(INCONSISTENT, negative.onMessage(negativeFeed.buffer, 0, negativeFeed.canceled(1, 30, -1)),
            "a remaining quantity below zero");
        assertTrue(negative.isStale(1));

        final MarketDataBooks other = new MarketDataBooks(instruments(4), 100);
        final Messages otherFeed = new Messages(2);
        assertEquals(INCONSISTENT, other.onMessage(otherFeed.buffer, 0, otherFeed.executed(42, 1, 100)), "an unknown order");
        assertEquals(1, other.inconsistencies());
        assertTrue(other.isStale(2));
    }

    @Test
    void aReplicaThatKeepsNoStaleOrdersEmptiesABookAtItsGapSoTheLiveBooksFitWhereADisplayReplicaOverflows()
    {
        // Room for two orders: one rests in each of two books, then book 2 misses a change (its
        // order's cancel) and book 1 gains an order, as the engine's books may once that order is gone.
        final MarketDataBooks service = new MarketDataBooks(instruments(2), 2, false);
        final MarketDataBooks display = new MarketDataBooks(instruments(2), 2);
        final Messages one = new Messages(1);
        final Messages two = new Messages(2);
        assertArrayEquals(new int[]{ APPLIED, APPLIED }, both(service, display, one, one.added(1, Side.BUY, 100, 10)));
        assertArrayEquals(new int[]{ APPLIED, APPLIED }, both(service, display, two, two.added(2, Side.SELL, 110, 10)));
        two.sequence++; // the cancel is missed: the next change of book 2 shows the gap
        assertArrayEquals(new int[]{ GAP, GAP }, both(service, display, two, two.added(3, Side.SELL, 111, 10)));
        assertEquals(0, service.orderCount(2), "the service's stale book is emptied at its gap");
        assertEquals(1, display.orderCount(2), "a display replica keeps the stale book's order");

        assertArrayEquals(new int[]{ APPLIED, CAPACITY_EXCEEDED },
            both(service, display, one, one.added(4, Side.BUY, 99, 10)),
            "the service's live book fits; the display replica's stale order crowds it out");
        assertFalse(service.isStale(1));
        assertEquals(2, service.orderCount(1));
        assertTrue(display.isStale(1));
    }

    /** @return the outcomes of one message applied to two replicas. */
    private static int[] both(final MarketDataBooks first, final MarketDataBooks second, final Messages feed,
        final int length)
    {
        return new int[]{ first.onMessage(feed.buffer, 0, length), second.onMessage(feed.buffer, 0, length) };
    }

    @Test
    void aStaleBookIgnoresIncrementalsUntilASnapshotAndThenTakesOnlyThoseAfterIt()
    {
        final MarketDataBooks service = new MarketDataBooks(instruments(4), 100);
        final SnapshotEncoder snapshots = new SnapshotEncoder(service, 1);
        final List<byte[]> parts = new ArrayList<>();
        final UnsafeBuffer partBuffer = new UnsafeBuffer(new byte[snapshots.maxPartLength()]);
        for (int order = 1; order <= 5; order++)
        {
            final int length = feed.added(order, order % 2 == 0 ? Side.BUY : Side.SELL, order % 2 == 0 ? 90 : 110, order);
            assertEquals(APPLIED, service.onMessage(feed.buffer, 0, length));
            if (order != 3)
            {
                books.onMessage(feed.buffer, 0, length);
            }
            else
            {
                assertEquals(3, snapshots.encode(1, partBuffer, 0, (buffer, offset, partLength) -> parts.add(Messages.copy(buffer, offset, partLength))));
            }
        }
        assertTrue(books.isStale(1), "message 3 was missed");
        assertEquals(2, books.sequence(1), "the gap shows at message 4; the book keeps message 2's state");
        final int sixth = feed.added(6, Side.BUY, 91, 6);
        assertEquals(APPLIED, service.onMessage(feed.buffer, 0, sixth));
        assertEquals(STALE, books.onMessage(feed.buffer, 0, sixth));

        // The snapshot taken after message 3: messages 4 and 5 are then repeated by a retransmission.
        assertEquals(APPLIED, books.onMessage(Messages.wrap(parts.get(0)), 0, parts.get(0).length));
        assertEquals(APPLIED, books.onMessage(Messages.wrap(parts.get(1)), 0, parts.get(1).length));
        assertEquals(RECOVERED, books.onMessage(Messages.wrap(parts.get(2)), 0, parts.get(2).length));
        assertFalse(books.isStale(1));
        assertEquals(3, books.sequence(1));
        final Messages again = new Messages(1);
        again.sequence = 2;
        again.stream = 2;
        assertEquals(DUPLICATE, books.onMessage(again.buffer, 0, again.added(3, Side.SELL, 110, 3)));
        assertEquals(APPLIED, books.onMessage(again.buffer, 0, again.added(4, Side.BUY, 90, 4)));
        assertEquals(APPLIED, books.onMessage(again.buffer, 0, again.added(5, Side.SELL, 110, 5)));
        assertEquals(APPLIED, books.onMessage(again.buffer, 0, again.added(6, Side.BUY, 91, 6)));

        assertEquals(service.publicDigest(), books.publicDigest());
        assertEquals(1, books.gaps());
        assertEquals(1, books.recoveries());
        assertEquals(1, books.duplicates());
    }

    @Test
    void aFeedInterruptionMakesEveryBookStaleSoABookTheStreamNoLongerTouchesWaitsForItsSnapshotInsteadOfReadingLive()
    {
        // Book 2 gains an order while the subscriber is cut off, and nothing touches book 2 after
        // it rejoins: without the interruption its book would read live, one order short.
        final MarketDataBooks service = new MarketDataBooks(instruments(4), 100);
        final MarketDataBooks replica = new MarketDataBooks(instruments(4), 100, false);
        final Messages one = new Messages(1);
        final Messages two = new Messages(2);
        int length = two.added(1, Side.BUY, 100, 10);
        assertEquals(APPLIED, service.onMessage(two.buffer, 0, length));
        assertArrayEquals(new int[]{ APPLIED, APPLIED }, both(books, replica, two, length));
        assertEquals(APPLIED, service.onMessage(two.buffer, 0, two.added(2, Side.SELL, 110, 5)));
        // And book 1 was taking a snapshot when the cut came: its other part may be among what was missed.
        for (int order = 3; order <= 4; order++)
        {
            assertEquals(APPLIED, service.onMessage(one.buffer, 0, one.added(order, Side.SELL, 100 + order, order)));
        }
        final List<byte[]> bookOne = snapshotParts(service, 1);
        final List<byte[]> bookTwo = snapshotParts(service, 2);
        assertEquals(2, bookOne.size());
        assertEquals(APPLIED, books.onMessage(Messages.wrap(bookOne.get(0)), 0, bookOne.get(0).length));

        books.feedInterrupted();
        replica.feedInterrupted();
        for (int instrument = 1; instrument <= 4; instrument++)
        {
            assertTrue(books.isStale(instrument) && replica.isStale(instrument), "book " + instrument + " waits");
        }
        assertEquals(1, books.orderCount(2), "a display replica keeps what it showed");
        assertEquals(0, replica.orderCount(2), "the service's replica empties it");
        assertEquals(1, books.feedInterruptions());
        assertEquals(1, books.snapshotsAbandoned(), "the snapshot being collected is abandoned");
        assertEquals(IGNORED, books.onMessage(Messages.wrap(bookOne.get(1)), 0, bookOne.get(1).length));

        for (final List<byte[]> parts : List.of(bookOne, bookTwo))
        {
            for (final byte[] part : parts)
            {
                books.onMessage(Messages.wrap(part), 0, part.length);
            }
        }
        assertFalse(books.isStale(1) || books.isStale(2), "their snapshots recover them");
        assertEquals(2, books.orderCount(2));
        assertEquals(service.publicDigest(), books.publicDigest());
    }

    /** @return the parts of a snapshot of one of these books' instruments, one order a part. */
    private static List<byte[]> snapshotParts(final MarketDataBooks source, final int instrument)
    {
        final SnapshotEncoder snapshots = new SnapshotEncoder(source, 1);
        final List<byte[]> parts = new ArrayList<>();
        final UnsafeBuffer partBuffer = new UnsafeBuffer(new byte[snapshots.maxPartLength()]);
        snapshots.encode(instrument, partBuffer, 0, (buffer, offset, length) -> parts.add(Messages.copy(buffer, offset, length)));
        return parts;
    }

    @Test
    void aSnapshotWithAMissingPartIsAbandonedAndTheBookWaitsForTheNext()
    {
        for (int order = 1; order <= 5; order++)
        {
            apply(feed.added(order, Side.SELL, 100 + order, order));
        }
        final SnapshotEncoder snapshots = new SnapshotEncoder(books, 2);
        final List<byte[]> parts = new ArrayList<>();
        final UnsafeBuffer partBuffer = new UnsafeBuffer(new byte[snapshots.maxPartLength()]);
        snapshots.encode(1, partBuffer, 0, (buffer, offset, length) -> parts.add(Messages.copy(buffer, offset, length)));
        final MarketDataBooks client = new MarketDataBooks(instruments(4), 100);
        final Messages late = new Messages(1);
        late.sequence = 9;
        assertEquals(GAP, client.onMessage(late.buffer, 0, late.added(99, Side.BUY, 50, 1)));

        assertEquals(APPLIED, client.onMessage(Messages.wrap(parts.get(0)), 0, parts.get(0).length));
        assertEquals(IGNORED, client.onMessage(Messages.wrap(parts.get(2)), 0, parts.get(2).length), "part 1 went missing");
        assertTrue(client.isStale(1));
        assertEquals(1, client.snapshotsAbandoned());
        assertEquals(0, client.orderCount(1));

        for (final byte[] part : parts)
        {
            client.onMessage(Messages.wrap(part), 0, part.length);
        }
        assertFalse(client.isStale(1));
        assertEquals(books.publicDigest(), client.publicDigest());
    }

    @Test
    void anEmptyBookIsSentAsOneEmptyLastPart()
    {
        apply(feed.added(1, Side.BUY, 100, 10));
        apply(feed.canceled(1, 10, 0));
        final SnapshotEncoder snapshots = new SnapshotEncoder(books, SnapshotEncoder.MAX_ORDERS_PER_PART);
        final UnsafeBuffer partBuffer = new UnsafeBuffer(new byte[snapshots.maxPartLength()]);
        final MarketDataBooks client = new MarketDataBooks(instruments(4), 100);
        final List<Integer> outcomes = new ArrayList<>();

        assertEquals(1, snapshots.encode(1, partBuffer, 0, (buffer, offset, length) ->
        {
            assertEquals(SnapshotEncoder.partLength(0), length);
            outcomes.add(client.onMessage(buffer, offset, length));
        }));
        assertEquals(List.of(RECOVERED), outcomes);
        assertEquals(2, client.sequence(1));
        assertEquals(0, snapshots.encode(5, partBuffer, 0, (buffer, offset, length) -> { }),
            "no such instrument, no book, no snapshot");
    }

    @Test
    void theDigestSeesTimePriorityWithinALevelAndNothingOfEmptyBooks()
    {
        final MarketDataBooks swapped = new MarketDataBooks(instruments(4), 100);
        final Messages swappedFeed = new Messages(1);
        apply(feed.added(1, Side.BUY, 100, 10));
        apply(feed.added(2, Side.BUY, 100, 10));
        swapped.onMessage(swappedFeed.buffer, 0, swappedFeed.added(2, Side.BUY, 100, 10));
        swapped.onMessage(swappedFeed.buffer, 0, swappedFeed.added(1, Side.BUY, 100, 10));
        assertNotEquals(books.publicDigest(), swapped.publicDigest());

        final OrderBooks empty = new MatchingEngine(new EngineConfig(List.of(new InstrumentSpec(1, 1, 1, 1, 1000)), 10, 10, 0),
            EngineOutput.NONE).books();
        assertEquals(new MarketDataBooks(instruments(4), 100).publicDigest(), PublicBookDigest.of(empty));
    }

    @Test
    void everyLevelKeepsItsOrdersQuantityAndCountThroughTwentyThousandAddsAndCancels()
    {
        final MarketDataBooks small = new MarketDataBooks(instruments(2), 8);
        final Messages[] feeds = { new Messages(1), new Messages(2) };
        final long[] live = new long[8];
        final int[] liveInstrument = new int[8];
        int count = 0;
        long nextId = 1;
        final SplittableRandom random = new SplittableRandom(42);
        for (int step = 0; step < 20_000; step++)
        {
            if (count < live.length && (count == 0 || random.nextBoolean()))
            {
                final int instrument = 1 + random.nextInt(2);
                final Messages messages = feeds[instrument - 1];
                final boolean buy = random.nextBoolean();
                final long price = buy ? 100 - random.nextInt(40) : 101 + random.nextInt(40);
                final int length = messages.added(nextId, buy ? Side.BUY : Side.SELL, price, 1);
                assertEquals(APPLIED, small.onMessage(messages.buffer, 0, length));
                live[count] = nextId++;
                liveInstrument[count++] = instrument;
            }
            else
            {
                final int pick = random.nextInt(count);
                final Messages messages = feeds[liveInstrument[pick] - 1];
                assertEquals(APPLIED, small.onMessage(messages.buffer, 0, messages.canceled(live[pick], 1, 0)));
                live[pick] = live[--count];
                liveInstrument[pick] = liveInstrument[count];
            }
            assertTrue(small.levelsConsistent(), "after step " + step);
        }
    }

    // ---------------------------------------------------------------- helpers

    /** @return instruments 1 to {@code count}, tick 1, prices 1 to 1,000. */
    private static List<InstrumentSpec> instruments(final int count)
    {
        return EngineConfig.uniformInstruments(count, 1, 1_000);
    }

    private void apply(final int length)
    {
        assertEquals(APPLIED, books.onMessage(feed.buffer, 0, length));
    }

    /** @return the order ids at the {@code depth}-th level of a side, front first. */
    private List<Long> ordersAt(final Side side, final int depth)
    {
        int level = books.bestLevel(1, side);
        for (int i = 0; i < depth; i++)
        {
            level = books.nextLevel(level);
        }
        final List<Long> ids = new ArrayList<>();
        for (int order = books.firstOrder(level); order != NONE; order = books.nextOrder(order))
        {
            ids.add(books.orderId(order));
        }
        return ids;
    }

    private int levels(final Side side)
    {
        int count = 0;
        for (int level = books.bestLevel(1, side); level != NONE; level = books.nextLevel(level))
        {
            count++;
        }
        return count;
    }
}
