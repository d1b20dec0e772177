package io.ringwire.exchange.gateway;

/**
 * Bounds on what a connection can make the gateway do before, and besides, trading: how many
 * connections it tracks, how long one may stay without logging on, how often it may try to log on
 * (and be answered before it has), and how many malformed messages it may send in its life before
 * it is disconnected; and how far a client's replies may fall behind (bytes waiting, and for how
 * long) before the client is disconnected as a slow consumer, so it holds no other session up.
 *
 * @param maxTransports       connections (messaging images) tracked at once; more are refused.
 * @param logonTimeoutMs      a connection not logged on this long is disconnected.
 * @param logonsPerSecond     sustained logon attempts, and answers before logon, per connection.
 * @param logonBurst          those it may send at once.
 * @param maxMalformed        malformed messages a connection may send before it is disconnected.
 * @param maxReplyBacklogBytes bytes of replies that may wait for a client that reads too slowly.
 * @param maxReplyBacklogMs   how long its oldest waiting reply may wait.
 */
public record TransportLimits(int maxTransports, long logonTimeoutMs, int logonsPerSecond, int logonBurst,
    int maxMalformed, int maxReplyBacklogBytes, long maxReplyBacklogMs)
{
    /** The limits of a gateway configured without its own. */
    public static final TransportLimits DEFAULT = new TransportLimits(256, 5_000, 5, 5, 64, 4 << 20, 2_000);

    /**
     * Validates the values.
     */
    public TransportLimits
    {
        if (maxTransports < 1 || maxTransports > 65_536 || logonTimeoutMs < 1 || logonsPerSecond < 1 ||
            logonBurst < 1 || maxMalformed < 0 || maxReplyBacklogBytes < 4096 || maxReplyBacklogMs < 1)
        {
            throw new IllegalArgumentException("transport limits: maxTransports 1 to 65536, logonTimeoutMs, " +
                "logonsPerSecond and logonBurst at least 1, maxMalformed at least 0, maxReplyBacklogBytes at least " +
                "4096, maxReplyBacklogMs at least 1: " + maxTransports + ", " + logonTimeoutMs + ", " + logonsPerSecond +
                ", " + logonBurst + ", " + maxMalformed + ", " + maxReplyBacklogBytes + ", " + maxReplyBacklogMs);
        }
    }
}
