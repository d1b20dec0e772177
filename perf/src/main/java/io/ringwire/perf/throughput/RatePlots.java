package io.ringwire.perf.throughput;

import io.ringwire.perf.output.PercentilePlot;
import io.ringwire.perf.output.ResultsWriter;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The throughput run's own plots, beside the percentile plots {@link io.ringwire.perf.output.ResultsWriter}
 * draws: one-way latency (p50, p99) against offered rate, and the rate held against message size;
 * then links to both appended to results.md.
 */
public final class RatePlots
{
    /** Latency against offered rate, the sweep. */
    public static final String LATENCY_PLOT = "latency-vs-rate.png";
    /** Rate held against message size, the floods. */
    public static final String THROUGHPUT_PLOT = "throughput-vs-size.png";

    private RatePlots()
    {
    }

    /**
     * Writes the plots the result has data for into {@code directory} and links them from its
     * results.md.
     *
     * @param directory the results directory, already written.
     * @param provider  the transport, for the titles.
     * @param result    the run.
     * @return the plots written.
     * @throws IOException when a file cannot be written.
     */
    public static List<String> write(final Path directory, final String provider,
        final ThroughputBenchmark.Result result) throws IOException
    {
        System.setProperty("java.awt.headless", System.getProperty("java.awt.headless", "true"));
        final List<String> written = new ArrayList<>();
        if (!result.sweep().isEmpty())
        {
            writeLatencyPlot(directory.resolve(LATENCY_PLOT), provider, result.sweep());
            written.add(LATENCY_PLOT);
        }
        if (!result.floods().isEmpty())
        {
            writeThroughputPlot(directory.resolve(THROUGHPUT_PLOT), provider, result.floods());
            written.add(THROUGHPUT_PLOT);
        }
        final StringBuilder md = new StringBuilder("\n## Rate plots\n\n");
        for (final String plot : written)
        {
            md.append("![").append(plot).append("](").append(plot).append(")\n\n");
        }
        Files.writeString(directory.resolve(io.ringwire.perf.output.ResultsWriter.RESULTS_MD), md.toString(),
            StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        return written;
    }

    private static void writeLatencyPlot(final Path file, final String provider,
        final List<ThroughputBenchmark.SweepStep> sweep) throws IOException
    {
        final XYSeries dueP50 = new XYSeries("p50 from due time");
        final XYSeries dueP99 = new XYSeries("p99 from due time");
        final XYSeries sendP50 = new XYSeries("p50 from send");
        final XYSeries sendP99 = new XYSeries("p99 from send");
        for (final ThroughputBenchmark.SweepStep step : sweep)
        {
            dueP50.add(step.offeredRate(), step.dueLatency().getValueAtPercentile(50) / 1000.0);
            dueP99.add(step.offeredRate(), step.dueLatency().getValueAtPercentile(99) / 1000.0);
            sendP50.add(step.offeredRate(), step.latency().getValueAtPercentile(50) / 1000.0);
            sendP99.add(step.offeredRate(), step.latency().getValueAtPercentile(99) / 1000.0);
        }
        final XYSeriesCollection dataset = new XYSeriesCollection();
        dataset.addSeries(dueP50);
        dataset.addSeries(dueP99);
        dataset.addSeries(sendP50);
        dataset.addSeries(sendP99);
        final LogAxis rateAxis = new LogAxis("offered rate (msgs/s)");
        rateAxis.setBase(2);
        rateAxis.setSmallestValue(1);
        rateAxis.setTickUnit(new NumberTickUnit(1)); // one tick per doubling, as the sweep steps
        rateAxis.setMinorTickMarksVisible(false);
        final NumberAxis latencyAxis = new NumberAxis("one-way latency (us)");
        writePng(file, provider + ": one-way latency against offered rate",
            new XYPlot(dataset, rateAxis, latencyAxis, new XYLineAndShapeRenderer(true, true)));
    }

    private static void writeThroughputPlot(final Path file, final String provider,
        final List<ThroughputBenchmark.Flood> floods) throws IOException
    {
        final XYSeries megabytes = new XYSeries("MB/s");
        final XYSeries messages = new XYSeries("msgs/s");
        for (final ThroughputBenchmark.Flood flood : floods)
        {
            megabytes.add(flood.size(), flood.megabytesPerSecond());
            messages.add(flood.size(), flood.messagesPerSecond());
        }
        final LogAxis sizeAxis = new LogAxis("message size (bytes)");
        sizeAxis.setBase(2);
        sizeAxis.setSmallestValue(1);
        sizeAxis.setTickUnit(new NumberTickUnit(1));
        sizeAxis.setMinorTickMarksVisible(false);
        final XYPlot plot = new XYPlot(new XYSeriesCollection(megabytes), sizeAxis, new NumberAxis("MB/s"),
            new XYLineAndShapeRenderer(true, true));
        plot.setRangeAxis(1, new NumberAxis("msgs/s"));
        plot.setDataset(1, new XYSeriesCollection(messages));
        plot.mapDatasetToRangeAxis(1, 1);
        final XYLineAndShapeRenderer messagesRenderer = new XYLineAndShapeRenderer(true, true);
        messagesRenderer.setSeriesPaint(0, Color.BLUE);
        plot.setRenderer(1, messagesRenderer);
        writePng(file, provider + ": rate held against message size", plot);
    }

    private static void writePng(final Path file, final String title, final XYPlot plot) throws IOException
    {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        final JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        try (OutputStream png = Files.newOutputStream(file))
        {
            ChartUtils.writeChartAsPNG(png, chart, PercentilePlot.WIDTH, PercentilePlot.HEIGHT);
        }
    }
}
