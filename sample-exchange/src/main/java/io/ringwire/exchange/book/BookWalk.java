package io.ringwire.exchange.book;

import static io.ringwire.exchange.book.OrderStore.NONE;

/**
 * A walk over the orders one instrument's book shows, in the order a feed's reader rebuilds it
 * from: bids then asks, levels best first, time priority within a level. An order that shows
 * nothing is not public and is passed over. The engine's books and a replica's keep the same
 * storage, so one walk reads either ({@link OrderBooks#walk()}, {@link ReplicaBooks#walk()}): a
 * BookSnapshot of the engine's books and one of a replica's hold the same orders in the same
 * places when the replica is right.
 *
 * <p>A walk is valid until the book next changes. Threading: the books' thread. Allocation-free.
 */
public final class BookWalk
{
    private final OrderStore orders;
    private final PriceLevels levels;
    private int instrument;
    private byte side;
    private int level;
    private int order;
    private boolean atStart;
    private boolean done = true;

    BookWalk(final OrderStore orders, final PriceLevels levels)
    {
        this.orders = orders;
        this.levels = levels;
    }

    /**
     * Places the walk before the first order of a book.
     *
     * @param instrumentIndex the instrument's index (its id less one).
     * @return the orders the walk will give: one pass over the book.
     */
    public int start(final int instrumentIndex)
    {
        reset(instrumentIndex);
        int count = 0;
        while (next())
        {
            count++;
        }
        reset(instrumentIndex);
        return count;
    }

    private void reset(final int instrumentIndex)
    {
        instrument = instrumentIndex;
        side = OrderTerms.BUY;
        level = levels.best(instrumentIndex, OrderTerms.BUY);
        order = NONE;
        atStart = true;
        done = false;
    }

    /** @return true when the walk moved onto the next order that shows a quantity; false past the last. */
    public boolean next()
    {
        while (!done)
        {
            if (atStart)
            {
                atStart = false;
                order = level == NONE ? NONE : levels.head(level);
            }
            else
            {
                order = orders.levelNext(order);
            }
            while (order == NONE && !done)
            {
                level = level == NONE ? NONE : levels.nextAway(instrument, side, level);
                if (level == NONE && side == OrderTerms.BUY)
                {
                    side = OrderTerms.SELL;
                    level = levels.best(instrument, OrderTerms.SELL);
                    order = level == NONE ? NONE : levels.head(level);
                    done = level == NONE;
                }
                else if (level == NONE)
                {
                    done = true;
                }
                else
                {
                    order = levels.head(level);
                }
            }
            if (!done && orders.shown(order) > 0)
            {
                return true;
            }
        }
        return false;
    }

    /** @return whether the order the walk is on is a bid. */
    public boolean isBid()
    {
        return side == OrderTerms.BUY;
    }

    /** @return the exchange order id of the order the walk is on. */
    public long orderId()
    {
        return orders.orderId(order);
    }

    /** @return the price of the order the walk is on. */
    public long price()
    {
        return orders.price(order);
    }

    /** @return the quantity the order the walk is on shows. */
    public long shown()
    {
        return orders.shown(order);
    }
}
