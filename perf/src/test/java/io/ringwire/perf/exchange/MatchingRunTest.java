package io.ringwire.perf.exchange;

import io.ringwire.perf.PerfMain;
import io.ringwire.perf.output.ResultsWriter;
import io.ringwire.perf.output.RunOutputTest;
import io.ringwire.perf.testing.MiniJson;
import io.ringwire.rdma.host.OnlineCpus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Short real runs of {@code ringwire perf matching}: it runs both cases by default, one with
 * {@code --instruments}, and reports figures of the right shape. No figure is checked against a
 * target: speed is for the benchmark itself to show, not for a unit test.
 */
class MatchingRunTest
{
    @TempDir
    private Path results;

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    @Test
    @SuppressWarnings("unchecked")
    void byDefaultOneAndAHundredInstrumentsRunAndEachReportsItsFigures()
    {
        final int exitCode = PerfMain.matching(new String[] { "--orders", "1000", "--book", "20", "--rounds", "2",
            "--rate", "200000", "--json", "--out", results.toString() }, out, err, OnlineCpus.asList());

        assertEquals(0, exitCode, errBytes.toString(StandardCharsets.UTF_8));
        assertTrue(errBytes.toString(StandardCharsets.UTF_8).contains("matching: warm-up round"));
        final Map<String, Object> json = (Map<String, Object>)MiniJson.parse(outBytes.toString(StandardCharsets.UTF_8));
        assertTrue(((String)json.get("threads")).startsWith("one thread (matching-engine)"), json.toString());
        final List<Object> results = (List<Object>)json.get("results");
        assertEquals(2, results.size(), json.toString());
        int index = 0;
        for (final double instruments : new double[] { 1, 100 })
        {
            final Map<String, Object> result = (Map<String, Object>)results.get(index++);
            assertEquals(instruments, result.get("instruments"));
            assertEquals(1000.0, result.get("orders"));
            assertTrue(number(result, "orders_per_second") > 0, result.toString());
            assertTrue(number(result, "p50_ns") <= number(result, "p99_ns") &&
                number(result, "p99_ns") <= number(result, "p99_9_ns"), result.toString());
            final Map<String, Object> fixedRate = (Map<String, Object>)result.get("fixed_rate");
            assertEquals(200_000.0, fixedRate.get("offered_per_second"));
            assertTrue(number(fixedRate, "p50_ns") > 0 && number(fixedRate, "p50_ns") <= number(fixedRate, "p99_ns"),
                fixedRate.toString());
            double shares = 0;
            for (final Object share : ((Map<String, Object>)result.get("mix")).values())
            {
                shares += ((Number)share).doubleValue();
            }
            assertEquals(1.0, shares, 1e-3, result.toString());
            assertTrue(number(result, "output_messages_per_order") >= 1, result.toString());
        }
    }

    @Test
    void instrumentsPicksOneCaseAndTheTableSaysHowTheThreadRanAndTheResultsDirectoryHasEachRound()
        throws IOException
    {
        final int exitCode = PerfMain.matching(new String[] { "--orders", "500", "--instruments", "3", "--book", "20",
            "--rounds", "1", "--out", results.toString() }, out, err, OnlineCpus.asList());

        final String table = outBytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, exitCode, errBytes.toString(StandardCharsets.UTF_8));
        assertTrue(table.contains("threads: one thread (matching-engine)"), table);
        assertTrue(table.contains("\n3 instruments: 500 requests measured per run, median of 1 round\n"), table);
        assertTrue(!table.contains("1 instrument:") && !table.contains("100 instruments:"), table);
        for (final String file : List.of("3-instruments-round1-service.hdr", "3-instruments-round1-at-rate.hgrm",
            "3-instruments-round1.png", ResultsWriter.SUMMARY_JSON))
        {
            assertTrue(Files.size(results.resolve(file)) > 0, file + " is written");
        }
        RunOutputTest.assertLinksEveryFile(results,
            Files.readString(results.resolve(ResultsWriter.RESULTS_MD), StandardCharsets.UTF_8));
    }

    @Test
    void aBadOptionExitsWithCodeTwoBeforeAnythingRuns()
    {
        assertEquals(2, PerfMain.run(new String[] { "matching", "--orders", "10" }, out, err));
        assertTrue(errBytes.toString(StandardCharsets.UTF_8).contains("ringwire perf matching: --orders='10'"));
        assertEquals("", outBytes.toString(StandardCharsets.UTF_8));
    }

    private static double number(final Map<String, Object> object, final String key)
    {
        return ((Number)object.get(key)).doubleValue();
    }
}
