/**
 * A benchmark's results directory: HdrHistogram logs and percentile distributions, PNG plots where
 * this JVM can draw text ({@link io.ringwire.perf.output.PlotGate}), {@code summary.json} with the
 * configuration and the machine, and {@code results.md} linking them.
 */
package io.ringwire.perf.output;
