/**
 * {@code ringwire perf oneway}: one-way transfers through messaging on one host (a shared clock), and
 * the rate arithmetic the throughput runs share.
 */
package io.ringwire.perf.oneway;
