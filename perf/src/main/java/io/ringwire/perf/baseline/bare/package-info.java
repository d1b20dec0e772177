/**
 * The {@code bare} and {@code bare-notified} baselines: two threads on two memory slots, the floor
 * under the {@code shm} provider.
 */
package io.ringwire.perf.baseline.bare;
