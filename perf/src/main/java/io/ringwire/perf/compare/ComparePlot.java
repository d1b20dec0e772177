package io.ringwire.perf.compare;

import io.ringwire.perf.output.ExtraPlot;
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
     * @param report what compare measured.
     * @return {@link #RATIOS_PLOT}, for the results directory.
     */
    public static ExtraPlot of(final CompareReport report)
    {
        return new ExtraPlot(RATIOS_PLOT, "Ratios", () -> chart(report));
    }

    private static JFreeChart chart(final CompareReport report)
    {
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
        return new JFreeChart("p50 round trip against the alternative, " + report.size() +
            "-byte messages, " + report.processes() + " process(es)", JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    }
}
