package io.ringwire.exchange.fix;

import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.TimeInForce;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * One FIX session's orders as the door sees them: FIX ClOrdIDs are text, the exchange's client
 * order ids numbers, so each ClOrdID gets a number the first time it is seen and keeps it for the
 * door's life. A ClOrdID sent again is refused here as a duplicate, answered as what the new
 * request is (not as what the ClOrdID was first used for), unless the exchange rejected its
 * request ({@link #forget}); a session has as many ClOrdIDs as the gateway gives it client order
 * ids, each at most {@link #MAX_CLORDID_LENGTH} characters, so the maps stay bounded (past them it
 * still cancels, each cancel kept only until answered). Numbers start from the door's
 * start time in milliseconds times 2^20 ({@link #firstIdAt}): a door cannot give out 2^20 numbers a
 * millisecond, so a restarted door never gives a number an earlier one gave (an order still resting
 * in the engine under it keeps its own), as long as the clock does not step back. What each number was sent as (an order, a cancel, a replace, a
 * mass cancel) and the order a cancel or replace named tell the reports apart: a refused cancel is
 * an OrderCancelReject, a cancel's report carries the cancel's ClOrdID and the order's as
 * OrigClOrdID. A member may send a cancel again before the first is answered: an order keeps its
 * open cancels in the order they came, and its CANCELED report answers the oldest (the one the
 * exchange took first, as a session's requests reach it in order); each later one meets the order
 * gone and is answered with an OrderCancelReject of its own. The traded notional per exchange order
 * gives AvgPx (6). The OrdStatus (39) of the
 * last report each order had is kept, for the OrderCancelReject that names the order: a cancel
 * refused because the order has filled answers 2 (filled), not 0 (new).
 *
 * <p>Threading: the door's inbound side (QuickFIX/J's thread) names requests, its sender thread
 * reads them back for the reports; every method holds the object's lock, uncontended but for the
 * moments the two overlap. Allocates: a map entry per ClOrdID.
 */
final class FixOrders
{
    /** What a client order id was sent as. */
    enum Kind
    {
        ORDER, CANCEL, REPLACE, MASS_CANCEL
    }

    /**
     * An order's terms that a replace keeps: the exchange's ReplaceOrder changes price and quantity
     * only, so a replace that says otherwise is refused rather than taken with the old terms.
     *
     * @param timeInForce         TimeInForce (59), absent read as the door reads it for an order.
     * @param postOnly            ExecInst (18) 6.
     * @param selfTradePrevention tag 7928, absent read as the engine's default (cancel the resting order).
     * @param displayQuantity     MaxFloor (111), 0 when absent.
     */
    record Terms(TimeInForce timeInForce, boolean postOnly, SelfTradePrevention selfTradePrevention,
        long displayQuantity)
    {
    }

    /**
     * @param originalClOrdId the ClOrdID of the order a cancel or replace named, kept with it.
     * @param unbudgeted      a cancel or mass cancel sent past the session's ClOrdIDs: kept only until
     *                        answered (a mass cancel, among the last few), never checked as a duplicate.
     * @param terms           an order's terms, a replace's those of the order it replaced; else null.
     */
    private record Sent(String clOrdId, Kind kind, long originalId, String originalClOrdId, boolean unbudgeted,
        Terms terms)
    {
    }

    /** {@link #idFor}: the ClOrdID was used before in this session. */
    static final long DUPLICATE = -1;
    /** {@link #idFor}: the session has used as many ClOrdIDs as it may. */
    static final long FULL = -2;
    /** {@link #idFor}: the ClOrdID is longer than {@link #MAX_CLORDID_LENGTH}. */
    static final long TOO_LONG = -3;
    /**
     * The longest ClOrdID the door takes, in characters: it keeps each for the door's life, so a
     * member's ClOrdIDs are bounded in size as well as in number.
     */
    static final int MAX_CLORDID_LENGTH = 64;
    /**
     * Forwarded mass cancels sent past the session's ClOrdIDs kept at once: nothing says when the
     * engine has taken one (the door answers it at the gateway's forwarding), and its journal's
     * refusal, the one later answer, comes within moments, so the oldest goes when more are forwarded.
     */
    static final int UNBUDGETED_MASS_CANCELS = 64;
    /** Mass cancels sent past the session's ClOrdIDs kept at once until forwarded or rejected. */
    static final int UNBUDGETED_MASS_CANCELS_PENDING = 1024;

    private final Map<String, Long> idsByClOrdId = new HashMap<>();
    private final Map<Long, Sent> sentById = new HashMap<>();
    /** An order's client order id to the open cancel requests that name it, oldest first. */
    private final Map<Long, ArrayDeque<Long>> cancelsByOrder = new HashMap<>();
    /** An order's client order id to the OrdStatus (39) of its last report. */
    private final Map<Long, Character> statusByOrder = new HashMap<>();
    /** Exchange order id to {traded quantity, traded notional}. */
    private final Map<Long, long[]> tradedByOrder = new HashMap<>();
    /** Forwarded mass cancels sent past the session's ClOrdIDs, oldest first ({@link #UNBUDGETED_MASS_CANCELS}). */
    private final ArrayDeque<Long> unbudgetedMassCancels = new ArrayDeque<>();
    /**
     * Mass cancels sent past the session's ClOrdIDs and not yet forwarded or rejected, oldest first:
     * at most {@link #UNBUDGETED_MASS_CANCELS_PENDING}, since an answer the door never hears (a
     * forwarding record its full queue dropped) would otherwise keep one for the door's life.
     */
    private final LinkedHashSet<Long> pendingMassCancels = new LinkedHashSet<>();
    private final int capacity;
    private long nextId;

    /**
     * @param firstId  the first number given ({@link #firstIdAt} the door's start), at least 1.
     * @param capacity ClOrdIDs the session may use in the door's life: the gateway's client order
     *                 ids per session.
     */
    FixOrders(final long firstId, final int capacity)
    {
        if (firstId < 1 || capacity < 1)
        {
            throw new IllegalArgumentException("first id and capacity must be positive: " + firstId + ", " + capacity);
        }
        this.nextId = firstId;
        this.capacity = capacity;
    }

    /** @return the first number a door started at {@code epochMillis} gives. */
    static long firstIdAt(final long epochMillis)
    {
        return Math.max(1, epochMillis << 20);
    }

    /**
     * @param clOrdId    the request's ClOrdID (11).
     * @param kind       what it is.
     * @param originalId the client order id of the order it names (cancel, replace), else 0.
     * @return the new number the exchange knows the ClOrdID by, {@link #DUPLICATE} for a ClOrdID
     *         used before, {@link #TOO_LONG}, or {@link #FULL} when the session has used its
     *         ClOrdIDs and the request is an order or a replace. A session past its ClOrdIDs still
     *         pulls its orders, as at the gateway: a cancel then gets a number kept only until its
     *         answer ({@link #answered}), a mass cancel one kept until forwarded (among the last
     *         {@link #UNBUDGETED_MASS_CANCELS_PENDING} sent) and then among the last
     *         {@link #UNBUDGETED_MASS_CANCELS} ({@link #massCancelForwarded}), their ClOrdIDs not
     *         checked as duplicates.
     */
    synchronized long idFor(final String clOrdId, final Kind kind, final long originalId)
    {
        return idFor(clOrdId, kind, originalId, null);
    }

    /**
     * {@link #idFor(String, Kind, long)} for an order, which keeps its terms for the replaces that name it.
     *
     * @param terms the order's terms (a replace's come from the order it names).
     */
    synchronized long idFor(final String clOrdId, final Kind kind, final long originalId, final Terms terms)
    {
        if (clOrdId.length() > MAX_CLORDID_LENGTH)
        {
            return TOO_LONG;
        }
        if (idsByClOrdId.containsKey(clOrdId))
        {
            return DUPLICATE;
        }
        final boolean unbudgeted = idsByClOrdId.size() >= capacity;
        if (unbudgeted && kind != Kind.CANCEL && kind != Kind.MASS_CANCEL)
        {
            return FULL;
        }
        final long id = nextId++;
        if (!unbudgeted)
        {
            idsByClOrdId.put(clOrdId, id);
        }
        final Sent original = originalId == 0 ? null : sentById.get(originalId);
        sentById.put(id, new Sent(clOrdId, kind, originalId, null == original ? null : original.clOrdId(),
            unbudgeted, kind == Kind.REPLACE ? (null == original ? null : original.terms()) : terms));
        if (kind == Kind.CANCEL)
        {
            cancelsByOrder.computeIfAbsent(originalId, order -> new ArrayDeque<>(1)).addLast(id);
        }
        else if (unbudgeted)
        {
            pendingMassCancels.add(id);
            if (pendingMassCancels.size() > UNBUDGETED_MASS_CANCELS_PENDING)
            {
                final Long oldest = pendingMassCancels.iterator().next();
                pendingMassCancels.remove(oldest);
                sentById.remove(oldest);
            }
        }
        return id;
    }

    /** @return ClOrdIDs this session may use in the door's life. */
    int capacity()
    {
        return capacity;
    }

    /** @return the number of a ClOrdID sent before, or 0 when it never was. */
    synchronized long existingId(final String clOrdId)
    {
        final Long known = idsByClOrdId.get(clOrdId);
        return null == known ? 0 : known;
    }

    /** @return the ClOrdID a number stands for, or null for a number the door never gave. */
    synchronized String clOrdId(final long id)
    {
        final Sent sent = sentById.get(id);
        return null == sent ? null : sent.clOrdId();
    }

    /** @return what the number was sent as, or null for one the door never gave. */
    synchronized Kind kind(final long id)
    {
        final Sent sent = sentById.get(id);
        return null == sent ? null : sent.kind();
    }

    /**
     * @return the ClOrdID of the order a cancel or replace named, as it was when the request came
     *         (the order may be forgotten since), or null.
     */
    synchronized String originalClOrdId(final long id)
    {
        final Sent sent = sentById.get(id);
        return null == sent ? null : sent.originalClOrdId();
    }

    /**
     * @return the terms of an order, or of a replace (the order's it replaced); null for another
     *         request or a number the door does not know.
     */
    synchronized Terms terms(final long id)
    {
        final Sent sent = sentById.get(id);
        return null == sent ? null : sent.terms();
    }

    /** @return the order a cancel or replace named, or 0. */
    synchronized long originalId(final long id)
    {
        final Sent sent = sentById.get(id);
        return null == sent ? 0 : sent.originalId();
    }

    /**
     * @param orderId an order's client order id, as its CANCELED report carries it.
     * @return the oldest open cancel request that names it (no longer open: the order is gone), or
     *         0 when none does.
     */
    synchronized long takeCancel(final long orderId)
    {
        final ArrayDeque<Long> cancels = cancelsByOrder.get(orderId);
        if (null == cancels)
        {
            return 0;
        }
        final long cancel = cancels.removeFirst();
        if (cancels.isEmpty())
        {
            cancelsByOrder.remove(orderId);
        }
        return cancel;
    }

    /**
     * The gateway forwarded a mass cancel (the door answers it as accepted). One sent past the
     * session's ClOrdIDs is kept for a refusal from the engine's journal among the last
     * {@link #UNBUDGETED_MASS_CANCELS} forwarded, then forgotten; until forwarded, among the last
     * {@link #UNBUDGETED_MASS_CANCELS_PENDING} sent.
     *
     * @param id the mass cancel's number.
     */
    synchronized void massCancelForwarded(final long id)
    {
        final Sent sent = sentById.get(id);
        if (null != sent && sent.unbudgeted() && pendingMassCancels.remove(id))
        {
            unbudgetedMassCancels.addLast(id);
            if (unbudgetedMassCancels.size() > UNBUDGETED_MASS_CANCELS)
            {
                sentById.remove(unbudgetedMassCancels.removeFirst());
            }
        }
    }

    /**
     * A cancel has had its answer (its order's CANCELED report): one sent past the session's
     * ClOrdIDs is forgotten, so those stay bounded by what is open.
     *
     * @param id the request's number.
     */
    synchronized void answered(final long id)
    {
        final Sent sent = sentById.get(id);
        if (null != sent && sent.unbudgeted())
        {
            sentById.remove(id);
        }
    }

    /**
     * Forgets a request the exchange rejected: its ClOrdID may be used again (it gets a new number
     * then) and no longer counts against the session's ClOrdIDs.
     *
     * @param id the rejected request's number.
     */
    synchronized void forget(final long id)
    {
        final Sent sent = sentById.remove(id);
        statusByOrder.remove(id);
        pendingMassCancels.remove(id);
        if (null != sent)
        {
            idsByClOrdId.remove(sent.clOrdId(), id);
            if (sent.kind() == Kind.CANCEL)
            {
                closeCancel(sent.originalId(), id);
            }
        }
    }

    /**
     * @param id       an order's client order id, as its reports carry it.
     * @param ordStatus the OrdStatus (39) its latest report gave it.
     */
    synchronized void statusReported(final long id, final char ordStatus)
    {
        if (sentById.containsKey(id))
        {
            statusByOrder.put(id, ordStatus);
        }
    }

    /**
     * @param id      an order's client order id, or 0.
     * @param unknown what to answer for an order no report has named yet.
     * @return the OrdStatus (39) of the order's last report, else {@code unknown}.
     */
    synchronized char status(final long id, final char unknown)
    {
        final Character status = statusByOrder.get(id);
        return null == status ? unknown : status;
    }

    /** A refused cancel no longer stands for its order. */
    synchronized void cancelRefused(final long cancelId)
    {
        closeCancel(originalId(cancelId), cancelId);
    }

    private void closeCancel(final long orderId, final long cancelId)
    {
        final ArrayDeque<Long> cancels = cancelsByOrder.get(orderId);
        if (null != cancels && cancels.remove(cancelId) && cancels.isEmpty())
        {
            cancelsByOrder.remove(orderId);
        }
    }

    /**
     * Adds a fill to the exchange order's traded notional.
     *
     * @return the average price of everything it traded, in price units.
     */
    synchronized double averagePrice(final long exchangeOrderId, final long lastPrice, final long lastQuantity, final boolean done)
    {
        final long[] traded = lastQuantity > 0 || !done ?
            tradedByOrder.computeIfAbsent(exchangeOrderId, key -> new long[2]) : tradedByOrder.get(exchangeOrderId);
        if (null == traded)
        {
            return 0;
        }
        traded[0] += lastQuantity;
        traded[1] += lastPrice * lastQuantity;
        final double average = traded[0] == 0 ? 0 : (double)traded[1] / traded[0];
        if (done)
        {
            tradedByOrder.remove(exchangeOrderId);
        }
        return average;
    }
}
