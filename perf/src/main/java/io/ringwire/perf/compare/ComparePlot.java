package io.ringwire.perf.compare;

import io.ringwire.perf.output.PercentilePlot;
import io.ringwire.perf.output.ResultsWriter;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The plot of {@code perf compare}'s ratios: per pair, the median of its per-round p50 ratios as a
 * bar and each round's reading as a point beside it, with a line at 1 (as fast as the
 * alternative). Below 1 RingWire is faster.
 */
public final class ComparePlot
{
    /** The ratios plot's file in the results directory. */
    public static final String RATIOS_PLOT = "compare-ratios.png";

    private ComparePlot()
    {
    }

    /**
     * Writes {@link #RATIOS_PLOT} into {@code directory} and links it from its results.md.
     *
     * @param directory the results directory, already written.
     * @param report    what compare measured.
     * @throws IOException when a file cannot be written.
     */
    public static void write(final Path directory, final CompareReport report) throws IOException
    {
        System.setProperty("java.awt.headless", System.getProperty("java.awt.headless", "true"));
        final DefaultCategoryDataset medians = new DefaultCategoryDataset();
        final DefaultCategoryDataset readings = new DefaultCategoryDataset();
        for (final CompareReport.Ratio ratio : report.ratios())
        {
            medians.addValue(ratio.median(), "median of the rounds", ratio.label());
            final double[] values = ratio.values();
            for (int round = 0; round < values.length; round++)
            {
                readings.addValue(values[round], "round " + (round + 1), ratio.label());
            }
        }
        final CategoryAxis pairs = new CategoryAxis("pair (RingWire / alternative)");
        pairs.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        final BarRenderer bars = new BarRenderer();
        bars.setBarPainter(new StandardBarPainter());
        bars.setShadowVisible(false);
        bars.setSeriesPaint(0, new Color(0x9db8d9));
        final CategoryPlot plot = new CategoryPlot(medians, pairs, new NumberAxis("p50 ratio"), bars);
        plot.setDataset(1, readings);
        plot.setRenderer(1, new LineAndShapeRenderer(false, true));
        plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD); // the points over the bars
        plot.addRangeMarker(new ValueMarker(1.0, Color.DARK_GRAY, new BasicStroke(1.5f)));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        final JFreeChart chart = new JFreeChart("p50 round trip against the alternative, " + report.size() +
            "-byte messages, " + report.processes() + " process(es)", JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        try (OutputStream png = Files.newOutputStream(directory.resolve(RATIOS_PLOT)))
        {
            ChartUtils.writeChartAsPNG(png, chart, PercentilePlot.WIDTH, PercentilePlot.HEIGHT);
        }
        Files.writeString(directory.resolve(ResultsWriter.RESULTS_MD), "\n## Ratios\n\n![" + RATIOS_PLOT + "](" +
            RATIOS_PLOT + ")\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }
}
