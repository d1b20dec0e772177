/**
 * What a running process tells about its messaging: each publication's and subscription's counters
 * in one memory-mapped file per process ({@link io.ringwire.messaging.status.CountersFile}), and
 * {@code ringwire stat} ({@link io.ringwire.messaging.status.RingWireStat}), which prints them live
 * from another process.
 */
package io.ringwire.messaging.status;
