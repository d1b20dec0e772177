package io.ringwire.exchange.marketdata;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The price-level index alone, against a plain map: a small table full of collisions and
 * wrap-arounds still finds every level after any sequence of puts and removes, and nothing else.
 */
class PriceLevelIndexTest
{
    private static final int LEVELS = 16;

    private final long[] levelPrice = new long[LEVELS];
    private final int[] levelBook = new int[LEVELS];
    private final PriceLevelIndex index = new PriceLevelIndex(levelPrice, levelBook);

    @Test
    void everyLevelIsFoundThroughCollisionsAndRemovalsAndNoOtherKey()
    {
        final Map<List<Long>, Integer> expected = new HashMap<>();
        final List<Integer> free = new ArrayList<>();
        for (int level = 0; level < LEVELS; level++)
        {
            free.add(level);
        }
        final SplittableRandom random = new SplittableRandom(7);
        for (int step = 0; step < 50_000; step++)
        {
            final int book = random.nextInt(4);
            final long price = 100 + random.nextInt(24);
            final List<Long> key = List.of((long)book, price);
            final Integer indexed = expected.get(key);
            if (indexed != null)
            {
                index.remove(indexed);
                expected.remove(key);
                free.add(indexed);
            }
            else if (!free.isEmpty())
            {
                final int level = free.remove(free.size() - 1);
                levelBook[level] = book;
                levelPrice[level] = price;
                index.put(level);
                expected.put(key, level);
            }
            assertEquals(expected.size(), index.size(), "after step " + step);
            for (int b = 0; b < 4; b++)
            {
                for (long p = 100; p < 124; p++)
                {
                    assertEquals(expected.getOrDefault(List.of((long)b, p), NONE), index.find(b, p),
                        "book " + b + " price " + p + " after step " + step);
                }
            }
        }
    }

    @Test
    void theSamePriceInAnotherBookIsAnotherLevel()
    {
        levelBook[0] = 2;
        levelPrice[0] = 100;
        levelBook[1] = 3;
        levelPrice[1] = 100;
        index.put(0);
        index.put(1);

        assertEquals(0, index.find(2, 100));
        assertEquals(1, index.find(3, 100));
        index.remove(0);
        assertEquals(NONE, index.find(2, 100));
        assertEquals(1, index.find(3, 100));
    }
}
