package io.ringwire.perf.output;

import org.HdrHistogram.HistogramIterationValue;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.List;
import java.util.Locale;

/**
 * Charts histograms' percentile distributions the way HdrHistogram's plotter does: latency against
 * percentile on a log axis of 1/(1-p), so the tail (90%, 99%, 99.9%, ...) gets as much room as the
 * median. {@link PlotGate} draws the chart, where it can.
 */
public final class PercentilePlot
{
    /** Points per halving of the distance to 100%, as HdrHistogram's .hgrm output has them. */
    private static final int TICKS_PER_HALF_DISTANCE = 5;
    private static final double NANOS_PER_MICRO = 1000.0;
    /** Line colours that stay apart on white, in the order rows are drawn. */
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf), new Color(0x7f7f7f), new Color(0xbcbd22) };

    private PercentilePlot()
    {
    }

    /**
     * @param title      the chart's title.
     * @param histograms the distributions to draw, one line each (values in ns, drawn in us).
     * @return the chart.
     */
    static JFreeChart chart(final String title, final List<RecordedHistogram> histograms)
    {
        final XYSeriesCollection dataset = new XYSeriesCollection();
        double highestX = 10;
        for (final RecordedHistogram recorded : histograms)
        {
            final XYSeries series = new XYSeries(recorded.label(), false, true);
            for (final HistogramIterationValue value : recorded.histogram().percentiles(TICKS_PER_HALF_DISTANCE))
            {
                final double fraction = value.getPercentileLevelIteratedTo() / 100.0;
                if (fraction >= 1.0)
                {
                    continue; // 1/(1-p) is infinite at 100%: the max is in the .hgrm and the table
                }
                final double x = 1.0 / (1.0 - fraction);
                series.add(x, value.getValueIteratedTo() / NANOS_PER_MICRO);
                highestX = Math.max(highestX, x);
            }
            dataset.addSeries(series);
        }
        final LogAxis percentileAxis = new LogAxis("percentile");
        percentileAxis.setBase(10);
        percentileAxis.setTickUnit(new NumberTickUnit(1));
        percentileAxis.setMinorTickMarksVisible(false);
        percentileAxis.setRange(1, Math.pow(10, Math.ceil(Math.log10(highestX))));
        percentileAxis.setNumberFormatOverride(new PercentileFormat());
        // A log latency axis keeps the median readable beside a tail thousands of times longer.
        final LogAxis latencyAxis = new LogAxis("latency (us, log scale)");
        latencyAxis.setBase(10);
        latencyAxis.setSmallestValue(0.01);
        latencyAxis.setTickUnit(new NumberTickUnit(1));
        latencyAxis.setNumberFormatOverride(new DecimalFormat("0.###", DecimalFormatSymbols.getInstance(Locale.ROOT)));
        final XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        for (int series = 0; series < histograms.size(); series++)
        {
            renderer.setSeriesPaint(series, PALETTE[series % PALETTE.length]);
            renderer.setSeriesStroke(series, new BasicStroke(1.5f));
        }
        return chart(title, new XYPlot(dataset, percentileAxis, latencyAxis, renderer));
    }

    /**
     * @param title the chart's title.
     * @param plot  an XY plot: latencies, rates.
     * @return the chart of it, on white with light grey grid lines, as every plot of a run is drawn.
     */
    public static JFreeChart chart(final String title, final XYPlot plot)
    {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        return new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    }

    /**
     * @param x 1/(1-p), a power of ten on the axis.
     * @return the percentile it stands for: 1 is "0%", 10 "90%", 100 "99%", 1000 "99.9%".
     */
    static String percentileLabel(final double x)
    {
        if (x <= 1.0)
        {
            return "0%";
        }
        final int nines = (int)Math.round(Math.log10(x));
        if (nines <= 2)
        {
            return nines == 1 ? "90%" : "99%";
        }
        return "99." + "9".repeat(nines - 2) + "%";
    }

    /** Labels the log axis's ticks with {@link #percentileLabel(double)}. */
    private static final class PercentileFormat extends NumberFormat
    {
        private static final long serialVersionUID = 1L;

        @Override
        public StringBuffer format(final double number, final StringBuffer toAppendTo, final FieldPosition pos)
        {
            return toAppendTo.append(percentileLabel(number));
        }

        @Override
        public StringBuffer format(final long number, final StringBuffer toAppendTo, final FieldPosition pos)
        {
            return toAppendTo.append(percentileLabel(number));
        }

        @Override
        public Number parse(final String source, final ParsePosition parsePosition)
        {
            // Axis labels are only formatted; as NumberFormat's contract says of text it cannot read,
            // nothing is parsed and the position stays where it was.
            return null;
        }
    }
}
