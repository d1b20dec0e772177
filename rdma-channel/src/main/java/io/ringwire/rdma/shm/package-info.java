/**
 * The {@code shm} provider: reliable-connected queue pair semantics between processes (or devices)
 * on one host, through memory-mapped files in {@code RdmaConfig.shmDirectory()}
 * (default {@code /dev/shm/ringwire}).
 *
 * <p>Files, all named after the owning process id and a device id unique in that process:
 * <ul>
 *   <li>{@code <pid>-<dev>.ctl}: the device control file ({@link io.ringwire.rdma.shm.ShmDeviceControl}):
 *       owner identity, heartbeat, the device's counters and the table of its regions
 *       ({@link io.ringwire.rdma.shm.ShmRegionTable});</li>
 *   <li>{@code <pid>-<dev>-mr-<n>.shm}: a region from {@code ProtectionDomain.allocateRegion};</li>
 *   <li>{@code <pid>-<dev>-qp-<qpn>.ring}: a queue pair's inbound ring
 *       ({@link io.ringwire.rdma.shm.ShmInboundRing}), written by its one peer queue pair.</li>
 * </ul>
 *
 * <p>The requester does the NIC's work: an RDMA WRITE is checked against the responder's published
 * region table (unknown rkey, bounds, REMOTE_WRITE) and then copied straight into the responder's
 * region during the post; SENDs and the notifications of WRITE WITH IMMEDIATE are records in the
 * responder queue pair's inbound ring, which the responder turns into receive completions while its
 * owning thread polls. Liveness comes from a heartbeat in the control file, backed by a check of the
 * owner process (pid and start time). No background thread is used.
 */
package io.ringwire.rdma.shm;
