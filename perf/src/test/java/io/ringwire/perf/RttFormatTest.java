package io.ringwire.perf;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RttFormatTest
{
    static final List<String> RESULT_FIELDS = List.of(
        "provider", "p50", "p90", "p99", "p99_9", "p99_99", "max", "mean", "count");
    static final List<String> INTEGER_FIELDS = List.of("p50", "p90", "p99", "p99_9", "p99_99", "max", "count");

    private static RttResult result(final String provider, final long... roundTripsNs)
    {
        final Histogram histogram = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        for (final long roundTripNs : roundTripsNs)
        {
            histogram.recordValue(roundTripNs);
        }
        return RttResult.of(provider, 1, 32, histogram, 0, 1, 0);
    }

    private static RttReport report()
    {
        return new RttReport(32, 4, 2, 1, List.of(
            result("shm", 1_000, 2_000, 3_000, 4_000),
            result("nio-tcp", 10_000, 20_000, 30_000, 40_000)));
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonIsOneValidObjectWithEveryFieldInNanoseconds()
    {
        final String json = RttJson.format(report());

        final Map<String, Object> root = (Map<String, Object>)MiniJson.parse(json);
        assertEquals("rtt", root.get("benchmark"));
        assertEquals(32.0, root.get("size"));
        assertEquals(4.0, root.get("messages"));
        assertEquals(1.0, root.get("processes"));
        final List<Object> results = (List<Object>)root.get("results");
        assertEquals(2, results.size());
        final Map<String, Object> shm = (Map<String, Object>)results.get(0);
        for (final String field : RESULT_FIELDS)
        {
            assertTrue(shm.containsKey(field), "result has " + field + ": " + json);
        }
        assertEquals("shm", shm.get("provider"));
        assertEquals(4.0, shm.get("count"));
        assertEquals(2500.0, (Double)shm.get("mean"), 5.0);
        for (final String field : INTEGER_FIELDS)
        {
            final double value = assertInstanceOf(Double.class, shm.get(field));
            assertEquals(Math.rint(value), value, field + " is an integer");
        }
        // HdrHistogram at 3 significant digits: each percentile is within 0.1% of a recorded value.
        assertEquals(2000.0, (Double)shm.get("p50"), 2.0);
        assertEquals(4000.0, (Double)shm.get("max"), 4.0);
        assertEquals("nio-tcp", ((Map<String, Object>)results.get(1)).get("provider"));
    }

    @Test
    void tableComparesEachRdmaProviderWithItsBaselineWhenBothRan()
    {
        final RttReport report = new RttReport(32, 4, 2, 1, List.of(
            result("nio-udp", 10_000, 10_000, 10_000, 10_000),
            result("roce", 12_000, 12_000, 12_000, 12_000),
            result("socket", 30_000, 30_000, 30_000, 30_000)));

        final String table = RttTable.format(report);

        assertTrue(table.contains("p50 against its baseline, same run: roce 1.20x nio-udp\n"), table);
        assertTrue(!RttTable.format(report()).contains("against its baseline"), "no baseline pair, no line");
    }

    @Test
    void tableShowsWhatRocesWayOfUsingSocketsCostsWhenTheUnconnectedBaselineRan()
    {
        final RttReport report = new RttReport(32, 4, 2, 1, List.of(
            result("roce", 13_000, 13_000, 13_000, 13_000),
            result("nio-udp", 10_000, 10_000, 10_000, 10_000),
            result("nio-udp-unconnected", 12_000, 12_000, 12_000, 12_000)));

        final String table = RttTable.format(report);

        assertTrue(table.contains("p50 against its baseline, same run: roce 1.30x nio-udp, " +
            "nio-udp-unconnected 1.20x nio-udp, roce 1.08x nio-udp-unconnected\n"), table);
    }

    @Test
    void tableHasARowPerProviderInMicrosecondsWithTheRatioToTheFirst()
    {
        final String table = RttTable.format(report());

        final List<String> lines = table.lines().toList();
        final String header = lines.stream().filter(l -> l.startsWith("provider")).findFirst().orElseThrow();
        for (final String column : List.of("processes", "size", "messages", "p50", "p90", "p99", "p99.9", "p99.99",
            "max", "mean", "ratio"))
        {
            assertTrue(header.contains(column), "header has " + column + ": " + header);
        }
        final String shm = lines.stream().filter(l -> l.startsWith("shm ")).findFirst().orElseThrow();
        final String nio = lines.stream().filter(l -> l.startsWith("nio-tcp ")).findFirst().orElseThrow();
        assertTrue(shm.contains(" 2.001 ") || shm.contains(" 2.000 "), "p50 in us with 3 decimals: " + shm);
        assertTrue(shm.contains(" 1.00x "), shm);
        final String nioRatio = nio.split(" +")[11];
        assertTrue(nioRatio.endsWith("x"), nio);
        assertEquals(10.0, Double.parseDouble(nioRatio.substring(0, nioRatio.length() - 1)), 0.02, nio);
        assertTrue(nio.endsWith("0/1"), "cpus column: " + nio);
    }
}
