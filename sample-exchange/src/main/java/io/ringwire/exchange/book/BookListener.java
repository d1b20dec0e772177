package io.ringwire.exchange.book;

/**
 * What the book tells the engine, in the order it happens, as it happens: each call names an
 * order slot whose fields ({@link OrderStore}) already show the change, so the listener reads what
 * it reports from the store. The engine turns each call into execution reports and market data;
 * tests record them.
 *
 * <p>A slot is valid only during the call: after a fill, a cancel or a kill the book may free it.
 */
public interface BookListener
{
    /**
     * A new order passed every check and was given its order id: an execution report NEW.
     *
     * @param order the order.
     */
    void accepted(int order);

    /**
     * The incoming order traded with a resting one at the resting order's price.
     *
     * @param aggressor the incoming order (its fill is already counted).
     * @param resting   the resting order (its fill is already counted).
     * @param price     the trade's price.
     * @param quantity  the trade's quantity.
     * @param matchId   the trade's id, book-wide and gap-free.
     */
    void traded(int aggressor, int resting, long price, long quantity, long matchId);

    /**
     * An order joined the back of its price level: a new order that rests, an iceberg's refill, or
     * a replaced order that rests again after trading. Market data: an order added.
     *
     * @param order the order, showing {@link OrderStore#shown(int)}.
     */
    void rested(int order);

    /**
     * An order's open quantity was canceled, all of it.
     *
     * @param order         the order (leaves already 0).
     * @param canceled      quantity canceled.
     * @param shownRemoved  quantity the book showed for it that is gone (0 when it was not resting).
     * @param reason        one of {@link OrderTerms}' reasons.
     */
    void canceled(int order, long canceled, long shownRemoved, int reason);

    /**
     * Self-trade prevention's decrement: an order's open quantity was reduced without a trade and
     * the order is still live.
     *
     * @param order        the order (leaves already reduced).
     * @param decrement    quantity taken off.
     * @param shownRemoved quantity the book showed for it that is gone (0 when it was not resting).
     */
    void restated(int order, long decrement, long shownRemoved);

    /**
     * A resting order was replaced.
     *
     * @param order         the order, with its new client order id, price and quantities.
     * @param keepsPriority true when it kept its place (same price, quantity not increased).
     * @param shownBefore   what the book showed for it before.
     * @param crossing      true when its new price crosses the other side: it left the book (market
     *                      data: shown quantity removed) and trades as an incoming order next.
     */
    void replaced(int order, boolean keepsPriority, long shownBefore, boolean crossing);
}
