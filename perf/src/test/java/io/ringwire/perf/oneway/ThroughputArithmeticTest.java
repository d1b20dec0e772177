package io.ringwire.perf.oneway;

import io.ringwire.perf.throughput.ThroughputBenchmark;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Rates from counts over a window in nanoseconds, as the throughput table and JSON report them.
 */
class ThroughputArithmeticTest
{
    @Test
    void messagesPerSecondIsTheCountOverTheWindowInSeconds()
    {
        assertEquals(2_000_000.0, ThroughputArithmetic.perSecond(1_000_000, 500_000_000L), 1e-6);
        assertEquals(3.0, ThroughputArithmetic.perSecond(3, 1_000_000_000L), 1e-9);
    }

    @Test
    void megabytesPerSecondCountsTenToTheSixBytesAMegabyte()
    {
        assertEquals(1024.0, ThroughputArithmetic.megabytesPerSecond(1_000_000L * 1024, 1_000_000_000L), 1e-9);
        assertEquals(8192.0, ThroughputArithmetic.megabytesPerSecond(2_000_000L * 4096, 1_000_000_000L), 1e-9);
    }

    @Test
    void anEmptyWindowHasNoRateRatherThanAnInfiniteOne()
    {
        assertEquals(0.0, ThroughputArithmetic.perSecond(10, 0));
        assertEquals(0.0, ThroughputArithmetic.megabytesPerSecond(10, -1));
    }

    @Test
    void aFloodReportsBothRatesFromOneWindow()
    {
        final ThroughputBenchmark.Flood flood = new ThroughputBenchmark.Flood("messaging", 0, 256, 4_000_000, 1_024_000_000L,
            2_000_000_000L);

        assertEquals(2_000_000.0, flood.messagesPerSecond(), 1e-6);
        assertEquals(512.0, flood.megabytesPerSecond(), 1e-9);
    }
}
