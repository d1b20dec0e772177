package io.ringwire.exchange.book;

import java.util.List;

import static io.ringwire.exchange.book.OrderStore.NONE;

/**
 * Books that follow a feed instead of matching: the same storage as the engine's books (an
 * {@link OrderStore} record per order, {@link PriceLevels}' slot per tick of each instrument's band,
 * its bitmaps for the next level away), changed only as the feed says: an order joins the back of
 * its level, shows less, moves, or leaves. What the engine's books do not keep and a feed's readers
 * want is kept beside them: each level's shown quantity and order count.
 *
 * <p>A level is named by its price slot, an order by its record; both stay valid until the next
 * change. Instruments are named by their index in the list given (ids 1 to n, as the engine's).
 *
 * <p>A change that does not fit the book (an order id already resting, an unknown order, more
 * taken than the order shows, a price off the instrument's band or tick, or at or through the other
 * side's best, where it would have traded) is refused with
 * {@link #INCONSISTENT}, and a new order with no free record with {@link #CAPACITY_EXCEEDED}; what
 * to make of either is the caller's business.
 *
 * <p>Threading: one thread. Allocation-free after construction.
 */
public final class ReplicaBooks
{
    /** The change was made. */
    public static final int APPLIED = 0;
    /** No record free for a new order. */
    public static final int CAPACITY_EXCEEDED = 6;
    /** The change does not fit the book. */
    public static final int INCONSISTENT = 7;
    /** The buying side. */
    public static final int BID = 0;
    /** The selling side. */
    public static final int ASK = 1;

    /**
     * Every order rests under one account: the store's index then finds an order by its id alone.
     * No account's list is kept (a feed has no mass cancel to serve).
     */
    private static final long ACCOUNT = 0;

    private final InstrumentRules[] rules;
    private final OrderStore orders;
    private final PriceLevels levels;
    private final int[] orderCount;
    /**
     * A level's shown quantity, as the low word of a 128-bit sum whose high word is
     * {@link #levelQuantityHigh}: each order's quantity is a positive long, and a level's orders may
     * sum past one.
     */
    private final long[] levelQuantity;
    private final long[] levelQuantityHigh;
    private final int[] levelOrders;

    /**
     * @param instruments the instruments, ids 1 to n in order.
     * @param maxOrders   orders resting across all books at once, at most {@link OrderStore#MAX_CAPACITY}.
     */
    public ReplicaBooks(final List<InstrumentSpec> instruments, final int maxOrders)
    {
        final InstrumentSpec[] specs = instruments.toArray(new InstrumentSpec[0]);
        for (int i = 0; i < specs.length; i++)
        {
            if (specs[i].id() != i + 1)
            {
                throw new IllegalArgumentException("instrument ids must run from 1 in order: found " +
                    specs[i].id() + " at " + (i + 1));
            }
        }
        rules = InstrumentRules.of(specs);
        orders = new OrderStore(maxOrders, 1);
        levels = new PriceLevels(specs, orders);
        orderCount = new int[specs.length];
        levelQuantity = new long[levels.slotCount()];
        levelQuantityHigh = new long[levels.slotCount()];
        levelOrders = new int[levels.slotCount()];
    }

    /** @return instruments, each with a book. */
    public int instruments()
    {
        return rules.length;
    }

    /** @return a walk over the orders a book shows (a BookSnapshot's order); control path. */
    public BookWalk walk()
    {
        return new BookWalk(orders, levels);
    }

    /** @return the id of the instrument at an index (ids run from 1 in index order). */
    public int instrumentId(final int index)
    {
        return index + 1;
    }

    /** @return orders the books hold at once. */
    public int maxOrders()
    {
        return orders.capacity();
    }

    // ---------------------------------------------------------------- changes

    /**
     * An order joins the back of its level.
     *
     * @return {@link #APPLIED}, {@link #INCONSISTENT} when the id already rests or the price is off
     *         the band or tick, or {@link #CAPACITY_EXCEEDED}.
     */
    public int add(final int instrument, final int side, final long id, final long price, final long quantity)
    {
        final byte bookSide = side == BID ? OrderTerms.BUY : OrderTerms.SELL;
        if (quantity <= 0 || !onBand(instrument, price))
        {
            return INCONSISTENT;
        }
        final int slot = levels.slotOf(instrument, price);
        if (crosses(instrument, bookSide, slot) || orders.find(ACCOUNT, id) != NONE)
        {
            return INCONSISTENT;
        }
        final int order = orders.allocate();
        if (order == NONE)
        {
            return CAPACITY_EXCEEDED;
        }
        orders.terms(order, id, id, ACCOUNT, instrument + 1, bookSide,
            (byte)0, (byte)0, (byte)0, false, price, quantity, 0);
        orders.index(order);
        orderCount[instrument]++;
        place(order, slot, price, quantity);
        return APPLIED;
    }

    /**
     * An order shows less: executed ({@code remaining} {@link OrderStore#NONE}: what it shows minus
     * the quantity) or canceled down to {@code remaining}. At 0 it leaves the book (an iceberg's
     * refill comes back as an order added at the back of the level).
     *
     * @return {@link #APPLIED}, or {@link #INCONSISTENT} when the order is not in this book or shows too little.
     */
    public int reduce(final int instrument, final long id, final long quantity, final long remaining)
    {
        final int order = find(instrument, id);
        if (order == NONE)
        {
            return INCONSISTENT;
        }
        final long shown = orders.shown(order);
        if (quantity <= 0 || quantity > shown || (remaining != NONE && shown - quantity != remaining))
        {
            return INCONSISTENT;
        }
        if (shown == quantity)
        {
            remove(order);
        }
        else
        {
            orders.shown(order, shown - quantity);
            addToLevel(orders.slot(order), -quantity);
        }
        return APPLIED;
    }

    /**
     * An order's new price and shown quantity: in place when it keeps priority, else at the back of
     * its new level.
     *
     * @return {@link #APPLIED}, or {@link #INCONSISTENT} (nothing changed).
     */
    public int replace(final int instrument, final long id, final long price, final long quantity,
        final boolean keepsPriority)
    {
        final int order = find(instrument, id);
        if (order == NONE || quantity <= 0 || !onBand(instrument, price))
        {
            return INCONSISTENT;
        }
        final int newSlot = levels.slotOf(instrument, price);
        if (crosses(instrument, orders.side(order), newSlot))
        {
            return INCONSISTENT;
        }
        final int slot = orders.slot(order);
        if (keepsPriority)
        {
            if (orders.price(order) != price)
            {
                return INCONSISTENT;
            }
            addToLevel(slot, quantity - orders.shown(order));
            orders.shown(order, quantity);
            return APPLIED;
        }
        leaveLevel(order);
        place(order, newSlot, price, quantity);
        return APPLIED;
    }

    /** Empties an instrument's book, returning its orders to the store. */
    public void clear(final int instrument)
    {
        for (byte side = OrderTerms.BUY; side <= OrderTerms.SELL; side++)
        {
            for (int slot = levels.best(instrument, side); slot != NONE; slot = levels.best(instrument, side))
            {
                remove(levels.head(slot));
            }
        }
    }

    private int find(final int instrument, final long id)
    {
        final int order = orders.find(ACCOUNT, id);
        return order != NONE && orders.instrument(order) == instrument + 1 ? order : NONE;
    }

    private boolean onBand(final int instrument, final long price)
    {
        final InstrumentRules rule = rules[instrument];
        return price >= rule.minPrice && price <= rule.maxPrice && rule.tick.divides(price);
    }

    /**
     * @return whether the price (its slot) reaches the other side's best: such orders would have traded, and a
     *         price slot holds one side's queue at a time.
     */
    private boolean crosses(final int instrument, final byte side, final int slot)
    {
        // Slots run in price order within an instrument, so the slots compare as the prices would.
        final int best = levels.best(instrument, OrderTerms.opposite(side));
        return best != NONE && (side == OrderTerms.BUY ? slot >= best : slot <= best);
    }

    private void place(final int order, final int slot, final long price, final long shown)
    {
        orders.price(order, price);
        orders.shown(order, shown);
        orders.slot(order, slot);
        levels.append(order);
        addToLevel(slot, shown);
        levelOrders[slot]++;
    }

    private void leaveLevel(final int order)
    {
        final int slot = orders.slot(order);
        levels.remove(order);
        addToLevel(slot, -orders.shown(order));
        levelOrders[slot]--;
    }

    /** Adds a signed change to a level's 128-bit quantity (a difference of two positive longs fits one). */
    private void addToLevel(final int slot, final long delta)
    {
        final long low = levelQuantity[slot];
        final long sum = low + delta;
        levelQuantityHigh[slot] += carry(low, delta, sum);
        levelQuantity[slot] = sum;
    }

    /** @return what adding {@code delta} to the low word {@code low}, giving {@code sum}, carries to the high word. */
    private static long carry(final long low, final long delta, final long sum)
    {
        if (delta >= 0)
        {
            return Long.compareUnsigned(sum, low) < 0 ? 1 : 0;
        }
        return Long.compareUnsigned(sum, low) > 0 ? -1 : 0;
    }

    private void remove(final int order)
    {
        leaveLevel(order);
        orders.unindex(order);
        orderCount[orders.instrument(order) - 1]--;
        orders.free(order);
    }

    // ---------------------------------------------------------------- reading

    /** @return orders resting in an instrument's book. */
    public int orderCount(final int instrument)
    {
        return orderCount[instrument];
    }

    /** @return the best level of a side ({@link #BID} or {@link #ASK}), or {@link OrderStore#NONE}. */
    public int bestLevel(final int instrument, final int side)
    {
        return levels.best(instrument, side == BID ? OrderTerms.BUY : OrderTerms.SELL);
    }

    /** @return the next level away from the touch, or {@link OrderStore#NONE}. */
    public int nextLevel(final int level)
    {
        final int first = levels.head(level);
        return levels.nextAway(orders.instrument(first) - 1, orders.side(first), level);
    }

    /** @return a level's price. */
    public long levelPrice(final int level)
    {
        return orders.price(levels.head(level));
    }

    /**
     * @return the quantity a level shows, or {@link Long#MAX_VALUE} where its orders sum past a long.
     */
    public long levelQuantity(final int level)
    {
        return levelQuantityHigh[level] != 0 || levelQuantity[level] < 0 ? Long.MAX_VALUE : levelQuantity[level];
    }

    /** @return orders at a level. */
    public int levelOrderCount(final int level)
    {
        return levelOrders[level];
    }

    /** @return the first order (in time priority) of a level. */
    public int firstOrder(final int level)
    {
        return levels.head(level);
    }

    /** @return the order behind this one at its level, or {@link OrderStore#NONE}. */
    public int nextOrder(final int order)
    {
        return orders.levelNext(order);
    }

    /** @return an order's exchange order id. */
    public long orderId(final int order)
    {
        return orders.orderId(order);
    }

    /** @return the quantity an order shows. */
    public long shown(final int order)
    {
        return orders.shown(order);
    }

    /** @return orders on one side of an instrument's book, counted by walking it. Control path. */
    public int countOrders(final int instrument, final int side)
    {
        int count = 0;
        for (int level = bestLevel(instrument, side); level != NONE; level = nextLevel(level))
        {
            count += levelOrders[level];
        }
        return count;
    }

    /**
     * @return whether every level's kept quantity and order count equal what its orders show, every
     *         order sits at its level's price, and the books hold as many orders as the store: the
     *         self-check tests ask for. Control path.
     */
    public boolean levelsConsistent()
    {
        int total = 0;
        for (int instrument = 0; instrument < rules.length; instrument++)
        {
            int count = 0;
            for (int side = BID; side <= ASK; side++)
            {
                long previous = side == BID ? Long.MAX_VALUE : Long.MIN_VALUE;
                for (int level = bestLevel(instrument, side); level != NONE; level = nextLevel(level))
                {
                    final long price = levelPrice(level);
                    if (side == BID ? price >= previous : price <= previous)
                    {
                        return false;
                    }
                    previous = price;
                    long quantity = 0;
                    long quantityHigh = 0;
                    int atLevel = 0;
                    for (int order = firstOrder(level); order != NONE; order = nextOrder(order))
                    {
                        if (orders.price(order) != price || orders.slot(order) != level)
                        {
                            return false;
                        }
                        final long shown = orders.shown(order);
                        quantityHigh += carry(quantity, shown, quantity + shown);
                        quantity += shown;
                        atLevel++;
                    }
                    if (quantity != levelQuantity[level] || quantityHigh != levelQuantityHigh[level] ||
                        atLevel != levelOrders[level])
                    {
                        return false;
                    }
                    count += atLevel;
                }
            }
            if (count != orderCount[instrument])
            {
                return false;
            }
            total += count;
        }
        return total == orders.live();
    }
}
