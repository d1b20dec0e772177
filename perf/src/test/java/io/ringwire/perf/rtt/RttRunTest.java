package io.ringwire.perf.rtt;

import io.ringwire.perf.PerfMain;
import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.testing.MiniJson;
import io.ringwire.perf.testing.SteadyStateAllocation;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.host.OnlineCpus;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Short real runs of every transport, through the bare channel and through messaging: every message
 * is recorded, the percentiles are positive and ordered. No latency thresholds: machines are noisy,
 * and targets belong to benchmark runs.
 */
class RttRunTest
{
    private static final long MESSAGES = 2_000;
    private static final long WARMUP = 1_000;
    /**
     * The allocation check's warm-up: long enough for C2 to compile the loop with the transport's
     * send and receive inlined, so that what escape analysis removes (the FFM call-state slices under
     * roce's libc send, for one) is gone. A thousand round trips is not, on a loaded 2-core host.
     */
    private static final long ALLOCATION_WARMUP = 40_000;
    private static final long ALLOCATION_MESSAGES = 10_000;
    /** Windows measured at most: one that may still be settling ({@link SteadyStateAllocation}) is run again. */
    private static final int ALLOCATION_ATTEMPTS = 3;

    @TempDir
    Path shmDirectory;

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);

    private RttResult run(final String provider, final String api, final int processes) throws Exception
    {
        return run(provider, api, processes, WARMUP, MESSAGES);
    }

    private RttResult run(final String provider, final String api, final int processes, final long warmup,
        final long messages) throws Exception
    {
        final RttOptions options = RttOptions.parse("--provider", provider, "--api", api, "--messages",
            Long.toString(messages), "--warmup", Long.toString(warmup), "--processes", Integer.toString(processes),
            "--shm-dir", shmDirectory.toString(), "--allow-oversubscribe");
        final RttReport report = new RttBenchmark(options, CpuPlan.decide(OnlineCpus.asList(), true), log).run()
            .rounds().getFirst();
        assertEquals(1, report.results().size());
        return report.results().getFirst();
    }

    private static void assertCompleteAndOrdered(final RttResult result, final String provider, final String api,
        final int processes)
    {
        assertCompleteAndOrdered(result, provider, api, processes, MESSAGES);
    }

    private static void assertCompleteAndOrdered(final RttResult result, final String provider, final String api,
        final int processes, final long messages)
    {
        assertEquals(provider, result.provider());
        assertEquals(Transports.isRawBaseline(provider) ? Transports.API_RAW : api, result.api());
        assertEquals(processes, result.processes());
        assertEquals(Transports.API_MESSAGING.equals(result.api()) ? LatencyProbeCodec.MIN_LENGTH : 32, result.size());
        assertEquals(messages, result.count(), "every measured round trip is recorded, none of the warm-up");
        assertTrue(result.p50() > 0, result.toString());
        assertTrue(result.p50() <= result.p90(), result.toString());
        assertTrue(result.p90() <= result.p99(), result.toString());
        assertTrue(result.p99() <= result.p99_9(), result.toString());
        assertTrue(result.p99_9() <= result.p99_99(), result.toString());
        assertTrue(result.p99_99() <= result.max(), result.toString());
        assertTrue(result.mean() > 0 && result.mean() <= result.max(), result.toString());
        // Counted in every process of the row (a child reports its own on its DONE line).
        assertTrue(result.gc().collections() >= 0 && result.gc().timeMs() >= 0, result.toString());
    }

    @Test
    void anOpenLoopRunRecordsEveryMessageTwiceAndEachFromItsDueTimeIsNoShorterThanFromItsSend() throws Exception
    {
        SteadyStateAllocation.assertSteadyAllocationFree(ALLOCATION_ATTEMPTS, () ->
        {
            final RttOptions options = RttOptions.parse("--provider", Transports.BARE, "--messages",
                Long.toString(ALLOCATION_MESSAGES), "--warmup", Long.toString(ALLOCATION_WARMUP), "--rate", "200000",
                "--shm-dir", shmDirectory.toString(), "--allow-oversubscribe");
            final RttBenchmark benchmark = new RttBenchmark(options, CpuPlan.decide(OnlineCpus.asList(), true), log);
            final RttResult result = benchmark.run().rounds().getFirst().results().getFirst();

            assertCompleteAndOrdered(result, Transports.BARE, Transports.API_RAW, 1, ALLOCATION_MESSAGES);
            final RttDueTime due = result.dueTime();
            assertEquals(200_000, due.ratePerSecond());
            // Each message's latency from its due time is its wait to be sent plus its service time, so
            // every percentile of the first is at least that of the second, however fast the machine.
            assertTrue(due.p50() >= result.p50() && due.p99() >= result.p99() && due.max() >= result.max(),
                due + " against " + result);
            assertEquals(List.of("bare-raw", "bare-raw-due"),
                benchmark.histograms().stream().map(h -> h.name()).toList());
            assertEquals(ALLOCATION_MESSAGES, benchmark.histograms().get(1).histogram().getTotalCount());
            return pinger("[bare, open loop]", result);
        });
    }

    private static List<SteadyStateAllocation.Measured> pinger(final String row, final RttResult result)
    {
        return List.of(new SteadyStateAllocation.Measured(row + " pinger thread over " + ALLOCATION_MESSAGES +
            " round trips", result.pingerAllocatedBytes(), result.pingerJitCompiled()));
    }

    private static boolean shmPresent()
    {
        return RdmaProviders.all().stream().anyMatch(p -> p.name().equals(Transports.SHM));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "socket", "roce", "nio-tcp", "nio-udp", "nio-udp-unconnected", "bare", "bare-notified", "aeron-ipc" })
    void oneProcessRunRecordsEveryMessageWithPositiveOrderedPercentilesAndAllocatesNothing(final String provider)
        throws Exception
    {
        SteadyStateAllocation.assertSteadyAllocationFree(ALLOCATION_ATTEMPTS, () ->
        {
            final RttResult result = run(provider, Transports.API_CHANNEL, 1, ALLOCATION_WARMUP, ALLOCATION_MESSAGES);
            assertCompleteAndOrdered(result, provider, Transports.API_CHANNEL, 1, ALLOCATION_MESSAGES);
            return pinger("[" + provider + "]", result);
        });
    }

    @Tag("system")
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "socket", "roce", "nio-tcp", "nio-udp", "nio-udp-unconnected", "bare", "bare-notified", "aeron-ipc" })
    void twoProcessRunRecordsEveryMessageWithPositiveOrderedPercentiles(final String provider) throws Exception
    {
        assertCompleteAndOrdered(run(provider, Transports.API_CHANNEL, 2), provider, Transports.API_CHANNEL, 2);
    }

    @Tag("system")
    @Test
    void bareTwoProcessRunMapsTheChildsFileAndLeavesNoFileBehind() throws Exception
    {
        assertCompleteAndOrdered(run(Transports.BARE, Transports.API_CHANNEL, 2), Transports.BARE,
            Transports.API_CHANNEL, 2);
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(shmDirectory))
        {
            assertEquals(List.of(), files.filter(f -> f.getFileName().toString().startsWith("rtt-bare-")).toList(),
                "the ponger process deletes the file it created");
        }
    }

    @Tag("system")
    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = { 1, 2 })
    void shmRunRecordsEveryMessageWhenTheProviderIsPresent(final int processes) throws Exception
    {
        assumeTrue(shmPresent(), "the shm provider is not on the class path");

        assertCompleteAndOrdered(run(Transports.SHM, Transports.API_CHANNEL, processes), Transports.SHM,
            Transports.API_CHANNEL, processes);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "shm", "socket", "roce" })
    void oneProcessMessagingRunRecordsEveryProbeWithPositiveOrderedPercentiles(final String provider)
        throws Exception
    {
        assumeTrue(!Transports.SHM.equals(provider) || shmPresent(), "the shm provider is not on the class path");

        assertCompleteAndOrdered(run(provider, Transports.API_MESSAGING, 1), provider, Transports.API_MESSAGING, 1);
    }

    @Tag("system")
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "shm", "socket", "roce" })
    void twoProcessMessagingRunRecordsEveryProbeWithPositiveOrderedPercentiles(final String provider)
        throws Exception
    {
        assumeTrue(!Transports.SHM.equals(provider) || shmPresent(), "the shm provider is not on the class path");

        assertCompleteAndOrdered(run(provider, Transports.API_MESSAGING, 2), provider, Transports.API_MESSAGING, 2);
    }

    @Test
    void bothApisRunTheChannelThenMessagingForEachRdmaProviderAndTheBaselineOnce() throws Exception
    {
        final RttOptions options = RttOptions.parse("--provider", "socket,nio-tcp", "--messages",
            Long.toString(MESSAGES), "--warmup", Long.toString(WARMUP), "--shm-dir", shmDirectory.toString(),
            "--allow-oversubscribe");

        final RttReport report = new RttBenchmark(options, CpuPlan.decide(OnlineCpus.asList(), true), log).run()
            .rounds().getFirst();

        assertEquals(List.of("socket/channel", "socket/messaging", "nio-tcp/raw"),
            report.results().stream().map(r -> r.provider() + "/" + r.api()).toList());
        for (final RttResult result : report.results())
        {
            assertCompleteAndOrdered(result, result.provider(), result.api(), 1);
        }
        assertEquals(1, report.overheads().size());
        assertEquals(report.find("socket", Transports.API_MESSAGING).p50(),
            report.overheads().getFirst().messagingP50());
        assertEquals(report.find("socket", Transports.API_CHANNEL).p50(), report.overheads().getFirst().channelP50());
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonOfARealRunParsesAndHasEveryFieldForEveryProvider()
    {
        final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);

        final int exitCode = PerfMain.rtt(new String[] { "--provider", "socket,nio-tcp,roce,nio-udp", "--messages",
            Long.toString(MESSAGES), "--warmup", Long.toString(WARMUP), "--json", "--allow-oversubscribe", "--out",
            shmDirectory.resolve("results").toString() }, out, log, OnlineCpus.asList());
        final List<String> rows = List.of("socket/channel", "socket/messaging", "nio-tcp/raw", "roce/channel",
            "roce/messaging", "nio-udp/raw");

        assertEquals(0, exitCode, logBytes.toString(StandardCharsets.UTF_8));
        final String json = outBytes.toString(StandardCharsets.UTF_8);
        assertEquals(1, json.lines().count(), "one line of JSON on stdout: " + json);
        final Map<String, Object> root = (Map<String, Object>)MiniJson.parse(json);
        assertEquals("rtt", root.get("benchmark"));
        assertEquals(32.0, root.get("size"));
        assertEquals((double)MESSAGES, root.get("messages"));
        assertEquals(1.0, root.get("processes"));
        final List<Object> results = (List<Object>)root.get("results");
        assertEquals(rows, results.stream()
            .map(r -> ((Map<String, Object>)r).get("provider") + "/" + ((Map<String, Object>)r).get("api")).toList());
        for (final Object entry : results)
        {
            final Map<String, Object> result = (Map<String, Object>)entry;
            for (final String field : RttFormatTest.RESULT_FIELDS)
            {
                assertTrue(result.containsKey(field), "result has " + field + ": " + json);
            }
            assertEquals((double)MESSAGES, result.get("count"));
            final double p50 = (Double)result.get("p50");
            assertTrue(p50 > 0, json);
            assertTrue(p50 <= (Double)result.get("p90") && (Double)result.get("p90") <= (Double)result.get("p99") &&
                (Double)result.get("p99") <= (Double)result.get("max"), json);
            assertTrue((Double)result.get("mean") > 0, json);
        }
        final List<Object> overheads = (List<Object>)root.get("overhead");
        assertEquals(List.of("socket", "roce"), overheads.stream().map(o -> ((Map<String, Object>)o).get("provider"))
            .toList(), json);
        for (final Object entry : overheads)
        {
            final Map<String, Object> overhead = (Map<String, Object>)entry;
            for (final String field : RttFormatTest.OVERHEAD_FIELDS)
            {
                assertTrue(overhead.containsKey(field), "overhead has " + field + ": " + json);
            }
            assertEquals((Double)overhead.get("messaging_p50") / (Double)overhead.get("channel_p50"),
                (Double)overhead.get("overhead_p50"), 0.001, json);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void roundsRunTheWholeListInTurnAndEachRatioIsReadWithinEveryRoundAndSummarisedByItsMedian()
    {
        final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);

        final int exitCode = PerfMain.rtt(new String[] { "--provider", "roce,nio-udp", "--api", "channel",
            "--rounds", "3", "--messages", Long.toString(MESSAGES), "--warmup", Long.toString(WARMUP), "--json",
            "--allow-oversubscribe", "--out", shmDirectory.resolve("results").toString() }, out, log,
            OnlineCpus.asList());

        final String logText = logBytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, exitCode, logText);
        // Interleaved: roce, nio-udp, roce, nio-udp, ... not roce three times first.
        final List<String> started = logText.lines().filter(line -> line.startsWith("rtt: ") && line.contains("[round "))
            .map(line -> line.substring(5, line.indexOf(' ', 5)) + " " + line.substring(line.indexOf("[round ")))
            .toList();
        assertEquals(List.of("roce [round 1 of 3]", "nio-udp [round 1 of 3]", "roce [round 2 of 3]",
            "nio-udp [round 2 of 3]", "roce [round 3 of 3]", "nio-udp [round 3 of 3]"), started);
        final String json = outBytes.toString(StandardCharsets.UTF_8);
        assertEquals(1, json.lines().count(), "one line of JSON on stdout: " + json);
        final Map<String, Object> root = (Map<String, Object>)MiniJson.parse(json);
        final List<Object> rounds = (List<Object>)root.get("rounds");
        assertEquals(3, rounds.size(), json);
        final double[] readings = new double[3];
        for (int i = 0; i < 3; i++)
        {
            final List<Object> results = (List<Object>)((Map<String, Object>)rounds.get(i)).get("results");
            final double roce = (Double)((Map<String, Object>)results.get(0)).get("p50");
            final double udp = (Double)((Map<String, Object>)results.get(1)).get("p50");
            readings[i] = roce / udp;
        }
        final List<Object> ratios = (List<Object>)root.get("ratios");
        final Map<String, Object> roceOverUdp = ratios.stream().map(r -> (Map<String, Object>)r)
            .filter(r -> "roce / nio-udp".equals(r.get("label"))).findFirst().orElseThrow();
        final List<Object> values = (List<Object>)roceOverUdp.get("values");
        for (int i = 0; i < 3; i++)
        {
            assertEquals(readings[i], (Double)values.get(i), 0.0001, json);
        }
        assertEquals(RttRounds.median(readings), (Double)roceOverUdp.get("median"), 0.0001, json);
        assertEquals(2, ((List<Object>)root.get("p50_medians")).size(), json);
    }
}
