package io.ringwire.exchange.marketdata;

import java.util.Arrays;

import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;

/**
 * A price's level without walking the book: open addressing on (book, price) with linear
 * probing, holding level nodes. A level's key is not copied: the index reads it from the level
 * arrays {@link ReplicaBooks} keeps ({@code levelBook}, {@code levelPrice}), which must hold it
 * from {@link #put} until {@link #remove}. The table has at least twice as many entries as there
 * are level nodes, so a probe always ends at an empty one.
 *
 * <p>Threading: one thread. Allocation-free after construction.
 */
final class PriceLevelIndex
{
    private final int[] index;
    private final int mask;
    private final long[] levelPrice;
    private final int[] levelBook;

    /**
     * @param levelPrice each level node's price, written by the owner of the levels.
     * @param levelBook  each level node's book (slot * 2 + side), written by the owner of the levels.
     */
    PriceLevelIndex(final long[] levelPrice, final int[] levelBook)
    {
        this.levelPrice = levelPrice;
        this.levelBook = levelBook;
        index = new int[Integer.highestOneBit(levelPrice.length * 2 - 1) << 1];
        mask = index.length - 1;
        Arrays.fill(index, NONE);
    }

    /** @return the level at a price in a book, or NONE when the book has none there. */
    int find(final int book, final long price)
    {
        for (int at = hash(book, price); ; at = (at + 1) & mask)
        {
            final int level = index[at];
            if (level == NONE || (levelPrice[level] == price && levelBook[level] == book))
            {
                return level;
            }
        }
    }

    /** Indexes a level under the book and price its arrays hold now; it must not be indexed yet. */
    void put(final int level)
    {
        int at = hash(levelBook[level], levelPrice[level]);
        while (index[at] != NONE)
        {
            at = (at + 1) & mask;
        }
        index[at] = level;
    }

    /**
     * Takes an indexed level out, shifting back the entries its slot kept from their home, so no
     * probe that passed it stops short afterwards.
     */
    void remove(final int level)
    {
        int hole = hash(levelBook[level], levelPrice[level]);
        while (index[hole] != level)
        {
            hole = (hole + 1) & mask;
        }
        int at = hole;
        while (true)
        {
            at = (at + 1) & mask;
            final int moved = index[at];
            if (moved == NONE)
            {
                break;
            }
            final int home = hash(levelBook[moved], levelPrice[moved]);
            final boolean homeInGap = hole <= at ? hole < home && home <= at : hole < home || home <= at;
            if (!homeInGap)
            {
                index[hole] = moved;
                hole = at;
            }
        }
        index[hole] = NONE;
    }

    /** @return levels indexed, by a scan of the whole table. Control path. */
    int size()
    {
        int size = 0;
        for (final int level : index)
        {
            size += level == NONE ? 0 : 1;
        }
        return size;
    }

    private int hash(final int book, final long price)
    {
        final long mixed = (price ^ ((long)book << 40)) * 0x9E37_79B9_7F4A_7C15L;
        return (int)(mixed ^ (mixed >>> 32)) & mask;
    }
}
