package io.ringwire.perf.output;

import io.ringwire.perf.pingpong.Pinger;
import io.ringwire.perf.rtt.RttOptions;
import io.ringwire.perf.testing.MiniJson;
import org.HdrHistogram.Histogram;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeriesCollection;
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
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Where no plot can be drawn (the gate forced shut, as a host without fonts shuts it), a run still
 * writes every file that needs no font, names no plot it did not draw, builds no chart, and says so
 * in one line; where plots can be drawn, a benchmark's own plot is drawn and shown under its heading.
 */
class PlotGateTest
{
    private static final String NO_FONT = "Fontconfig head is null, check your fonts or fonts configuration";
    /** A chart that must not be built: building one is where a host without fonts fails. */
    private static final Supplier<JFreeChart> NEVER_BUILT = () -> fail("a chart was built behind a closed gate");

    private static BenchmarkRun run(final Path directory, final ExtraPlot plot)
    {
        final Histogram histogram = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        histogram.recordValue(1_000);
        histogram.recordValue(2_000);
        return new BenchmarkRun("rtt", List.of("--out", directory.toString()), RttOptions.parse("--provider", "shm"),
            "table\n", "{\"benchmark\":\"rtt\"}",
            List.of(new RecordedHistogram("shm-channel", "shm-channel", "shm channel", histogram),
                new RecordedHistogram("bare-raw", "bare-raw", "bare raw", histogram)),
            RunEnvironment.capture(), List.of(plot));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aClosedGateWritesEverythingButThePlotsAndNamesNoPlot(@TempDir final Path directory) throws IOException
    {
        final List<String> files = ResultsWriter.write(directory,
            run(directory, new ExtraPlot("ratios.png", "Ratios", NEVER_BUILT)), new PlotGate(NO_FONT));

        assertEquals(List.of("shm-channel.hdr", "shm-channel.hgrm", "bare-raw.hdr", "bare-raw.hgrm",
            ResultsWriter.SUMMARY_JSON, ResultsWriter.RESULTS_MD), files);
        try (var listing = Files.list(directory))
        {
            assertEquals(files.size(), listing.count(), "nothing else, and no .png");
        }
        final String page = Files.readString(directory.resolve(ResultsWriter.RESULTS_MD), StandardCharsets.UTF_8);
        assertFalse(page.contains(".png"), page);
        assertTrue(page.contains("Not drawn: AWT cannot draw text on this host (" + NO_FONT + "); install a font " +
            "for them (Debian: apt-get install fontconfig fonts-dejavu-core)."), page);
        RunOutputTest.assertLinksEveryFile(directory, page);
        final Map<String, Object> summary = (Map<String, Object>)MiniJson.parse(
            Files.readString(directory.resolve(ResultsWriter.SUMMARY_JSON), StandardCharsets.UTF_8));
        for (final Object histogram : (List<Object>)summary.get("histograms"))
        {
            assertNull(((Map<String, Object>)histogram).get("plot"), "no plot named: " + histogram);
        }
    }

    @Test
    void aRunWhosePlotsAreSkippedSaysSoOnceWithTheReasonAndWhatToInstall(@TempDir final Path directory)
        throws IOException
    {
        final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();

        RunOutput.write(run(directory, new ExtraPlot("ratios.png", "Ratios", NEVER_BUILT)), directory.toString(),
            new PrintStream(errBytes, true, StandardCharsets.UTF_8), new PlotGate(NO_FONT));

        assertEquals(List.of("rtt: plots skipped: AWT cannot draw text on this host (" + NO_FONT + "); install a " +
            "font for them (Debian: apt-get install fontconfig fonts-dejavu-core)",
            "rtt: results in " + directory.resolve(ResultsWriter.RESULTS_MD)),
            errBytes.toString(StandardCharsets.UTF_8).lines().toList());
    }

    @Test
    void aRunStartedOutsideItsCloneWritesIntoTheCloneTheLauncherNamesAndNotesNoOtherRevision(
        @TempDir final Path clone) throws IOException
    {
        Files.createDirectories(clone.resolve("perf"));
        Files.writeString(clone.resolve("perf").resolve("pom.xml"), "<project/>");
        Files.writeString(clone.resolve(".git"), "not a git directory"); // git stops here, not in a folder above
        final String previous = System.getProperty(RunEnvironment.REPOSITORY_PROP);
        System.setProperty(RunEnvironment.REPOSITORY_PROP, clone.toString());
        try
        {
            final Path written = RunOutput.write(run(clone, new ExtraPlot("ratios.png", "Ratios", NEVER_BUILT)), null,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new PlotGate(NO_FONT));
            assertTrue(written.startsWith(clone.resolve("perf").resolve("results")), written.toString());
            assertEquals(RunEnvironment.UNKNOWN, RunEnvironment.capture().gitRevision(),
                "the named directory is no git clone: not the working directory's revision");
        }
        finally
        {
            if (null == previous)
            {
                System.clearProperty(RunEnvironment.REPOSITORY_PROP);
            }
            else
            {
                System.setProperty(RunEnvironment.REPOSITORY_PROP, previous);
            }
        }
    }

    @Test
    void anOpenGateDrawsTheBenchmarksOwnPlotUnderItsHeading(@TempDir final Path directory) throws IOException
    {
        final ExtraPlot ratios = new ExtraPlot("ratios.png", "Ratios", () -> PercentilePlot.chart("ratios",
            new XYPlot(new XYSeriesCollection(), new NumberAxis("x"), new NumberAxis("y"),
                new XYLineAndShapeRenderer())));

        final List<String> files = ResultsWriter.write(directory, run(directory, ratios), new PlotGate(null));

        assertEquals(List.of("shm-channel.png", "bare-raw.png", ResultsWriter.ALL_PLOT, "ratios.png"),
            files.stream().filter(file -> file.endsWith(".png")).toList());
        assertTrue(Files.size(directory.resolve("ratios.png")) > 0);
        final String page = Files.readString(directory.resolve(ResultsWriter.RESULTS_MD), StandardCharsets.UTF_8);
        assertTrue(page.contains("## Ratios\n\n![ratios.png](ratios.png)"), page);
        RunOutputTest.assertLinksEveryFile(directory, page);
    }

    @Test
    void theReasonIsTheFirstMessageAlongTheCausesOrTheFailuresClass()
    {
        final ExceptionInInitializerError wrapped = new ExceptionInInitializerError(new RuntimeException(NO_FONT));

        assertEquals(NO_FONT, PlotGate.describe(wrapped), "an initialiser's failure has no message of its own");
        assertEquals("Probable fatal error: No physical fonts found",
            PlotGate.describe(new Error("Probable fatal error:\nNo physical fonts found")));
        assertEquals("java.lang.UnsatisfiedLinkError", PlotGate.describe(new UnsatisfiedLinkError()));
    }
}
