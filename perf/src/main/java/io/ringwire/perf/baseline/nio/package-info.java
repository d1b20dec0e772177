/**
 * The plain Java socket baselines: {@code nio-tcp}, {@code nio-udp} and {@code nio-udp-unconnected},
 * set up the way a latency-minded user would.
 */
package io.ringwire.perf.baseline.nio;
