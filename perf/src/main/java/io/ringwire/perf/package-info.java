/**
 * Latency and throughput harness, baselines and plots.
 */
package io.ringwire.perf;
