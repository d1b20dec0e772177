package io.ringwire.exchange.gateway;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.HeartbeatDecoder;
import io.ringwire.codecs.trading.LogonDecoder;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.EpochNanoClock;

import static io.ringwire.exchange.book.RejectReports.NULL_ENUM;
import static io.ringwire.exchange.gateway.ClientReplies.NULL_TIME;
import static io.ringwire.exchange.gateway.GatewaySessions.NONE;

/**
 * The exchange gateway's logic, without transport or threads: it logs clients on, checks every
 * request (well-formed, logged on, rate, account, duplicate client order id, pre-trade risk),
 * stamps and forwards the ones that pass to the matching engine, rejects the rest itself, routes
 * the engine's execution reports back to their session, and cancels a lost session's orders
 * (cancel-on-disconnect, as CME iLink 3 does).
 *
 * <p>Connections: the transport tells the gateway of each connection (a messaging image; many
 * clients share one subscription) and the member identity its key proved
 * ({@link #onTransportAvailable}); a connection of no configured member is disconnected. A
 * connection may log on only as the session of its own identity, and is answered only on that
 * session's stream. Before logon it is bounded: its logon attempts and the answers it can draw are
 * rate limited, and it is disconnected when it has not logged on within the logon timeout; at any
 * time it is disconnected when it keeps sending malformed messages, each of which also takes a
 * token of its rate ({@link TransportLimits}).
 *
 * <p>Sessions: a connection is bound to a configured session by an accepted Logon and unbound by
 * Logout, heartbeat timeout, {@link #onTransportLost}, {@link #onSessionUnreachable} or
 * {@link #onSlowConsumer}. Each unbinding sends
 * the engine one MassCancel of the session's account on every instrument; if the engine's stream
 * refuses it, {@link #doWork} offers it again until it goes.
 *
 * <p>Replies: every execution report to a session (the engine's, and the gateway's rejects once
 * logged on) carries the session's reply sequence, 1, 2, ... over the gateway's life, and stays in
 * the session's reply log ({@link TransportLimits#replyLogBytes()}) after it is sent. A Logon names the next
 * sequence its client expects, and the gateway resends from there before anything newer, so the
 * replies in flight when a session is lost reach its client once, in order; the LogonResponse says
 * where the logon's reports start, past the client's when the log no longer kept them.
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
 * <p>Parts: this class validates and dispatches; a session's life from logon to loss is
 * {@code SessionControl}'s, the checks and forwarding of requests {@code OrderEntry}'s, and the
 * routing of the engine's reports {@code ReportRouter}'s, each sending through one
 * {@code GatewaySender}.
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
    /** {@link #onClientMessage}: the connection was not announced by {@link #onTransportAvailable}: dropped. */
    public static final int UNIDENTIFIED = -105;
    /** {@link #onClientMessage}: a Logon over its connection's logon rate: dropped unanswered. */
    public static final int LOGON_THROTTLED = -106;
    /**
     * {@link #onClientMessage}: a Logon of a session whose reply link is not up
     * ({@link GatewayOutput#canReach}): dropped unanswered, nothing bound; the client tries again.
     */
    public static final int LOGON_UNREACHABLE = -107;
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
    private static final int MAX_CREDENTIALS_LENGTH = 1024;

    private final GatewayCounters counters = new GatewayCounters();
    private final GatewaySessions sessions;
    private final GatewayTransports transports;
    private final RateLimiter rateLimiter;
    /** Answers a connection draws before logon: rejects of its requests, malformed messages. */
    private final RateLimiter transportLimiter;
    /**
     * A connection's logon attempts, apart from its answers: requests of a lost session that reach a
     * new connection first (a client's messaging resends what the last gateway left unread) do not
     * throttle the logon behind them.
     */
    private final RateLimiter logonLimiter;
    private final TransportLimits transportLimits;
    private final long logonTimeoutNs;
    private final GatewayOutput output;
    private final PreTradeRisk risk;
    private final GatewaySender sender;
    private final SessionControl sessionControl;
    private final OrderEntry orderEntry;
    private final ReportRouter reportRouter;

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final LogonDecoder logon = new LogonDecoder();
    private final NewOrderDecoder newOrder = new NewOrderDecoder();
    private final CancelOrderDecoder cancelOrder = new CancelOrderDecoder();
    private final ReplaceOrderDecoder replaceOrder = new ReplaceOrderDecoder();
    private final MassCancelDecoder massCancel = new MassCancelDecoder();

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
        this.sessions = new GatewaySessions(config.sessions(), MAX_CREDENTIALS_LENGTH);
        this.rateLimiter = new RateLimiter(sessions.count(), config.maxMessagesPerSecond(), config.burst());
        this.transportLimits = config.transportLimits();
        this.transports = new GatewayTransports(transportLimits.maxTransports());
        this.transportLimiter = new RateLimiter(transportLimits.maxTransports(), transportLimits.logonsPerSecond(),
            transportLimits.logonBurst());
        this.logonLimiter = new RateLimiter(transportLimits.maxTransports(), transportLimits.logonsPerSecond(),
            transportLimits.logonBurst());
        this.logonTimeoutNs = transportLimits.logonTimeoutMs() * 1_000_000L;
        this.risk = new PreTradeRisk(config);
        this.sender = new GatewaySender(output, sendClock, sessions, counters, transportLimits.replyLogBytes());
        this.sessionControl = new SessionControl(sessions, counters, sender, MAX_CREDENTIALS_LENGTH);
        this.orderEntry = new OrderEntry(sessions, rateLimiter, risk, sessionControl, counters, sender,
            config.maxClientOrderIdsPerSession());
        this.reportRouter = new ReportRouter(sessions, risk, orderEntry, counters, sender);
    }

    /** @return the counters. */
    public GatewayCounters counters()
    {
        return counters;
    }

    /** @return the life of the engine this gateway serves: the first an execution report named; 0 before. */
    public long engineLife()
    {
        return reportRouter.engineLife();
    }

    /**
     * @return a life other than {@link #engineLife()} that an execution report named (the engine was
     *         started again on a new journal), or 0. Once it is not 0 no report is routed, and the
     *         gateway must stop: its sessions' orders, open-order counts and client order ids are the
     *         old engine's.
     */
    public long otherEngineLife()
    {
        return reportRouter.otherEngineLife();
    }

    /** @return the highest engineSequence seen on an execution report; the engine resends after it on restart. */
    public long lastEngineSequence()
    {
        return reportRouter.lastEngineSequence();
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

    /** @return this gateway process's reply life, which its LogonResponses carry. */
    public long replyLife()
    {
        return sessionControl.replyLife();
    }

    /**
     * @return new orders the open-order count could not follow to their first report (only lost
     *         reports fill the table that follows them): each leaves its session's count high.
     */
    public long ordersUntracked()
    {
        return risk.untracked();
    }

    /** @return the instrument's last trade price as the price band sees it. */
    public long lastTradePrice(final int instrumentId)
    {
        return risk.lastTrade(instrumentId);
    }

    /**
     * A client's connection is up: the transport says which member identity its key proved.
     * Not on the hot path.
     *
     * @param transportSession the messaging image's session id.
     * @param identity         the identity the connection's key proved.
     * @param nowNs            epoch nanoseconds now: its logon timeout starts.
     * @return the configured session of that identity (the only one it may log on as), or
     *         {@link #UNKNOWN_SESSION} when it is no member's or the gateway tracks its most
     *         connections: the connection is then asked to go ({@link GatewayOutput#disconnect}).
     */
    public int onTransportAvailable(final int transportSession, final String identity, final long nowNs)
    {
        final int session = sessions.ofIdentity(identity);
        if (session == NONE)
        {
            counters.unknownIdentities++;
            output.disconnect(transportSession);
            return UNKNOWN_SESSION;
        }
        final int slot = transports.announce(transportSession, session, nowNs);
        if (slot == NONE)
        {
            counters.transportsRefused++;
            output.disconnect(transportSession);
            return UNKNOWN_SESSION;
        }
        transportLimiter.reset(slot, nowNs);
        logonLimiter.reset(slot, nowNs);
        return session;
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
        final int slot = transports.slot(transportSession);
        if (slot == NONE)
        {
            counters.unidentifiedTransports++;
            return UNIDENTIFIED;
        }
        final int identitySession = transports.identitySession(slot);
        final int session = sessions.ofTransport(transportSession);
        if (session != NONE)
        {
            sessions.received(session, nowNs);
        }
        final int valid = MessageValidator.validate(buffer, offset, length);
        if (valid < 0)
        {
            counters.countMalformed(valid);
            onMalformed(slot, session, identitySession, nowNs);
            return -MALFORMED;
        }
        header.wrap(buffer, offset);
        if (session == NONE && header.templateId() != LogonDecoder.TEMPLATE_ID)
        {
            orderEntry.replyBeforeLogon(loggedOnElsewhere(identitySession) ? OrderEntry.LEFT_CONNECTION :
                transportLimiter.tryAcquire(slot, nowNs) ? identitySession : OrderEntry.THROTTLED);
        }
        final int blockLength = header.blockLength();
        final int version = header.version();
        final int body = offset + HEADER_LENGTH;
        return switch (header.templateId())
        {
            case NewOrderDecoder.TEMPLATE_ID -> orderEntry.onNewOrder(session,
                newOrder.wrap(buffer, body, blockLength, version), buffer, offset, blockLength, nowNs);
            case CancelOrderDecoder.TEMPLATE_ID -> orderEntry.onCancel(session,
                cancelOrder.wrap(buffer, body, blockLength, version), buffer, offset, blockLength, nowNs);
            case ReplaceOrderDecoder.TEMPLATE_ID -> orderEntry.onReplace(session,
                replaceOrder.wrap(buffer, body, blockLength, version), buffer, offset, blockLength, nowNs);
            case MassCancelDecoder.TEMPLATE_ID -> orderEntry.onMassCancel(session,
                massCancel.wrap(buffer, body, blockLength, version), buffer, offset, blockLength, nowNs);
            case HeartbeatDecoder.TEMPLATE_ID -> session != NONE ? HEARTBEAT : unsupported();
            case LogonDecoder.TEMPLATE_ID -> onLogon(slot, transportSession, session, identitySession,
                logon.wrap(buffer, body, blockLength, version), nowNs);
            case LogoutDecoder.TEMPLATE_ID -> onLogout(slot, session, nowNs);
            default -> unsupported();
        };
    }

    private int onLogon(final int slot, final int transportSession, final int session, final int identitySession,
        final LogonDecoder request, final long nowNs)
    {
        if (!logonLimiter.tryAcquire(slot, nowNs))
        {
            counters.logonsThrottled++;
            return LOGON_THROTTLED;
        }
        return sessionControl.onLogon(transportSession, session, identitySession, request, nowNs);
    }

    private int onLogout(final int slot, final int session, final long nowNs)
    {
        final int result = sessionControl.onLogout(session, nowNs);
        if (result == LOGGED_OUT)
        {
            // Only a logged-on connection starts its logon timeout again: one that never logged on
            // cannot hold its slot by sending Logouts.
            transports.waitingFrom(slot, nowNs);
        }
        return result;
    }

    /**
     * @return whether a connection not logged on belongs to an identity whose session is logged on
     *         over another connection.
     */
    private boolean loggedOnElsewhere(final int identitySession)
    {
        return identitySession != NONE && sessions.isLoggedOn(identitySession);
    }

    /**
     * A malformed message takes a token of its sender's rate (its session's once logged on, its
     * connection's before) and is answered only with that token; past the connection's limit of
     * them, the connection is asked to go. One over a connection its session left is not answered,
     * but counts toward that limit all the same.
     */
    private void onMalformed(final int slot, final int session, final int identitySession, final long nowNs)
    {
        if (session == NONE && loggedOnElsewhere(identitySession))
        {
            counters.fromLeftConnections++;
        }
        else if (session != NONE ? rateLimiter.tryAcquire(session, nowNs) : transportLimiter.tryAcquire(slot, nowNs))
        {
            final int replyTo = session != NONE ? session : identitySession;
            sender.replyReport(replyTo, sender.replies().reject(0, sessions.account(replyTo), 0, NULL_ENUM, NULL_ENUM,
                NULL_ENUM, 0, 0, NULL_TIME, MALFORMED, nowNs, sender.sendTime(nowNs)), nowNs);
        }
        else
        {
            counters.repliesThrottled++;
        }
        if (transports.strike(slot) == transportLimits.maxMalformed() + 1)
        {
            counters.malformedDisconnects++;
            output.disconnect(transports.transport(slot));
        }
    }

    private int unsupported()
    {
        counters.unsupportedMessages++;
        return UNSUPPORTED;
    }

    /**
     * The image a session's client sent on went away: the session is lost.
     *
     * @param transportSession the messaging image's session id.
     * @param nowNs            epoch nanoseconds now.
     */
    public void onTransportLost(final int transportSession, final long nowNs)
    {
        sessionControl.onTransportLost(transportSession, nowNs);
        transports.remove(transportSession);
    }

    /**
     * A session's client reads its replies too slowly (its reply path's backlog passed its bound):
     * the session is lost (cancel-on-disconnect) and its connection asked to go, so no other
     * session waits on it.
     *
     * @param sessionIndex the configured session's index.
     * @param nowNs        epoch nanoseconds now.
     */
    public void onSlowConsumer(final int sessionIndex, final long nowNs)
    {
        final int transport = sessions.transportOf(sessionIndex);
        if (sessionControl.onSlowConsumer(sessionIndex, nowNs) && transport != NONE)
        {
            output.disconnect(transport);
        }
    }

    /**
     * The gateway is not reading its clients (it waits for the engine's stream to take its backlog):
     * their silence is its own, so no session is lost to a heartbeat timeout meanwhile, and no
     * connection whose Logon waits unread is asked to go for not logging on.
     *
     * @param nowNs epoch nanoseconds now.
     */
    public void notReadingClients(final long nowNs)
    {
        for (int session = 0, count = sessions.count(); session < count; session++)
        {
            if (sessions.isLoggedOn(session))
            {
                sessions.received(session, nowNs);
            }
        }
        transports.excuseWaiting(Long.MAX_VALUE, nowNs);
    }

    /**
     * The gateway's own thread did not run for {@code gapNs} (descheduled, a pause): what its
     * clients sent meanwhile waits unread, so that stretch counts against no session's heartbeats
     * and no connection's logon timeout, while the time before and after it still does.
     *
     * @param gapNs how long the gateway was away.
     * @param nowNs epoch nanoseconds now.
     */
    public void stalled(final long gapNs, final long nowNs)
    {
        for (int session = 0, count = sessions.count(); session < count; session++)
        {
            if (sessions.isLoggedOn(session))
            {
                sessions.excuse(session, gapNs, nowNs);
            }
        }
        transports.excuseWaiting(gapNs, nowNs);
    }

    /** @return the connections the gateway knows now. */
    public int connections()
    {
        return transports.count();
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
        sessionControl.onSessionUnreachable(sessionIndex, nowNs);
    }

    /**
     * Sends heartbeats to sessions the gateway has not written to for their interval, loses
     * sessions silent for {@link #MISSED_HEARTBEATS_TO_LOSE} intervals, offers again any
     * cancel-on-disconnect the engine's stream refused, and asks connections that have not logged on
     * within the logon timeout to go.
     *
     * @param nowNs epoch nanoseconds now.
     * @return the number of things done (0 when idle).
     */
    public int doWork(final long nowNs)
    {
        // Connections first: one whose session the session work below loses counts its logon
        // timeout from now.
        int work = 0;
        for (int slot = 0, touched = transports.slotsTouched(); slot < touched; slot++)
        {
            if (!transports.inUse(slot))
            {
                continue;
            }
            // A connection logs on only as the session of the identity it proved: it is logged on
            // when that session is bound to it (arrays only: this runs every cycle for every connection).
            final int identity = transports.identitySession(slot);
            if (sessions.isLoggedOn(identity) && sessions.transportOf(identity) == transports.transport(slot))
            {
                // Logged on: its logon timeout starts once it no longer is, however the session
                // ended (a Logout, or lost to silence or an unreachable reply link, when its client
                // logs on again over the same connection).
                transports.waitingFrom(slot, nowNs);
            }
            else if (transports.reapIfWaitedPast(slot, nowNs, logonTimeoutNs))
            {
                counters.logonTimeouts++;
                output.disconnect(transports.transport(slot));
                work++;
            }
        }
        return work + sessionControl.doWork(nowNs);
    }

    /**
     * Routes one message from the engine: an execution report goes to the session of its account,
     * numbered ({@code replySequence}) and kept in the session's reply log, and is sent, stamped with
     * {@code gatewayReplyTime}, while the session is logged on; a session away is sent it at its next
     * logon, from the sequence its Logon asks for. Anything else is counted and ignored. A report at
     * or below {@link #lastEngineSequence()} is an engine's resend and is dropped.
     *
     * @param nowNs epoch nanoseconds now.
     */
    public void onEngineMessage(final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        reportRouter.onEngineMessage(buffer, offset, length, nowNs);
    }
}
