/**
 * {@code ringwire perf}: the latency and throughput lab. {@link io.ringwire.perf.PerfMain} dispatches to
 * the rooms: {@code rtt}, {@code compare}, {@code path}, {@code oneway}, {@code throughput} and
 * {@code exchange} (the subcommands), {@code pingpong} and the {@code baseline} packages (what the
 * rows carry), {@code host} (CPU planning and spinning threads), {@code output} (results directory
 * and plots), {@code cli} (options) and {@code jmh} (microbenchmarks).
 */
package io.ringwire.perf;
