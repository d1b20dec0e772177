/**
 * A benchmark's results directory: HdrHistogram logs and percentile distributions, PNG plots,
 * {@code summary.json} with the configuration and the machine, and {@code results.md} linking them.
 */
package io.ringwire.perf.output;
