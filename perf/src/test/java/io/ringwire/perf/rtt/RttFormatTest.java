package io.ringwire.perf.rtt;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.host.GcActivity;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.Pinger;
import io.ringwire.perf.testing.MiniJson;
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
        "provider", "api", "size", "p50", "p90", "p99", "p99_9", "p99_99", "max", "mean", "count");
    static final List<String> INTEGER_FIELDS = List.of("size", "p50", "p90", "p99", "p99_9", "p99_99", "max", "count");
    static final List<String> OVERHEAD_FIELDS = List.of(
        "provider", "channel_p50", "messaging_p50", "overhead_p50", "overhead_p50_ns");

    private static RttResult result(final String provider, final String api, final long... roundTripsNs)
    {
        final Histogram histogram = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        for (final long roundTripNs : roundTripsNs)
        {
            histogram.recordValue(roundTripNs);
        }
        final int size = Transports.API_MESSAGING.equals(api) ? LatencyProbeCodec.MIN_LENGTH : 32;
        return RttResult.of(provider, api, 1, size, histogram, 0, 1, 0, false);
    }

    private static RttReport report()
    {
        return new RttReport(32, 4, 2, 1, List.of(
            result("shm", Transports.API_CHANNEL, 1_000, 2_000, 3_000, 4_000),
            result("nio-tcp", Transports.API_RAW, 10_000, 20_000, 30_000, 40_000)));
    }

    /** shm and socket each through the channel and messaging, nio-tcp raw. */
    private static RttReport bothWaysReport()
    {
        return new RttReport(32, 4, 2, 1, List.of(
            result("shm", Transports.API_CHANNEL, 1_000, 1_000, 1_000, 1_000),
            result("shm", Transports.API_MESSAGING, 1_100, 1_100, 1_100, 1_100),
            result("socket", Transports.API_CHANNEL, 20_000, 20_000, 20_000, 20_000),
            result("socket", Transports.API_MESSAGING, 21_000, 21_000, 21_000, 21_000),
            result("nio-tcp", Transports.API_RAW, 16_000, 16_000, 16_000, 16_000)));
    }

    @Test
    @SuppressWarnings("unchecked")
    void anOpenLoopRowKeepsItsServiceTimeKeysAndAddsItsDueTimeOnesInTheJsonAndTheTable()
    {
        final Histogram service = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        final Histogram due = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        for (final long ns : new long[] { 1_000, 2_000, 3_000, 4_000 })
        {
            service.recordValue(ns);
            due.recordValue(ns * 100);
        }
        final RttReport report = new RttReport(32, 4, 2, 1, List.of(RttResult.of("shm", Transports.API_CHANNEL, 1,
            32, service, 0, 1, 0, false, new GcActivity(2, 9), RttDueTime.of(50_000, due))));

        final Map<String, Object> row = ((List<Map<String, Object>>)((Map<String, Object>)MiniJson.parse(
            RttJson.format(report))).get("results")).getFirst();
        final String table = RttTable.format(report);

        for (final String field : RESULT_FIELDS)
        {
            assertTrue(row.containsKey(field), "keeps " + field);
        }
        assertEquals((double)service.getValueAtPercentile(50.0), row.get("p50"), "p50 is the service time");
        assertEquals((double)due.getValueAtPercentile(50.0), row.get("due_p50"));
        assertEquals((double)due.getMaxValue(), row.get("due_max"));
        assertEquals(50_000.0, row.get("rate"));
        assertEquals(2.0, row.get("gc_collections"), "the row's garbage collections");
        assertEquals(9.0, row.get("gc_time_ms"));
        for (final String field : List.of("due_p90", "due_p99", "due_p99_9", "due_p99_99", "due_mean"))
        {
            assertTrue(row.containsKey(field), "adds " + field);
        }
        assertTrue(table.contains("open loop: the rows above time each message from its send"), table);
        assertTrue(table.contains(RttTable.micros(due.getValueAtPercentile(50.0))), table);
        assertTrue(!RttTable.format(report()).contains("open loop"), "a closed loop has no due-time rows");
        assertTrue(!RttJson.format(report()).contains("due_p50"), "nor due-time keys");
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
        assertEquals("channel", shm.get("api"));
        assertEquals(32.0, shm.get("size"));
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
        assertEquals("raw", ((Map<String, Object>)results.get(1)).get("api"));
        assertEquals(List.of(), root.get("overhead"), "nothing ran both ways");
        assertTrue(!shm.containsKey("overhead_p50"), "a channel row carries no overhead: " + json);
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonGivesMessagingsP50OverheadOverTheChannelPerProviderInTheRowAndInOneList()
    {
        final String json = RttJson.format(bothWaysReport());

        final Map<String, Object> root = (Map<String, Object>)MiniJson.parse(json);
        final List<Object> results = (List<Object>)root.get("results");
        assertEquals(5, results.size());
        final Map<String, Object> shmMessaging = (Map<String, Object>)results.get(1);
        assertEquals("messaging", shmMessaging.get("api"));
        assertEquals(36.0, shmMessaging.get("size"));
        assertEquals(1000.0, (Double)shmMessaging.get("channel_p50"), 1.0);
        assertEquals(1.1, (Double)shmMessaging.get("overhead_p50"), 0.002);
        final List<Object> overheads = (List<Object>)root.get("overhead");
        assertEquals(2, overheads.size(), json);
        final Map<String, Object> shm = (Map<String, Object>)overheads.get(0);
        final Map<String, Object> socket = (Map<String, Object>)overheads.get(1);
        for (final String field : OVERHEAD_FIELDS)
        {
            assertTrue(shm.containsKey(field), "overhead has " + field + ": " + json);
        }
        assertEquals("shm", shm.get("provider"));
        assertEquals(1000.0, (Double)shm.get("channel_p50"), 1.0);
        assertEquals(1100.0, (Double)shm.get("messaging_p50"), 1.1);
        assertEquals(1.1, (Double)shm.get("overhead_p50"), 0.002);
        assertEquals(100.0, (Double)shm.get("overhead_p50_ns"), 2.0);
        assertEquals("socket", socket.get("provider"));
        assertEquals(1.05, (Double)socket.get("overhead_p50"), 0.002);
        assertEquals(1000.0, (Double)socket.get("overhead_p50_ns"), 25.0);
    }

    @Test
    void tableHasAnApiColumnAndSaysMessagingsOverheadOverTheChannelPerProvider()
    {
        final String table = RttTable.format(bothWaysReport());

        final List<String> lines = table.lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.matches("shm +channel +1 +32 .*")), table);
        assertTrue(lines.stream().anyMatch(l -> l.matches("shm +messaging +1 +36 .*")), table);
        assertTrue(lines.stream().anyMatch(l -> l.matches("nio-tcp +raw +1 +32 .*")), table);
        assertTrue(table.contains("messaging over the channel at p50, same run: shm 1.10x (+100 ns), socket 1.05x (+"),
            table);
        assertTrue(table.contains("p50 against its raw baseline (RDMA providers over the channel unless named), same run: " +
            "socket 1.25x nio-tcp\n"), table);
        assertTrue(!RttTable.format(report()).contains("messaging over the channel"), "not both ways, no line");
    }

    @Test
    void tableComparesEachRdmaProviderWithItsBaselineWhenBothRan()
    {
        final RttReport report = new RttReport(32, 4, 2, 1, List.of(
            result("nio-udp", Transports.API_RAW, 10_000, 10_000, 10_000, 10_000),
            result("roce", Transports.API_CHANNEL, 12_000, 12_000, 12_000, 12_000),
            result("roce", Transports.API_MESSAGING, 13_000, 13_000, 13_000, 13_000),
            result("socket", Transports.API_CHANNEL, 30_000, 30_000, 30_000, 30_000)));

        final String table = RttTable.format(report);

        assertTrue(table.contains("p50 against its raw baseline (RDMA providers over the channel unless named), same run: " +
            "roce 1.20x nio-udp\n"), table);
        assertTrue(!RttTable.format(report()).contains("against its raw baseline"), "no baseline pair, no line");
    }

    @Test
    void tableShowsWhatRocesWayOfUsingSocketsCostsWhenTheUnconnectedBaselineRan()
    {
        final RttReport report = new RttReport(32, 4, 2, 1, List.of(
            result("roce", Transports.API_CHANNEL, 13_000, 13_000, 13_000, 13_000),
            result("nio-udp", Transports.API_RAW, 10_000, 10_000, 10_000, 10_000),
            result("nio-udp-unconnected", Transports.API_RAW, 12_000, 12_000, 12_000, 12_000)));

        final String table = RttTable.format(report);

        assertTrue(table.contains("p50 against its raw baseline (RDMA providers over the channel unless named), same run: " +
            "roce 1.30x nio-udp, " +
            "nio-udp-unconnected 1.20x nio-udp, roce 1.08x nio-udp-unconnected\n"), table);
    }

    @Test
    void tableComparesShmMessagingWithAeronIpcWhenBothRan()
    {
        final RttReport report = new RttReport(32, 4, 2, 1, List.of(
            result("shm", Transports.API_CHANNEL, 250, 250, 250, 250),
            result("shm", Transports.API_MESSAGING, 300, 300, 300, 300),
            result("aeron-ipc", Transports.API_RAW, 200, 200, 200, 200)));

        final String table = RttTable.format(report);

        assertTrue(table.contains("p50 against its raw baseline (RDMA providers over the channel unless named), " +
            "same run: shm messaging 1.50x aeron-ipc\n"), table);
    }

    @Test
    void tableHasARowPerProviderInMicrosecondsWithTheRatioToTheFirst()
    {
        final String table = RttTable.format(report());

        final List<String> lines = table.lines().toList();
        final String header = lines.stream().filter(l -> l.startsWith("provider")).findFirst().orElseThrow();
        for (final String column : List.of("api", "processes", "size", "messages", "p50", "p90", "p99", "p99.9",
            "p99.99",
            "max", "mean", "ratio", "cpus", "gc"))
        {
            assertTrue(header.contains(column), "header has " + column + ": " + header);
        }
        final String shm = lines.stream().filter(l -> l.startsWith("shm ")).findFirst().orElseThrow();
        final String nio = lines.stream().filter(l -> l.startsWith("nio-tcp ")).findFirst().orElseThrow();
        assertTrue(shm.contains(" 2.001 ") || shm.contains(" 2.000 "), "p50 in us with 3 decimals: " + shm);
        assertTrue(shm.contains(" 1.00x "), shm);
        final String nioRatio = nio.split(" +")[12];
        assertTrue(nioRatio.endsWith("x"), nio);
        assertEquals(10.0, Double.parseDouble(nioRatio.substring(0, nioRatio.length() - 1)), 0.02, nio);
        assertEquals("0/1", nio.split(" +")[13], "cpus column: " + nio);
        assertEquals("0", nio.split(" +")[14], "gc column: " + nio);
    }

    private static RttReport roceRound(final long roceNs, final long udpNs)
    {
        return new RttReport(32, 4, 2, 2, List.of(
            result("roce", Transports.API_CHANNEL, roceNs, roceNs, roceNs, roceNs),
            result("nio-udp", Transports.API_RAW, udpNs, udpNs, udpNs, udpNs)));
    }

    @Test
    void aRatioOverRoundsIsTheMedianOfItsReadingInEachRoundNotTheRatioOfMedianP50s()
    {
        // In round 2 nio-udp alone is in a slow phase: that round's reading is low, the median is not.
        final RttRounds rounds = new RttRounds(List.of(roceRound(6_400, 5_600), roceRound(6_400, 8_000),
            roceRound(6_300, 5_600), roceRound(6_500, 5_700)));

        final List<RttRounds.Summary> summaries = rounds.ratioSummaries();
        assertEquals(1, summaries.size());
        final RttRounds.Summary summary = summaries.getFirst();
        assertEquals("roce / nio-udp", summary.label());
        assertEquals(4, summary.values().length);
        // Each p50 is the histogram's value, within its 3 significant digits of the recorded one.
        final double[] expected = { 6_400.0 / 5_600, 6_400.0 / 8_000, 6_300.0 / 5_600, 6_500.0 / 5_700 };
        for (int i = 0; i < expected.length; i++)
        {
            assertEquals(expected[i], summary.values()[i], 0.005);
        }
        // Sorted: 0.80, 1.125, 1.140, 1.143; the ratio of the median p50s would read 6400/5650 = 1.133.
        assertEquals((expected[2] + expected[3]) / 2, summary.median(), 0.005, "the mean of the middle two of four");
        assertEquals(expected[1], summary.lowest(), 0.005);
        assertEquals(expected[0], summary.highest(), 0.005);
        assertEquals(2.0, RttRounds.median(new double[] { 3, 1, 2 }), "odd count: the middle one");
        assertEquals(List.of("roce channel", "nio-udp raw"),
            rounds.rowMedians().stream().map(row -> row.provider() + " " + row.api()).toList());
        assertEquals(6_400, rounds.rowMedians().getFirst().p50(), 10);
    }

    @Test
    void theTableOfARunOfRoundsHasEachRoundThenEachRatiosMedianAndRange()
    {
        final String table = RttTable.format(new RttRounds(List.of(roceRound(6_400, 5_600), roceRound(6_400, 8_000),
            roceRound(6_300, 5_600))));

        assertTrue(table.contains("round 1 of 3: rtt:"), table);
        assertTrue(table.contains("round 3 of 3: rtt:"), table);
        assertTrue(table.contains("p50 ratios over 3 rounds"), table);
        // Readings 1.14, 0.80 and 1.13 (p50s within the histogram's precision): the median is the 1.13.
        assertTrue(table.matches("(?s).*\\n  roce / nio-udp  1\\.1[23]x \\(0\\.80-1\\.14: 1\\.14 0\\.80 1\\.1[23]\\)\\n.*"), table);
        assertTrue(table.contains("p50 median over the rounds, us: roce channel 6.4"), table);
    }

    @Test
    void messagingOverTheChannelIsOneOfARoundsRatios()
    {
        final List<String> labels = bothWaysReport().ratios().stream().map(RttRatio::label).toList();

        assertEquals(List.of("shm messaging / channel", "socket messaging / channel", "socket / nio-tcp"), labels);
    }

    private static final String SHARED_DRIVER = "aeron-udp's media driver needs 5 CPUs to run dedicated (pinger, " +
        "ponger, conductor, sender, receiver), this host has 2";

    /** roce, nio-udp, and an aeron-udp row whose driver had no CPUs of its own. */
    private static RttReport roceWithSharedAeronUdp(final long aeronUdpNs)
    {
        return new RttReport(32, 4, 2, 1, List.of(
            result("roce", Transports.API_CHANNEL, 12_000, 12_000, 12_000, 12_000),
            result("nio-udp", Transports.API_RAW, 10_000, 10_000, 10_000, 10_000),
            result("aeron-udp", Transports.API_RAW, aeronUdpNs, aeronUdpNs, aeronUdpNs, aeronUdpNs)
                .notComparableBecause(SHARED_DRIVER)));
    }

    @Test
    void roceAgainstAeronUdpWhoseDriverHadNoCpusIsMarkedNotComparableWithTheReasonInTableAndJson()
    {
        final RttReport report = roceWithSharedAeronUdp(240_000);

        assertTrue(RttTable.format(report).contains("same run: roce 1.20x nio-udp, roce 0.05x aeron-udp (not " +
            "comparable here: " + SHARED_DRIVER + ")\n"), RttTable.format(report));
        final List<RttRatio> ratios = report.ratios();
        assertEquals(List.of(true, false), ratios.stream().map(RttRatio::comparable).toList());
        assertEquals(SHARED_DRIVER, ratios.get(1).notComparableReason());
        @SuppressWarnings("unchecked")
        final List<Map<String, Object>> json = (List<Map<String, Object>>)((Map<String, Object>)MiniJson.parse(
            RttJson.format(report))).get("ratios");
        assertEquals(List.of("roce / nio-udp", "roce / aeron-udp"), json.stream().map(r -> r.get("label")).toList());
        assertEquals(true, json.get(0).get("comparable"));
        assertEquals(false, json.get(0).containsKey("reason"));
        assertEquals(false, json.get(1).get("comparable"));
        assertEquals(SHARED_DRIVER, json.get(1).get("reason"));
        assertEquals(0.05, (Double)json.get(1).get("ratio"), 0.001);
    }

    @Test
    @SuppressWarnings("unchecked")
    void overRoundsANotComparablePairStaysMarkedInTheSummaryTableAndJson()
    {
        final RttRounds rounds = new RttRounds(List.of(roceWithSharedAeronUdp(240_000),
            roceWithSharedAeronUdp(300_000)));

        final RttRounds.Summary aeronUdp = rounds.ratioSummaries().get(1);
        assertEquals(SHARED_DRIVER, aeronUdp.notComparableReason());
        assertEquals(null, rounds.ratioSummaries().getFirst().notComparableReason());
        assertTrue(RttTable.format(rounds).matches("(?s).*\\n  roce / aeron-udp +0\\.0[45]x \\([^)]*\\) \\(not " +
            "comparable here: aeron-udp's media driver needs 5 CPUs.*"), RttTable.format(rounds));
        final List<Map<String, Object>> json = (List<Map<String, Object>>)((Map<String, Object>)MiniJson.parse(
            RttJson.format(rounds))).get("ratios");
        assertEquals(List.of(true, false), json.stream().map(r -> r.get("comparable")).toList());
        assertEquals(SHARED_DRIVER, json.get(1).get("reason"));
    }
}
