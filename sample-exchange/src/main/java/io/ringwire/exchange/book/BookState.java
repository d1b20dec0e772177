package io.ringwire.exchange.book;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import static io.ringwire.exchange.book.OrderStore.NONE;
import static io.ringwire.exchange.book.OrderTerms.BUY;
import static io.ringwire.exchange.book.OrderTerms.SELL;

/**
 * The books' resting orders taken out for a snapshot, and put back: control path only, so plain
 * collections and sorting, which the request path never uses.
 */
final class BookState
{
    private BookState()
    {
    }

    /**
     * @return every resting order, instrument by instrument, bids then asks, best price first,
     *         oldest first. Control path: allocates.
     */
    static List<RestingOrder> resting(final int instrumentCount, final OrderStore orders, final PriceLevels levels)
    {
        final List<RestingOrder> list = new ArrayList<>(orders.live());
        for (int instrument = 0; instrument < instrumentCount; instrument++)
        {
            for (final byte side : new byte[] { BUY, SELL })
            {
                for (int slot = levels.best(instrument, side); slot != NONE; slot = levels.nextAway(instrument, side, slot))
                {
                    for (int order = levels.head(slot); order != NONE; order = orders.levelNext(order))
                    {
                        list.add(new RestingOrder(orders.orderId(order), orders.clientOrderId(order),
                            orders.account(order), orders.instrument(order), orders.side(order), orders.ordType(order),
                            orders.timeInForce(order), orders.selfTradePrevention(order), orders.postOnly(order),
                            orders.price(order), orders.quantity(order), orders.leaves(order), orders.shown(order),
                            orders.peak(order), orders.filled(order), orders.priority(order)));
                    }
                }
            }
        }
        return list;
    }

    /**
     * Fills empty books from a snapshot: each order registered in order id order (its account's list
     * keeps that order) and queued at its level in time priority order, so the books behave from
     * here exactly as the ones the snapshot was taken of. Control path: allocates.
     *
     * @throws IllegalStateException when the books are not empty or the snapshot does not fit them.
     */
    static void restore(final List<RestingOrder> resting, final InstrumentRules[] instruments, final OrderStore orders,
        final PriceLevels levels)
    {
        if (orders.live() != 0)
        {
            throw new IllegalStateException("restore needs empty books");
        }
        final List<RestingOrder> byId = new ArrayList<>(resting);
        byId.sort(Comparator.comparingLong(RestingOrder::orderId));
        final int[] slots = new int[byId.size()];
        final long[] priorities = new long[byId.size()];
        for (int i = 0; i < byId.size(); i++)
        {
            final RestingOrder r = byId.get(i);
            if (r.instrumentId() < 1 || r.instrumentId() > instruments.length ||
                OrderChecks.checkPrice(instruments[r.instrumentId() - 1], r.price()) != 0)
            {
                throw new IllegalStateException("the snapshot's order " + r.orderId() + " does not fit these instruments");
            }
            final int order = orders.allocate();
            if (order == NONE || !orders.accountHasRoom(r.account()))
            {
                throw new IllegalStateException("the snapshot holds more orders or accounts than these books");
            }
            orders.terms(order, r.orderId(), r.clientOrderId(), r.account(), r.instrumentId(), r.side(), r.ordType(),
                r.timeInForce(), r.selfTradePrevention(), r.postOnly(), r.price(), r.quantity(), r.peak());
            orders.leaves(order, r.leaves());
            orders.shown(order, r.shown());
            orders.filled(order, r.filled());
            orders.priority(order, r.priority());
            orders.slot(order, levels.slotOf(r.instrumentId() - 1, r.price()));
            orders.register(order);
            slots[i] = order;
            priorities[i] = r.priority();
        }
        final Integer[] byPriority = new Integer[slots.length];
        for (int i = 0; i < slots.length; i++)
        {
            byPriority[i] = i;
        }
        Arrays.sort(byPriority, Comparator.comparingLong(i -> priorities[i]));
        for (final Integer i : byPriority)
        {
            levels.append(slots[i]);
        }
    }

}
