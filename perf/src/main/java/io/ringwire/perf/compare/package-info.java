/**
 * {@code ringwire perf compare}: interleaved rounds of each provider beside what a user would pick
 * instead, reported as the median of the per-round ratios.
 */
package io.ringwire.perf.compare;
