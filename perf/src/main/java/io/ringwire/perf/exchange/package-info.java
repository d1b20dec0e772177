/**
 * {@code ringwire perf matching} and {@code ringwire perf exchange}: a recorded order flow replayed on
 * the matching engine, and the whole sample exchange under an open-loop rate.
 */
package io.ringwire.perf.exchange;
