/**
 * The Aeron baselines: {@code aeron-ipc} (raw bytes), {@code aeron-ipc-sbe} (the same SBE probe and
 * validation as RingWire messaging) and {@code aeron-udp} (embedded media driver).
 */
package io.ringwire.perf.baseline.aeron;
