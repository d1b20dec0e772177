/**
 * {@code ringwire perf path}: both ends of a ping-pong on one thread, so each hop of a round trip is
 * timed on one clock.
 */
package io.ringwire.perf.path;
