package io.ringwire.exchange.gateway;

/**
 * Bounds on what a connection can make the gateway do before, and besides, trading: how many
 * connections it tracks, how long one may stay without logging on, how often it may try to log on
 * (and be answered before it has), and how many malformed messages it may send in its life before
 * it is disconnected; and how far a client's replies may fall behind (bytes waiting, and for how
 * long) before the client is disconnected as a slow consumer, so it holds no other session up; and
 * how much of each session's replies the gateway keeps to resend at its next logon.
 *
 * @param maxTransports       connections (messaging images) tracked at once; more are refused.
 * @param logonTimeoutMs      a connection not logged on this long is disconnected (at most {@link #MAX_WAIT_MS}).
 * @param logonsPerSecond     sustained logon attempts, and answers before logon, per connection.
 * @param logonBurst          those it may send at once.
 * @param maxMalformed        malformed messages a connection may send before it is disconnected.
 * @param maxReplyBacklogBytes bytes of replies that may wait for a client that reads too slowly, at
 *                            most half the reply log: a client cut off as a slow consumer loses its
 *                            backlog, and finds it in the reply log at its next logon, beside the
 *                            log's other half for what comes while it is away.
 * @param maxReplyBacklogMs   how long its oldest waiting reply may wait (at most {@link #MAX_WAIT_MS}).
 * @param replyLogBytes       each session's reply log: its newest execution reports, kept for a resend
 *                            at its next logon (a power of two, 8 KiB to 1 GiB, on the heap from the
 *                            start: a session's backlog needs half of it, at least 4 KiB).
 */
public record TransportLimits(int maxTransports, long logonTimeoutMs, int logonsPerSecond, int logonBurst,
    int maxMalformed, int maxReplyBacklogBytes, long maxReplyBacklogMs, int replyLogBytes)
{
    /**
     * The reply log of a gateway configured without its own: about 20,000 execution reports, room
     * for a slow client's whole backlog, or those in flight when a session is lost and the
     * cancel-on-disconnect of its resting orders.
     */
    public static final int DEFAULT_REPLY_LOG_BYTES = 4 << 20;
    /** The smallest reply log: twice the smallest reply backlog. */
    public static final int MIN_REPLY_LOG_BYTES = 8192;
    /** The reply backlog of a gateway configured without its own: half its reply log. */
    public static final int DEFAULT_REPLY_BACKLOG_BYTES = DEFAULT_REPLY_LOG_BYTES / 2;
    /**
     * The longest logon timeout and reply wait, an hour: the gateway keeps them in nanoseconds, and a
     * longer wait holds a connection's slot or a slow client's replies past any use.
     */
    public static final long MAX_WAIT_MS = 3_600_000;
    /** The limits of a gateway configured without its own. */
    public static final TransportLimits DEFAULT =
        new TransportLimits(256, 5_000, 5, 5, 64, DEFAULT_REPLY_BACKLOG_BYTES, 2_000, DEFAULT_REPLY_LOG_BYTES);

    /**
     * Validates the values.
     */
    public TransportLimits
    {
        if (maxTransports < 1 || maxTransports > 65_536 || logonTimeoutMs < 1 || logonTimeoutMs > MAX_WAIT_MS ||
            logonsPerSecond < 1 || logonBurst < 1 || maxMalformed < 0 || maxReplyBacklogBytes < 4096 ||
            Integer.bitCount(maxReplyBacklogBytes) != 1 || maxReplyBacklogMs < 1 || maxReplyBacklogMs > MAX_WAIT_MS ||
            replyLogBytes < MIN_REPLY_LOG_BYTES || replyLogBytes > (1 << 30) || Integer.bitCount(replyLogBytes) != 1)
        {
            throw new IllegalArgumentException("transport limits: maxTransports 1 to 65536, logonTimeoutMs 1 to " +
                MAX_WAIT_MS + ", logonsPerSecond and logonBurst at least 1, maxMalformed at least 0, " +
                "maxReplyBacklogBytes a power of two of at least 4096 (the backlog's ring takes one), " +
                "maxReplyBacklogMs 1 to " + MAX_WAIT_MS +
                ", replyLogBytes a power of two from 8192 to 2^30: " + maxTransports +
                ", " + logonTimeoutMs + ", " + logonsPerSecond + ", " + logonBurst + ", " + maxMalformed + ", " +
                maxReplyBacklogBytes + ", " + maxReplyBacklogMs + ", " + replyLogBytes);
        }
        if (maxReplyBacklogBytes > replyLogBytes / 2)
        {
            // A message that does not fit before the log's end starts it over, so the log holds a
            // little less than its length: half of it is what a backlog is sure to find there.
            throw new IllegalArgumentException("transport limits: maxReplyBacklogBytes (reply-backlog-bytes) " +
                maxReplyBacklogBytes + " must be at most half of replyLogBytes (reply-log-bytes) " + replyLogBytes +
                ", so that a client cut off as a slow consumer finds its dropped replies in the log at its next logon");
        }
    }
}
