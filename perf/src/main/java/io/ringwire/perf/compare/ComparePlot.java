package io.ringwire.perf.compare;

import io.ringwire.perf.output.ExtraPlot;
import io.ringwire.perf.rtt.RttTable;
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
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.Rectangle;
import java.awt.TexturePaint;
import java.awt.image.BufferedImage;
import java.io.Serial;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The plot of {@code perf compare}'s ratios: per pair, the median of its per-round p50 ratios as a
 * bar and each round's reading as a point beside it, with a line at 1 (as fast as the
 * alternative). Below 1 RingWire is faster. A pair that is no fair one on this host is labelled so
 * and its bar hatched in another colour, with the reason under the title.
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

    static JFreeChart chart(final CompareReport report)
    {
        final DefaultCategoryDataset medians = new DefaultCategoryDataset();
        final DefaultCategoryDataset readings = new DefaultCategoryDataset();
        final List<CompareReport.Ratio> ratios = report.ratios();
        final boolean[] notComparable = new boolean[ratios.size()];
        final Set<String> reasons = new LinkedHashSet<>();
        for (final CompareReport.Ratio ratio : ratios)
        {
            final String pair = ratio.comparable() ? ratio.label() :
                ratio.label() + " (" + RttTable.NOT_COMPARABLE + ")";
            if (!ratio.comparable())
            {
                notComparable[medians.getColumnCount()] = true;
                reasons.add(ratio.notComparableReason());
            }
            medians.addValue(ratio.median(), "median of the rounds", pair);
            final double[] values = ratio.values();
            for (int i = 0; i < values.length; i++)
            {
                readings.addValue(values[i], "round " + ratio.rounds()[i], pair);
            }
        }
        final CategoryAxis pairs = new CategoryAxis("pair (RingWire / alternative)");
        pairs.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        final BarRenderer bars = new MarkedBars(notComparable);
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
        for (final String reason : reasons)
        {
            chart.addSubtitle(new TextTitle("hatched: " + RttTable.NOT_COMPARABLE + ", " + reason));
        }
        return chart;
    }

    /**
     * Bars in the usual colour, but hatched in another for the pairs that are no fair ones here.
     */
    private static final class MarkedBars extends BarRenderer
    {
        @Serial
        private static final long serialVersionUID = 1L;
        private static final Color HATCH = new Color(0xd62728);
        private static final int HATCH_SIZE = 8;

        /** Per column, whether its pair is no fair one here. */
        private final boolean[] notComparable;
        private final transient Paint hatched = hatched();

        MarkedBars(final boolean[] notComparable)
        {
            this.notComparable = notComparable.clone();
        }

        @Override
        public Paint getItemPaint(final int row, final int column)
        {
            return column < notComparable.length && notComparable[column] ? hatched :
                super.getItemPaint(row, column);
        }

        private static Paint hatched()
        {
            final BufferedImage tile = new BufferedImage(HATCH_SIZE, HATCH_SIZE, BufferedImage.TYPE_INT_RGB);
            final Graphics2D graphics = tile.createGraphics();
            try
            {
                graphics.setColor(Color.WHITE);
                graphics.fillRect(0, 0, HATCH_SIZE, HATCH_SIZE);
                graphics.setColor(HATCH);
                graphics.setStroke(new BasicStroke(2f));
                graphics.drawLine(0, HATCH_SIZE, HATCH_SIZE, 0);
            }
            finally
            {
                graphics.dispose();
            }
            return new TexturePaint(tile, new Rectangle(0, 0, HATCH_SIZE, HATCH_SIZE));
        }
    }
}
