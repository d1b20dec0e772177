package io.ringwire.exchange;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exchange's clock reads UTC epoch nanoseconds, and never runs backwards. */
class ExchangeClockTest
{
    @Test
    void readsTheEpochInNanosecondsAsTheWallClockDoes()
    {
        final Instant wall = Instant.now();
        final long wallNs = wall.getEpochSecond() * 1_000_000_000L + wall.getNano();
        final long clockNs = ExchangeClock.nowNs();
        // A wall clock stepped by NTP within the test could part them; a second covers any slew.
        assertTrue(Math.abs(clockNs - wallNs) < TimeUnit.SECONDS.toNanos(1),
            "the exchange's clock " + clockNs + " against the wall clock's " + wallNs);
    }

    @Test
    void aMonotonicReadingMovesToTheInstantTheClockReadsAroundIt()
    {
        final long before = ExchangeClock.nowNs();
        final long monotonic = System.nanoTime();
        final long after = ExchangeClock.nowNs();
        final long moved = ExchangeClock.fromMonotonic(monotonic);
        assertTrue(before <= moved && moved <= after, before + " <= " + moved + " <= " + after);
        assertEquals(ExchangeClock.fromMonotonic(monotonic + 1_000), moved + 1_000, "a fixed offset");
    }

    @Test
    void neverRunsBackwards()
    {
        long last = ExchangeClock.nowNs();
        for (int i = 0; i < 100_000; i++)
        {
            final long now = ExchangeClock.nowNs();
            assertTrue(now >= last, "read " + now + " after " + last);
            last = now;
        }
    }
}
