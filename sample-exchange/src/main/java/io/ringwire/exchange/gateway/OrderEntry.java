package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import org.agrona.DirectBuffer;

import static io.ringwire.exchange.book.RejectReports.NULL_ENUM;
import static io.ringwire.exchange.gateway.Gateway.BACK_PRESSURED;
import static io.ringwire.exchange.gateway.Gateway.FORWARDED;
import static io.ringwire.exchange.gateway.GatewaySessions.NONE;

/**
 * A client's requests on their way to the engine: every request is checked (logged on, within its
 * session's rate, its session's account, a client order id not used before), then by its own rules
 * (pre-trade risk, room to remember one more client order id); one that passes is stamped and
 * forwarded, one that does not is rejected to its client with the reason.
 *
 * <p>Client order ids are remembered per session for the gateway's life, across logons; only ids
 * the engine was sent are remembered, so a rejected request may be corrected and sent again under
 * the same id. A request the engine's stream refuses leaves nothing behind but its rate-limit
 * token.
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction; the sets of ids are
 * sized for every id a session may use.
 */
final class OrderEntry
{
    private static final short NOT_LOGGED_ON = RejectReason.NOT_LOGGED_ON.value();
    private static final short DUPLICATE = RejectReason.DUPLICATE_CLIENT_ORDER_ID.value();

    private final GatewaySessions sessions;
    private final RateLimiter rateLimiter;
    private final PreTradeRisk risk;
    private final SessionControl sessionControl;
    private final GatewayCounters counters;
    private final GatewaySender sender;
    private final ClientOrderIdSet[] clientOrderIds;
    /** The new orders and replaces this process forwarded: whose journal refusals free their ids. */
    private final RecentForwards recentForwards = new RecentForwards();
    private final int maxClientOrderIds;
    /**
     * Where a reject of the current request goes when it came before logon: the session of the
     * identity its connection proved, {@link #THROTTLED} when that connection is over its rate of
     * such answers, {@link #LEFT_CONNECTION} when that session is logged on over another
     * connection, NONE when it proved no member's identity. Set by the gateway per request.
     */
    private int replyBeforeLogon = NONE;

    /** {@link #replyBeforeLogon}: the connection is over its rate; the reject is not sent. */
    static final int THROTTLED = -2;
    /**
     * {@link #replyBeforeLogon}: the identity's session is logged on over another connection, so
     * this one's request is a late frame of a connection its client left; the reject is not sent
     * (its NOT_LOGGED_ON would reach the live connection's client).
     */
    static final int LEFT_CONNECTION = -3;

    OrderEntry(final GatewaySessions sessions, final RateLimiter rateLimiter, final PreTradeRisk risk,
        final SessionControl sessionControl, final GatewayCounters counters, final GatewaySender sender,
        final int maxClientOrderIds)
    {
        this.sessions = sessions;
        this.rateLimiter = rateLimiter;
        this.risk = risk;
        this.sessionControl = sessionControl;
        this.counters = counters;
        this.sender = sender;
        this.maxClientOrderIds = maxClientOrderIds;
        this.clientOrderIds = new ClientOrderIdSet[sessions.count()];
        for (int i = 0; i < clientOrderIds.length; i++)
        {
            // Sized once for every id the session may use, so adding never resizes (allocates).
            clientOrderIds[i] = new ClientOrderIdSet(maxClientOrderIds);
        }
    }

    /**
     * @param replyTo where a reject of the next request goes if it came before logon: the session
     *                of the identity its connection proved, {@link #THROTTLED} or NONE.
     */
    void replyBeforeLogon(final int replyTo)
    {
        replyBeforeLogon = replyTo;
    }

    /**
     * Each request's handler takes the session it came from (NONE before logon), its decoder wrapped
     * over the message's body, and the whole message (from {@code offset}, with the block length of
     * its header) to copy and stamp.
     *
     * @return {@link Gateway#FORWARDED}, {@link Gateway#BACK_PRESSURED} or {@code -(RejectReason value)}.
     */
    int onNewOrder(final int session, final NewOrderDecoder request, final DirectBuffer buffer, final int offset,
        final int blockLength, final long nowNs)
    {
        final int owed = sessionControl.cancelOwed(session, nowNs);
        if (owed == SessionControl.CANCEL_UNSENT)
        {
            return BACK_PRESSURED;
        }
        final long clientOrderId = request.clientOrderId();
        final long account = request.account();
        final int instrumentId = request.instrumentId();
        final short ordType = request.ordTypeRaw();
        final long price = request.price();
        final long quantity = request.quantity();
        short reason = admit(session, account, clientOrderId, owed, nowNs);
        if (0 == reason)
        {
            reason = risk.checkNewOrder(session, instrumentId, ordType, price, quantity);
        }
        if (0 == reason)
        {
            reason = roomForClientOrderId(session);
        }
        if (0 != reason)
        {
            return reject(session, reason, clientOrderId, account, instrumentId, request.sideRaw(), ordType,
                request.timeInForceRaw(), price, quantity, request.sendingTime(), nowNs);
        }
        final int length = sender.requests().newOrder(buffer, offset, blockLength, request.actingVersion(), nowNs,
            sender.sendTime(nowNs));
        risk.opened(session, clientOrderId);
        if (FORWARDED != forwardWithId(session, clientOrderId, length, nowNs))
        {
            risk.notSent(session, clientOrderId);
            return BACK_PRESSURED;
        }
        return FORWARDED;
    }

    /** As {@link #onNewOrder}. */
    int onCancel(final int session, final CancelOrderDecoder request, final DirectBuffer buffer, final int offset,
        final int blockLength, final long nowNs)
    {
        final int owed = sessionControl.cancelOwed(session, nowNs);
        if (owed == SessionControl.CANCEL_UNSENT)
        {
            return BACK_PRESSURED;
        }
        final long clientOrderId = request.clientOrderId();
        final short reason = admit(session, request.account(), clientOrderId, owed, nowNs);
        if (0 != reason)
        {
            return reject(session, reason, clientOrderId, request.account(), request.instrumentId(), request.sideRaw(),
                NULL_ENUM, NULL_ENUM, 0, 0, request.sendingTime(), nowNs);
        }
        final int length = sender.requests().cancelOrder(buffer, offset, blockLength, nowNs, sender.sendTime(nowNs));
        // A session past its budget of ids still pulls its orders: the cancel goes, its own id not
        // kept (a resend of it is at worst an UNKNOWN_ORDER from the engine, and names no order).
        return forward(session, clientOrderId, 0 == roomForClientOrderId(session), length, nowNs);
    }

    /** As {@link #onNewOrder}. */
    int onReplace(final int session, final ReplaceOrderDecoder request, final DirectBuffer buffer, final int offset,
        final int blockLength, final long nowNs)
    {
        final int owed = sessionControl.cancelOwed(session, nowNs);
        if (owed == SessionControl.CANCEL_UNSENT)
        {
            return BACK_PRESSURED;
        }
        final long clientOrderId = request.clientOrderId();
        final int instrumentId = request.instrumentId();
        final long price = request.price();
        final long quantity = request.quantity();
        short reason = admit(session, request.account(), clientOrderId, owed, nowNs);
        if (0 == reason)
        {
            reason = risk.checkReplace(instrumentId, price, quantity);
        }
        if (0 == reason)
        {
            reason = roomForClientOrderId(session);
        }
        if (0 != reason)
        {
            return reject(session, reason, clientOrderId, request.account(), instrumentId, request.sideRaw(),
                OrdType.LIMIT.value(), NULL_ENUM, price, quantity, request.sendingTime(), nowNs);
        }
        return forwardWithId(session, clientOrderId,
            sender.requests().replaceOrder(buffer, offset, blockLength, nowNs, sender.sendTime(nowNs)), nowNs);
    }

    /** As {@link #onNewOrder}. */
    int onMassCancel(final int session, final MassCancelDecoder request, final DirectBuffer buffer, final int offset,
        final int blockLength, final long nowNs)
    {
        final int owed = sessionControl.cancelOwed(session, nowNs);
        if (owed == SessionControl.CANCEL_UNSENT)
        {
            return BACK_PRESSURED;
        }
        final short reason = admit(session, request.account(), request.clientOrderId(), owed, nowNs);
        // A mass cancel's id names no order: it is neither checked for duplicates nor remembered.
        if (0 != reason && DUPLICATE != reason)
        {
            return reject(session, reason, request.clientOrderId(), request.account(), request.instrumentId(),
                NULL_ENUM, NULL_ENUM, NULL_ENUM, 0, 0, request.sendingTime(), nowNs);
        }
        if (!sender.toEngine(sender.requests().massCancel(buffer, offset, blockLength, nowNs)))
        {
            return BACK_PRESSURED;
        }
        sessions.requestForwarded(session);
        return FORWARDED;
    }

    /**
     * The checks every request takes before its own: logged on, no cancel-on-disconnect owed, within
     * its rate, its session's account, a client order id not used before (the last, so a mass cancel
     * can ignore it).
     *
     * @param owed what {@link SessionControl#cancelOwed} said for the session.
     * @return 0 or the reject reason.
     */
    private short admit(final int session, final long account, final long clientOrderId, final int owed,
        final long nowNs)
    {
        if (session == NONE)
        {
            return NOT_LOGGED_ON;
        }
        if (owed == SessionControl.CANCEL_WAITING)
        {
            // The session's last loss's cancel waits out the journal's refusal of it; no request of
            // the new logon may overtake it, and the client hears so rather than nothing.
            return RejectReason.THROTTLED.value();
        }
        if (!rateLimiter.tryAcquire(session, nowNs))
        {
            return RejectReason.THROTTLED.value();
        }
        if (account != sessions.account(session))
        {
            return RejectReason.ACCOUNT_NOT_PERMITTED.value();
        }
        if (clientOrderIds[session].contains(clientOrderId))
        {
            return DUPLICATE;
        }
        return 0;
    }

    /**
     * @return whether a request of this gateway process used the client order id: false for the
     *         orders a session left in the engine before this process started (its start cancel
     *         ends them, and they were never counted here).
     */
    boolean usedClientOrderId(final int session, final long clientOrderId)
    {
        return clientOrderIds[session].contains(clientOrderId);
    }

    /**
     * Lets the session use a client order id again: the engine's journal refused the new order or
     * replace that took it, so it names no order, and the client may send that request again as it
     * was. Not for a request an earlier gateway process forwarded: this one may have forwarded the
     * client's resend of it, which the refusal does not undo.
     *
     * @param receivedNs the receive time the refused request carried (its reject's gateway-in time).
     * @return whether this process forwarded the request; its id is then let go.
     */
    boolean releaseClientOrderId(final int session, final long clientOrderId, final long receivedNs)
    {
        if (!recentForwards.forget(session, clientOrderId, receivedNs))
        {
            return false;
        }
        clientOrderIds[session].remove(clientOrderId);
        return true;
    }

    private short roomForClientOrderId(final int session)
    {
        return clientOrderIds[session].size() >= maxClientOrderIds ? RejectReason.CAPACITY_EXCEEDED.value() : 0;
    }

    /**
     * Rejects a request: to its session when one is logged on over this transport; before logon, to
     * the session of the identity the connection proved, and only within its rate of such answers:
     * never to the session a request names, so no one can make the gateway write to another client.
     */
    private int reject(final int session, final short reason, final long clientOrderId, final long account,
        final int instrumentId, final short side, final short ordType, final short timeInForce, final long price,
        final long quantity, final long clientSendTime, final long nowNs)
    {
        counters.countReject(reason);
        int replyTo = session;
        if (session == NONE)
        {
            if (replyBeforeLogon == THROTTLED)
            {
                counters.repliesThrottled++;
                return -reason;
            }
            if (replyBeforeLogon == LEFT_CONNECTION)
            {
                counters.fromLeftConnections++;
                return -reason;
            }
            if (replyBeforeLogon == NONE)
            {
                counters.unidentifiedBeforeLogon++;
                return -reason;
            }
            replyTo = replyBeforeLogon;
        }
        final int length = sender.replies().reject(clientOrderId, account, instrumentId, side, ordType, timeInForce,
            price, quantity, clientSendTime, reason, nowNs, sender.sendTime(nowNs));
        sender.replyReport(replyTo, length, nowNs);
        return -reason;
    }

    /** Forwards a new order or a replace, whose id a journal refusal may free. */
    private int forwardWithId(final int session, final long clientOrderId, final int length, final long nowNs)
    {
        final int outcome = forward(session, clientOrderId, true, length, nowNs);
        if (FORWARDED == outcome)
        {
            recentForwards.record(session, clientOrderId, nowNs);
        }
        return outcome;
    }

    /** @param keepId whether the session's id is kept (false: a cancel past the session's budget of ids). */
    private int forward(final int session, final long clientOrderId, final boolean keepId, final int length,
        final long nowNs)
    {
        if (keepId)
        {
            clientOrderIds[session].add(clientOrderId);
        }
        if (!sender.toEngine(length))
        {
            if (keepId)
            {
                clientOrderIds[session].remove(clientOrderId);
            }
            return BACK_PRESSURED;
        }
        if (!keepId)
        {
            counters.cancelIdsNotKept++;
        }
        sessions.requestForwarded(session);
        return FORWARDED;
    }
}
