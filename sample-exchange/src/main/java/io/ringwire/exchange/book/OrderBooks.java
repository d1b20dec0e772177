package io.ringwire.exchange.book;

import java.util.List;

import static io.ringwire.exchange.book.OrderStore.NONE;
import static io.ringwire.exchange.book.OrderTerms.*;

/**
 * The price-time priority limit order books of every instrument, and the rules that change them:
 * LIMIT and MARKET orders, DAY, GTC, IOC and FOK, post-only, icebergs, cancel, replace, mass
 * cancel and self-trade prevention per account (CME's modes, carried on the incoming order).
 * Each request either changes the books and tells the {@link BookListener} every step, or is
 * refused whole with a reason as a negative return value and changes nothing.
 *
 * <p>Deterministic: the outcome of a request depends only on the books and the request, never on
 * a clock or on where the store put an order; order ids, match ids and time priority come from
 * counters in this class.
 *
 * <p>Capacity: {@code maxOrders} orders, {@code maxAccounts} accounts with resting orders, and one
 * price level per tick of each instrument's band, all allocated here at start. A request that
 * needs more is refused with {@link OrderTerms#CAPACITY_EXCEEDED}.
 *
 * <p>Threading: one thread. Allocation-free after construction; no locks, no exceptions on
 * requests.
 */
public final class OrderBooks
{
    private final InstrumentRules[] instruments;
    private final OrderStore orders;
    private final PriceLevels levels;
    private final BookListener listener;
    private long lastOrderId;
    private long lastMatchId;
    private long lastPriority;
    /** A replaced order trading at its new price: still registered, so a kill unregisters it. */
    private int replacing = NONE;

    /**
     * @param instruments the instruments, with ids 1 to N in order.
     * @param maxOrders   orders held at once (resting, plus the one being matched).
     * @param maxAccounts accounts with resting orders at once.
     * @param listener    told every change.
     */
    public OrderBooks(final InstrumentSpec[] instruments, final int maxOrders, final int maxAccounts,
        final BookListener listener)
    {
        for (int i = 0; i < instruments.length; i++)
        {
            if (instruments[i].id() != i + 1)
            {
                throw new IllegalArgumentException("instrument ids must be 1 to N in order; #" + i + " is " +
                    instruments[i].id());
            }
        }
        this.instruments = InstrumentRules.of(instruments);
        this.orders = new OrderStore(maxOrders, maxAccounts);
        this.levels = new PriceLevels(instruments, orders);
        this.listener = listener;
    }

    /** @return the orders, for reading what the listener is told about. */
    public OrderStore orders()
    {
        return orders;
    }

    /** @return the instruments, ids 1 to N. */
    public int instrumentCount()
    {
        return instruments.length;
    }

    /** @return a walk over the orders a book shows (a BookSnapshot's order); control path. */
    public BookWalk walk()
    {
        return new BookWalk(orders, levels);
    }

    /** @return price levels the books can hold (one per tick of every band). */
    public int priceSlots()
    {
        return levels.slotCount();
    }

    // ---------------------------------------------------------------- requests

    /**
     * A new order. Checked in this order: instrument, quantity and lot, display quantity, side and
     * self-trade prevention mode, price (tick, band), order type and time in force, duplicate client
     * order id (for an order that may rest), capacity, post-only.
     *
     * @return the order id given (positive), or minus the reason it was rejected.
     */
    public long newOrder(final long clientOrderId, final long account, final int instrumentId, final byte side,
        final byte ordType, final byte timeInForce, final long price, final long quantity, final long displayQuantity,
        final boolean postOnly, final byte selfTradePrevention)
    {
        final int reason = OrderChecks.check(instruments, orders, clientOrderId, account, instrumentId, side, ordType, timeInForce, price, quantity,
            displayQuantity, postOnly, selfTradePrevention);
        if (reason != 0)
        {
            return -reason;
        }
        final int instrument = instrumentId - 1;
        final byte opposite = opposite(side);
        final boolean market = ordType == MARKET;
        if (postOnly && crosses(instrument, opposite, side, price))
        {
            return -POST_ONLY_WOULD_TAKE;
        }
        final int order = orders.allocate();
        orders.terms(order, ++lastOrderId, clientOrderId, account, instrumentId, side, ordType, timeInForce,
            selfTradePrevention, postOnly, market ? 0 : price, quantity, displayQuantity);
        orders.slot(order, market ? NONE : levels.slotOf(instrument, price));
        listener.accepted(order);

        if (timeInForce == FOK && !fillable(order))
        {
            kill(order, FOK_NOT_FILLABLE);
            return lastOrderId;
        }
        final boolean emptySide = levels.best(instrument, opposite) == NONE;
        if (match(order))
        {
            if (orders.leaves(order) == 0)
            {
                orders.free(order);
            }
            else if (timeInForce == IOC || timeInForce == FOK || market)
            {
                kill(order, market && emptySide ? NO_LIQUIDITY : IOC_REMAINDER);
            }
            else
            {
                rest(order);
            }
        }
        return lastOrderId;
    }

    /**
     * Cancels a resting order.
     *
     * @return 0, or minus the reason it was rejected ({@link OrderTerms#UNKNOWN_ORDER}).
     */
    public int cancel(final long account, final long origClientOrderId, final int instrumentId, final byte side)
    {
        final int order = orders.find(account, origClientOrderId);
        if (order == NONE || orders.instrument(order) != instrumentId || orders.side(order) != side)
        {
            return -UNKNOWN_ORDER;
        }
        final long shown = orders.shown(order);
        final long leaves = orders.leaves(order);
        levels.remove(order);
        orders.leaves(order, 0);
        orders.shown(order, 0);
        listener.canceled(order, leaves, shown, CLIENT_CANCEL);
        orders.unregister(order);
        orders.free(order);
        return 0;
    }

    /**
     * Replaces a resting order's price and total quantity, and its client order id. A quantity
     * decrease at the same price keeps its time priority; an increase or a price change sends it
     * to the back of its (new) level, and a new price that crosses the other side trades first.
     *
     * @return 0, or minus the reason it was rejected.
     */
    public int replace(final long account, final long origClientOrderId, final long clientOrderId,
        final int instrumentId, final byte side, final long price, final long quantity)
    {
        final int order = orders.find(account, origClientOrderId);
        if (order == NONE || orders.instrument(order) != instrumentId || orders.side(order) != side)
        {
            return -UNKNOWN_ORDER;
        }
        final InstrumentRules rules = instruments[instrumentId - 1];
        final int priceReason = OrderChecks.checkPrice(rules, price);
        if (priceReason != 0)
        {
            return -priceReason;
        }
        if (quantity <= 0 || quantity <= orders.filled(order))
        {
            return -INVALID_QUANTITY;
        }
        if (!rules.lot.divides(quantity))
        {
            return -LOT_SIZE;
        }
        if (clientOrderId != origClientOrderId && orders.find(account, clientOrderId) != NONE)
        {
            return -DUPLICATE_CLIENT_ORDER_ID;
        }
        final int instrument = instrumentId - 1;
        final boolean crossing = crosses(instrument, opposite(side), side, price);
        if (crossing && orders.postOnly(order))
        {
            return -POST_ONLY_WOULD_TAKE;
        }
        final long shownBefore = orders.shown(order);
        final boolean keepsPriority = price == orders.price(order) && quantity <= orders.quantity(order);
        if (clientOrderId != origClientOrderId)
        {
            orders.rekey(order, clientOrderId);
        }
        final long leaves = quantity - orders.filled(order);
        orders.quantity(order, quantity);
        orders.leaves(order, leaves);
        if (keepsPriority)
        {
            orders.shown(order, Math.min(shownBefore, leaves));
            listener.replaced(order, true, shownBefore, false);
            return 0;
        }
        levels.remove(order);
        orders.price(order, price);
        orders.slot(order, levels.slotOf(instrument, price));
        if (!crossing)
        {
            orders.shown(order, showable(order));
            orders.priority(order, ++lastPriority);
            levels.append(order);
            listener.replaced(order, false, shownBefore, false);
            return 0;
        }
        orders.shown(order, 0);
        listener.replaced(order, false, shownBefore, true);
        // It stays registered while it trades, so its account's list keeps order id order.
        replacing = order;
        if (match(order))
        {
            if (orders.leaves(order) == 0)
            {
                orders.unregister(order);
                orders.free(order);
            }
            else
            {
                orders.shown(order, showable(order));
                orders.priority(order, ++lastPriority);
                levels.append(order);
                listener.rested(order);
            }
        }
        replacing = NONE;
        return 0;
    }

    /**
     * Cancels every resting order of an account, on one instrument or on all, oldest first.
     *
     * @param instrumentId the instrument, or 0 for all.
     * @return orders canceled.
     */
    public int massCancel(final long account, final int instrumentId)
    {
        int canceled = 0;
        int order = orders.firstOfAccount(account);
        while (order != NONE)
        {
            final int next = orders.accountNext(order);
            if (instrumentId == 0 || orders.instrument(order) == instrumentId)
            {
                final long shown = orders.shown(order);
                final long leaves = orders.leaves(order);
                levels.remove(order);
                orders.leaves(order, 0);
                orders.shown(order, 0);
                listener.canceled(order, leaves, shown, MASS_CANCEL);
                orders.unregister(order);
                orders.free(order);
                canceled++;
            }
            order = next;
        }
        return canceled;
    }

    // ---------------------------------------------------------------- snapshot and restore

    /** @return the last order id given. */
    public long lastOrderId()
    {
        return lastOrderId;
    }

    /** @return the last match id given. */
    public long lastMatchId()
    {
        return lastMatchId;
    }

    /** @return the last time priority given. */
    public long lastPriority()
    {
        return lastPriority;
    }

    /**
     * @return every resting order, instrument by instrument, bids then asks, best price first,
     *         oldest first. Control path: allocates.
     */
    public List<RestingOrder> resting()
    {
        return BookState.resting(instruments.length, orders, levels);
    }

    /**
     * Fills empty books from a snapshot (see {@link BookState#restore}). Control path: allocates.
     *
     * @throws IllegalStateException when the books are not empty or the snapshot does not fit them.
     */
    public void restore(final List<RestingOrder> resting, final long lastOrderIdValue, final long lastMatchIdValue,
        final long lastPriorityValue)
    {
        BookState.restore(resting, instruments, orders, levels);
        lastOrderId = lastOrderIdValue;
        lastMatchId = lastMatchIdValue;
        lastPriority = lastPriorityValue;
    }

    // ---------------------------------------------------------------- checks

    /** @return whether an order on {@code side} at {@code price} would meet the best of {@code opposite}. */
    private boolean crosses(final int instrument, final byte opposite, final byte side, final long price)
    {
        final int best = levels.best(instrument, opposite);
        if (best == NONE)
        {
            return false;
        }
        final long bestPrice = orders.price(levels.head(best));
        return side == BUY ? bestPrice <= price : bestPrice >= price;
    }

    /**
     * A FOK's check before anything trades, level by level from the best: at a level with none of
     * its own account's orders in the way, every other order's open quantity is there to take
     * (icebergs refill behind the others and are met again). At a level where an order of its own
     * account would stop it (any self-trade prevention mode but cancel-resting), only what the
     * orders ahead of that one show can be taken: a refill goes to the back, behind it. Orders of its
     * own account that cancel-resting removes are passed over.
     */
    private boolean fillable(final int order)
    {
        final int instrument = orders.instrument(order) - 1;
        final byte opposite = opposite(orders.side(order));
        final boolean market = orders.ordType(order) == MARKET;
        final long limit = orders.price(order);
        final long account = orders.account(order);
        final boolean ownOrdersGo = orders.selfTradePrevention(order) == STP_CANCEL_RESTING;
        // What the better levels leave to fill; the sums below stop at it, so no quantity the
        // engine takes (any positive long) can make them wrap.
        long needed = orders.leaves(order);
        for (int slot = levels.best(instrument, opposite); slot != NONE; slot = levels.nextAway(instrument, opposite, slot))
        {
            int resting = levels.head(slot);
            final long levelPrice = orders.price(resting);
            if (!market && (opposite == SELL ? levelPrice > limit : levelPrice < limit))
            {
                return false;
            }
            long shownAhead = 0;
            long open = 0;
            for (; resting != NONE; resting = orders.levelNext(resting))
            {
                if (orders.account(resting) == account)
                {
                    if (!ownOrdersGo)
                    {
                        return shownAhead >= needed;
                    }
                }
                else
                {
                    shownAhead = upTo(needed, shownAhead, orders.shown(resting));
                    open = upTo(needed, open, orders.leaves(resting));
                }
            }
            if (open >= needed)
            {
                return true;
            }
            needed -= open;
        }
        return false;
    }

    /**
     * @return {@code sum + more}, or {@code cap} where that reaches it (for {@code 0 <= sum <= cap}
     *         and {@code more >= 0}).
     */
    private static long upTo(final long cap, final long sum, final long more)
    {
        return more >= cap - sum ? cap : sum + more;
    }

    // ---------------------------------------------------------------- matching

    /**
     * Matches an incoming order against the other side, best price first, oldest first within a
     * price, an iceberg only for what it shows (a refill goes to the back of its level).
     *
     * @return false when self-trade prevention canceled the incoming order (it is freed).
     */
    private boolean match(final int order)
    {
        final int instrument = orders.instrument(order) - 1;
        final byte opposite = opposite(orders.side(order));
        final boolean market = orders.ordType(order) == MARKET;
        final long limit = orders.price(order);
        final long account = orders.account(order);
        while (orders.leaves(order) > 0)
        {
            final int slot = levels.best(instrument, opposite);
            if (slot == NONE)
            {
                return true;
            }
            int resting = levels.head(slot);
            final long levelPrice = orders.price(resting);
            if (!market && (opposite == SELL ? levelPrice > limit : levelPrice < limit))
            {
                return true;
            }
            while (resting != NONE && orders.leaves(order) > 0)
            {
                final int next = orders.levelNext(resting);
                if (orders.account(resting) == account)
                {
                    if (!preventSelfTrade(order, resting))
                    {
                        return false;
                    }
                }
                else
                {
                    fill(order, resting, levelPrice);
                }
                resting = next;
            }
        }
        return true;
    }

    private void fill(final int order, final int resting, final long price)
    {
        final long quantity = Math.min(orders.leaves(order), orders.shown(resting));
        orders.leaves(order, orders.leaves(order) - quantity);
        orders.filled(order, orders.filled(order) + quantity);
        orders.fill(resting, quantity);
        listener.traded(order, resting, price, quantity, ++lastMatchId);
        if (orders.leaves(resting) == 0)
        {
            levels.remove(resting);
            orders.unregister(resting);
            orders.free(resting);
        }
        else if (orders.shown(resting) == 0)
        {
            orders.shown(resting, showable(resting));
            orders.priority(resting, ++lastPriority);
            levels.moveToBack(resting);
            listener.rested(resting);
        }
    }

    /**
     * The incoming order meets a resting order of its own account; its mode decides.
     *
     * @return false when the incoming order is canceled (and freed).
     */
    private boolean preventSelfTrade(final int order, final int resting)
    {
        switch (orders.selfTradePrevention(order))
        {
            case STP_CANCEL_AGGRESSING ->
            {
                kill(order, SELF_TRADE_PREVENTION);
                return false;
            }
            case STP_CANCEL_BOTH ->
            {
                cancelResting(resting, SELF_TRADE_PREVENTION);
                kill(order, SELF_TRADE_PREVENTION);
                return false;
            }
            case STP_DECREMENT_AND_CANCEL ->
            {
                final long incoming = orders.leaves(order);
                final long standing = orders.leaves(resting);
                final long decrement = Math.min(incoming, standing);
                if (standing == decrement)
                {
                    cancelResting(resting, SELF_TRADE_PREVENTION);
                }
                else
                {
                    // The decrement comes off the order's quantity too, as a restatement does: what
                    // is open plus what filled stays the order's quantity, and a later replace
                    // that raises it above what is left is an increase (it loses priority).
                    final long shownBefore = orders.shown(resting);
                    orders.quantity(resting, orders.quantity(resting) - decrement);
                    orders.leaves(resting, standing - decrement);
                    orders.shown(resting, Math.min(shownBefore, orders.leaves(resting)));
                    listener.restated(resting, decrement, shownBefore - orders.shown(resting));
                }
                if (incoming == decrement)
                {
                    kill(order, SELF_TRADE_PREVENTION);
                    return false;
                }
                orders.quantity(order, orders.quantity(order) - decrement);
                orders.leaves(order, incoming - decrement);
                listener.restated(order, decrement, 0);
                return true;
            }
            default ->
            {
                cancelResting(resting, SELF_TRADE_PREVENTION);
                return true;
            }
        }
    }

    private void cancelResting(final int resting, final int reason)
    {
        final long shown = orders.shown(resting);
        final long leaves = orders.leaves(resting);
        levels.remove(resting);
        orders.leaves(resting, 0);
        orders.shown(resting, 0);
        listener.canceled(resting, leaves, shown, reason);
        orders.unregister(resting);
        orders.free(resting);
    }

    /** Cancels the rest of an order that is not resting (an incoming one) and frees it. */
    private void kill(final int order, final int reason)
    {
        final long leaves = orders.leaves(order);
        orders.leaves(order, 0);
        listener.canceled(order, leaves, 0, reason);
        if (order == replacing)
        {
            orders.unregister(order);
        }
        orders.free(order);
    }

    private void rest(final int order)
    {
        orders.shown(order, showable(order));
        orders.priority(order, ++lastPriority);
        orders.register(order);
        levels.append(order);
        listener.rested(order);
    }

    private long showable(final int order)
    {
        final long peak = orders.peak(order);
        final long leaves = orders.leaves(order);
        return peak > 0 && peak < leaves ? peak : leaves;
    }
}
