package io.ringwire.perf.output;

import org.jfree.chart.JFreeChart;

import java.util.function.Supplier;

/**
 * A plot a benchmark adds beside its percentile plots (compare's ratios, throughput's rates): its
 * file in the results directory, the heading results.md shows it under, and how to build it, which
 * runs only where {@link PlotGate} lets plots be drawn.
 *
 * @param file    its PNG's name: letters, digits, '.', '_' and '-'.
 * @param heading the results.md section it appears in ("Ratios").
 * @param chart   builds the chart.
 */
public record ExtraPlot(String file, String heading, Supplier<JFreeChart> chart)
{
}
