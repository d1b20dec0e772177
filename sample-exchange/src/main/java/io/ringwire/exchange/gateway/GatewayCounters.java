package io.ringwire.exchange.gateway;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.RejectReason;

/**
 * What the gateway counts: requests forwarded and rejected (by reason), malformed messages (by the
 * validator's code), session events, execution reports routed and dropped. Plain fields written by
 * the gateway's one thread; a reader on another thread sees them late but never torn (longs on a
 * 64-bit JVM).
 */
public final class GatewayCounters
{
    private static final int MAX_REJECT_REASON = 63;
    private static final int MAX_MALFORMED_CODE = 63;

    final long[] rejects = new long[MAX_REJECT_REASON + 1];
    final long[] malformedByCode = new long[MAX_MALFORMED_CODE + 1];
    long malformed;
    long forwarded;
    long unsupportedMessages;
    long unknownSessions;
    long unidentifiedBeforeLogon;
    long fromLeftConnections;
    long logons;
    long badCredentials;
    long alreadyLoggedOn;
    long invalidHeartbeatIntervals;
    long logouts;
    long heartbeatsSent;
    long heartbeatTimeouts;
    long transportLosses;
    long sessionsUnreachable;
    long cancelOnDisconnects;
    long startCancels;
    long cancelsRefusedByJournal;
    long cancelsResent;
    long cancelsRefusedAfterRequests;
    long clientOrderIdsReleased;
    long cancelIdsNotKept;
    long requestsWhileCancelOwed;
    long engineBackPressured;
    long sessionSendFailures;
    long routed;
    long duplicateReportsDropped;
    long reportsOfAnotherEngine;
    long reportsForGoneSessions;
    long engineMalformed;
    long engineOtherMessages;
    long unknownIdentities;
    long transportsRefused;
    long unidentifiedTransports;
    long impersonations;
    long logonsThrottled;
    long logonsUnreachable;
    long repliesThrottled;
    long logonTimeouts;
    long malformedDisconnects;
    long slowConsumerDisconnects;
    long repliesResent;
    long repliesNoLongerKept;
    long logonsFromAnotherLife;
    long repliesOverwrittenUnsent;
    long repliesTooLong;

    void countReject(final short reason)
    {
        rejects[reason & MAX_REJECT_REASON]++;
    }

    void countMalformed(final int validatorCode)
    {
        malformed++;
        malformedByCode[-validatorCode & MAX_MALFORMED_CODE]++;
    }

    /** @return requests rejected by the gateway with a reason (its {@link RejectReason} value). */
    public long rejects(final RejectReason reason)
    {
        return rejects[reason.value() & MAX_REJECT_REASON];
    }

    /** @return client messages the validator refused, by its negative code (see {@link MessageValidator}). */
    public long malformed(final int validatorCode)
    {
        return malformedByCode[-validatorCode & MAX_MALFORMED_CODE];
    }

    /** @return client messages the validator refused: never forwarded. */
    public long malformed()
    {
        return malformed;
    }

    /** @return requests (and cancel-on-disconnect mass cancels) handed to the engine. */
    public long forwarded()
    {
        return forwarded;
    }

    /** @return requests rejected UNKNOWN_INSTRUMENT. */
    public long unknownInstrument()
    {
        return rejects(RejectReason.UNKNOWN_INSTRUMENT);
    }

    /** @return requests rejected MAX_ORDER_QUANTITY. */
    public long maxOrderQuantity()
    {
        return rejects(RejectReason.MAX_ORDER_QUANTITY);
    }

    /** @return requests rejected MAX_NOTIONAL. */
    public long maxNotional()
    {
        return rejects(RejectReason.MAX_NOTIONAL);
    }

    /** @return requests rejected RISK_PRICE_BAND. */
    public long riskPriceBand()
    {
        return rejects(RejectReason.RISK_PRICE_BAND);
    }

    /** @return new orders rejected MAX_OPEN_ORDERS. */
    public long maxOpenOrders()
    {
        return rejects(RejectReason.MAX_OPEN_ORDERS);
    }

    /** @return requests rejected ACCOUNT_NOT_PERMITTED: an account other than the session's. */
    public long accountNotPermitted()
    {
        return rejects(RejectReason.ACCOUNT_NOT_PERMITTED);
    }

    /** @return requests rejected THROTTLED by the session's rate limit. */
    public long throttled()
    {
        return rejects(RejectReason.THROTTLED);
    }

    /** @return requests rejected DUPLICATE_CLIENT_ORDER_ID (resends among them). */
    public long duplicateClientOrderIds()
    {
        return rejects(RejectReason.DUPLICATE_CLIENT_ORDER_ID);
    }

    /** @return new orders and replaces rejected because the session's set of client order ids is full. */
    public long clientOrderIdCapacityExceeded()
    {
        return rejects(RejectReason.CAPACITY_EXCEEDED);
    }

    /**
     * @return cancels forwarded with their own client order id not kept, their session's set of ids
     *         being full: a session past its budget still cancels its orders.
     */
    public long cancelIdsNotKept()
    {
        return cancelIdsNotKept;
    }

    /**
     * @return requests rejected THROTTLED because their session's cancel-on-disconnect waited out the
     *         journal's refusal of it (counted among {@link #throttled()} too).
     */
    public long requestsWhileCancelOwed()
    {
        return requestsWhileCancelOwed;
    }

    /** @return requests before logon, rejected or (when no session could be identified) dropped. */
    public long notLoggedOn()
    {
        return rejects(RejectReason.NOT_LOGGED_ON);
    }

    /** @return requests before logon whose session could not be identified: dropped without a reply. */
    public long unidentifiedBeforeLogon()
    {
        return unidentifiedBeforeLogon;
    }

    /**
     * @return requests over a connection whose session is logged on over another (its client's late
     *         frames on a connection it left): dropped without a reply, which would tell the live
     *         connection's client it is not logged on.
     */
    public long fromLeftConnections()
    {
        return fromLeftConnections;
    }

    /** @return well-formed messages of a template a client may not send (e.g. EngineCommand): dropped. */
    public long unsupportedMessages()
    {
        return unsupportedMessages;
    }

    /** @return Logons (and Logouts) naming no configured session: dropped. */
    public long unknownSessions()
    {
        return unknownSessions;
    }

    /** @return Logons accepted. */
    public long logons()
    {
        return logons;
    }

    /** @return Logons rejected BAD_CREDENTIALS. */
    public long badCredentials()
    {
        return badCredentials;
    }

    /** @return Logons rejected ALREADY_LOGGED_ON. */
    public long alreadyLoggedOn()
    {
        return alreadyLoggedOn;
    }

    /** @return Logons rejected INVALID_HEARTBEAT_INTERVAL. */
    public long invalidHeartbeatIntervals()
    {
        return invalidHeartbeatIntervals;
    }

    /** @return Logouts from clients, answered. */
    public long logouts()
    {
        return logouts;
    }

    /** @return Heartbeats the gateway sent to idle sessions. */
    public long heartbeatsSent()
    {
        return heartbeatsSent;
    }

    /** @return sessions lost to silence for three heartbeat intervals. */
    public long heartbeatTimeouts()
    {
        return heartbeatTimeouts;
    }

    /** @return logged-on sessions lost with their transport (image). */
    public long transportLosses()
    {
        return transportLosses;
    }

    /** @return logged-on sessions lost because their reply publication had no subscriber. */
    public long sessionsUnreachable()
    {
        return sessionsUnreachable;
    }

    /** @return mass cancels sent to the engine for a lost session. */
    public long cancelOnDisconnects()
    {
        return cancelOnDisconnects;
    }

    /**
     * @return mass cancels sent to the engine at the gateway's start, one per session: the orders
     *         of a session the last gateway process lost with it.
     */
    public long startCancels()
    {
        return startCancels;
    }

    /**
     * @return cancels the gateway sent (a lost session's, or the start's) that the engine's journal
     *         refused, each owed again unless a request of the session followed it.
     */
    public long cancelsRefusedByJournal()
    {
        return cancelsRefusedByJournal;
    }

    /**
     * @return of {@link #cancelsRefusedByJournal()}, those not sent again because a request of the
     *         session followed them: the orders they were to cancel stay, and their client, logged on
     *         again, hears of them and may cancel them itself.
     */
    public long cancelsRefusedAfterRequests()
    {
        return cancelsRefusedAfterRequests;
    }

    /**
     * @return client order ids a session may use again because the engine's journal refused the new
     *         order or replace that took them.
     */
    public long clientOrderIdsReleased()
    {
        return clientOrderIdsReleased;
    }

    /**
     * @return cancels sent again after the journal refused them; not counted again as
     *         {@link #cancelOnDisconnects()} or {@link #startCancels()}.
     */
    public long cancelsResent()
    {
        return cancelsResent;
    }

    /** @return times the engine's stream refused a message (the request was not forwarded). */
    public long engineBackPressured()
    {
        return engineBackPressured;
    }

    /** @return messages to a client that {@link GatewayOutput#toSession} could not send. */
    public long sessionSendFailures()
    {
        return sessionSendFailures;
    }

    /** @return execution reports from the engine handed to their session. */
    public long routed()
    {
        return routed;
    }

    /** @return execution reports at or below the last engine sequence (an engine's resend): dropped. */
    public long duplicateReportsDropped()
    {
        return duplicateReportsDropped;
    }

    /**
     * @return execution reports dropped because they name an engine life other than the one this
     *         gateway serves (an engine started again on a new journal): none is routed once one was.
     */
    public long reportsOfAnotherEngine()
    {
        return reportsOfAnotherEngine;
    }

    /**
     * @return execution reports dropped for want of a session to keep them: for an account no
     *         session trades (a session away keeps its reports, in its reply log or its transport's
     *         store).
     */
    public long reportsForGoneSessions()
    {
        return reportsForGoneSessions;
    }

    /** @return messages from the engine the validator refused. */
    public long engineMalformed()
    {
        return engineMalformed;
    }

    /** @return well-formed messages from the engine that are not execution reports: ignored. */
    public long engineOtherMessages()
    {
        return engineOtherMessages;
    }

    /** @return connections whose proved identity is no configured member: disconnected. */
    public long unknownIdentities()
    {
        return unknownIdentities;
    }

    /** @return connections refused because the gateway tracks its most already. */
    public long transportsRefused()
    {
        return transportsRefused;
    }

    /** @return messages on a connection the gateway was not told of: dropped. */
    public long unidentifiedTransports()
    {
        return unidentifiedTransports;
    }

    /** @return logons naming a session of another identity: refused, answered to the asker only. */
    public long impersonations()
    {
        return impersonations;
    }

    /** @return logon attempts over a connection's logon rate: dropped unanswered. */
    public long logonsThrottled()
    {
        return logonsThrottled;
    }

    /** @return Logons left unanswered because the session's reply link was not up. */
    public long logonsUnreachable()
    {
        return logonsUnreachable;
    }

    /** @return rejects not sent because the sender was over its rate (malformed floods, pre-logon requests). */
    public long repliesThrottled()
    {
        return repliesThrottled;
    }

    /** @return connections disconnected for not logging on within the logon timeout. */
    public long logonTimeouts()
    {
        return logonTimeouts;
    }

    /** @return connections disconnected for sending malformed messages past their limit. */
    public long malformedDisconnects()
    {
        return malformedDisconnects;
    }

    /** @return sessions disconnected because their client read its replies too slowly. */
    public long slowConsumerDisconnects()
    {
        return slowConsumerDisconnects;
    }

    /** @return execution reports sent again after a logon asked for them (they were sent before it). */
    public long repliesResent()
    {
        return repliesResent;
    }

    /** @return reports a logon asked for that its session's reply log no longer kept. */
    public long repliesNoLongerKept()
    {
        return repliesNoLongerKept;
    }

    /**
     * @return logons whose reply sequence was counted in another gateway process's life: their
     *         reports started from the oldest kept.
     */
    public long logonsFromAnotherLife()
    {
        return logonsFromAnotherLife;
    }

    /** @return reports overwritten in a session's reply log before they were ever sent. */
    public long repliesOverwrittenUnsent()
    {
        return repliesOverwrittenUnsent;
    }

    /** @return reports longer than a reply log keeps: not sent. */
    public long repliesTooLong()
    {
        return repliesTooLong;
    }
}
