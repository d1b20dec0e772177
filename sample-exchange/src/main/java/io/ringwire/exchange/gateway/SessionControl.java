package io.ringwire.exchange.gateway;

import java.security.SecureRandom;

import io.ringwire.codecs.trading.LogonDecoder;
import io.ringwire.codecs.trading.LogonRejectReason;
import io.ringwire.codecs.trading.LogonStatus;

import static io.ringwire.exchange.gateway.Gateway.LOGGED_ON;
import static io.ringwire.exchange.gateway.Gateway.LOGGED_OUT;
import static io.ringwire.exchange.gateway.Gateway.LOGON_REJECTED;
import static io.ringwire.exchange.gateway.Gateway.MAX_HEARTBEAT_INTERVAL_MS;
import static io.ringwire.exchange.gateway.Gateway.MIN_HEARTBEAT_INTERVAL_MS;
import static io.ringwire.exchange.gateway.Gateway.MISSED_HEARTBEATS_TO_LOSE;
import static io.ringwire.exchange.gateway.Gateway.UNKNOWN_SESSION;
import static io.ringwire.exchange.gateway.GatewaySessions.NONE;

/**
 * A session's life from logon to loss: a Logon is checked (the session of the identity the
 * connection proved, its token, not logged on already, a heartbeat interval the gateway allows) and
 * binds the session to its transport session, and its reply log resends from the sequence the
 * Logon asks for (from the oldest kept when that sequence is another gateway process's; the
 * LogonResponse says from where) before any newer report; a second connection of a logged-on identity is
 * refused (the first keeps the session until it logs out or is lost), never merged with it; Logout, heartbeat silence, the transport going away and an unreachable client
 * each lose it. A loss owes the engine one cancel-on-disconnect, a MassCancel of the session's
 * account, which is offered again until the engine's stream takes it, and before any request of a
 * later logon. The gateway's start owes one for every session: a session logged on when the last
 * gateway process went was lost with it, and the engine, which keeps its orders, cannot tell.
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction.
 */
final class SessionControl
{
    /**
     * Waiting reports a session is sent per logon or duty cycle: a resend of a whole log goes out
     * over many cycles, so it never holds the gateway's thread from the other sessions.
     */
    static final int REPLIES_PER_CALL = 64;

    private final GatewaySessions sessions;
    private final GatewayCounters counters;
    private final GatewaySender sender;
    private final byte[] credentials;
    /**
     * Names this process's numbering of reply sequences, which starts at 1 for every session: each
     * LogonResponse carries it and a client's Logon names the life its sequence was counted in.
     * Drawn at random, so a gateway started again never takes an earlier life's sequence for its own.
     */
    private final long replyLife;

    /**
     * @param maxCredentialsLength the longest token a Logon may carry.
     */
    SessionControl(final GatewaySessions sessions, final GatewayCounters counters, final GatewaySender sender,
        final int maxCredentialsLength)
    {
        this.sessions = sessions;
        this.counters = counters;
        this.sender = sender;
        this.credentials = new byte[maxCredentialsLength];
        this.replyLife = drawReplyLife(new SecureRandom());
    }

    /** @return a reply life: any long but 0 (no life) and the field's null value (a version-3 Logon's). */
    static long drawReplyLife(final SecureRandom random)
    {
        long life;
        do
        {
            life = random.nextLong();
        }
        while (life == 0 || life == LogonDecoder.replyLifeNullValue());
        return life;
    }

    /** @return this gateway process's reply life. */
    long replyLife()
    {
        return replyLife;
    }

    /**
     * @param transportSession the transport session the Logon came on.
     * @param boundSession     the session already logged on over that transport, or NONE.
     * @param identitySession  the session of the identity the connection proved: the only one it
     *                         may log on as, and the only one that hears the answer.
     * @return {@link Gateway#LOGGED_ON}, {@link Gateway#LOGON_REJECTED} or {@link Gateway#LOGON_UNREACHABLE}.
     */
    int onLogon(final int transportSession, final int boundSession, final int identitySession,
        final LogonDecoder request, final long nowNs)
    {
        final long sessionId = request.sessionId();
        final int intervalMs = request.heartbeatIntervalMs();
        final int session = sessions.ofSessionId(sessionId);
        if (session != identitySession)
        {
            counters.impersonations++;
            if (session == NONE)
            {
                counters.unknownSessions++;
            }
            return rejectLogon(identitySession, sessionId, LogonRejectReason.BAD_CREDENTIALS,
                "that session is not the one of the identity this connection proved", nowNs);
        }
        final int credentialsLength = request.getCredentials(credentials, 0, credentials.length);
        if (!sessions.tokenMatches(session, credentials, credentialsLength))
        {
            counters.badCredentials++;
            return rejectLogon(session, sessionId, LogonRejectReason.BAD_CREDENTIALS, "bad credentials", nowNs);
        }
        if (sessions.isLoggedOn(session) || boundSession != NONE)
        {
            counters.alreadyLoggedOn++;
            return rejectLogon(session, sessionId, LogonRejectReason.ALREADY_LOGGED_ON, "already logged on over " +
                "another connection: it keeps the session until it logs out or is lost", nowNs);
        }
        if (intervalMs < MIN_HEARTBEAT_INTERVAL_MS || intervalMs > MAX_HEARTBEAT_INTERVAL_MS)
        {
            counters.invalidHeartbeatIntervals++;
            return rejectLogon(session, sessionId, LogonRejectReason.INVALID_HEARTBEAT_INTERVAL,
                "the heartbeat interval must be 1 to 300000 ms", nowNs);
        }
        if (!sender.canReach(session))
        {
            // Its answer would be lost, and the session with it: the client asks again.
            counters.logonsUnreachable++;
            return Gateway.LOGON_UNREACHABLE;
        }
        final long replyFrom = sender.rewindReplies(session, replyFrom(session, request));
        sessions.bind(session, transportSession, intervalMs, nowNs);
        counters.logons++;
        if (sender.reply(session, sender.replies().logonResponse(sessionId, LogonStatus.ACCEPTED,
            LogonRejectReason.NONE, intervalMs, nowNs, replyFrom, replyLife, ""), nowNs))
        {
            sessions.logonAnswered(session);
        }
        sender.sendReplies(session, REPLIES_PER_CALL, nowNs);
        return LOGGED_ON;
    }

    /**
     * Where a logon's reports start, by the life the client's sequence was counted in: this life's
     * is taken as asked. Another life's asks for a numbering that starts again here, so every report
     * kept is new to the client, the start cancel's among them (which tell it what it no longer
     * has). A Logon that names no life (a client that was never answered, a version-3 client, the FIX
     * door) is taken as asked once this process has answered one of the session's logons, and from
     * the oldest kept before: a logon bound whose answer could not go leaves such a client on the
     * other numbering.
     */
    private long replyFrom(final int session, final LogonDecoder request)
    {
        final long life = request.replyLife();
        if (life == replyLife)
        {
            return request.nextReplySequence();
        }
        if (life != 0 && life != LogonDecoder.replyLifeNullValue())
        {
            counters.logonsFromAnotherLife++;
            return 1;
        }
        return sessions.isLogonAnswered(session) ? request.nextReplySequence() : 1;
    }

    private int rejectLogon(final int replyTo, final long sessionId, final LogonRejectReason reason, final String text,
        final long nowNs)
    {
        sender.reply(replyTo, sender.replies().logonResponse(sessionId, LogonStatus.REJECTED, reason, 0, nowNs, 0, 0,
            text), nowNs);
        return LOGON_REJECTED;
    }

    /**
     * @param session the session logged on over the transport the Logout came on, or NONE.
     * @return {@link Gateway#LOGGED_OUT} or {@link Gateway#UNKNOWN_SESSION}.
     */
    int onLogout(final int session, final long nowNs)
    {
        if (session == NONE)
        {
            counters.unknownSessions++;
            return UNKNOWN_SESSION;
        }
        counters.logouts++;
        sender.reply(session, sender.replies().logout(sessions.sessionId(session), nowNs), nowNs);
        lose(session, nowNs);
        return LOGGED_OUT;
    }

    /** See {@link Gateway#onTransportLost}. */
    void onTransportLost(final int transportSession, final long nowNs)
    {
        final int session = sessions.ofTransport(transportSession);
        if (session != NONE)
        {
            counters.transportLosses++;
            lose(session, nowNs);
        }
    }

    /**
     * A session's client reads too slowly: it is lost as an unreachable one is.
     *
     * @return whether it was logged on.
     */
    boolean onSlowConsumer(final int sessionIndex, final long nowNs)
    {
        if (sessions.isLoggedOn(sessionIndex))
        {
            counters.slowConsumerDisconnects++;
            lose(sessionIndex, nowNs);
            return true;
        }
        return false;
    }

    /** See {@link Gateway#onSessionUnreachable}. */
    void onSessionUnreachable(final int sessionIndex, final long nowNs)
    {
        if (sessions.isLoggedOn(sessionIndex))
        {
            counters.sessionsUnreachable++;
            lose(sessionIndex, nowNs);
        }
    }

    /** See {@link Gateway#doWork}. */
    int doWork(final long nowNs)
    {
        int work = 0;
        boolean engineRefused = false;
        for (int session = 0, count = sessions.count(); session < count; session++)
        {
            if (!engineRefused && sessions.isCancelDue(session, nowNs))
            {
                if (sendCancelOnDisconnect(session, nowNs))
                {
                    work++;
                }
                else
                {
                    // The stream is full or not yet connected: the other owed cancels wait for the next cycle.
                    engineRefused = true;
                }
            }
            if (!sessions.isLoggedOn(session))
            {
                continue;
            }
            work += sender.sendReplies(session, REPLIES_PER_CALL, nowNs);
            if (sessions.isSilent(session, nowNs, MISSED_HEARTBEATS_TO_LOSE))
            {
                counters.heartbeatTimeouts++;
                // Its client may be alive and only late (it or the network stalled): told, it logs on
                // again and asks for the replies it missed, rather than wait on answers the gateway
                // now keeps for a session it no longer holds.
                sender.reply(session, sender.replies().logout(sessions.sessionId(session), nowNs), nowNs);
                lose(session, nowNs);
                work++;
            }
            else if (sessions.isHeartbeatDue(session, nowNs))
            {
                counters.heartbeatsSent++;
                sender.reply(session, sender.replies().heartbeat(sessions.sessionId(session), nowNs), nowNs);
                work++;
            }
        }
        return work;
    }

    /** {@link #cancelOwed}: nothing owed, or the owed cancel went now: the request goes on. */
    static final int NOTHING_OWED = 0;
    /** {@link #cancelOwed}: the owed cancel waits out the journal's refusal of it: the request is rejected. */
    static final int CANCEL_WAITING = 1;
    /** {@link #cancelOwed}: the engine's stream refused the owed cancel: the request is refused as by that stream. */
    static final int CANCEL_UNSENT = 2;

    /**
     * A session that logged on again before its last loss's mass cancel reached the engine sends
     * that cancel first, so it cannot cancel the orders of the new logon.
     *
     * @param session the session a request came from, or NONE.
     * @return {@link #NOTHING_OWED}, {@link #CANCEL_WAITING} or {@link #CANCEL_UNSENT}.
     */
    int cancelOwed(final int session, final long nowNs)
    {
        if (session == NONE || !sessions.isCancelPending(session))
        {
            return NOTHING_OWED;
        }
        if (!sessions.isCancelDue(session, nowNs))
        {
            counters.requestsWhileCancelOwed++;
            return CANCEL_WAITING;
        }
        return sendCancelOnDisconnect(session, nowNs) ? NOTHING_OWED : CANCEL_UNSENT;
    }

    /** Unbinds a session and cancels its account's orders: once per loss, as only a logged-on session unbinds. */
    private void lose(final int session, final long nowNs)
    {
        if (sessions.unbind(session))
        {
            sendCancelOnDisconnect(session, nowNs);
        }
    }

    private boolean sendCancelOnDisconnect(final int session, final long nowNs)
    {
        if (sender.toEngine(sender.requests().cancelOnDisconnect(sessions.account(session), nowNs)))
        {
            // A cancel the journal refused is counted there; going again, it is not a second loss.
            if (sessions.isCancelResend(session))
            {
                counters.cancelsResent++;
            }
            else if (sessions.cancelOwed(session) == GatewaySessions.START_CANCEL)
            {
                counters.startCancels++;
            }
            else
            {
                counters.cancelOnDisconnects++;
            }
            sessions.cancelSent(session, nowNs);
            return true;
        }
        return false;
    }
}
