package io.ringwire.perf.throughput;

import io.ringwire.perf.oneway.OneWayBenchmark;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tables that print latency percentiles print how many samples each row's percentiles come from:
 * a p99.9 of a thousand samples is their largest but one.
 */
class LatencyTablesTest
{
    private static Histogram samples(final int count)
    {
        final Histogram histogram = new Histogram(3);
        for (int i = 1; i <= count; i++)
        {
            histogram.recordValue(1_000L * i);
        }
        return histogram;
    }

    @Test
    void theOneWayTableGivesEachRowsSampleCount()
    {
        final String table = OneWayBenchmark.table(List.of(new OneWayBenchmark.Result("shm", "messaging", 64, 0,
            samples(1_234), new Histogram(3), 10_000)));
        assertTrue(table.lines().findFirst().orElseThrow().contains("samples"), table);
        assertTrue(table.lines().skip(1).findFirst().orElseThrow().contains(" 1234 "), table);
    }

    @Test
    void theSweepTableGivesEachStepsSampleCount()
    {
        final String table = ThroughputBenchmark.table(new ThroughputBenchmark.Result(List.of(), List.of(
            new ThroughputBenchmark.SweepStep(10_000, 10_000, samples(4_321), samples(4_321), true))));
        assertTrue(table.contains("samples"), table);
        assertTrue(table.lines().anyMatch(line -> line.contains(" 4321 ")), table);
    }
}
