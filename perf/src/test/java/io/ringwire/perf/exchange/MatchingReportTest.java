package io.ringwire.perf.exchange;

import io.ringwire.perf.testing.MiniJson;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shape of {@code perf matching}'s JSON and table, from made-up figures.
 */
class MatchingReportTest
{
    @Test
    @SuppressWarnings("unchecked")
    void theJsonHasOneResultPerCaseWithItsHeadlineFiguresAndTheFixedRateRun()
    {
        final String text = MatchingReport.json(List.of(result(1, 6_100_000), result(100, 4_200_000)),
            "one thread \"matching-engine\"", 5);

        final Map<String, Object> json = (Map<String, Object>)MiniJson.parse(text);
        assertEquals("matching", json.get("benchmark"));
        assertEquals("one thread \"matching-engine\"", json.get("threads"));
        assertEquals(5.0, json.get("rounds"));
        final List<Object> results = (List<Object>)json.get("results");
        assertEquals(2, results.size());
        final Map<String, Object> first = (Map<String, Object>)results.get(0);
        assertEquals(1.0, first.get("instruments"));
        assertEquals(3_000_000.0, first.get("orders"));
        assertEquals(6_100_000.0, first.get("orders_per_second"));
        assertEquals(150.0, first.get("p50_ns"));
        assertEquals(400.0, first.get("p99_ns"));
        assertEquals(900.0, first.get("p99_9_ns"));
        final Map<String, Object> fixedRate = (Map<String, Object>)first.get("fixed_rate");
        assertEquals(1_000_000.0, fixedRate.get("offered_per_second"));
        assertEquals(700.0, fixedRate.get("p99_ns"));
        assertEquals(610.0, ((Map<String, Object>)fixedRate.get("floor")).get("p99_ns"), "the schedule alone beside it");
        assertEquals(2_000.0, fixedRate.get("late_ns"));
        assertEquals(0.0132, fixedRate.get("late_share"));
        assertEquals(0.0061, fixedRate.get("floor_late_share"), "the machine's own share of late requests beside it");
        final Map<String, Object> mix = (Map<String, Object>)first.get("mix");
        assertEquals(RequestKind.ALL.length, mix.size());
        assertEquals(0.82, ((Number)mix.get("move")).doubleValue(), 1e-9);
        assertEquals(1.0, ((Map<String, Object>)first.get("trading_share_by_kind")).get("new IOC"));
        assertEquals(RequestKind.ALL.length, ((List<Object>)first.get("by_kind")).size());
        assertEquals(120.5, first.get("digest_ns_per_order"));
        assertEquals(100.0, ((Map<String, Object>)results.get(1)).get("instruments"));
        assertEquals(4_200_000.0, ((Map<String, Object>)results.get(1)).get("orders_per_second"));
    }

    @Test
    void theTableGivesEachCaseItsThroughputPercentilesFixedRateAndWhereTimeGoes()
    {
        final String table = MatchingReport.table(List.of(result(1, 6_100_000)), "one thread");

        assertTrue(table.contains("threads: one thread\n"), table);
        assertTrue(table.contains("1 instrument: 3,000,000 requests measured per run, median of 5 rounds"), table);
        assertTrue(table.contains("throughput  6.10 M orders/s (rounds 6.00-6.20): 163.9 ns a request"), table);
        assertTrue(table.contains("service     p50 150  p99 400  p99.9 900  max 5,000 ns"), table);
        assertTrue(table.contains("fixed rate  1,000,000/s offered"), table);
        assertTrue(table.contains("p99 700"), table);
        assertTrue(table.contains("floor       the same schedule applying nothing (this thread and machine alone): " +
            "p50 40  p99 610  p99.9 1,500  max 30,000 ns"), table);
        assertTrue(table.contains("late        over 2,000 ns from due time: 1.32% of requests at the rate, 0.61% in " +
            "the floor (a p99 within it needs under 1%)"), table);
        assertTrue(table.contains("digest      on the digest agent's thread, not the engine's: SHA-256 of 2.50 messages, " +
            "220 bytes a request: 120.5 ns"), table);
        assertTrue(table.contains("  flow        new GTC 9.0%, new IOC 3.0%, cancel 6.0%, move 82.0%; 3.0% of requests " +
            "trade (new GTC 0.1%, new IOC 100.0%, cancel 0.0%, move 0.1% of each)"), table);
    }

    @Test
    void aRequestIsLateOnlyPastTheFixedRateBoundAndAnEmptyRunHasNoneLate()
    {
        final Histogram histogram = EngineReplay.histogram();
        histogram.recordValueWithCount(150, 985);
        histogram.recordValueWithCount(MatchingResult.FixedRate.LATE_NS, 5);
        histogram.recordValueWithCount(25_000, 10);

        assertEquals(0.01, MatchingResult.FixedRate.lateShare(histogram), 1e-9, "at the bound is on time, past it late");
        assertEquals(0.0, MatchingResult.FixedRate.lateShare(EngineReplay.histogram()));
    }

    private static MatchingResult result(final int instruments, final double ordersPerSecond)
    {
        final double[] shares = { 0.09, 0.03, 0.06, 0.82 };
        final List<MatchingResult.KindTimes> byKind = new ArrayList<>();
        for (final RequestKind kind : RequestKind.ALL)
        {
            byKind.add(new MatchingResult.KindTimes(kind, 1000, 100, 300, 120.0, shares[kind.ordinal()]));
        }
        return new MatchingResult(instruments,
            new MatchingResult.FlowSummary(3_000_000, 2_000, 1_000, 1, shares,
                new double[] { 0.001, 1.0, 0.0, 0.0005 }, 0.03, 1000.0, 750.0, 68.5),
            5, new MatchingResult.Spread(ordersPerSecond, ordersPerSecond - 100_000, ordersPerSecond + 100_000),
            new MatchingResult.Percentiles(150, 400, 900, 5_000), 170.0, 20, byKind,
            new MatchingResult.FixedRate(1_000_000, 999_999.0, new MatchingResult.Percentiles(200, 700, 2_000, 40_000),
                new MatchingResult.Percentiles(40, 610, 1_500, 30_000), 0.0132, 0.0061),
            120.5, 2.5, 220.0, 9.5, 0, 0);
    }
}
