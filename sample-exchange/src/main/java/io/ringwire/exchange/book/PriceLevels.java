package io.ringwire.exchange.book;

import java.util.Arrays;

import static io.ringwire.exchange.book.OrderStore.NONE;

/**
 * Every instrument's price levels, one slot per tick of its price band, laid end to end in shared
 * arrays: a slot holds the head and tail of the queue of orders resting at that price (one side
 * at a time: a bid and an ask at one price would have traded), side by side in one array so a
 * level's two ends share a cache line. A bitmap per side marks the non-empty slots, so the best
 * price after a level empties is found a word (64 ticks) at a time, and a price's level is found
 * by arithmetic (a multiplication, see {@link ExactDivisor}), with no search and no tree.
 *
 * <p>Memory: {@link #BYTES_PER_SLOT} bytes per price slot; the slots are the book's price-level
 * capacity, fixed at start by the instruments' bands.
 *
 * <p>Threading: the engine's thread. Allocation-free after construction.
 */
final class PriceLevels
{
    /** Bytes per price slot: head and tail, and a bit in each side's bitmap. */
    static final double BYTES_PER_SLOT = 2 * 4 + 2 / 8.0;

    private final int[] base;
    private final int[] slots;
    private final long[] minPrice;
    private final ExactDivisor[] tick;
    /** Per instrument, the best bid's slot then the best ask's. */
    private final int[] bests;
    /** Per slot, the head of its queue then the tail. */
    private final int[] levelEnds;
    private final long[] bids;
    private final long[] asks;
    private final OrderStore orders;

    PriceLevels(final InstrumentSpec[] instruments, final OrderStore orders)
    {
        this.orders = orders;
        final int count = instruments.length;
        base = new int[count];
        slots = new int[count];
        minPrice = new long[count];
        tick = new ExactDivisor[count];
        bests = new int[count * 2];
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            base[i] = (int)total;
            slots[i] = instruments[i].priceSlots();
            minPrice[i] = instruments[i].minPrice();
            tick[i] = new ExactDivisor(instruments[i].tickSize());
            total += slots[i] + InstrumentSpec.SLOT_MARGIN;
            if (total > InstrumentSpec.MAX_PRICE_SLOTS)
            {
                throw new IllegalArgumentException("the instruments' price bands need " + total +
                    " price slots; narrow the bands");
            }
        }
        Arrays.fill(bests, NONE);
        levelEnds = new int[(int)total * 2];
        Arrays.fill(levelEnds, NONE);
        bids = new long[(int)(total >>> 6) + 1];
        asks = new long[(int)(total >>> 6) + 1];
    }

    /** @return price slots in use by all instruments (their capacity for price levels). */
    int slotCount()
    {
        return levelEnds.length >> 1;
    }

    /** @return the slot of a price in an instrument's band (validated beforehand: in the band, on the tick). */
    int slotOf(final int instrument, final long price)
    {
        return base[instrument] + (int)tick[instrument].quotientOfMultiple(price - minPrice[instrument]);
    }

    /** @return the best (highest) bid level's slot, or {@link OrderStore#NONE}. */
    int bestBid(final int instrument)
    {
        return bests[instrument << 1];
    }

    /** @return the best (lowest) ask level's slot, or {@link OrderStore#NONE}. */
    int bestAsk(final int instrument)
    {
        return bests[(instrument << 1) + 1];
    }

    /** @return the best level's slot on a side, or {@link OrderStore#NONE}. */
    int best(final int instrument, final byte side)
    {
        return side == OrderTerms.BUY ? bests[instrument << 1] : bests[(instrument << 1) + 1];
    }

    /** @return the first order of a level, or {@link OrderStore#NONE}. */
    int head(final int slot)
    {
        return levelEnds[slot << 1];
    }

    /**
     * @return the next level away from the touch on a side after {@code slot}, or {@link OrderStore#NONE}.
     */
    int nextAway(final int instrument, final byte side, final int slot)
    {
        return side == OrderTerms.BUY ? below(instrument, slot) : above(instrument, slot);
    }

    /** Puts an order at the back of the level its slot names. */
    void append(final int order)
    {
        final int levelSlot = orders.slot(order);
        final int last = levelEnds[(levelSlot << 1) + 1];
        orders.levelNext(order, NONE);
        orders.levelPrev(order, last);
        if (last == NONE)
        {
            levelEnds[levelSlot << 1] = order;
            levelEnds[(levelSlot << 1) + 1] = order;
            final int instrument = orders.instrument(order) - 1;
            if (orders.side(order) == OrderTerms.BUY)
            {
                bids[levelSlot >>> 6] |= 1L << levelSlot;
                if (bests[instrument << 1] == NONE || levelSlot > bests[instrument << 1])
                {
                    bests[instrument << 1] = levelSlot;
                }
            }
            else
            {
                asks[levelSlot >>> 6] |= 1L << levelSlot;
                if (bests[(instrument << 1) + 1] == NONE || levelSlot < bests[(instrument << 1) + 1])
                {
                    bests[(instrument << 1) + 1] = levelSlot;
                }
            }
        }
        else
        {
            orders.levelNext(last, order);
            levelEnds[(levelSlot << 1) + 1] = order;
        }
    }

    /** Takes an order out of its level; an emptied level leaves the bitmap, and the touch moves on. */
    void remove(final int order)
    {
        final int levelSlot = orders.slot(order);
        final int previous = orders.levelPrev(order);
        final int next = orders.levelNext(order);
        if (previous == NONE)
        {
            levelEnds[levelSlot << 1] = next;
        }
        else
        {
            orders.levelNext(previous, next);
        }
        if (next == NONE)
        {
            levelEnds[(levelSlot << 1) + 1] = previous;
        }
        else
        {
            orders.levelPrev(next, previous);
        }
        orders.levelNext(order, NONE);
        orders.levelPrev(order, NONE);
        if (levelEnds[levelSlot << 1] == NONE)
        {
            final int instrument = orders.instrument(order) - 1;
            if (orders.side(order) == OrderTerms.BUY)
            {
                bids[levelSlot >>> 6] &= ~(1L << levelSlot);
                if (bests[instrument << 1] == levelSlot)
                {
                    bests[instrument << 1] = below(instrument, levelSlot);
                }
            }
            else
            {
                asks[levelSlot >>> 6] &= ~(1L << levelSlot);
                if (bests[(instrument << 1) + 1] == levelSlot)
                {
                    bests[(instrument << 1) + 1] = above(instrument, levelSlot);
                }
            }
        }
    }

    /** Moves an order to the back of its level (an iceberg's refill). */
    void moveToBack(final int order)
    {
        final int levelSlot = orders.slot(order);
        if (levelEnds[(levelSlot << 1) + 1] == order)
        {
            return;
        }
        final int previous = orders.levelPrev(order);
        final int next = orders.levelNext(order);
        if (previous == NONE)
        {
            levelEnds[levelSlot << 1] = next;
        }
        else
        {
            orders.levelNext(previous, next);
        }
        orders.levelPrev(next, previous);
        final int last = levelEnds[(levelSlot << 1) + 1];
        orders.levelNext(last, order);
        orders.levelPrev(order, last);
        orders.levelNext(order, NONE);
        levelEnds[(levelSlot << 1) + 1] = order;
    }

    /** @return the highest non-empty bid slot below {@code slot} in the instrument's range, or NONE. */
    private int below(final int instrument, final int slot)
    {
        final int first = base[instrument];
        int at = slot - 1;
        if (at < first)
        {
            return NONE;
        }
        int word = at >>> 6;
        long bits = bids[word] & (-1L >>> (63 - (at & 63)));
        while (bits == 0)
        {
            if (--word < (first >>> 6))
            {
                return NONE;
            }
            bits = bids[word];
        }
        final int found = (word << 6) + 63 - Long.numberOfLeadingZeros(bits);
        return found >= first ? found : NONE;
    }

    /** @return the lowest non-empty ask slot above {@code slot} in the instrument's range, or NONE. */
    private int above(final int instrument, final int slot)
    {
        final int end = base[instrument] + slots[instrument];
        int at = slot + 1;
        if (at >= end)
        {
            return NONE;
        }
        int word = at >>> 6;
        long bits = asks[word] & (-1L << (at & 63));
        final int lastWord = (end - 1) >>> 6;
        while (bits == 0)
        {
            if (++word > lastWord)
            {
                return NONE;
            }
            bits = asks[word];
        }
        final int found = (word << 6) + Long.numberOfTrailingZeros(bits);
        return found < end ? found : NONE;
    }
}
