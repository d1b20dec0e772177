package io.ringwire.exchange.marketdata;

import org.agrona.collections.Long2LongHashMap;

import java.util.Arrays;

import static io.ringwire.exchange.marketdata.MarketDataBooks.APPLIED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.CAPACITY_EXCEEDED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.INCONSISTENT;
import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;

/**
 * The storage of the rebuilt books: per instrument slot, a bid and an ask book, each a list of
 * price levels best first, each level a list of orders in time priority with the quantity each
 * shows. Levels and orders are nodes in fixed pools, free ones chained through their next links;
 * an order is found by its id and a level by its book and price ({@link PriceLevelIndex}), so
 * a change touches only what it changes.
 *
 * <p>A change that does not fit the book (an unknown order, an order id already resting, more
 * taken than the order shows) is refused with {@link MarketDataBooks#INCONSISTENT} and one that
 * finds no free node with {@link MarketDataBooks#CAPACITY_EXCEEDED}; what to make of either is
 * the caller's business. Whether a change is due at all is {@link FeedSequencer}'s.
 *
 * <p>Readers use the arrays directly: a level or order node is valid until the next change.
 *
 * <p>Threading: one thread. Allocation-free after construction.
 */
final class ReplicaBooks
{
    static final int BID = 0;
    static final int ASK = 1;

    private final int maxOrders;

    // ---- per instrument slot
    final int[] orderCount;
    /** Best and worst level per book, indexed slot * 2 + side. */
    final int[] bestLevel;
    private final int[] worstLevel;

    // ---- price levels, by level node; free ones are chained through levelNext
    final long[] levelPrice;
    final long[] levelQuantity;
    final int[] levelOrders;
    final int[] levelHead;
    private final int[] levelTail;
    /** Toward worse prices. */
    final int[] levelNext;
    /** Toward better prices. */
    private final int[] levelPrev;
    /** The level's book: slot * 2 + side. */
    private final int[] levelBook;
    private final PriceLevelIndex levelIndex;
    private int freeLevel;

    // ---- orders, by order node; free ones are chained through orderNext
    final long[] orderId;
    final long[] shown;
    private final int[] orderLevel;
    /** Toward the back of the level. */
    final int[] orderNext;
    private final int[] orderPrev;
    private final Long2LongHashMap nodeOfOrder;
    private int freeOrder;

    /**
     * @param maxInstruments instrument slots ({@link InstrumentSlots}).
     * @param maxOrders      orders resting across all books at once (also the bound on price levels).
     */
    ReplicaBooks(final int maxInstruments, final int maxOrders)
    {
        this.maxOrders = maxOrders;
        orderCount = new int[maxInstruments];
        bestLevel = new int[maxInstruments * 2];
        worstLevel = new int[maxInstruments * 2];
        Arrays.fill(bestLevel, NONE);
        Arrays.fill(worstLevel, NONE);

        levelPrice = new long[maxOrders];
        levelQuantity = new long[maxOrders];
        levelOrders = new int[maxOrders];
        levelHead = new int[maxOrders];
        levelTail = new int[maxOrders];
        levelNext = new int[maxOrders];
        levelPrev = new int[maxOrders];
        levelBook = new int[maxOrders];
        levelIndex = new PriceLevelIndex(levelPrice, levelBook);
        orderId = new long[maxOrders];
        shown = new long[maxOrders];
        orderLevel = new int[maxOrders];
        orderNext = new int[maxOrders];
        orderPrev = new int[maxOrders];
        // Sized so that the capacity never makes the map grow: agrona's maps grow past capacity x load factor.
        nodeOfOrder = new Long2LongHashMap(Integer.highestOneBit(maxOrders * 2 - 1) << 1, 0.6f, NONE);
        for (int i = 0; i < maxOrders; i++)
        {
            levelNext[i] = i + 1 < maxOrders ? i + 1 : NONE;
            orderNext[i] = i + 1 < maxOrders ? i + 1 : NONE;
        }
        freeLevel = 0;
        freeOrder = 0;
    }

    /** @return orders the books hold at once. */
    int maxOrders()
    {
        return maxOrders;
    }

    // ---------------------------------------------------------------- changes

    /**
     * An order joins the back of its level.
     *
     * @return APPLIED, INCONSISTENT when the id already rests, or CAPACITY_EXCEEDED.
     */
    int add(final int slot, final int side, final long id, final long price, final long quantity)
    {
        if (nodeOfOrder.get(id) != NONE)
        {
            return INCONSISTENT;
        }
        final int order = freeOrder;
        if (order == NONE)
        {
            return CAPACITY_EXCEEDED;
        }
        final int level = levelFor(slot * 2 + side, price);
        if (level == NONE)
        {
            return CAPACITY_EXCEEDED;
        }
        freeOrder = orderNext[order];
        orderId[order] = id;
        shown[order] = quantity;
        append(order, level);
        orderCount[slot]++;
        nodeOfOrder.put(id, order);
        return APPLIED;
    }

    /**
     * An order shows less: executed ({@code remaining} NONE: what it shows minus the quantity) or
     * canceled down to {@code remaining}. At 0 it leaves the book (an iceberg's refill comes back
     * as an OrderAdded at the back of the level).
     *
     * @return APPLIED, or INCONSISTENT when the order is not in this book or shows too little.
     */
    int reduce(final int slot, final long id, final long quantity, final long remaining)
    {
        final int order = find(slot, id);
        if (order == NONE || quantity <= 0 || quantity > shown[order] ||
            (remaining != NONE && shown[order] - quantity != remaining))
        {
            return INCONSISTENT;
        }
        final long left = shown[order] - quantity;
        if (left == 0)
        {
            remove(slot, order);
        }
        else
        {
            shown[order] = left;
            levelQuantity[orderLevel[order]] -= quantity;
        }
        return APPLIED;
    }

    /**
     * An order's new price and shown quantity: in place when it keeps priority, else at the back of
     * its level.
     *
     * @return APPLIED, INCONSISTENT, or CAPACITY_EXCEEDED when no level is free for the new price
     *         (the order has then left the book).
     */
    int replace(final int slot, final long id, final long price, final long quantity, final boolean keepsPriority)
    {
        final int order = find(slot, id);
        if (order == NONE || quantity <= 0)
        {
            return INCONSISTENT;
        }
        final int level = orderLevel[order];
        if (keepsPriority)
        {
            if (levelPrice[level] != price)
            {
                return INCONSISTENT;
            }
            levelQuantity[level] += quantity - shown[order];
            shown[order] = quantity;
            return APPLIED;
        }
        final int book = levelBook[level];
        unlink(order);
        final int target = levelFor(book, price);
        if (target == NONE)
        {
            nodeOfOrder.remove(id);
            orderCount[slot]--;
            freeOrder(order);
            return CAPACITY_EXCEEDED;
        }
        shown[order] = quantity;
        append(order, target);
        return APPLIED;
    }

    /** Empties an instrument's book, returning its orders and levels to the pools. */
    void clear(final int slot)
    {
        for (int side = BID; side <= ASK; side++)
        {
            final int book = slot * 2 + side;
            int level = bestLevel[book];
            while (level != NONE)
            {
                final int nextLevel = levelNext[level];
                int order = levelHead[level];
                while (order != NONE)
                {
                    final int nextOrder = orderNext[order];
                    nodeOfOrder.remove(orderId[order]);
                    freeOrder(order);
                    order = nextOrder;
                }
                levelIndex.remove(level);
                levelPrev[level] = NONE;
                levelNext[level] = freeLevel;
                freeLevel = level;
                level = nextLevel;
            }
            bestLevel[book] = NONE;
            worstLevel[book] = NONE;
        }
        orderCount[slot] = 0;
    }

    /** @return the order's node when it rests in this instrument's book, else NONE. */
    private int find(final int slot, final long id)
    {
        final int order = (int)nodeOfOrder.get(id);
        return order != NONE && levelBook[orderLevel[order]] >> 1 == slot ? order : NONE;
    }

    private void remove(final int slot, final int order)
    {
        unlink(order);
        nodeOfOrder.remove(orderId[order]);
        orderCount[slot]--;
        freeOrder(order);
    }

    private void freeOrder(final int order)
    {
        orderNext[order] = freeOrder;
        orderPrev[order] = NONE;
        orderLevel[order] = NONE;
        freeOrder = order;
    }

    private void append(final int order, final int level)
    {
        final int last = levelTail[level];
        orderLevel[order] = level;
        orderPrev[order] = last;
        orderNext[order] = NONE;
        if (last == NONE)
        {
            levelHead[level] = order;
        }
        else
        {
            orderNext[last] = order;
        }
        levelTail[level] = order;
        levelOrders[level]++;
        levelQuantity[level] += shown[order];
    }

    /** Takes an order out of its level; an emptied level leaves its book. */
    private void unlink(final int order)
    {
        final int level = orderLevel[order];
        final int previous = orderPrev[order];
        final int next = orderNext[order];
        if (previous == NONE)
        {
            levelHead[level] = next;
        }
        else
        {
            orderNext[previous] = next;
        }
        if (next == NONE)
        {
            levelTail[level] = previous;
        }
        else
        {
            orderPrev[next] = previous;
        }
        levelQuantity[level] -= shown[order];
        if (--levelOrders[level] == 0)
        {
            removeLevel(level);
        }
    }

    /**
     * @return the level at a price in a book, made (in price order) when there is none yet, or
     *         NONE when every level node is in use. An existing level is found through the index;
     *         a new one is placed by a walk from whichever end of the book is nearer in price, so
     *         a new level near the touch, as most are, passes few levels.
     */
    private int levelFor(final int book, final long price)
    {
        final int existing = levelIndex.find(book, price);
        if (existing != NONE)
        {
            return existing;
        }
        final boolean bid = (book & 1) == BID;
        final int best = bestLevel[book];
        if (best == NONE)
        {
            final int level = newLevel(book, price);
            if (level != NONE)
            {
                bestLevel[book] = level;
                worstLevel[book] = level;
            }
            return level;
        }
        final int worst = worstLevel[book];
        if (Math.abs(price - levelPrice[best]) <= Math.abs(price - levelPrice[worst]))
        {
            int at = best;
            while (at != NONE && (bid ? levelPrice[at] > price : levelPrice[at] < price))
            {
                at = levelNext[at];
            }
            if (at != NONE && levelPrice[at] == price)
            {
                return at;
            }
            final int level = newLevel(book, price);
            if (level != NONE)
            {
                insertBefore(book, level, at);
            }
            return level;
        }
        int at = worst;
        while (at != NONE && (bid ? levelPrice[at] < price : levelPrice[at] > price))
        {
            at = levelPrev[at];
        }
        if (at != NONE && levelPrice[at] == price)
        {
            return at;
        }
        final int level = newLevel(book, price);
        if (level != NONE)
        {
            insertBefore(book, level, at == NONE ? bestLevel[book] : levelNext[at]);
        }
        return level;
    }

    private int newLevel(final int book, final long price)
    {
        final int level = freeLevel;
        if (level != NONE)
        {
            freeLevel = levelNext[level];
            levelPrice[level] = price;
            levelQuantity[level] = 0;
            levelOrders[level] = 0;
            levelHead[level] = NONE;
            levelTail[level] = NONE;
            levelBook[level] = book;
            levelNext[level] = NONE;
            levelPrev[level] = NONE;
            levelIndex.put(level);
        }
        return level;
    }

    /** Links a new level in front of {@code next} (toward the best), or at the worst end when next is NONE. */
    private void insertBefore(final int book, final int level, final int next)
    {
        final int previous = next == NONE ? worstLevel[book] : levelPrev[next];
        levelNext[level] = next;
        levelPrev[level] = previous;
        if (previous == NONE)
        {
            bestLevel[book] = level;
        }
        else
        {
            levelNext[previous] = level;
        }
        if (next == NONE)
        {
            worstLevel[book] = level;
        }
        else
        {
            levelPrev[next] = level;
        }
    }

    private void removeLevel(final int level)
    {
        final int book = levelBook[level];
        final int previous = levelPrev[level];
        final int next = levelNext[level];
        if (previous == NONE)
        {
            bestLevel[book] = next;
        }
        else
        {
            levelNext[previous] = next;
        }
        if (next == NONE)
        {
            worstLevel[book] = previous;
        }
        else
        {
            levelPrev[next] = previous;
        }
        levelIndex.remove(level);
        levelPrev[level] = NONE;
        levelNext[level] = freeLevel;
        freeLevel = level;
    }

    // ---------------------------------------------------------------- control path

    /** @return orders in a book (slot * 2 + side), by a walk of its levels. */
    int countOrders(final int book)
    {
        int count = 0;
        for (int level = bestLevel[book]; level != NONE; level = levelNext[level])
        {
            count += levelOrders[level];
        }
        return count;
    }

    /**
     * @return whether the level index holds exactly the levels in the books, each found from its
     *         home slot: the walk in {@link #levelFor} would hide a lost entry, so tests ask.
     */
    boolean levelIndexConsistent()
    {
        int levels = 0;
        for (int book = 0; book < bestLevel.length; book++)
        {
            for (int level = bestLevel[book]; level != NONE; level = levelNext[level])
            {
                if (levelIndex.find(book, levelPrice[level]) != level)
                {
                    return false;
                }
                levels++;
            }
        }
        return levelIndex.size() == levels;
    }
}
