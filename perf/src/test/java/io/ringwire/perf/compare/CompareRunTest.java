package io.ringwire.perf.compare;

import io.ringwire.perf.PerfMain;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.output.ResultsWriter;
import io.ringwire.perf.testing.MiniJson;
import io.ringwire.rdma.host.OnlineCpus;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One short real {@code perf compare} on shm against aeron-ipc only: it runs shm's channel and
 * messaging and aeron-ipc in each round, reads both ratios per round, and leaves a results
 * directory in --out: the JSON it printed in summary.json, each row's histogram over the rounds,
 * the provider's percentile plot and the ratios plot. No latency thresholds.
 */
class CompareRunTest
{
    @TempDir
    Path directory;

    @Test
    @SuppressWarnings("unchecked")
    void compareShmWithAeronIpcReadsBothRatiosInEachRound() throws Exception
    {
        final Path results = directory.resolve("results");
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exitCode = PerfMain.compare(new String[] { "--pairs", "shm/aeron-ipc", "--messages", "300",
            "--warmup", "200", "--rounds", "2", "--json", "--allow-oversubscribe", "--shm-dir",
            directory.resolve("shm").toString(), "--out", results.toString() },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
            OnlineCpus.asList());
        assertEquals(0, exitCode, err::toString);
        final String json = out.toString(StandardCharsets.UTF_8);
        assertTrue(Files.readString(results.resolve(ResultsWriter.SUMMARY_JSON)).contains(json.strip()),
            "summary.json holds what stdout printed");
        for (final String file : List.of("shm-shm-channel.hdr", "shm-shm-messaging.hgrm", "shm-aeron-ipc-raw.hdr",
            "shm.png", ComparePlot.RATIOS_PLOT, ResultsWriter.RESULTS_MD))
        {
            assertTrue(Files.size(results.resolve(file)) > 0, file);
        }
        assertTrue(Files.readString(results.resolve(ResultsWriter.RESULTS_MD)).contains(ComparePlot.RATIOS_PLOT));
        final HistogramLogReader log = new HistogramLogReader(results.resolve("shm-shm-channel.hdr").toFile());
        long roundTrips = 0;
        for (EncodableHistogram interval = log.nextIntervalHistogram(); null != interval;
            interval = log.nextIntervalHistogram())
        {
            roundTrips += ((Histogram)interval).getTotalCount();
        }
        log.close();
        assertEquals(2 * 300, roundTrips, "the row's intervals hold both rounds' measured round trips");
        final Map<String, Object> root = (Map<String, Object>)MiniJson.parse(json);
        final List<Map<String, Object>> rows = (List<Map<String, Object>>)root.get("rows");
        assertEquals(List.of("shm channel", "shm messaging", "aeron-ipc raw"),
            rows.stream().map(row -> row.get("provider") + " " + row.get("api")).toList());
        final List<Map<String, Object>> ratios = (List<Map<String, Object>>)root.get("ratios");
        assertEquals(List.of("shm / aeron-ipc", "shm messaging / aeron-ipc"),
            ratios.stream().map(ratio -> ratio.get("label")).toList());
        for (final Map<String, Object> ratio : ratios)
        {
            assertEquals(2, ((List<Object>)ratio.get("values")).size(), "one reading per round");
            assertTrue((Double)ratio.get("median") > 0, ratio.toString());
        }
    }

    @Test
    void aBudgetStopsBeforeARoundThatWouldEndPastItAndTheReportSaysSo() throws Exception
    {
        // Each reading of the clock is 100 s after the last: the run starts at 100 s; round 1 runs from
        // 200 to 300 s; round 2 starts at 400 s (300 s gone, 400 with another 100 s round: within 450)
        // and ends at 500 s; round 3 would start at 600 s, 500 s gone, and end past 450.
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final CompareBenchmark benchmark = benchmarkOnAClockOf100sAReading(4, 450, err);

        final CompareReport report = benchmark.run();

        assertEquals(2, report.rounds().size(), "rounds 1 and 2 ran, 3 and 4 did not");
        final String note = "stopped after 2 of 4 rounds: round 3 would end past the --budget of 450 s " +
            "(500 s gone, the longest round took 100 s)";
        assertTrue(report.notes().contains(note), report.notes()::toString);
        assertTrue(report.table().contains(note), report::table);
        assertTrue(report.table().startsWith("compare: 2 round(s),"), report::table);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("compare: " + note), err::toString);
        for (final var row : benchmark.histograms())
        {
            assertEquals(2 * 200, row.histogram().getTotalCount(), row.name() + " holds the two rounds that ran");
        }
    }

    @Test
    void aBudgetIsAWholePositiveNumberOfSecondsAndNoneByDefault()
    {
        assertEquals(0, CompareOptions.parse().budgetSeconds());
        assertEquals(540, CompareOptions.parse("--budget", "540").budgetSeconds());
        for (final String bad : List.of("0", "-5", "1.5", "soon"))
        {
            final String refusal = assertThrows(UsageException.class, () -> CompareOptions.parse("--budget", bad))
                .getMessage();
            assertTrue(refusal.startsWith("--budget"), refusal);
        }
    }

    @Test
    void aBudgetNeverStopsTheFirstRound() throws Exception
    {
        final CompareReport report = benchmarkOnAClockOf100sAReading(2, 1, new ByteArrayOutputStream()).run();

        assertEquals(1, report.rounds().size(), "a run past its budget still reports its first round");
        assertTrue(report.notes().getFirst().startsWith("stopped after 1 of 2 rounds"), report.notes()::toString);
    }

    /** shm against aeron-ipc, 200 round trips a row, on a clock that moves 100 s at each reading. */
    private CompareBenchmark benchmarkOnAClockOf100sAReading(final int rounds, final int budgetSeconds,
        final ByteArrayOutputStream err)
    {
        final CompareOptions options = CompareOptions.parse("--pairs", "shm/aeron-ipc", "--messages", "200",
            "--warmup", "100", "--rounds", String.valueOf(rounds), "--budget", String.valueOf(budgetSeconds),
            "--allow-oversubscribe", "--shm-dir", directory.resolve("shm").toString());
        final long[] now = { 0 };
        final LongSupplier clock = () -> now[0] += TimeUnit.SECONDS.toNanos(100);
        return new CompareBenchmark(options, CpuPlan.decide(OnlineCpus.asList(), true),
            new PrintStream(err, true, StandardCharsets.UTF_8), clock);
    }

    @Test
    void aCompareWhereNoPairCanRunIsRefusedNotReportedAsAnEmptyTable() throws Exception
    {
        final Path notADirectory = Files.writeString(directory.resolve("a-file"), "x");
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exitCode = PerfMain.compare(new String[] { "--pairs", "shm/aeron-ipc", "--messages", "300",
            "--rounds", "1", "--allow-oversubscribe", "--shm-dir", notADirectory.toString(), "--out",
            directory.resolve("results").toString() },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
            OnlineCpus.asList());
        assertEquals(2, exitCode, err::toString);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no pair can run here"), err::toString);
        assertTrue(out.toString(StandardCharsets.UTF_8).isEmpty(), "no table");
    }
}
