/**
 * {@code ringwire perf rtt}: RingWire's own ping-pongs (the RDMA channel and messaging), the runs that
 * put them beside the baselines in one or two processes, and the table and JSON of what they measured.
 */
package io.ringwire.perf.rtt;
