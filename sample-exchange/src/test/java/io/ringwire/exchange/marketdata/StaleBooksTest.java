package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.trading.Side;
import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.engine.EngineConfig;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.ringwire.exchange.marketdata.MarketDataBooks.APPLIED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.GAP;
import static io.ringwire.exchange.marketdata.MarketDataBooks.IGNORED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A book that went stale other than at a gap (here: a snapshot abandoned for a lost part) is asked
 * for again once an interval, and only while it is stale and takes no snapshot; live books never.
 */
class StaleBooksTest
{
    private static final List<InstrumentSpec> INSTRUMENTS = EngineConfig.uniformInstruments(4, 1, 1_000);

    /** @return the parts of a snapshot of book 1 (five orders, two a part). */
    private static List<byte[]> snapshotOfBookOne()
    {
        final MarketDataBooks service = new MarketDataBooks(INSTRUMENTS, 100);
        final Messages feed = new Messages(1);
        for (int order = 1; order <= 5; order++)
        {
            assertEquals(APPLIED, service.onMessage(feed.buffer, 0, feed.added(order, Side.SELL, 100 + order, order)));
        }
        final SnapshotEncoder snapshots = new SnapshotEncoder(service, 2);
        final List<byte[]> parts = new ArrayList<>();
        final UnsafeBuffer partBuffer = new UnsafeBuffer(new byte[snapshots.maxPartLength()]);
        snapshots.encode(1, partBuffer, 0, (buffer, offset, length) -> parts.add(Messages.copy(buffer, offset, length)));
        return parts;
    }

    /** @return a subscriber that found a gap in book 1 and took the first part of its snapshot. */
    private static MarketDataBooks clientTakingPartZero(final List<byte[]> parts)
    {
        final MarketDataBooks client = new MarketDataBooks(INSTRUMENTS, 100);
        final Messages late = new Messages(1);
        late.sequence = 9;
        assertEquals(GAP, client.onMessage(late.buffer, 0, late.added(99, Side.BUY, 50, 1)));
        assertEquals(APPLIED, client.onMessage(Messages.wrap(parts.get(0)), 0, parts.get(0).length));
        return client;
    }

    @Test
    void aBookStaleAfterAnAbandonedSnapshotIsAskedForAgainOnceAnIntervalAndALiveOneNever()
    {
        final List<byte[]> parts = snapshotOfBookOne();
        final MarketDataBooks client = clientTakingPartZero(parts);
        final StaleBooks stale = new StaleBooks(new int[]{ 1, 2, 3, 4 }, 0);
        final List<Integer> asked = new ArrayList<>();

        assertEquals(0, stale.poll(StaleBooks.INTERVAL_NS, client, asked::add), "book 1 is taking its snapshot");
        assertEquals(IGNORED, client.onMessage(Messages.wrap(parts.get(2)), 0, parts.get(2).length), "part 1 went missing");
        assertTrue(client.isStale(1));

        assertEquals(0, stale.poll(StaleBooks.INTERVAL_NS + 1, client, asked::add), "not within the interval");
        assertEquals(1, stale.poll(2 * StaleBooks.INTERVAL_NS, client, asked::add));
        assertEquals(List.of(1), asked, "the stale book alone");
        assertEquals(1, stale.poll(3 * StaleBooks.INTERVAL_NS, client, asked::add), "again while it stays stale");

        for (final byte[] part : parts)
        {
            client.onMessage(Messages.wrap(part), 0, part.length);
        }
        assertFalse(client.isStale(1), "the next snapshot recovers it");
        assertEquals(0, stale.poll(4 * StaleBooks.INTERVAL_NS, client, asked::add));
    }

    @Test
    void aSnapshotThatStopsArrivingIsAskedForAgainAndManyStaleBooksInOneRequest()
    {
        final List<byte[]> parts = snapshotOfBookOne();
        final MarketDataBooks client = clientTakingPartZero(parts);
        final StaleBooks stale = new StaleBooks(new int[]{ 1, 2, 3, 4 }, 0);
        final List<Integer> asked = new ArrayList<>();

        // The rest of the snapshot never comes: loading, but no part for a whole interval.
        assertEquals(0, stale.poll(StaleBooks.INTERVAL_NS, client, asked::add), "a part came since the start");
        assertEquals(1, stale.poll(2 * StaleBooks.INTERVAL_NS, client, asked::add), "no part for an interval");
        assertEquals(List.of(1), asked);

        final MarketDataBooks many = new MarketDataBooks(EngineConfig.uniformInstruments(20, 1, 1_000), 100);
        final int[] ids = new int[20];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = i + 1;
            final Messages book = new Messages(i + 1);
            book.sequence = 5; // a gap on every book
            assertEquals(GAP, many.onMessage(book.buffer, 0, book.added(1_000 + i, Side.BUY, 50, 1)));
        }
        asked.clear();
        assertEquals(20, new StaleBooks(ids, 0).poll(StaleBooks.INTERVAL_NS, many, asked::add));
        assertEquals(List.of(0), asked, "past " + StaleBooks.MAX_SINGLE_REQUESTS + " books: one request for all");
    }

    @Test
    void afterAFeedInterruptionEveryBookIsAskedForAgainWhenTheRequestForEveryBookGotNoAnswer()
    {
        final MarketDataBooks client = new MarketDataBooks(INSTRUMENTS, 100);
        client.feedInterrupted();
        final StaleBooks stale = new StaleBooks(new int[]{ 1, 2, 3, 4 }, 0);
        stale.restart(0);
        final List<Integer> asked = new ArrayList<>();

        assertEquals(0, stale.poll(StaleBooks.INTERVAL_NS - 1, client, asked::add), "not within the interval");
        assertEquals(4, stale.poll(StaleBooks.INTERVAL_NS, client, asked::add));
        assertEquals(List.of(1, 2, 3, 4), asked, "books no incremental touched are asked for too");
    }
}
