/**
 * The ping-pong every round-trip row shares, whatever carries it: the pinger's loop (closed or open
 * loop, due-time accounting), the ping's layout, and the SBE {@code LatencyProbe} codec.
 */
package io.ringwire.perf.pingpong;
