/**
 * The verbs-shaped RDMA API. It mirrors libibverbs so that a reader who knows verbs knows
 * RingWire: {@link io.ringwire.rdma.RdmaProvider} opens a {@link io.ringwire.rdma.Device};
 * a device allocates {@link io.ringwire.rdma.ProtectionDomain}s and
 * {@link io.ringwire.rdma.CompletionQueue}s; a protection domain registers
 * {@link io.ringwire.rdma.MemoryRegion}s and creates reliable-connected
 * {@link io.ringwire.rdma.QueuePair}s; the {@link io.ringwire.rdma.cm.ConnectionManager}
 * exchanges what two queue pairs need to connect.
 *
 * <p>Threading, for every type unless its javadoc says otherwise: a device's objects are created
 * and closed by one control thread; a queue pair and the completion queues it posts to are then
 * driven by one owning thread (post and poll), without locks. Software providers make progress
 * (deliver, acknowledge, retransmit) inside those post and poll calls.
 *
 * <p>Hot-path calls ({@code post*}, {@code poll}) allocate nothing and report outcomes as return
 * codes ({@link io.ringwire.rdma.PostResult}) and completion statuses
 * ({@link io.ringwire.rdma.CompletionStatus}), never as exceptions.
 */
package io.ringwire.rdma;
