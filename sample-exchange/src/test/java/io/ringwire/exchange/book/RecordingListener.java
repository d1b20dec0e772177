package io.ringwire.exchange.book;

import java.util.ArrayList;
import java.util.List;

/**
 * Records what the book says, one line per event, with exchange order ids (never slots):
 * {@code accepted 1}, {@code traded 2x1 10@100 m1}, {@code rested 1 show 10@100},
 * {@code canceled 2 5 shown-3 IOC_REMAINDER}, {@code restated 1 -4 shown-4}, {@code replaced 1 keep
 * 8@100}, {@code replaced 1 back 12@101}, {@code replaced 1 crossing}.
 */
final class RecordingListener implements BookListener
{
    final List<String> events = new ArrayList<>();
    OrderStore orders;

    @Override
    public void accepted(final int order)
    {
        events.add("accepted " + orders.orderId(order));
    }

    @Override
    public void traded(final int aggressor, final int resting, final long price, final long quantity, final long matchId)
    {
        events.add("traded " + orders.orderId(aggressor) + "x" + orders.orderId(resting) + " " + quantity + "@" + price +
            " m" + matchId);
    }

    @Override
    public void rested(final int order)
    {
        events.add("rested " + orders.orderId(order) + " show " + orders.shown(order) + "@" + orders.price(order));
    }

    @Override
    public void canceled(final int order, final long canceled, final long shownRemoved, final int reason)
    {
        events.add("canceled " + orders.orderId(order) + " " + canceled + " shown-" + shownRemoved + " " + reasonName(reason));
    }

    @Override
    public void restated(final int order, final long decrement, final long shownRemoved)
    {
        events.add("restated " + orders.orderId(order) + " -" + decrement + " shown-" + shownRemoved);
    }

    @Override
    public void replaced(final int order, final boolean keepsPriority, final long shownBefore, final boolean crossing)
    {
        events.add(crossing ? "replaced " + orders.orderId(order) + " crossing" :
            "replaced " + orders.orderId(order) + (keepsPriority ? " keep " : " back ") + orders.shown(order) + "@" +
                orders.price(order));
    }

    /** @return the events so far, and forgets them. */
    List<String> take()
    {
        final List<String> taken = List.copyOf(events);
        events.clear();
        return taken;
    }

    static String reasonName(final int reason)
    {
        return switch (reason)
        {
            case OrderTerms.FOK_NOT_FILLABLE -> "FOK_NOT_FILLABLE";
            case OrderTerms.NO_LIQUIDITY -> "NO_LIQUIDITY";
            case OrderTerms.SELF_TRADE_PREVENTION -> "SELF_TRADE_PREVENTION";
            case OrderTerms.IOC_REMAINDER -> "IOC_REMAINDER";
            case OrderTerms.CLIENT_CANCEL -> "CLIENT_CANCEL";
            case OrderTerms.MASS_CANCEL -> "MASS_CANCEL";
            default -> "reason" + reason;
        };
    }
}
