package io.ringwire.exchange.gateway;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.HeartbeatDecoder;
import io.ringwire.codecs.trading.LogonDecoder;
import io.ringwire.codecs.trading.LogonRejectReason;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import org.agrona.DirectBuffer;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

import static io.ringwire.exchange.gateway.GatewaySessions.NONE;

/**
 * The exchange gateway's logic, without transport or threads: it logs clients on, checks every
 * request (well-formed, logged on, rate, account, duplicate client order id, pre-trade risk),
 * stamps and forwards the ones that pass to the matching engine, rejects the rest itself, routes
 * the engine's execution reports back to their session, and cancels a lost session's orders
 * (cancel-on-disconnect, as CME iLink 3 does).
 *
 * <p>Sessions: a transport session (the messaging image the bytes came on; many clients share one
 * subscription) is bound to a configured session by an accepted Logon and unbound by Logout,
 * heartbeat timeout, {@link #onTransportLost} or {@link #onSessionUnreachable}. Each unbinding sends
 * the engine one MassCancel of the session's account on every instrument; if the engine's stream
 * refuses it, {@link #doWork} offers it again until it goes.
 *
 * <p>Client order ids are remembered per session for the gateway's life, across logons, so a
 * client that resends after a reconnect gets DUPLICATE_CLIENT_ORDER_ID instead of a second order.
 * Only ids the engine was sent are remembered: a request the gateway rejected may be corrected and
 * sent again under the same id.
 *
 * <p>Clocks: {@code nowNs} (epoch nanoseconds) is the time a call starts; it stamps
 * {@code receiveTime}, the engine's only clock. {@code gatewaySendTime} on requests and
 * {@code gatewayReplyTime} on replies come from the {@link EpochNanoClock} given at construction,
 * read just before sending, or are {@code nowNs} when there is none (deterministic tests).
 *
 * <p>Threading: one thread. {@link #onClientMessage} for requests and {@link #onEngineMessage}
 * allocate nothing and throw nothing in steady state; every refusal is a return code and a counter.
 */
public final class Gateway
{
    /** {@link #onClientMessage}: the request passed every check and went to the engine. */
    public static final int FORWARDED = 1;
    /** {@link #onClientMessage}: a Logon was accepted. */
    public static final int LOGGED_ON = 2;
    /** {@link #onClientMessage}: a Heartbeat from a logged-on session. */
    public static final int HEARTBEAT = 3;
    /** {@link #onClientMessage}: a Logout was answered and the session's orders canceled. */
    public static final int LOGGED_OUT = 4;
    /** {@link #onClientMessage}: a Logon was answered with a rejecting LogonResponse. */
    public static final int LOGON_REJECTED = -101;
    /** {@link #onClientMessage}: a Logon (or Logout) named no configured session: dropped. */
    public static final int UNKNOWN_SESSION = -102;
    /** {@link #onClientMessage}: a well-formed message a client may not send, or a Heartbeat before logon: dropped. */
    public static final int UNSUPPORTED = -103;
    /**
     * {@link #onClientMessage}: the engine's stream refused the request; nothing was recorded for it
     * (but its rate-limit token), so it may be offered again.
     */
    public static final int BACK_PRESSURED = -104;
    /**
     * {@link #onClientMessage}: values from -1 down to this one are {@code -(RejectReason value)}:
     * the request was rejected with that reason (a reject went to the session when it could be identified).
     */
    public static final int MOST_NEGATIVE_REJECT = -63;

    /** Heartbeat intervals a client may ask for, in milliseconds. */
    public static final int MIN_HEARTBEAT_INTERVAL_MS = 1;
    /** Heartbeat intervals a client may ask for, in milliseconds. */
    public static final int MAX_HEARTBEAT_INTERVAL_MS = 300_000;
    /** Heartbeat intervals of silence from a client after which its session is lost. */
    public static final int MISSED_HEARTBEATS_TO_LOSE = 3;

    private static final int HEADER_LENGTH = MessageHeaderDecoder.ENCODED_LENGTH;
    private static final short MALFORMED = RejectReason.MALFORMED_MESSAGE.value();
    private static final short NOT_LOGGED_ON = RejectReason.NOT_LOGGED_ON.value();
    private static final short DUPLICATE = RejectReason.DUPLICATE_CLIENT_ORDER_ID.value();
    private static final short NULL_ENUM = 255;
    private static final long NULL_TIME = ExecutionReportEncoder.clientSendTimeNullValue();
    private static final int REPLY_CAPACITY = 1024;
    private static final int MAX_CREDENTIALS_LENGTH = 1024;

    private final GatewayOutput output;
    private final EpochNanoClock sendClock;
    private final GatewayCounters counters = new GatewayCounters();
    private final GatewaySessions sessions;
    private final RateLimiter rateLimiter;
    private final PreTradeRisk risk;
    private final EngineRequests requests = new EngineRequests();
    private final ClientReplies replies = new ClientReplies();
    private final LongHashSet[] clientOrderIds;
    private final int maxClientOrderIds;

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final LogonDecoder logon = new LogonDecoder();
    private final NewOrderDecoder newOrder = new NewOrderDecoder();
    private final CancelOrderDecoder cancelOrder = new CancelOrderDecoder();
    private final ReplaceOrderDecoder replaceOrder = new ReplaceOrderDecoder();
    private final MassCancelDecoder massCancel = new MassCancelDecoder();
    private final ExecutionReportDecoder report = new ExecutionReportDecoder();
    private final ExecutionReportEncoder reportStamp = new ExecutionReportEncoder();
    private final UnsafeBuffer replyBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(REPLY_CAPACITY));
    private final byte[] credentials = new byte[MAX_CREDENTIALS_LENGTH];

    private long lastEngineSequence;

    /**
     * A gateway whose send and reply stamps are the {@code nowNs} of the call.
     *
     * @param config sessions, instruments, limits.
     * @param output where requests and replies go.
     * @throws IllegalArgumentException when the configuration cannot work (see {@link GatewayConfig}).
     */
    public Gateway(final GatewayConfig config, final GatewayOutput output)
    {
        this(config, output, null);
    }

    /**
     * @param config    sessions, instruments, limits.
     * @param output    where requests and replies go.
     * @param sendClock stamps {@code gatewaySendTime} and {@code gatewayReplyTime} just before each
     *                  send; null to use the call's {@code nowNs}.
     * @throws IllegalArgumentException when the configuration cannot work (see {@link GatewayConfig}).
     */
    public Gateway(final GatewayConfig config, final GatewayOutput output, final EpochNanoClock sendClock)
    {
        if (null == config || null == output)
        {
            throw new IllegalArgumentException("gateway: config and output are needed");
        }
        this.output = output;
        this.sendClock = sendClock;
        this.sessions = new GatewaySessions(config.sessions(), MAX_CREDENTIALS_LENGTH);
        this.rateLimiter = new RateLimiter(sessions.count(), config.maxMessagesPerSecond(), config.burst());
        this.risk = new PreTradeRisk(config);
        this.maxClientOrderIds = config.maxClientOrderIdsPerSession();
        this.clientOrderIds = new LongHashSet[sessions.count()];
        for (int i = 0; i < clientOrderIds.length; i++)
        {
            // Sized once for every id the session may use, so adding never resizes (allocates).
            clientOrderIds[i] = new LongHashSet(2 * maxClientOrderIds + 8, 0.5f);
        }
    }

    /** @return the counters. */
    public GatewayCounters counters()
    {
        return counters;
    }

    /** @return the highest engineSequence seen on an execution report; the engine resends after it on restart. */
    public long lastEngineSequence()
    {
        return lastEngineSequence;
    }

    /** @return whether the configured session (by index) is logged on. */
    public boolean isLoggedOn(final int sessionIndex)
    {
        return sessions.isLoggedOn(sessionIndex);
    }

    /** @return the session's open orders as the open-order limit counts them. */
    public int openOrders(final int sessionIndex)
    {
        return risk.openOrders(sessionIndex);
    }

    /** @return the instrument's last trade price as the price band sees it. */
    public long lastTradePrice(final int instrumentId)
    {
        return risk.lastTrade(instrumentId);
    }

    /**
     * Takes one message from a client.
     *
     * @param transportSession the messaging image's session id the bytes came on.
     * @param nowNs            epoch nanoseconds now: the request's {@code receiveTime}.
     * @return {@link #FORWARDED}, {@link #LOGGED_ON}, {@link #HEARTBEAT}, {@link #LOGGED_OUT}, a
     *         negative drop code, or {@code -(RejectReason value)} for a reject.
     */
    public int onClientMessage(final int transportSession, final DirectBuffer buffer, final int offset,
        final int length, final long nowNs)
    {
        final int session = sessions.ofTransport(transportSession);
        if (session != NONE)
        {
            sessions.received(session, nowNs);
        }
        final int valid = MessageValidator.validate(buffer, offset, length);
        if (valid < 0)
        {
            counters.countMalformed(valid);
            if (session != NONE)
            {
                sendToSession(session, replies.reject(0, sessions.account(session), 0, NULL_ENUM, NULL_ENUM, NULL_ENUM,
                    0, 0, NULL_TIME, MALFORMED, nowNs, sendTime(nowNs)), nowNs);
            }
            return -MALFORMED;
        }
        header.wrap(buffer, offset);
        final int blockLength = header.blockLength();
        final int version = header.version();
        final int body = offset + HEADER_LENGTH;
        return switch (header.templateId())
        {
            case NewOrderDecoder.TEMPLATE_ID ->
                onNewOrder(session, newOrder.wrap(buffer, body, blockLength, version), buffer, offset, nowNs);
            case CancelOrderDecoder.TEMPLATE_ID ->
                onCancel(session, cancelOrder.wrap(buffer, body, blockLength, version), buffer, offset, nowNs);
            case ReplaceOrderDecoder.TEMPLATE_ID ->
                onReplace(session, replaceOrder.wrap(buffer, body, blockLength, version), buffer, offset, nowNs);
            case MassCancelDecoder.TEMPLATE_ID ->
                onMassCancel(session, massCancel.wrap(buffer, body, blockLength, version), buffer, offset, nowNs);
            case HeartbeatDecoder.TEMPLATE_ID -> session != NONE ? HEARTBEAT : unsupported();
            case LogonDecoder.TEMPLATE_ID ->
                onLogon(transportSession, session, logon.wrap(buffer, body, blockLength, version), nowNs);
            case LogoutDecoder.TEMPLATE_ID -> onLogout(session, nowNs);
            default -> unsupported();
        };
    }

    private int unsupported()
    {
        counters.unsupportedMessages++;
        return UNSUPPORTED;
    }

    // ---------------------------------------------------------------- requests

    private int onNewOrder(final int session, final NewOrderDecoder request, final DirectBuffer buffer,
        final int offset, final long nowNs)
    {
        if (owesCancelOnDisconnect(session, nowNs))
        {
            return BACK_PRESSURED;
        }
        final long clientOrderId = request.clientOrderId();
        final long account = request.account();
        final int instrumentId = request.instrumentId();
        final short ordType = request.ordTypeRaw();
        final long price = request.price();
        final long quantity = request.quantity();
        short reason = admit(session, account, clientOrderId, nowNs);
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
        final int length = requests.newOrder(buffer, offset, header.blockLength(), nowNs, sendTime(nowNs));
        risk.opened(session, clientOrderId);
        if (FORWARDED != forwardWithId(session, clientOrderId, length))
        {
            risk.notSent(session, clientOrderId);
            return BACK_PRESSURED;
        }
        return FORWARDED;
    }

    private int onCancel(final int session, final CancelOrderDecoder request, final DirectBuffer buffer,
        final int offset, final long nowNs)
    {
        if (owesCancelOnDisconnect(session, nowNs))
        {
            return BACK_PRESSURED;
        }
        final long clientOrderId = request.clientOrderId();
        short reason = admit(session, request.account(), clientOrderId, nowNs);
        if (0 == reason)
        {
            reason = roomForClientOrderId(session);
        }
        if (0 != reason)
        {
            return reject(session, reason, clientOrderId, request.account(), request.instrumentId(), request.sideRaw(),
                NULL_ENUM, NULL_ENUM, 0, 0, request.sendingTime(), nowNs);
        }
        return forwardWithId(session, clientOrderId,
            requests.cancelOrder(buffer, offset, header.blockLength(), nowNs, sendTime(nowNs)));
    }

    private int onReplace(final int session, final ReplaceOrderDecoder request, final DirectBuffer buffer,
        final int offset, final long nowNs)
    {
        if (owesCancelOnDisconnect(session, nowNs))
        {
            return BACK_PRESSURED;
        }
        final long clientOrderId = request.clientOrderId();
        final int instrumentId = request.instrumentId();
        final long price = request.price();
        final long quantity = request.quantity();
        short reason = admit(session, request.account(), clientOrderId, nowNs);
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
            requests.replaceOrder(buffer, offset, header.blockLength(), nowNs, sendTime(nowNs)));
    }

    private int onMassCancel(final int session, final MassCancelDecoder request, final DirectBuffer buffer,
        final int offset, final long nowNs)
    {
        if (owesCancelOnDisconnect(session, nowNs))
        {
            return BACK_PRESSURED;
        }
        final short reason = admit(session, request.account(), request.clientOrderId(), nowNs);
        // A mass cancel's id names no order: it is neither checked for duplicates nor remembered.
        if (0 != reason && DUPLICATE != reason)
        {
            return reject(session, reason, request.clientOrderId(), request.account(), request.instrumentId(),
                NULL_ENUM, NULL_ENUM, NULL_ENUM, 0, 0, request.sendingTime(), nowNs);
        }
        return forward(requests.massCancel(buffer, offset, header.blockLength(), nowNs)) ? FORWARDED : BACK_PRESSURED;
    }

    /**
     * A session that logged on again before its last loss's mass cancel reached the engine sends
     * that cancel first, so it cannot cancel the orders of the new logon.
     *
     * @return true when the cancel is still owed: the request must wait.
     */
    private boolean owesCancelOnDisconnect(final int session, final long nowNs)
    {
        return session != NONE && sessions.isCancelPending(session) && !sendCancelOnDisconnect(session, nowNs);
    }

    /**
     * The checks every request takes before its own: logged on, within its rate, its session's
     * account, a client order id not used before (the last, so a mass cancel can ignore it).
     *
     * @return 0 or the reject reason.
     */
    private short admit(final int session, final long account, final long clientOrderId, final long nowNs)
    {
        if (session == NONE)
        {
            return NOT_LOGGED_ON;
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

    private short roomForClientOrderId(final int session)
    {
        return clientOrderIds[session].size() >= maxClientOrderIds ? RejectReason.CAPACITY_EXCEEDED.value() : 0;
    }

    /**
     * Rejects a request: to its session when one is logged on over this transport; before logon, to
     * the configured session whose account the request names, unless that session is logged on
     * elsewhere (the sender is then not that client, and hears nothing).
     */
    private int reject(final int session, final short reason, final long clientOrderId, final long account,
        final int instrumentId, final short side, final short ordType, final short timeInForce, final long price,
        final long quantity, final long clientSendTime, final long nowNs)
    {
        counters.countReject(reason);
        int replyTo = session;
        if (session == NONE)
        {
            final int named = sessions.ofAccount(account);
            if (named == NONE || sessions.isLoggedOn(named))
            {
                counters.unidentifiedBeforeLogon++;
                return -reason;
            }
            replyTo = named;
        }
        final int length = replies.reject(clientOrderId, account, instrumentId, side, ordType, timeInForce, price,
            quantity, clientSendTime, reason, nowNs, sendTime(nowNs));
        sendToSession(replyTo, length, nowNs);
        return -reason;
    }

    private int forwardWithId(final int session, final long clientOrderId, final int length)
    {
        clientOrderIds[session].add(clientOrderId);
        if (!forward(length))
        {
            clientOrderIds[session].remove(clientOrderId);
            return BACK_PRESSURED;
        }
        return FORWARDED;
    }

    private boolean forward(final int length)
    {
        if (output.toEngine(requests.buffer(), 0, length))
        {
            counters.forwarded++;
            return true;
        }
        counters.engineBackPressured++;
        return false;
    }

    // ---------------------------------------------------------------- session messages

    private int onLogon(final int transportSession, final int boundSession, final LogonDecoder request,
        final long nowNs)
    {
        final long sessionId = request.sessionId();
        final int intervalMs = request.heartbeatIntervalMs();
        final int session = sessions.ofSessionId(sessionId);
        if (session == NONE)
        {
            counters.unknownSessions++;
            return UNKNOWN_SESSION;
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
            // A transport logged on as another session hears the answer on that session's stream.
            return rejectLogon(boundSession != NONE ? boundSession : session, sessionId,
                LogonRejectReason.ALREADY_LOGGED_ON, "already logged on", nowNs);
        }
        if (intervalMs < MIN_HEARTBEAT_INTERVAL_MS || intervalMs > MAX_HEARTBEAT_INTERVAL_MS)
        {
            counters.invalidHeartbeatIntervals++;
            return rejectLogon(session, sessionId, LogonRejectReason.INVALID_HEARTBEAT_INTERVAL,
                "the heartbeat interval must be 1 to 300000 ms", nowNs);
        }
        sessions.bind(session, transportSession, intervalMs, nowNs);
        rateLimiter.reset(session, nowNs);
        counters.logons++;
        sendToSession(session, replies.logonResponse(sessionId, LogonStatus.ACCEPTED, LogonRejectReason.NONE,
            intervalMs, nowNs, ""), nowNs);
        return LOGGED_ON;
    }

    private int rejectLogon(final int replyTo, final long sessionId, final LogonRejectReason reason, final String text,
        final long nowNs)
    {
        sendToSession(replyTo, replies.logonResponse(sessionId, LogonStatus.REJECTED, reason, 0, nowNs, text), nowNs);
        return LOGON_REJECTED;
    }

    private int onLogout(final int session, final long nowNs)
    {
        if (session == NONE)
        {
            counters.unknownSessions++;
            return UNKNOWN_SESSION;
        }
        counters.logouts++;
        sendToSession(session, replies.logout(sessions.sessionId(session), nowNs), nowNs);
        lose(session, nowNs);
        return LOGGED_OUT;
    }

    /**
     * The image a session's client sent on went away: the session is lost.
     *
     * @param transportSession the messaging image's session id.
     * @param nowNs            epoch nanoseconds now.
     */
    public void onTransportLost(final int transportSession, final long nowNs)
    {
        final int session = sessions.ofTransport(transportSession);
        if (session != NONE)
        {
            counters.transportLosses++;
            lose(session, nowNs);
        }
    }

    /**
     * The session's reply publication has no subscriber, so the client cannot hear the gateway: the
     * session is lost.
     *
     * @param sessionIndex the configured session's index.
     * @param nowNs        epoch nanoseconds now.
     */
    public void onSessionUnreachable(final int sessionIndex, final long nowNs)
    {
        if (sessions.isLoggedOn(sessionIndex))
        {
            counters.sessionsUnreachable++;
            lose(sessionIndex, nowNs);
        }
    }

    /**
     * Sends heartbeats to sessions the gateway has not written to for their interval, loses
     * sessions silent for {@link #MISSED_HEARTBEATS_TO_LOSE} intervals, and offers again any
     * cancel-on-disconnect the engine's stream refused.
     *
     * @param nowNs epoch nanoseconds now.
     * @return the number of things done (0 when idle).
     */
    public int doWork(final long nowNs)
    {
        int work = 0;
        for (int session = 0, count = sessions.count(); session < count; session++)
        {
            if (sessions.isCancelPending(session) && sendCancelOnDisconnect(session, nowNs))
            {
                work++;
            }
            if (!sessions.isLoggedOn(session))
            {
                continue;
            }
            if (sessions.isSilent(session, nowNs, MISSED_HEARTBEATS_TO_LOSE))
            {
                counters.heartbeatTimeouts++;
                lose(session, nowNs);
                work++;
            }
            else if (sessions.isHeartbeatDue(session, nowNs))
            {
                counters.heartbeatsSent++;
                sendToSession(session, replies.heartbeat(sessions.sessionId(session), nowNs), nowNs);
                work++;
            }
        }
        return work;
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
        if (forward(requests.cancelOnDisconnect(sessions.account(session), nowNs)))
        {
            sessions.cancelSent(session);
            counters.cancelOnDisconnects++;
            return true;
        }
        return false;
    }

    // ---------------------------------------------------------------- engine to clients

    /**
     * Routes one message from the engine: an execution report goes, stamped with
     * {@code gatewayReplyTime}, to the logged-on session of its account; anything else is counted
     * and ignored. A report at or below {@link #lastEngineSequence()} is an engine's resend and is
     * dropped; a report for a session not logged on is dropped (the gateway still learns its fills
     * and ended orders).
     *
     * @param nowNs epoch nanoseconds now.
     */
    public void onEngineMessage(final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        final int valid = MessageValidator.validate(buffer, offset, length);
        if (valid < 0 || valid > REPLY_CAPACITY)
        {
            counters.engineMalformed++;
            return;
        }
        header.wrap(buffer, offset);
        if (header.templateId() != ExecutionReportDecoder.TEMPLATE_ID)
        {
            counters.engineOtherMessages++;
            return;
        }
        final int version = header.version();
        report.wrap(buffer, offset + HEADER_LENGTH, header.blockLength(), version);
        final long engineSequence = report.engineSequence();
        if (version < 2 || engineSequence == ExecutionReportDecoder.engineSequenceNullValue())
        {
            // Without a sequence a report can be neither deduplicated nor resent: not from this engine.
            counters.engineMalformed++;
            return;
        }
        if (engineSequence <= lastEngineSequence)
        {
            counters.duplicateReportsDropped++;
            return;
        }
        lastEngineSequence = engineSequence;
        final int session = sessions.ofAccount(report.account());
        if (session == NONE)
        {
            counters.reportsForGoneSessions++;
            return;
        }
        risk.onReport(session, report);
        if (!sessions.isLoggedOn(session))
        {
            counters.reportsForGoneSessions++;
            return;
        }
        replyBuffer.putBytes(0, buffer, offset, valid);
        reportStamp.wrap(replyBuffer, HEADER_LENGTH).gatewayReplyTime(sendTime(nowNs));
        if (output.toSession(session, replyBuffer, 0, valid))
        {
            counters.routed++;
            sessions.sent(session, nowNs);
        }
        else
        {
            counters.sessionSendFailures++;
        }
    }

    private void sendToSession(final int session, final int length, final long nowNs)
    {
        if (output.toSession(session, replies.buffer(), 0, length))
        {
            sessions.sent(session, nowNs);
        }
        else
        {
            counters.sessionSendFailures++;
        }
    }

    private long sendTime(final long nowNs)
    {
        return null == sendClock ? nowNs : sendClock.nanoTime();
    }
}
