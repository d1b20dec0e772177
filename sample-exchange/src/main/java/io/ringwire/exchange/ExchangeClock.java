package io.ringwire.exchange;

import java.time.Instant;

/**
 * The exchange's one clock: nanoseconds since the Unix epoch (UTC), as the trading schema's
 * {@code UtcTimestampNs} fields carry them, read as the host's monotonic clock plus an offset fixed
 * when the process starts. Every role stamps with it: the gateway's receive time (the engine's only
 * clock, so transact times and market data are UTC), the latency ledger's hops, the clients' sending
 * times, and the duty cycles' own readings, so a timeout and a stamp are the same kind of number.
 *
 * <p>Why an offset rather than the wall clock at each read: the wall clock can step (NTP, an
 * operator), and a hop measured across a step would read negative or huge; the monotonic clock
 * never steps. Processes on one host read the same monotonic clock and each take their offset from
 * the same wall clock, so their stamps agree to the offset's sampling error (the best of
 * {@link #SAMPLES} bracketed reads: tens of nanoseconds) unless the wall clock stepped between their
 * starts. Linux slews the monotonic clock as NTP slews the wall clock, so a process that runs for
 * days follows the slewing; a step of the wall clock after its start, it does not follow: its
 * stamps stay off UTC by that step until it starts again.
 *
 * <p>Threading: any thread. Allocation: none after class initialisation.
 */
public final class ExchangeClock
{
    /** Bracketed reads the offset is taken from: the one with the shortest bracket wins. */
    static final int SAMPLES = 64;

    private static final long OFFSET_NS = epochMinusMonotonicNs();

    private ExchangeClock()
    {
    }

    /** @return now, in nanoseconds since the Unix epoch (UTC). */
    public static long nowNs()
    {
        return System.nanoTime() + OFFSET_NS;
    }

    /**
     * @param monotonicNs a {@link System#nanoTime()} reading of this process (one a duty cycle took
     *                    for messaging, which keeps the monotonic clock).
     * @return the same instant on this clock.
     */
    public static long fromMonotonic(final long monotonicNs)
    {
        return monotonicNs + OFFSET_NS;
    }

    private static long epochMinusMonotonicNs()
    {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int i = 0; i < SAMPLES; i++)
        {
            final long before = System.nanoTime();
            final Instant wall = Instant.now();
            final long after = System.nanoTime();
            if (after - before < best)
            {
                best = after - before;
                offset = wall.getEpochSecond() * 1_000_000_000L + wall.getNano() - (before + (after - before) / 2);
            }
        }
        return offset;
    }
}
