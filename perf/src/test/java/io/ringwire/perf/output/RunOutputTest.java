package io.ringwire.perf.output;

import io.ringwire.perf.pingpong.Pinger;
import io.ringwire.perf.rtt.RttOptions;
import io.ringwire.perf.testing.MiniJson;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The results directory a benchmark leaves: every file there, readable by the tools each is for,
 * and linked from results.md. Values are synthetic; nothing is timed.
 */
public class RunOutputTest
{
    private static final byte[] PNG_SIGNATURE = { (byte)0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

    private static Histogram histogram(final long firstNs, final int count)
    {
        final Histogram histogram = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        for (int i = 0; i < count; i++)
        {
            histogram.recordValue(firstNs + i * 10L);
        }
        histogram.setStartTimeStamp(1_000_000L);
        histogram.setEndTimeStamp(1_002_500L);
        return histogram;
    }

    private static List<String> write(final Path directory) throws IOException
    {
        final RttOptions options = RttOptions.parse("--provider", "shm", "--rate", "100000", "--out",
            directory.toString());
        return ResultsWriter.write(directory, new BenchmarkRun("rtt",
            List.of("--provider", "shm", "--rate", "100000", "--out", directory.toString()), options,
            "provider  api  p50\nshm  channel  0.200\n", "{\"benchmark\":\"rtt\",\"results\":[]}",
            List.of(new RecordedHistogram("shm-channel", "shm-channel", "shm channel, service time",
                    histogram(200, 1_000)),
                new RecordedHistogram("shm-channel-due", "shm-channel", "shm channel, from due time",
                    histogram(300, 1_000))),
            RunEnvironment.capture()));
    }

    @Test
    void everyHistogramGetsAnIntervalLogADistributionAndAPlotBesideTheSummaryAndThePage(@TempDir final Path directory)
        throws IOException
    {
        final List<String> files = write(directory);

        assertEquals(List.of("shm-channel.hdr", "shm-channel.hgrm", "shm-channel-due.hdr", "shm-channel-due.hgrm",
            "shm-channel.png", ResultsWriter.ALL_PLOT, ResultsWriter.SUMMARY_JSON, ResultsWriter.RESULTS_MD), files);
        for (final String file : files)
        {
            assertTrue(Files.size(directory.resolve(file)) > 0, file + " is written");
        }
    }

    @Test
    void theIntervalLogReadsBackAsTheRecordedHistogram(@TempDir final Path directory) throws IOException
    {
        write(directory);

        final HistogramLogReader reader = new HistogramLogReader(directory.resolve("shm-channel.hdr").toFile());
        final EncodableHistogram interval = reader.nextIntervalHistogram();
        reader.close();

        final Histogram read = assertInstanceOf(Histogram.class, interval);
        assertEquals(1_000, read.getTotalCount());
        assertEquals(histogram(200, 1_000).getValueAtPercentile(99.0), read.getValueAtPercentile(99.0));
        assertNull(new HistogramLogReader(directory.resolve("shm-channel.hdr").toFile()).nextIntervalHistogram(
            10.0, 20.0), "one interval, the measured window (2.5 s here), nothing after it");
    }

    @Test
    void aRunThatKeptIntervalsWritesOneIntervalEachAtItsOffsetFromTheFirst(@TempDir final Path directory)
        throws IOException
    {
        final long startMs = 1_795_000_000_000L;
        final List<Histogram> intervals = List.of(interval(200, 100, startMs, startMs + 1_000),
            interval(400, 200, startMs + 1_000, startMs + 2_000), interval(100_000, 50, startMs + 2_000, startMs + 2_500));
        final Histogram whole = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        intervals.forEach(whole::add);
        ResultsWriter.write(directory, new BenchmarkRun("rtt", List.of(), RttOptions.parse("--provider", "shm"),
            "table\n", "{}", List.of(new RecordedHistogram("shm-channel", "shm-channel", "shm channel", whole,
                intervals)), RunEnvironment.capture()));

        final HistogramLogReader reader = new HistogramLogReader(directory.resolve("shm-channel.hdr").toFile());
        final List<Long> counts = new ArrayList<>();
        final List<Double> offsets = new ArrayList<>();
        for (EncodableHistogram read = reader.nextIntervalHistogram(); null != read; read = reader.nextIntervalHistogram())
        {
            counts.add(((Histogram)read).getTotalCount());
            offsets.add((read.getStartTimeStamp() - startMs) / 1000.0);
        }
        reader.close();
        assertEquals(List.of(100L, 200L, 50L), counts, "one interval each, in order");
        assertEquals(List.of(0.0, 1.0, 2.0), offsets, "each at its own time, so a stall shows when it happened");
    }

    private static Histogram interval(final long valueNs, final int count, final long startMs, final long endMs)
    {
        final Histogram interval = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        interval.recordValueWithCount(valueNs, count);
        interval.setStartTimeStamp(startMs);
        interval.setEndTimeStamp(endMs);
        return interval;
    }

    @Test
    void theDistributionListsPercentilesInMicroseconds(@TempDir final Path directory) throws IOException
    {
        write(directory);

        final String hgrm = Files.readString(directory.resolve("shm-channel.hgrm"), StandardCharsets.UTF_8);
        assertTrue(hgrm.contains("Value     Percentile TotalCount 1/(1-Percentile)"), hgrm);
        assertTrue(hgrm.contains("0.200 0.000000000000"), "the smallest value, 200 ns, in us: " + hgrm);
        assertTrue(hgrm.contains("#[Mean"), hgrm);
        assertTrue(hgrm.contains("#[Max     =       10.191"), "the largest, 10190 ns, in us: " + hgrm);
    }

    @Test
    void plotsArePngImages(@TempDir final Path directory) throws IOException
    {
        write(directory);

        for (final String plot : List.of("shm-channel.png", ResultsWriter.ALL_PLOT))
        {
            final byte[] bytes = Files.readAllBytes(directory.resolve(plot));
            assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, PNG_SIGNATURE.length), plot);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theSummaryParsesAndHoldsTheOptionsTheMachineTheGcAndTheBenchmarksJson(@TempDir final Path directory)
        throws IOException
    {
        write(directory);

        final Map<String, Object> summary = (Map<String, Object>)MiniJson.parse(
            Files.readString(directory.resolve(ResultsWriter.SUMMARY_JSON), StandardCharsets.UTF_8));
        for (final String key : List.of("benchmark", "arguments", "options", "git_revision", "jvm_version",
            "jvm_arguments", "cpu_model", "online_cores", "kernel", "gc_count", "gc_time_ms", "histograms", "results"))
        {
            assertTrue(summary.containsKey(key), "summary.json has " + key + ": " + summary.keySet());
        }
        final Map<String, Object> options = (Map<String, Object>)summary.get("options");
        assertEquals(List.of("shm"), options.get("providers"));
        assertEquals(100_000.0, options.get("rate"));
        assertTrue(((Double)summary.get("online_cores")) >= 1, summary.toString());
        assertTrue(((String)summary.get("git_revision")).matches("[0-9a-f]{40,64}|unknown"), summary.toString());
        assertEquals("rtt", ((Map<String, Object>)summary.get("results")).get("benchmark"));
        final List<Object> histograms = (List<Object>)summary.get("histograms");
        assertEquals(2, histograms.size());
        assertEquals("shm-channel-due.hgrm", ((Map<String, Object>)histograms.get(1)).get("hgrm"));
    }

    @Test
    void thePageLinksEveryFileOfTheDirectoryAndShowsTheTable(@TempDir final Path directory) throws IOException
    {
        final List<String> files = write(directory);

        final String page = Files.readString(directory.resolve(ResultsWriter.RESULTS_MD), StandardCharsets.UTF_8);
        assertLinksEveryFile(directory, page);
        assertTrue(page.contains("shm  channel  0.200"), page);
        assertEquals(files.size(), countFiles(directory));
    }

    /**
     * Every file of the directory but results.md itself appears as a Markdown link target.
     */
    public static void assertLinksEveryFile(final Path directory, final String page) throws IOException
    {
        try (var listing = Files.list(directory))
        {
            for (final Path file : listing.toList())
            {
                final String name = file.getFileName().toString();
                if (!name.equals(ResultsWriter.RESULTS_MD))
                {
                    assertTrue(page.contains("](" + name + ")"), "results.md links " + name + ":\n" + page);
                }
            }
        }
    }

    private static long countFiles(final Path directory) throws IOException
    {
        try (var listing = Files.list(directory))
        {
            return listing.count();
        }
    }
}
