package io.ringwire.exchange.gateway;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.CancelOrderEncoder;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.HeartbeatDecoder;
import io.ringwire.codecs.trading.LogonDecoder;
import io.ringwire.codecs.trading.LogonRejectReason;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.ReplaceOrderEncoder;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.TimeInForce;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

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
    /** {@link #onClientMessage}: a well-formed message a client may not send, or a session message before logon: dropped. */
    public static final int UNSUPPORTED = -103;
    /** {@link #onClientMessage}: the engine's stream refused the request; nothing was recorded for it, so it may be offered again. */
    public static final int BACK_PRESSURED = -104;
    /**
     * {@link #onClientMessage}: negative values from -1 to -63 are {@code -(RejectReason value)}: the
     * request was rejected with that reason (a reject went to the session when it could be identified).
     */
    public static final int MOST_NEGATIVE_REJECT = -63;

    /** Heartbeat intervals a client may ask for, in milliseconds. */
    public static final int MIN_HEARTBEAT_INTERVAL_MS = 1;
    public static final int MAX_HEARTBEAT_INTERVAL_MS = 300_000;
    /** Heartbeat intervals of silence from a client after which its session is lost. */
    public static final int MISSED_HEARTBEATS_TO_LOSE = 3;

    private static final int NONE = -1;
    private static final int HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH;
    private static final short MALFORMED = RejectReason.MALFORMED_MESSAGE.value();
    private static final short NOT_LOGGED_ON = RejectReason.NOT_LOGGED_ON.value();
    private static final short NULL_ENUM = 255;
    private static final long NULL_TIME = ExecutionReportEncoder.clientSendTimeNullValue();
    private static final int REPLY_CAPACITY = 1024;

    private final GatewayOutput output;
    private final EpochNanoClock sendClock;
    private final GatewayCounters counters = new GatewayCounters();
    private final RateLimiter rateLimiter;
    private final PreTradeRisk risk;
    private final ClientReplies replies = new ClientReplies();
    private final int maxClientOrderIds;

    // Per configured session, by its index in the config.
    private final long[] sessionIds;
    private final long[] accounts;
    private final byte[][] tokens;
    private final boolean[] loggedOn;
    private final int[] transportOf;
    private final long[] heartbeatIntervalNs;
    private final int[] heartbeatIntervalMs;
    private final long[] lastReceivedNs;
    private final long[] lastSentNs;
    private final boolean[] cancelPending;
    private final LongHashSet[] clientOrderIds;

    private final Int2IntHashMap sessionOfTransport = new Int2IntHashMap(NONE);
    private final Long2LongHashMap sessionOfId = new Long2LongHashMap(NONE);
    private final Long2LongHashMap sessionOfAccount = new Long2LongHashMap(NONE);

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final LogonDecoder logon = new LogonDecoder();
    private final NewOrderDecoder newOrder = new NewOrderDecoder();
    private final CancelOrderDecoder cancelOrder = new CancelOrderDecoder();
    private final ReplaceOrderDecoder replaceOrder = new ReplaceOrderDecoder();
    private final MassCancelDecoder massCancel = new MassCancelDecoder();
    private final ExecutionReportDecoder report = new ExecutionReportDecoder();
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final NewOrderEncoder newOrderStamp = new NewOrderEncoder();
    private final CancelOrderEncoder cancelOrderStamp = new CancelOrderEncoder();
    private final ReplaceOrderEncoder replaceOrderStamp = new ReplaceOrderEncoder();
    private final MassCancelEncoder massCancelEncoder = new MassCancelEncoder();
    private final ExecutionReportEncoder reportStamp = new ExecutionReportEncoder();
    private final UnsafeBuffer engineBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final UnsafeBuffer replyBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(REPLY_CAPACITY));
    private final byte[] credentials = new byte[1024];

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
        this.rateLimiter = new RateLimiter(config.sessions().size(), config.maxMessagesPerSecond(), config.burst());
        this.risk = new PreTradeRisk(config);
        this.maxClientOrderIds = config.maxClientOrderIdsPerSession();

        final int sessions = config.sessions().size();
        sessionIds = new long[sessions];
        accounts = new long[sessions];
        tokens = new byte[sessions][];
        loggedOn = new boolean[sessions];
        transportOf = new int[sessions];
        heartbeatIntervalNs = new long[sessions];
        heartbeatIntervalMs = new int[sessions];
        lastReceivedNs = new long[sessions];
        lastSentNs = new long[sessions];
        cancelPending = new boolean[sessions];
        clientOrderIds = new LongHashSet[sessions];
        for (int i = 0; i < sessions; i++)
        {
            final SessionConfig session = config.sessions().get(i);
            sessionIds[i] = session.sessionId();
            accounts[i] = session.account();
            tokens[i] = session.token().getBytes(StandardCharsets.UTF_8);
            if (tokens[i].length > credentials.length)
            {
                throw new IllegalArgumentException("session " + session.sessionId() + ": the token is longer than " +
                    credentials.length + " bytes, the most a Logon carries");
            }
            transportOf[i] = NONE;
            // Sized once for every id the session may use, so adding never resizes (allocates).
            clientOrderIds[i] = new LongHashSet(2 * maxClientOrderIds + 8, 0.5f);
            sessionOfId.put(session.sessionId(), i);
            sessionOfAccount.put(session.account(), i);
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
        return loggedOn[sessionIndex];
    }

    /** @return the session's open orders as the risk check counts them. */
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
        final int session = sessionOfTransport.get(transportSession);
        if (session != NONE)
        {
            lastReceivedNs[session] = nowNs;
        }
        final int valid = MessageValidator.validate(buffer, offset, length);
        if (valid < 0)
        {
            counters.countMalformed(valid);
            if (session != NONE)
            {
                sendToSession(session, replies.reject(0, accounts[session], 0, NULL_ENUM, NULL_ENUM, NULL_ENUM, 0, 0,
                    NULL_TIME, MALFORMED, nowNs, replyTime(nowNs)), nowNs);
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

        final int length = copyRequest(buffer, offset, NewOrderDecoder.TEMPLATE_ID, NewOrderDecoder.BLOCK_LENGTH);
        newOrderStamp.wrap(engineBuffer, HEADER_LENGTH);
        if (header.blockLength() < NewOrderDecoder.BLOCK_LENGTH)
        {
            // A version-1 sender has no version-2 order terms: send their null values, the engine's defaults.
            newOrderStamp.postOnly(BooleanType.NULL_VAL)
                .displayQuantity(NewOrderEncoder.displayQuantityNullValue())
                .selfTradePrevention(SelfTradePrevention.NULL_VAL);
        }
        newOrderStamp.receiveTime(nowNs).gatewaySendTime(replyTime(nowNs));
        clientOrderIds[session].add(clientOrderId);
        risk.opened(session, clientOrderId);
        if (!forward(length))
        {
            clientOrderIds[session].remove(clientOrderId);
            risk.notSent(session, clientOrderId);
            return BACK_PRESSURED;
        }
        return FORWARDED;
    }

    private int onCancel(final int session, final CancelOrderDecoder request, final DirectBuffer buffer,
        final int offset, final long nowNs)
    {
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
        final int length = copyRequest(buffer, offset, CancelOrderDecoder.TEMPLATE_ID, CancelOrderDecoder.BLOCK_LENGTH);
        cancelOrderStamp.wrap(engineBuffer, HEADER_LENGTH).receiveTime(nowNs).gatewaySendTime(replyTime(nowNs));
        return forwardWithId(session, clientOrderId, length);
    }

    private int onReplace(final int session, final ReplaceOrderDecoder request, final DirectBuffer buffer,
        final int offset, final long nowNs)
    {
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
        final int length = copyRequest(buffer, offset, ReplaceOrderDecoder.TEMPLATE_ID, ReplaceOrderDecoder.BLOCK_LENGTH);
        replaceOrderStamp.wrap(engineBuffer, HEADER_LENGTH).receiveTime(nowNs).gatewaySendTime(replyTime(nowNs));
        return forwardWithId(session, clientOrderId, length);
    }

    private int onMassCancel(final int session, final MassCancelDecoder request, final DirectBuffer buffer,
        final int offset, final long nowNs)
    {
        final short reason = admit(session, request.account(), request.clientOrderId(), nowNs);
        // A mass cancel's id is not an order's: it is neither checked for duplicates nor remembered.
        if (0 != reason && reason != RejectReason.DUPLICATE_CLIENT_ORDER_ID.value())
        {
            return reject(session, reason, request.clientOrderId(), request.account(), request.instrumentId(),
                NULL_ENUM, NULL_ENUM, NULL_ENUM, 0, 0, request.sendingTime(), nowNs);
        }
        final int length = copyRequest(buffer, offset, MassCancelDecoder.TEMPLATE_ID, MassCancelDecoder.BLOCK_LENGTH);
        massCancelEncoder.wrap(engineBuffer, HEADER_LENGTH).receiveTime(nowNs);
        return forward(length) ? FORWARDED : BACK_PRESSURED;
    }

    /**
     * The checks every request takes before its own: logged on, within its rate, its session's
     * account, a client order id not used before.
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
        if (account != accounts[session])
        {
            return RejectReason.ACCOUNT_NOT_PERMITTED.value();
        }
        if (clientOrderIds[session].contains(clientOrderId))
        {
            return RejectReason.DUPLICATE_CLIENT_ORDER_ID.value();
        }
        return 0;
    }

    private short roomForClientOrderId(final int session)
    {
        return clientOrderIds[session].size() >= maxClientOrderIds ? RejectReason.CAPACITY_EXCEEDED.value() : 0;
    }

    /**
     * Rejects a request: to its session when one is logged on on this transport; before logon, to
     * the configured session whose account the request names, unless that session is logged on
     * elsewhere (the sender is then not that client).
     */
    private int reject(final int session, final short reason, final long clientOrderId, final long account,
        final int instrumentId, final short side, final short ordType, final short timeInForce, final long price,
        final long quantity, final long clientSendTime, final long nowNs)
    {
        counters.countReject(reason);
        int replyTo = session;
        if (session == NONE)
        {
            final int named = (int)sessionOfAccount.get(account);
            if (named == NONE || loggedOn[named])
            {
                counters.unidentifiedBeforeLogon++;
                return -reason;
            }
            replyTo = named;
        }
        final int length = replies.reject(clientOrderId, account, instrumentId, side, ordType, timeInForce, price,
            quantity, clientSendTime, reason, nowNs, replyTime(nowNs));
        sendToSession(replyTo, length, nowNs);
        return -reason;
    }

    /** Copies a request's header and the block this version knows into the engine buffer, as version 2. */
    private int copyRequest(final DirectBuffer buffer, final int offset, final int templateId, final int blockLength)
    {
        headerEncoder.wrap(engineBuffer, 0)
            .blockLength(blockLength)
            .templateId(templateId)
            .schemaId(MessageHeaderEncoder.SCHEMA_ID)
            .version(MessageHeaderEncoder.SCHEMA_VERSION);
        engineBuffer.putBytes(HEADER_LENGTH, buffer, offset + HEADER_LENGTH, Math.min(header.blockLength(), blockLength));
        return HEADER_LENGTH + blockLength;
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
        if (output.toEngine(engineBuffer, 0, length))
        {
            counters.forwarded++;
            return true;
        }
        counters.engineBackPressured++;
        return false;
    }

    // ---------------------------------------------------------------- session messages

    private int onLogon(final int transportSession, final int boundSession, final LogonDecoder request, final long nowNs)
    {
        final long sessionId = request.sessionId();
        final int intervalMs = request.heartbeatIntervalMs();
        final int session = (int)sessionOfId.get(sessionId);
        if (session == NONE)
        {
            counters.unknownSessions++;
            return UNKNOWN_SESSION;
        }
        final int credentialsLength = request.getCredentials(credentials, 0, credentials.length);
        if (!java.util.Arrays.equals(credentials, 0, credentialsLength, tokens[session], 0, tokens[session].length))
        {
            counters.badCredentials++;
            sendToSession(session, replies.logonResponse(sessionId, LogonStatus.REJECTED,
                LogonRejectReason.BAD_CREDENTIALS, 0, nowNs, "bad credentials"), nowNs);
            return LOGON_REJECTED;
        }
        if (loggedOn[session] || boundSession != NONE)
        {
            counters.alreadyLoggedOn++;
            sendToSession(session, replies.logonResponse(sessionId, LogonStatus.REJECTED,
                LogonRejectReason.ALREADY_LOGGED_ON, 0, nowNs, "already logged on"), nowNs);
            return LOGON_REJECTED;
        }
        if (intervalMs < MIN_HEARTBEAT_INTERVAL_MS || intervalMs > MAX_HEARTBEAT_INTERVAL_MS)
        {
            counters.invalidHeartbeatIntervals++;
            sendToSession(session, replies.logonResponse(sessionId, LogonStatus.REJECTED,
                LogonRejectReason.INVALID_HEARTBEAT_INTERVAL, 0, nowNs, "heartbeat interval must be 1 to 300000 ms"), nowNs);
            return LOGON_REJECTED;
        }
        loggedOn[session] = true;
        transportOf[session] = transportSession;
        sessionOfTransport.put(transportSession, session);
        heartbeatIntervalMs[session] = intervalMs;
        heartbeatIntervalNs[session] = intervalMs * 1_000_000L;
        lastReceivedNs[session] = nowNs;
        rateLimiter.reset(session, nowNs);
        counters.logons++;
        sendToSession(session, replies.logonResponse(sessionId, LogonStatus.ACCEPTED, LogonRejectReason.NONE,
            intervalMs, nowNs, ""), nowNs);
        return LOGGED_ON;
    }

    private int onLogout(final int session, final long nowNs)
    {
        if (session == NONE)
        {
            counters.unknownSessions++;
            return UNKNOWN_SESSION;
        }
        counters.logouts++;
        sendToSession(session, replies.logout(sessionIds[session], nowNs), nowNs);
        lose(session, nowNs);
        return LOGGED_OUT;
    }

    /**
     * The image a session's client sent on went away.
     *
     * @param transportSession the messaging image's session id.
     */
    public void onTransportLost(final int transportSession, final long nowNs)
    {
        final int session = sessionOfTransport.get(transportSession);
        if (session != NONE)
        {
            counters.transportLosses++;
            lose(session, nowNs);
        }
    }

    /**
     * The session's reply publication has no subscriber: the client cannot hear the gateway.
     *
     * @param sessionIndex the configured session's index.
     */
    public void onSessionUnreachable(final int sessionIndex, final long nowNs)
    {
        if (loggedOn[sessionIndex])
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
     * @return the number of things done (0 when idle).
     */
    public int doWork(final long nowNs)
    {
        int work = 0;
        for (int session = 0; session < loggedOn.length; session++)
        {
            if (cancelPending[session])
            {
                work += sendCancelOnDisconnect(session, nowNs) ? 1 : 0;
            }
            if (!loggedOn[session])
            {
                continue;
            }
            final long interval = heartbeatIntervalNs[session];
            if (nowNs - lastReceivedNs[session] >= MISSED_HEARTBEATS_TO_LOSE * interval)
            {
                counters.heartbeatTimeouts++;
                lose(session, nowNs);
                work++;
            }
            else if (nowNs - lastSentNs[session] >= interval)
            {
                counters.heartbeatsSent++;
                sendToSession(session, replies.heartbeat(sessionIds[session], nowNs), nowNs);
                work++;
            }
        }
        return work;
    }

    /** Unbinds a logged-on session and cancels its account's orders: once per loss, since only a logged-on session is lost. */
    private void lose(final int session, final long nowNs)
    {
        if (!loggedOn[session])
        {
            return;
        }
        loggedOn[session] = false;
        sessionOfTransport.remove(transportOf[session]);
        transportOf[session] = NONE;
        cancelPending[session] = true;
        sendCancelOnDisconnect(session, nowNs);
    }

    private boolean sendCancelOnDisconnect(final int session, final long nowNs)
    {
        massCancelEncoder.wrapAndApplyHeader(engineBuffer, 0, headerEncoder)
            .clientOrderId(0)
            .account(accounts[session])
            .instrumentId(0)
            .sendingTime(nowNs)
            .receiveTime(nowNs);
        if (forward(HEADER_LENGTH + massCancelEncoder.encodedLength()))
        {
            cancelPending[session] = false;
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
     * dropped; a report for a session not logged on is dropped (the gateway still learns from it).
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
        final int session = (int)sessionOfAccount.get(report.account());
        if (session == NONE)
        {
            counters.reportsForGoneSessions++;
            return;
        }
        risk.onReport(session, report);
        if (!loggedOn[session])
        {
            counters.reportsForGoneSessions++;
            return;
        }
        replyBuffer.putBytes(0, buffer, offset, valid);
        reportStamp.wrap(replyBuffer, HEADER_LENGTH).gatewayReplyTime(replyTime(nowNs));
        if (output.toSession(session, replyBuffer, 0, valid))
        {
            counters.routed++;
            lastSentNs[session] = nowNs;
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
            lastSentNs[session] = nowNs;
        }
        else
        {
            counters.sessionSendFailures++;
        }
    }

    private long replyTime(final long nowNs)
    {
        return null == sendClock ? nowNs : sendClock.nanoTime();
    }
}
