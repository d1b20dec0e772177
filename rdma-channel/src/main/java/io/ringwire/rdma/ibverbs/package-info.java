/**
 * The {@code ibverbs} provider: libibverbs (rdma-core) through {@code java.lang.foreign}, no JNI.
 *
 * <p>Map of the package: {@link io.ringwire.rdma.ibverbs.IbverbsProvider} (availability, open) opens
 * an {@code IbverbsDevice} (context, port, GID, limits); {@code IbverbsProtectionDomain} registers
 * {@code IbverbsMemoryRegion}s and creates {@code IbverbsQueuePair}s, which post to the driver;
 * {@code IbverbsCompletionQueue} polls it. Underneath: {@code Verbs} (exported control functions),
 * {@code VerbsOps} (the inline hot-path functions, called through {@code ibv_context.ops}),
 * {@code VerbsLayouts} (every struct, checked against the real header by {@code IbverbsLayoutTest}),
 * {@code QueuePairTransitions} (RESET to RTS), {@code RetryPolicy} (ACK timeout and retries),
 * {@code SendRing}/{@code ReceiveRing} (what a completion belongs to) and {@code FlushedRequests}
 * (requests posted in ERROR). {@code IbverbsInventory} lists devices for {@code ringwire doctor}.
 *
 * <p>Needs: {@code libibverbs.so.1} and a driver for the NIC ({@code apt-get install libibverbs1
 * ibverbs-providers}), a device ({@code ibv_devices}; Soft-RoCE: {@code modprobe rdma_rxe; rdma link
 * add rxe0 type rxe netdev eth0}), an ACTIVE port, a locked-memory limit above the registered
 * memory ({@code ulimit -l}), and {@code --enable-native-access=ALL-UNNAMED}.
 */
package io.ringwire.rdma.ibverbs;
