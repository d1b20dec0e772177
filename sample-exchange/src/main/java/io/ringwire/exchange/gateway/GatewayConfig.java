package io.ringwire.exchange.gateway;

import io.ringwire.exchange.book.InstrumentSpec;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the gateway needs to know at start: its sessions, the instruments, their reference prices,
 * the risk limits, the per-session rate limit and the capacity of each session's set of client
 * order ids. Validated here, so a bad configuration fails at construction and never on the hot path.
 *
 * @param sessions                    the sessions that may log on; a session's index in this list is the
 *                                    index {@link GatewayOutput#toSession} takes. Session ids and accounts are
 *                                    unique, so each execution report routes to one session.
 * @param instruments                 the instruments that trade.
 * @param referencePrices             indexed by instrument id: the price the instrument's last trade starts at,
 *                                    inside the instrument's band; the array is longer than the largest id.
 * @param limits                      pre-trade risk limits.
 * @param maxMessagesPerSecond        sustained request rate of one session (token bucket refill).
 * @param burst                       requests a session may send at once (token bucket size).
 * @param maxClientOrderIdsPerSession client order ids a session may use in the gateway's life; each session's
 *                                    set is allocated for them at start (16 to 32 bytes per id).
 * @param transportLimits             bounds on connections before and besides trading.
 */
public record GatewayConfig(
    List<SessionConfig> sessions,
    List<InstrumentSpec> instruments,
    long[] referencePrices,
    RiskLimits limits,
    int maxMessagesPerSecond,
    int burst,
    int maxClientOrderIdsPerSession,
    TransportLimits transportLimits)
{
    /** Largest instrument id the gateway takes: its per-instrument arrays are indexed by id. */
    public static final int MAX_INSTRUMENT_ID = 1 << 20;

    /**
     * Validates the values.
     */
    public GatewayConfig
    {
        if (null == sessions || sessions.isEmpty())
        {
            throw new IllegalArgumentException("gateway config: at least one session is needed");
        }
        if (null == instruments || instruments.isEmpty())
        {
            throw new IllegalArgumentException("gateway config: at least one instrument is needed");
        }
        if (null == limits)
        {
            throw new IllegalArgumentException("gateway config: risk limits are needed");
        }
        if (maxMessagesPerSecond < 1 || burst < 1)
        {
            throw new IllegalArgumentException("gateway config: maxMessagesPerSecond and burst must be at least 1: " +
                maxMessagesPerSecond + ", " + burst);
        }
        if (maxClientOrderIdsPerSession < 1 || maxClientOrderIdsPerSession > (1 << 28))
        {
            throw new IllegalArgumentException("gateway config: maxClientOrderIdsPerSession must be in [1, 2^28]: " +
                maxClientOrderIdsPerSession);
        }
        if (null == transportLimits)
        {
            throw new IllegalArgumentException("gateway config: transport limits are needed");
        }
        final Set<Integer> sessionIds = new HashSet<>();
        final Set<Long> accounts = new HashSet<>();
        final Set<String> identities = new HashSet<>();
        for (final SessionConfig session : sessions)
        {
            if (!sessionIds.add(session.sessionId()))
            {
                throw new IllegalArgumentException("gateway config: session id " + session.sessionId() +
                    " is configured twice");
            }
            if (!identities.add(session.identity()))
            {
                throw new IllegalArgumentException("gateway config: identity " + session.identity() +
                    " has two sessions; a session is bound to the identity its client proved, so each has one");
            }
            if (!accounts.add(session.account()))
            {
                throw new IllegalArgumentException("gateway config: account " + session.account() +
                    " is traded by two sessions; execution reports route by account, so each account has one session");
            }
        }
        int maxId = 0;
        final Set<Integer> instrumentIds = new HashSet<>();
        for (final InstrumentSpec instrument : instruments)
        {
            if (!instrumentIds.add(instrument.id()))
            {
                throw new IllegalArgumentException("gateway config: instrument " + instrument.id() +
                    " is configured twice");
            }
            if (instrument.id() > MAX_INSTRUMENT_ID)
            {
                throw new IllegalArgumentException("gateway config: instrument id " + instrument.id() +
                    " is above the largest the gateway takes, " + MAX_INSTRUMENT_ID);
            }
            maxId = Math.max(maxId, instrument.id());
        }
        if (null == referencePrices || referencePrices.length <= maxId)
        {
            throw new IllegalArgumentException(
                "gateway config: referencePrices is indexed by instrument id and needs " +
                "at least " + (maxId + 1) + " entries, has " + (null == referencePrices ? 0 : referencePrices.length));
        }
        for (final InstrumentSpec instrument : instruments)
        {
            final long reference = referencePrices[instrument.id()];
            if (reference < instrument.minPrice() || reference > instrument.maxPrice())
            {
                throw new IllegalArgumentException("gateway config: the reference price " + reference +
                    " of instrument " + instrument.id() + " is outside its band [" + instrument.minPrice() + ", " +
                    instrument.maxPrice() + "]");
            }
        }
        sessions = List.copyOf(sessions);
        instruments = List.copyOf(instruments);
        referencePrices = referencePrices.clone();
    }

    /**
     * A configuration with {@link TransportLimits#DEFAULT}.
     */
    public GatewayConfig(final List<SessionConfig> sessions, final List<InstrumentSpec> instruments,
        final long[] referencePrices, final RiskLimits limits, final int maxMessagesPerSecond, final int burst,
        final int maxClientOrderIdsPerSession)
    {
        this(sessions, instruments, referencePrices, limits, maxMessagesPerSecond, burst, maxClientOrderIdsPerSession,
            TransportLimits.DEFAULT);
    }
}
