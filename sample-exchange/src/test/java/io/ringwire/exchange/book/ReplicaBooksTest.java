package io.ringwire.exchange.book;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static io.ringwire.exchange.book.OrderStore.NONE;
import static io.ringwire.exchange.book.ReplicaBooks.APPLIED;
import static io.ringwire.exchange.book.ReplicaBooks.ASK;
import static io.ringwire.exchange.book.ReplicaBooks.BID;
import static io.ringwire.exchange.book.ReplicaBooks.CAPACITY_EXCEEDED;
import static io.ringwire.exchange.book.ReplicaBooks.INCONSISTENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's book storage changed as a feed says, with no matching and no messaging: levels best
 * first, time priority within a level, each level's kept quantity and count, and what does not fit.
 */
class ReplicaBooksTest
{
    private static final List<InstrumentSpec> INSTRUMENTS = List.of(new InstrumentSpec(1, 1, 1, 1, 1_000),
        new InstrumentSpec(2, 5, 1, 100, 500));

    private final ReplicaBooks books = new ReplicaBooks(INSTRUMENTS, 8);

    @Test
    void levelsComeBestFirstAndOrdersInTimePriorityWithTheirLevelsTotals()
    {
        assertEquals(APPLIED, books.add(0, BID, 11, 100, 5));
        assertEquals(APPLIED, books.add(0, BID, 12, 101, 7));
        assertEquals(APPLIED, books.add(0, BID, 13, 100, 3));
        assertEquals(APPLIED, books.add(0, ASK, 14, 103, 2));
        assertEquals(APPLIED, books.add(0, ASK, 15, 102, 4));

        assertEquals(List.of(101L, 100L), prices(0, BID));
        assertEquals(List.of(102L, 103L), prices(0, ASK));
        final int second = books.nextLevel(books.bestLevel(0, BID));
        assertEquals(List.of(11L, 13L), ids(second));
        assertEquals(8, books.levelQuantity(second));
        assertEquals(2, books.levelOrderCount(second));
        assertEquals(5, books.orderCount(0));
        assertEquals(3, books.countOrders(0, BID));
        assertEquals(0, books.orderCount(1));
        assertTrue(books.levelsConsistent());
    }

    @Test
    void aLevelWhoseOrdersSumPastALongShowsTheLargestLongAndItsExactTotalOnceBackUnder()
    {
        final long half = 5_000_000_000_000_000_000L;
        assertEquals(APPLIED, books.add(0, ASK, 1, 100, half));
        assertEquals(APPLIED, books.add(0, ASK, 2, 100, half));
        assertEquals(APPLIED, books.add(0, ASK, 3, 100, half));
        final int level = books.bestLevel(0, ASK);
        assertEquals(Long.MAX_VALUE, books.levelQuantity(level), "15e18 does not fit a long: shown as the largest");
        assertTrue(books.levelsConsistent());

        assertEquals(APPLIED, books.reduce(0, 2, half, NONE));
        assertEquals(Long.MAX_VALUE, books.levelQuantity(level), "10e18 does not either");
        assertEquals(APPLIED, books.replace(0, 3, 100, 7, true));
        assertEquals(half + 7, books.levelQuantity(level), "exact again once the total fits");
        assertTrue(books.levelsConsistent());
    }

    @Test
    void aReplaceKeepingPriorityStaysAndAnyOtherJoinsTheBackOfItsNewLevel()
    {
        books.add(0, ASK, 1, 100, 10);
        books.add(0, ASK, 2, 100, 10);
        assertEquals(APPLIED, books.replace(0, 1, 100, 4, true));
        assertEquals(List.of(1L, 2L), ids(books.bestLevel(0, ASK)));
        assertEquals(14, books.levelQuantity(books.bestLevel(0, ASK)));

        assertEquals(APPLIED, books.replace(0, 1, 100, 4, false));
        assertEquals(List.of(2L, 1L), ids(books.bestLevel(0, ASK)));
        assertEquals(APPLIED, books.replace(0, 2, 99, 6, false));
        assertEquals(List.of(99L, 100L), prices(0, ASK));
        assertEquals(INCONSISTENT, books.replace(0, 2, 98, 6, true), "keeping priority at another price");
        assertTrue(books.levelsConsistent());
    }

    @Test
    void anOrderThatShowsNothingLeavesAndItsRecordServesTheNextOrder()
    {
        for (long id = 1; id <= 8; id++)
        {
            assertEquals(APPLIED, books.add(1, BID, id, 100 + 5 * id, 1));
        }
        assertEquals(CAPACITY_EXCEEDED, books.add(1, BID, 9, 200, 1), "eight records");
        assertEquals(APPLIED, books.reduce(1, 3, 1, NONE));
        assertEquals(APPLIED, books.add(1, BID, 9, 200, 1));
        assertEquals(8, books.orderCount(1));

        books.clear(1);
        assertEquals(0, books.orderCount(1));
        assertEquals(NONE, books.bestLevel(1, BID));
        assertEquals(APPLIED, books.add(0, ASK, 3, 100, 1), "every record free again, the ids forgotten");
        assertTrue(books.levelsConsistent());
    }

    @Test
    void whatDoesNotFitTheBookIsRefusedAndChangesNothing()
    {
        books.add(0, BID, 1, 100, 5);
        assertEquals(INCONSISTENT, books.add(1, BID, 1, 200, 5), "an id resting in any book");
        assertEquals(INCONSISTENT, books.add(1, BID, 2, 201, 5), "off the tick");
        assertEquals(INCONSISTENT, books.add(1, BID, 2, 505, 5), "above the band");
        assertEquals(INCONSISTENT, books.add(0, BID, 2, 100, 0), "nothing shown");
        assertEquals(INCONSISTENT, books.add(0, ASK, 2, 100, 5), "an ask where bids rest would have traded");
        assertEquals(INCONSISTENT, books.add(0, ASK, 2, 99, 5), "an ask through the best bid too");
        assertEquals(INCONSISTENT, books.reduce(0, 1, 6, NONE), "more than it shows");
        assertEquals(INCONSISTENT, books.reduce(0, 1, 2, 4), "a remainder that does not add up");
        assertEquals(INCONSISTENT, books.reduce(1, 1, 1, NONE), "an order of another instrument");
        assertEquals(INCONSISTENT, books.replace(0, 1, 0, 5, false), "below the band");
        assertEquals(INCONSISTENT, books.replace(0, 7, 100, 5, false), "an unknown order");
        assertEquals(List.of(100L), prices(0, BID));
        assertEquals(5, books.levelQuantity(books.bestLevel(0, BID)));
        assertTrue(books.levelsConsistent());
        assertThrows(IllegalArgumentException.class,
            () -> new ReplicaBooks(List.of(new InstrumentSpec(2, 1, 1, 1, 10)), 8), "ids from 1");
    }

    @Test
    void randomChangesKeepEveryLevelsTotalsAndOrder()
    {
        final ReplicaBooks big = new ReplicaBooks(INSTRUMENTS, 256);
        final SplittableRandom random = new SplittableRandom(7);
        final List<long[]> live = new ArrayList<>(); // id, instrument, side
        long nextId = 1;
        for (int step = 0; step < 20_000; step++)
        {
            final int action = random.nextInt(4);
            if (live.isEmpty() || (action == 0 && live.size() < 256))
            {
                final int instrument = random.nextInt(2);
                final int side = random.nextBoolean() ? BID : ASK;
                assertEquals(APPLIED, big.add(instrument, side, nextId, price(random, instrument, side),
                    1 + random.nextInt(9)));
                live.add(new long[]{ nextId++, instrument, side });
                continue;
            }
            final int pick = random.nextInt(live.size());
            final long id = live.get(pick)[0];
            final int instrument = (int)live.get(pick)[1];
            if (action == 1)
            {
                final long price = price(random, instrument, (int)live.get(pick)[2]);
                assertEquals(APPLIED, big.replace(instrument, id, price, 1 + random.nextInt(9), false));
            }
            else if (big.reduce(instrument, id, 1, NONE) == APPLIED && !shows(big, instrument, id))
            {
                live.set(pick, live.getLast());
                live.removeLast();
            }
            if (step % 97 == 0)
            {
                assertTrue(big.levelsConsistent(), "after step " + step);
            }
        }
        assertTrue(big.levelsConsistent());
        assertEquals(live.size(), big.orderCount(0) + big.orderCount(1));
    }

    /** Bids below asks: a feed never shows a crossed book. */
    private static long price(final SplittableRandom random, final int instrument, final int side)
    {
        final int tick = random.nextInt(30);
        return instrument == 0 ? 1 + tick + (side == ASK ? 30 : 0) : 100 + 5L * (tick + (side == ASK ? 30 : 0));
    }

    private static boolean shows(final ReplicaBooks books, final int instrument, final long id)
    {
        for (int side = BID; side <= ASK; side++)
        {
            for (int level = books.bestLevel(instrument, side); level != NONE; level = books.nextLevel(level))
            {
                for (int order = books.firstOrder(level); order != NONE; order = books.nextOrder(order))
                {
                    if (books.orderId(order) == id)
                    {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private List<Long> prices(final int instrument, final int side)
    {
        final List<Long> prices = new ArrayList<>();
        for (int level = books.bestLevel(instrument, side); level != NONE; level = books.nextLevel(level))
        {
            prices.add(books.levelPrice(level));
        }
        return prices;
    }

    private List<Long> ids(final int level)
    {
        final List<Long> ids = new ArrayList<>();
        for (int order = books.firstOrder(level); order != NONE; order = books.nextOrder(order))
        {
            ids.add(books.orderId(order));
        }
        return ids;
    }
}
