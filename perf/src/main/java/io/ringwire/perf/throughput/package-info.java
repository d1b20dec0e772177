/**
 * {@code ringwire perf throughput}: the highest rate held per message size, and latency against
 * offered rate, with their plots.
 */
package io.ringwire.perf.throughput;
