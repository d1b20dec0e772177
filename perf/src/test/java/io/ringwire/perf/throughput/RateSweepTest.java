package io.ringwire.perf.throughput;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sweep's rule, on given figures: rates double, and the sweep stops at a step that missed its
 * target by more than 5% or whose p99 passed 10 ms.
 */
class RateSweepTest
{
    @Test
    void offeredRatesDoubleFromTheStartRate()
    {
        assertEquals(10_000, RateSweep.offeredRate(10_000, 0));
        assertEquals(20_000, RateSweep.offeredRate(10_000, 1));
        assertEquals(640_000, RateSweep.offeredRate(10_000, 6));
    }

    @Test
    void aStepThatHeldItsRateWithALowP99GoesOn()
    {
        assertFalse(RateSweep.stopsAfter(100_000, 100_000, 50_000));
        assertFalse(RateSweep.stopsAfter(100_000, 95_000, 50_000), "exactly 5% short is still held");
        assertFalse(RateSweep.stopsAfter(100_000, 100_000, RateSweep.P99_LIMIT_NS), "exactly 10 ms is allowed");
    }

    @Test
    void aStepMoreThanFivePercentShortOfItsTargetStopsTheSweep()
    {
        assertTrue(RateSweep.missed(100_000, 94_999));
        assertTrue(RateSweep.stopsAfter(100_000, 94_999, 1_000));
    }

    @Test
    void aStepWhoseP99PassesTenMillisecondsStopsTheSweepEvenAtItsRate()
    {
        assertTrue(RateSweep.stopsAfter(100_000, 100_000, RateSweep.P99_LIMIT_NS + 1));
        assertEquals(10_000_000L, RateSweep.P99_LIMIT_NS);
    }
}
