package io.ringwire.exchange.gateway;

/**
 * One token bucket per session: a session may send {@code burst} requests at once and
 * {@code maxMessagesPerSecond} sustained. Tokens are kept in billionths of a request so the refill
 * is exact integer arithmetic on nanoseconds (a request costs {@link #COST}; a nanosecond refills
 * {@code maxMessagesPerSecond} billionths), with no floating point and no drift.
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction.
 */
final class RateLimiter
{
    /** Billionths of a token one request takes. */
    private static final long COST = 1_000_000_000L;

    private final long refillPerNs;
    private final long capacity;
    private final long[] tokens;
    private final long[] lastRefillNs;

    RateLimiter(final int sessions, final int maxMessagesPerSecond, final int burst)
    {
        this.refillPerNs = maxMessagesPerSecond;
        this.capacity = burst * COST;
        this.tokens = new long[sessions];
        this.lastRefillNs = new long[sessions];
        // Each session starts with its whole burst. A bucket is not filled again at a logon: it
        // refills with time alone, so logging out and on again gives no extra requests.
        java.util.Arrays.fill(tokens, capacity);
    }

    /** Fills a bucket for a new holder: a connection taking a slot another left. */
    void reset(final int holder, final long nowNs)
    {
        tokens[holder] = capacity;
        lastRefillNs[holder] = nowNs;
    }

    /**
     * @return true when the session may send one more request now (a token is taken), false when
     *         it is over its rate (nothing is taken).
     */
    boolean tryAcquire(final int session, final long nowNs)
    {
        final long elapsed = Math.max(0, nowNs - lastRefillNs[session]);
        long available = tokens[session];
        // Compare before multiplying: a long idle gap times the rate would overflow.
        if (elapsed >= (capacity - available) / refillPerNs + 1)
        {
            available = capacity;
        }
        else
        {
            available += elapsed * refillPerNs;
        }
        lastRefillNs[session] = Math.max(nowNs, lastRefillNs[session]);
        if (available < COST)
        {
            tokens[session] = available;
            return false;
        }
        tokens[session] = available - COST;
        return true;
    }
}
