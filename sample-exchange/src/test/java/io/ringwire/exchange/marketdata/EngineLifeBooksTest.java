package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.trading.BookSnapshotDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.exchange.engine.EngineConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.ringwire.exchange.marketdata.MarketDataBooks.APPLIED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.DUPLICATE;
import static io.ringwire.exchange.marketdata.MarketDataBooks.IGNORED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.RECOVERED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.STALE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Books know the engine life they are of, from the snapshots that name it: a snapshot of another
 * life (an engine started again on a new journal, whose sequences start again) makes every book
 * stale and empty, to be taken again from that life's snapshots, where the books would otherwise take
 * the new engine's changes for duplicates of their own and keep the old books. Snapshots of the same
 * life, or of none, change nothing but the books they recover; the snapshots books answer with
 * name their life.
 */
class EngineLifeBooksTest
{
    private static final long LIFE = 0x11FE_0000_0000_0001L;
    private static final long NEW_LIFE = 0x11FE_0000_0000_0002L;

    private final MarketDataBooks books = new MarketDataBooks(EngineConfig.uniformInstruments(3, 1, 1_000), 100);

    private int apply(final Messages feed, final int length)
    {
        return books.onMessage(feed.buffer, 0, length);
    }

    @Test
    void aSnapshotOfAnotherLifeMakesEveryBookStaleAndEmptyUntilThatLifesSnapshotOfIt()
    {
        final Messages one = new Messages(1);
        final Messages two = new Messages(2);
        assertEquals(APPLIED, apply(one, one.added(1, Side.BUY, 100, 10)));
        assertEquals(APPLIED, apply(one, one.added(2, Side.SELL, 110, 10)));
        assertEquals(0, books.engineLife(), "no snapshot yet");
        two.sequence = 5;
        two.stream = 5;
        assertEquals(RECOVERED, apply(two, two.snapshot(LIFE, 3)), "newer than the book, which is at 0");
        // Books live at sequences of the first life.
        assertEquals(APPLIED, apply(two, two.added(4, Side.SELL, 120, 10)));
        assertEquals(LIFE, books.engineLife());
        assertEquals(0, books.newEngineLives());

        // The new engine's round: book 2 first, empty, at its sequence 0.
        final Messages newTwo = new Messages(2);
        assertEquals(RECOVERED, apply(newTwo, newTwo.snapshot(NEW_LIFE)));
        assertEquals(NEW_LIFE, books.engineLife());
        assertEquals(1, books.newEngineLives());
        assertFalse(books.isStale(2));
        assertEquals(0, books.orderCount(2));
        assertEquals(0, books.sequence(2));
        assertTrue(books.isStale(1), "book 1 waits for the new life's snapshot of it");
        assertEquals(0, books.orderCount(1), "the old life's orders are nobody's");
        assertTrue(books.isStale(3));

        // The new engine's changes: book 1's wait for its snapshot, book 2's apply from sequence 1.
        final Messages newOne = new Messages(1);
        assertEquals(STALE, apply(newOne, newOne.added(7, Side.BUY, 99, 5)));
        assertEquals(APPLIED, apply(newTwo, newTwo.added(8, Side.SELL, 101, 5)));
        assertEquals(RECOVERED, apply(newOne, newOne.snapshot(NEW_LIFE, 7)));
        assertEquals(1, books.sequence(1));
        assertEquals(1, books.orderCount(1));
        assertEquals(APPLIED, apply(newOne, newOne.added(9, Side.BUY, 98, 5)));
        assertEquals(1, books.newEngineLives(), "one new life");
        assertEquals(0, books.inconsistencies());
        assertTrue(books.levelsConsistent());
    }

    @Test
    void snapshotsOfTheSameLifeOrOfNoneChangeNoLife()
    {
        final Messages one = new Messages(1);
        assertEquals(APPLIED, apply(one, one.added(1, Side.BUY, 100, 10)));
        assertEquals(IGNORED, apply(one, one.snapshot(LIFE, 1)), "a snapshot no newer than the live book");
        assertEquals(LIFE, books.engineLife());
        assertEquals(IGNORED, apply(one, one.snapshot(LIFE, 1)));
        assertEquals(IGNORED, apply(one, one.snapshot(0, 1)), "an engine's that names no life");
        assertEquals(IGNORED, apply(one, one.snapshot(BookSnapshotDecoder.engineLifeNullValue(), 1)));
        assertEquals(APPLIED, apply(one, one.added(2, Side.BUY, 100, 10)));
        final Messages resent = new Messages(1);
        assertEquals(DUPLICATE, apply(resent, resent.added(1, Side.BUY, 100, 10)), "the same life's resend");

        assertEquals(LIFE, books.engineLife());
        assertEquals(0, books.newEngineLives());
        assertFalse(books.isStale(1));
        assertEquals(2, books.orderCount(1));
    }

    @Test
    void theSnapshotsBooksAnswerWithNameTheirLife()
    {
        final Messages one = new Messages(1);
        one.sequence = 3;
        one.stream = 3;
        assertEquals(RECOVERED, apply(one, one.snapshot(LIFE, 1, 2)));
        final SnapshotEncoder encoder = new SnapshotEncoder(books, SnapshotEncoder.MAX_ORDERS_PER_PART);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[encoder.maxPartLength()]);
        final List<Long> lives = new ArrayList<>();
        encoder.encode(0, buffer, 0, (part, offset, length) ->
        {
            final MessageHeaderDecoder header = new MessageHeaderDecoder().wrap(part, offset);
            lives.add(new BookSnapshotDecoder().wrap(part, offset + MessageHeaderDecoder.ENCODED_LENGTH,
                header.blockLength(), header.version()).engineLife());
        });
        assertEquals(List.of(LIFE, LIFE, LIFE), lives, "every book's snapshot");
    }
}
