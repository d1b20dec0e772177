package io.ringwire.perf.throughput;

import io.ringwire.perf.output.ExtraPlot;
import io.ringwire.perf.output.PercentilePlot;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The throughput run's own plots, beside the percentile plots of its results directory: one-way
 * latency (p50, p99) against offered rate, and the rate held against message size.
 */
public final class RatePlots
{
    /** Latency against offered rate, the sweep. */
    public static final String LATENCY_PLOT = "latency-vs-rate.png";
    /** Rate held against message size, the floods. */
    public static final String THROUGHPUT_PLOT = "throughput-vs-size.png";
    private static final String HEADING = "Rate plots";

    private RatePlots()
    {
    }

    /**
     * @param provider the transport, for the titles.
     * @param result   the run.
     * @return the plots the result has data for.
     */
    public static List<ExtraPlot> of(final String provider, final ThroughputBenchmark.Result result)
    {
        final List<ExtraPlot> plots = new ArrayList<>();
        if (!result.sweep().isEmpty())
        {
            plots.add(new ExtraPlot(LATENCY_PLOT, HEADING, () -> latencyChart(provider, result.sweep())));
        }
        if (!result.floods().isEmpty())
        {
            plots.add(new ExtraPlot(THROUGHPUT_PLOT, HEADING, () -> throughputChart(provider, result.medians())));
        }
        return plots;
    }

    private static JFreeChart latencyChart(final String provider, final List<ThroughputBenchmark.SweepStep> sweep)
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
        return PercentilePlot.chart(provider + ": one-way latency against offered rate",
            new XYPlot(dataset, rateAxis, latencyAxis, new XYLineAndShapeRenderer(true, true)));
    }

    private static JFreeChart throughputChart(final String provider, final List<ThroughputBenchmark.RowMedian> medians)
    {
        final Map<String, XYSeries> rows = new LinkedHashMap<>();
        for (final ThroughputBenchmark.RowMedian median : medians)
        {
            final String name = ThroughputBenchmark.MESSAGING_ROW.equals(median.row()) ? provider + " messaging" :
                median.row();
            rows.computeIfAbsent(name, XYSeries::new).add(median.size(), median.messagesPerSecond());
        }
        final XYSeriesCollection dataset = new XYSeriesCollection();
        rows.values().forEach(dataset::addSeries);
        final LogAxis sizeAxis = new LogAxis("message size (bytes)");
        sizeAxis.setBase(2);
        sizeAxis.setSmallestValue(1);
        sizeAxis.setTickUnit(new NumberTickUnit(1));
        sizeAxis.setMinorTickMarksVisible(false);
        final XYPlot plot = new XYPlot(dataset, sizeAxis, new NumberAxis("msgs/s (median of the rounds)"),
            new XYLineAndShapeRenderer(true, true));
        return PercentilePlot.chart(provider + ": rate held against message size", plot);
    }
}
