package io.ringwire.exchange.gateway;

import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Long2LongHashMap;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The configured sessions and their state: which transport session each is bound to, its heartbeat
 * interval, when the gateway last heard from it and last wrote to it, and whether a
 * cancel-on-disconnect is still owed to the engine. A session is found by its index (the order of
 * the configuration), its transport session, its session id or its account.
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction (the maps only grow when
 * a transport session binds, never on the request path).
 */
final class GatewaySessions
{
    /** No session: the missing value of every lookup. */
    static final int NONE = -1;

    /** No cancel owed. */
    static final byte NO_CANCEL = 0;
    /** A cancel-on-disconnect owed for a session lost at this gateway. */
    static final byte LOSS_CANCEL = 1;
    /**
     * A cancel owed from the gateway's start: a session logged on when the last gateway went (killed,
     * or its host lost) was lost with it, and nothing else cancels the orders it left in the engine.
     */
    static final byte START_CANCEL = 2;
    /**
     * How long a cancel the engine's journal refused waits before it goes again: a journal that
     * cannot take records (a full file system) is not retried as fast as it refuses.
     */
    static final long CANCEL_RETRY_NS = 100_000_000L;

    private final long[] sessionIds;
    private final long[] accounts;
    private final byte[][] tokens;
    private final boolean[] loggedOn;
    /** Whether an accepting LogonResponse of this gateway process went to the session's client. */
    private final boolean[] logonAnswered;
    private final int[] transportOf;
    private final long[] heartbeatIntervalNs;
    private final long[] lastReceivedNs;
    private final long[] lastSentNs;
    /** {@link #NO_CANCEL}, {@link #LOSS_CANCEL} or {@link #START_CANCEL}: the cancel owed, if any. */
    private final byte[] cancelPending;
    /**
     * The cancel sent whose refusal by the engine's journal would owe it again: none once the
     * session sends a request after it (a cancel sent again then would cancel that request's order).
     */
    private final byte[] cancelInFlight;
    /**
     * The time the last cancel the gateway sent carries as both its sending and its receive time
     * (Long.MIN_VALUE before one): a journal's reject echoes them, which tells the gateway's cancel
     * from a client's own mass cancel of the account (client order id 0 and every instrument too).
     */
    private final long[] cancelSentNs;
    /** When the session's start cancel last went (its stamps, which its reports echo); MIN_VALUE before. */
    private final long[] startCancelSentNs;
    /**
     * When the cancel owed may go: Long.MIN_VALUE (at once) for a new cancel, or
     * {@link #CANCEL_RETRY_NS} after the journal refused it, which also marks it as sent again.
     */
    private final long[] cancelDueNs;

    private final Int2IntHashMap sessionOfTransport = new Int2IntHashMap(NONE);
    private final Long2LongHashMap sessionOfId = new Long2LongHashMap(NONE);
    private final Long2LongHashMap sessionOfAccount = new Long2LongHashMap(NONE);
    private final String[] identities;
    private final Map<String, Integer> sessionOfIdentity = new HashMap<>();

    GatewaySessions(final List<SessionConfig> sessions, final int maxTokenLength)
    {
        final int count = sessions.size();
        sessionIds = new long[count];
        accounts = new long[count];
        tokens = new byte[count][];
        loggedOn = new boolean[count];
        logonAnswered = new boolean[count];
        transportOf = new int[count];
        heartbeatIntervalNs = new long[count];
        lastReceivedNs = new long[count];
        lastSentNs = new long[count];
        cancelPending = new byte[count];
        cancelInFlight = new byte[count];
        cancelSentNs = new long[count];
        startCancelSentNs = new long[count];
        cancelDueNs = new long[count];
        identities = new String[count];
        for (int i = 0; i < count; i++)
        {
            final SessionConfig session = sessions.get(i);
            identities[i] = session.identity();
            sessionOfIdentity.put(session.identity(), i);
            sessionIds[i] = session.sessionId();
            accounts[i] = session.account();
            tokens[i] = session.token().getBytes(StandardCharsets.UTF_8);
            if (tokens[i].length > maxTokenLength)
            {
                throw new IllegalArgumentException("session " + session.sessionId() + ": the token is longer than " +
                    maxTokenLength + " bytes, the most a Logon carries");
            }
            transportOf[i] = NONE;
            cancelPending[i] = START_CANCEL;
            cancelDueNs[i] = Long.MIN_VALUE;
            cancelSentNs[i] = Long.MIN_VALUE;
            startCancelSentNs[i] = Long.MIN_VALUE;
            sessionOfId.put(session.sessionId(), i);
            sessionOfAccount.put(session.account(), i);
        }
    }

    int count()
    {
        return loggedOn.length;
    }

    /** @return the session logged on over the transport session, or {@link #NONE}. */
    int ofTransport(final int transportSession)
    {
        return sessionOfTransport.get(transportSession);
    }

    /** @return the configured session with the id, or {@link #NONE}. */
    int ofSessionId(final long sessionId)
    {
        return (int)sessionOfId.get(sessionId);
    }

    /** @return the configured session of the member identity, or {@link #NONE}; not for the hot path. */
    int ofIdentity(final String identity)
    {
        final Integer session = null == identity ? null : sessionOfIdentity.get(identity);
        return null == session ? NONE : session;
    }

    /** @return the member identity of the session. */
    String identity(final int session)
    {
        return identities[session];
    }

    /** @return the transport session the session is logged on over, or {@link #NONE}. */
    int transportOf(final int session)
    {
        return transportOf[session];
    }

    /** @return the configured session trading the account, or {@link #NONE}. */
    int ofAccount(final long account)
    {
        return (int)sessionOfAccount.get(account);
    }

    long sessionId(final int session)
    {
        return sessionIds[session];
    }

    long account(final int session)
    {
        return accounts[session];
    }

    boolean isLoggedOn(final int session)
    {
        return loggedOn[session];
    }

    /**
     * @return whether the credentials are the session's token, byte for byte, compared in a time
     *         that depends on the token's length alone (not on where a guess first differs).
     */
    boolean tokenMatches(final int session, final byte[] credentials, final int length)
    {
        final byte[] token = tokens[session];
        int difference = length ^ token.length;
        for (int i = 0; i < token.length; i++)
        {
            difference |= token[i] ^ (i < length ? credentials[i] : 0);
        }
        return difference == 0;
    }

    /** Logs the session on over the transport session. */
    void bind(final int session, final int transportSession, final int heartbeatIntervalMs, final long nowNs)
    {
        loggedOn[session] = true;
        transportOf[session] = transportSession;
        sessionOfTransport.put(transportSession, session);
        heartbeatIntervalNs[session] = heartbeatIntervalMs * 1_000_000L;
        lastReceivedNs[session] = nowNs;
    }

    /**
     * Notes that the client was sent an accepting LogonResponse of this process: from then on the
     * reply sequence it asks for at a logon is this process's numbering.
     */
    void logonAnswered(final int session)
    {
        logonAnswered[session] = true;
    }

    /**
     * @return whether an accepting LogonResponse of this gateway process went to the session's
     *         client (a session bound whose answer could not go does not count: its client still
     *         knows only another process's numbering).
     */
    boolean isLogonAnswered(final int session)
    {
        return logonAnswered[session];
    }

    /**
     * Logs the session off and marks a cancel-on-disconnect as owed.
     *
     * @return false when it was not logged on (so a loss is acted on once).
     */
    boolean unbind(final int session)
    {
        if (!loggedOn[session])
        {
            return false;
        }
        loggedOn[session] = false;
        sessionOfTransport.remove(transportOf[session]);
        transportOf[session] = NONE;
        cancelPending[session] = LOSS_CANCEL;
        cancelDueNs[session] = Long.MIN_VALUE;
        return true;
    }

    boolean isCancelPending(final int session)
    {
        return cancelPending[session] != NO_CANCEL;
    }

    /** @return whether a cancel is owed and may go now. */
    boolean isCancelDue(final int session, final long nowNs)
    {
        return cancelPending[session] != NO_CANCEL && nowNs >= cancelDueNs[session];
    }

    /** @return the cancel owed: {@link #NO_CANCEL}, {@link #LOSS_CANCEL} or {@link #START_CANCEL}. */
    byte cancelOwed(final int session)
    {
        return cancelPending[session];
    }

    /** @return whether the cancel owed is one the journal refused, going again. */
    boolean isCancelResend(final int session)
    {
        return cancelPending[session] != NO_CANCEL && cancelDueNs[session] != Long.MIN_VALUE;
    }

    /** @param nowNs the cancel's sending and receive time. */
    void cancelSent(final int session, final long nowNs)
    {
        cancelInFlight[session] = cancelPending[session];
        cancelSentNs[session] = nowNs;
        if (cancelPending[session] == START_CANCEL)
        {
            startCancelSentNs[session] = nowNs;
        }
        cancelPending[session] = NO_CANCEL;
        cancelDueNs[session] = Long.MIN_VALUE;
    }

    /** The session's request went to the engine: a cancel sent before it is not sent again. */
    void requestForwarded(final int session)
    {
        cancelInFlight[session] = NO_CANCEL;
    }

    /**
     * The engine's journal refused a cancel of the session's account that the gateway sent: owed
     * again, where it was the gateway's and no request of the session followed it.
     *
     * @param nowNs when the refusal came: the cancel goes again {@link #CANCEL_RETRY_NS} later.
     * @return whether it is owed again: false where a request of the session followed it.
     */
    boolean cancelRefused(final int session, final long nowNs)
    {
        if (cancelInFlight[session] == NO_CANCEL)
        {
            return false;
        }
        if (cancelPending[session] == NO_CANCEL)
        {
            cancelPending[session] = cancelInFlight[session];
            cancelDueNs[session] = nowNs + CANCEL_RETRY_NS;
        }
        cancelInFlight[session] = NO_CANCEL;
        return true;
    }

    /**
     * @param clientSendNs a journal reject's client sending time, echoed from the refused request.
     * @param gatewayInNs  its gateway receive time, echoed likewise.
     * @return whether the refused request was the last cancel the gateway itself sent for the
     *         session (no client waits on its reject), not a client's mass cancel.
     */
    boolean isGatewaysCancel(final int session, final long clientSendNs, final long gatewayInNs)
    {
        return echoes(cancelSentNs[session], clientSendNs, gatewayInNs);
    }

    /**
     * @param clientSendNs a report's client sending time, echoed from the request that caused it.
     * @param gatewayInNs  its gateway receive time, echoed likewise.
     * @return whether the report is one of the session's start cancel: it ends an order a session
     *         left in the engine before this gateway process started, never one this process
     *         forwarded (a client's resend may have taken the same client order id here).
     */
    boolean isStartCancels(final int session, final long clientSendNs, final long gatewayInNs)
    {
        return echoes(startCancelSentNs[session], clientSendNs, gatewayInNs);
    }

    /**
     * Whether a report echoes, as both its client sending time and its gateway receive time, the
     * stamp the gateway put on a cancel it sent itself ({@link Long#MIN_VALUE}: none sent).
     */
    private static boolean echoes(final long stampNs, final long clientSendNs, final long gatewayInNs)
    {
        return stampNs != Long.MIN_VALUE && clientSendNs == stampNs && gatewayInNs == stampNs;
    }

    void received(final int session, final long nowNs)
    {
        lastReceivedNs[session] = nowNs;
    }

    /**
     * Counts a stretch in which the gateway itself did not run as heard from: the session's
     * silence before it and after it still adds up.
     */
    void excuse(final int session, final long gapNs, final long nowNs)
    {
        lastReceivedNs[session] = Math.min(nowNs, lastReceivedNs[session] + gapNs);
    }

    void sent(final int session, final long nowNs)
    {
        lastSentNs[session] = nowNs;
    }

    /** @return whether the client has been silent for {@code missedHeartbeats} of its intervals. */
    boolean isSilent(final int session, final long nowNs, final int missedHeartbeats)
    {
        return nowNs - lastReceivedNs[session] >= missedHeartbeats * heartbeatIntervalNs[session];
    }

    /** @return whether the gateway has not written to the client for its interval. */
    boolean isHeartbeatDue(final int session, final long nowNs)
    {
        return nowNs - lastSentNs[session] >= heartbeatIntervalNs[session];
    }
}
