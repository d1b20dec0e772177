package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.exchange.book.InstrumentSpec;

/**
 * The gateway's pre-trade risk checks and the state they need: each instrument's last trade price
 * (seeded by its reference price, then learned from fills in execution reports) and each session's
 * open orders (one account per session).
 *
 * <p>An order counts as open from when it is forwarded until its terminal execution report
 * (filled, canceled, or rejected by the engine); a replace keeps the count. The engine rejects a
 * cancel or replace with the same fields it rejects a new order with, so the orders forwarded and
 * not yet answered are remembered by client order id: only the engine's reject of one of those ends
 * an open order. An order leaves that set at its first report, an acknowledgement or a reject;
 * where the engine dropped its acknowledgement (a gateway away past the engine's backlog bound),
 * its id stays until the process ends, in the set's room for such ids (twice the open-order limit),
 * and past that room new orders go untracked (their rejects then leave the count high, never low).
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction.
 */
final class PreTradeRisk
{
    private static final short OK = 0;
    private static final short MARKET = OrdType.MARKET.value();
    private static final short LIMIT = OrdType.LIMIT.value();
    private static final short FILLED = OrdStatus.FILLED.value();
    private static final short CANCELED = OrdStatus.CANCELED.value();
    private static final short NEW_REPORT = ExecType.NEW.value();
    private static final short REJECTED_REPORT = ExecType.REJECTED.value();

    private final RiskLimits limits;
    /** By instrument id: the allowed distance of a LIMIT price from the last trade; -1 for no such instrument. */
    private final long[] bandWidth;
    private final long[] lastTrade;
    /**
     * The most ids a session's set of orders awaiting their first report holds: its table, allocated
     * at start, is 2^23 longs (64 MiB) a session at this bound.
     */
    static final int MAX_AWAITING = 1 << 22;

    private final int[] openOrders;
    private final ClientOrderIdSet[] awaitingFirstReport;
    private final int awaitingCapacity;
    private long untracked;

    PreTradeRisk(final GatewayConfig config)
    {
        this.limits = config.limits();
        int maxId = 0;
        for (final InstrumentSpec instrument : config.instruments())
        {
            maxId = Math.max(maxId, instrument.id());
        }
        this.bandWidth = new long[maxId + 1];
        this.lastTrade = new long[maxId + 1];
        java.util.Arrays.fill(bandWidth, -1);
        for (final InstrumentSpec instrument : config.instruments())
        {
            final long ticks = limits.priceBandTicks();
            // Saturate: a band wider than any price means "no band" and must not overflow.
            bandWidth[instrument.id()] = ticks > (Long.MAX_VALUE / 4) / instrument.tickSize() ?
                Long.MAX_VALUE / 4 : ticks * instrument.tickSize();
            lastTrade[instrument.id()] = config.referencePrices()[instrument.id()];
        }
        final int sessions = config.sessions().size();
        this.openOrders = new int[sessions];
        this.awaitingFirstReport = new ClientOrderIdSet[sessions];
        // At most the session's open orders wait; twice that leaves room for ids that reports lost
        // (with a connection, or past a backlog's bound) left behind.
        awaitingCapacity = (int)Math.min(2L * limits.maxOpenOrdersPerAccount(), MAX_AWAITING);
        for (int i = 0; i < sessions; i++)
        {
            // The ids are the client's, mostly numbered upward: a set with locality for them.
            awaitingFirstReport[i] = new ClientOrderIdSet(awaitingCapacity);
        }
    }

    /**
     * Checks a new order.
     *
     * @return 0 when it passes, else the {@link RejectReason} value of the first check it fails.
     */
    short checkNewOrder(final int session, final int instrumentId, final short ordType, final long price,
        final long quantity)
    {
        if (!isKnown(instrumentId))
        {
            return RejectReason.UNKNOWN_INSTRUMENT.value();
        }
        if (ordType != MARKET && ordType != LIMIT)
        {
            // The engine refuses such an order too (MALFORMED_MESSAGE, where no earlier check of its
            // fails). Refused here it is never counted open: a journal refusal of it names no order
            // type, and so could not end it.
            return RejectReason.MALFORMED_MESSAGE.value();
        }
        final boolean market = ordType == MARKET;
        final short terms = checkTerms(instrumentId, market ? lastTrade[instrumentId] : price, !market, quantity);
        if (terms != OK)
        {
            return terms;
        }
        if (openOrders[session] >= limits.maxOpenOrdersPerAccount())
        {
            return RejectReason.MAX_OPEN_ORDERS.value();
        }
        return OK;
    }

    /**
     * Checks a replace's new terms (it keeps the order open, so the open-order limit does not apply).
     *
     * @return 0 when it passes, else the {@link RejectReason} value of the first check it fails.
     */
    short checkReplace(final int instrumentId, final long price, final long quantity)
    {
        if (!isKnown(instrumentId))
        {
            return RejectReason.UNKNOWN_INSTRUMENT.value();
        }
        return checkTerms(instrumentId, price, true, quantity);
    }

    private short checkTerms(final int instrumentId, final long price, final boolean banded, final long quantity)
    {
        if (quantity > limits.maxOrderQuantity())
        {
            return RejectReason.MAX_ORDER_QUANTITY.value();
        }
        // A quantity of 0 or less is the engine's INVALID_QUANTITY; it has no notional to check.
        if (quantity > 0)
        {
            final long magnitude = price < 0 ? -price : price;
            // price x quantity > maxNotional, without the multiplication that could overflow.
            if (magnitude < 0 || magnitude > limits.maxNotional() / quantity)
            {
                return RejectReason.MAX_NOTIONAL.value();
            }
        }
        if (banded)
        {
            final long last = lastTrade[instrumentId];
            final long width = bandWidth[instrumentId];
            // Saturated: a band around a price near either end of a long reaches that end, not past it.
            final long highest = last > Long.MAX_VALUE - width ? Long.MAX_VALUE : last + width;
            final long lowest = last < Long.MIN_VALUE + width ? Long.MIN_VALUE : last - width;
            if (price > highest || price < lowest)
            {
                return RejectReason.RISK_PRICE_BAND.value();
            }
        }
        return OK;
    }

    private boolean isKnown(final int instrumentId)
    {
        return instrumentId > 0 && instrumentId < bandWidth.length && bandWidth[instrumentId] >= 0;
    }

    /** A new order is being forwarded: it is open from now. */
    void opened(final int session, final long clientOrderId)
    {
        openOrders[session]++;
        final ClientOrderIdSet awaiting = awaitingFirstReport[session];
        if (awaiting.size() < awaitingCapacity)
        {
            awaiting.add(clientOrderId);
        }
        else
        {
            // Full of ids whose reports were lost: this order's reject, should one come, does not
            // count it closed, so its session's count errs high, never low.
            untracked++;
        }
    }

    /** @return new orders not tracked to their first report, the set full of lost reports' ids. */
    long untracked()
    {
        return untracked;
    }

    /** The order counted by {@link #opened} was not sent after all. */
    void notSent(final int session, final long clientOrderId)
    {
        openOrders[session]--;
        if (!awaitingFirstReport[session].remove(clientOrderId))
        {
            untracked--; // it was counted untracked, and never went
        }
    }

    /**
     * Learns from one execution report of the session's account: the last trade of a fill, and
     * whether it ends an order. An ended order is one fewer open ({@link #orderEnded}) only where
     * this gateway process counted it, which the caller asks of its client order ids then, not for
     * every report.
     *
     * @return whether the report ends the order it names.
     */
    boolean onReport(final int session, final ExecutionReportDecoder report)
    {
        final int instrumentId = report.instrumentId();
        if (report.lastQuantity() > 0 && isKnown(instrumentId))
        {
            lastTrade[instrumentId] = report.lastPrice();
        }
        // A new order's first report is its acknowledgement (the book reports NEW before any fill)
        // or its reject: only those are looked up, not each fill and cancel of an order long acknowledged.
        final short execType = report.execTypeRaw();
        final boolean firstReport = (execType == NEW_REPORT || execType == REJECTED_REPORT) &&
            awaitingFirstReport[session].remove(report.clientOrderId());
        if (0 == report.exchangeOrderId())
        {
            // The engine refused a request; it ends an order only when it was a new order's.
            return firstReport;
        }
        final short status = report.ordStatusRaw();
        return status == FILLED || status == CANCELED;
    }

    /**
     * An order this gateway process forwarded, so counted as open, ended: not one a session left in
     * the engine before the process started.
     */
    void orderEnded(final int session)
    {
        if (openOrders[session] > 0)
        {
            openOrders[session]--;
        }
    }

    /** @return the session's open orders, as counted. */
    int openOrders(final int session)
    {
        return openOrders[session];
    }

    /** @return the instrument's last trade price (its reference price until a fill is seen). */
    long lastTrade(final int instrumentId)
    {
        return lastTrade[instrumentId];
    }
}
