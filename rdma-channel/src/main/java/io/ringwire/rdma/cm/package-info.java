/**
 * The connection manager: the RDMA-CM-style REQ / REP / RTU exchange (or REJ) over a TCP
 * management connection that tells each queue pair what it needs to connect to its peer (queue pair
 * number, starting PSN, device address, MTU, P_Key), which memory regions the peer advertises
 * (address, rkey, length) and a small opaque application payload, before any RDMA traffic.
 *
 * <p>Active side: {@link io.ringwire.rdma.cm.ConnectionManager#connect}. Passive side:
 * {@link io.ringwire.rdma.cm.ConnectionListener#bind}, then
 * {@link io.ringwire.rdma.cm.ConnectionListener#accept} and
 * {@link io.ringwire.rdma.cm.PendingConnection#complete} or
 * {@link io.ringwire.rdma.cm.PendingConnection#reject}. Both sides are configured by a
 * {@link io.ringwire.rdma.cm.ConnectionManagerConfig} carrying the side's
 * {@link io.ringwire.rdma.cm.Identity}, which signs every message it sends (Ed25519), and the
 * {@link io.ringwire.rdma.cm.PeerKey}s of the identities it accepts; {@link io.ringwire.rdma.cm.KeyFiles}
 * keeps them on disk and {@link io.ringwire.rdma.cm.KeyTool} makes them.
 *
 * <p>Threading: nothing here is on the hot path. Every call blocks its caller for at most the
 * configured step timeout per step; the listener accepts on its own daemon thread and reads each
 * request on a virtual thread, so a silent or hostile peer holds only that virtual thread, for at
 * most one step timeout.
 */
package io.ringwire.rdma.cm;
