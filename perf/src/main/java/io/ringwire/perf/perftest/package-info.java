/**
 * A peer for perftest's {@code ib_write_lat} and {@code ib_write_bw} (linux-rdma/perftest, as Debian
 * ships it): speaks perftest's own out-of-band TCP exchange (no rdma_cm) and answers its RDMA WRITEs
 * through an RDMA provider, so a C benchmark nobody here wrote measures RingWire's pure-Java
 * {@code roce} provider.
 */
package io.ringwire.perf.perftest;
