package io.ringwire.perf.output;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a run's results directory, so a run can be looked at, plotted again and compared later
 * without running it again:
 *
 * <ul>
 *   <li>{@code <name>.hdr}: each histogram as an HdrHistogram interval log (one interval, the
 *       measured window), which HdrHistogram's and HdrHistogramVisualizer's tools read;</li>
 *   <li>{@code <name>.hgrm}: its percentile distribution, values in microseconds;</li>
 *   <li>{@code <group>.png}: the distributions of one row (its service and due-time latencies),
 *       {@link #ALL_PLOT} with every histogram, and the benchmark's own plots, where this JVM can
 *       draw them ({@link PlotGate});</li>
 *   <li>{@link #SUMMARY_JSON}: options, revision, JVM, CPU, kernel, GC and the benchmark's JSON;</li>
 *   <li>{@link #RESULTS_MD}: the table and a link to every file above.</li>
 * </ul>
 */
public final class ResultsWriter
{
    /** The summary for tools. */
    public static final String SUMMARY_JSON = "summary.json";
    /** The page for people. */
    public static final String RESULTS_MD = "results.md";
    /** The plot of every histogram of the run. */
    public static final String ALL_PLOT = "percentiles.png";
    /** Where runs go under the repository (ignored by git). */
    public static final Path RESULTS_ROOT = Path.of("perf", "results");
    /** Percentile distribution and interval log values are in microseconds, recorded in ns. */
    private static final double NANOS_PER_MICRO = 1000.0;
    private static final int HGRM_TICKS_PER_HALF_DISTANCE = 5;
    private static final DateTimeFormatter DIRECTORY_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss");

    private ResultsWriter()
    {
    }

    /**
     * @param workingDirectory where the command runs: the repository, or a directory inside it.
     * @param now              the run's local date and time.
     * @return {@code perf/results/<date-time>} under the nearest directory, going up from
     *         {@code workingDirectory}, that holds {@code perf/pom.xml} (the repository, whose
     *         .gitignore leaves that folder out); under {@code workingDirectory} when none does.
     */
    public static Path defaultDirectory(final Path workingDirectory, final LocalDateTime now)
    {
        final Path start = workingDirectory.toAbsolutePath().normalize();
        Path root = start;
        for (Path candidate = start; null != candidate; candidate = candidate.getParent())
        {
            if (Files.isRegularFile(candidate.resolve("perf").resolve("pom.xml")))
            {
                root = candidate;
                break;
            }
        }
        return root.resolve(RESULTS_ROOT).resolve(DIRECTORY_TIME.format(now));
    }

    /**
     * Writes every file of the run into {@code directory}, creating it; the plots only where this
     * JVM can draw them ({@link PlotGate#jvm()}).
     *
     * @param directory where to write.
     * @param run       what ran.
     * @return the names of the files written, in the order results.md lists them, itself last.
     * @throws IOException when a file cannot be written.
     */
    public static List<String> write(final Path directory, final BenchmarkRun run) throws IOException
    {
        return write(directory, run, PlotGate.jvm());
    }

    /**
     * Writes every file of the run into {@code directory}, creating it: the plots where {@code gate}
     * lets them be drawn, everything else in any case, and results.md and summary.json naming only
     * the plots drawn.
     *
     * @param directory where to write.
     * @param run       what ran.
     * @param gate      whether plots can be drawn.
     * @return the names of the files written, in the order results.md lists them, itself last.
     * @throws IOException when a file cannot be written.
     */
    static List<String> write(final Path directory, final BenchmarkRun run, final PlotGate gate) throws IOException
    {
        Files.createDirectories(directory);
        final List<String> files = new ArrayList<>();
        final Map<String, List<RecordedHistogram>> groups = new LinkedHashMap<>();
        for (final RecordedHistogram recorded : run.histograms())
        {
            writeHdr(directory.resolve(hdrFile(recorded)), recorded);
            writeHgrm(directory.resolve(hgrmFile(recorded)), recorded.histogram());
            files.add(hdrFile(recorded));
            files.add(hgrmFile(recorded));
            groups.computeIfAbsent(recorded.group(), group -> new ArrayList<>()).add(recorded);
        }
        files.addAll(writePlots(directory, run, groups, gate));
        Files.writeString(directory.resolve(SUMMARY_JSON), SummaryJson.format(run, gate.canDraw()) +
            System.lineSeparator(), StandardCharsets.UTF_8);
        files.add(SUMMARY_JSON);
        Files.writeString(directory.resolve(RESULTS_MD), ResultsMarkdown.format(run, groups.keySet(), gate),
            StandardCharsets.UTF_8);
        files.add(RESULTS_MD);
        return files;
    }

    /**
     * @return the plots written: one per group, {@link #ALL_PLOT}, then the run's own; none where
     *         {@code gate} says no plot can be drawn.
     */
    private static List<String> writePlots(final Path directory, final BenchmarkRun run,
        final Map<String, List<RecordedHistogram>> groups, final PlotGate gate) throws IOException
    {
        final List<ExtraPlot> plots = new ArrayList<>();
        groups.forEach((group, histograms) -> plots.add(new ExtraPlot(plotFile(group), "",
            () -> PercentilePlot.chart(run.benchmark() + ": " + group, histograms))));
        if (!run.histograms().isEmpty())
        {
            plots.add(new ExtraPlot(ALL_PLOT, "", () -> PercentilePlot.chart(run.benchmark() + ": every histogram",
                run.histograms())));
        }
        plots.addAll(run.plots());
        final List<String> written = new ArrayList<>();
        for (final ExtraPlot plot : plots)
        {
            if (gate.writePng(directory.resolve(plot.file()), plot.chart()))
            {
                written.add(plot.file());
            }
        }
        return written;
    }

    static String hdrFile(final RecordedHistogram recorded)
    {
        return recorded.name() + ".hdr";
    }

    static String hgrmFile(final RecordedHistogram recorded)
    {
        return recorded.name() + ".hgrm";
    }

    static String plotFile(final String group)
    {
        return group + ".png";
    }

    /**
     * The run's intervals when it kept them (one a second), otherwise one interval: the histogram's
     * own start and end time stamps (the measured window) when it has them. Interval times are
     * seconds from the log's base time, the first interval's start; the "max" column in microseconds.
     */
    private static void writeHdr(final Path file, final RecordedHistogram recorded) throws IOException
    {
        final Histogram histogram = recorded.histogram();
        try (PrintStream log = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8))
        {
            final HistogramLogWriter writer = new HistogramLogWriter(log);
            final List<Histogram> intervals = recorded.intervals().isEmpty() ? List.of(histogram) : recorded.intervals();
            final long startMs = startOf(intervals.getFirst());
            writer.outputComment(recorded.label() + "; values in ns");
            writer.outputLogFormatVersion();
            writer.outputStartTime(startMs);
            writer.setBaseTime(startMs);
            writer.outputLegend();
            for (final Histogram interval : intervals)
            {
                final long fromMs = Math.max(startMs, startOf(interval));
                final long toMs = Math.max(fromMs, interval.getEndTimeStamp());
                writer.outputIntervalHistogram((fromMs - startMs) / 1000.0, (toMs - startMs) / 1000.0, interval,
                    NANOS_PER_MICRO);
            }
        }
    }

    private static long startOf(final Histogram histogram)
    {
        return histogram.getStartTimeStamp() > 0 && histogram.getStartTimeStamp() < Long.MAX_VALUE ?
            histogram.getStartTimeStamp() : System.currentTimeMillis();
    }

    private static void writeHgrm(final Path file, final Histogram histogram) throws IOException
    {
        try (PrintStream hgrm = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8))
        {
            histogram.outputPercentileDistribution(hgrm, HGRM_TICKS_PER_HALF_DISTANCE, NANOS_PER_MICRO);
        }
    }
}
