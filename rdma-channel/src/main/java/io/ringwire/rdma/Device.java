package io.ringwire.rdma;

/**
 * An open device context ({@code ibv_context}): the root of every other object. Closing it closes
 * everything created from it.
 *
 * <p>Threading: created, used to create objects, and closed by one control thread.
 */
public interface Device extends AutoCloseable
{
    /**
     * @return the device name, e.g. "shm0", "socket0", "rxe0".
     */
    String name();

    /**
     * @return the provider that opened it.
     */
    String providerName();

    /**
     * @return where peers reach this device (the provider interprets it, the connection manager
     *         carries it): an "ip:port" for network providers, a directory and process id for shm.
     */
    String address();

    /**
     * @return the largest payload a work request may carry with {@link SendFlags#INLINE}.
     */
    int maxInlineData();

    /**
     * @return the path MTU in bytes (messages larger than it are segmented by the transport).
     */
    int mtu();

    /**
     * @return the largest message one work request may carry.
     */
    int maxMessageSize();

    /**
     * @return the deepest completion queue {@link #createCompletionQueue(int)} accepts (a device
     *         attribute, {@code max_cqe}, on real hardware: 32767 on Soft-RoCE, millions on a
     *         ConnectX). A user sharing one queue among many queue pairs sizes it, and limits how
     *         many it attaches, by this.
     */
    int maxCompletionQueueDepth();

    /**
     * Whether every byte this device delivers has passed a check at least as strong as the link's
     * own CRC: memory copies (shm), TCP over a checked link (socket), a NIC's ICRC (ibverbs). The
     * pure-Java roce provider answers true only where it verifies each packet's ICRC against the IP
     * header the packet really carried; where it has to predict the header's IP Identification it
     * answers false, and messaging then checksums its frames end to end.
     *
     * @return true when the transport alone keeps corrupted bytes out.
     */
    default boolean verifiesIntegrity()
    {
        return true;
    }

    /**
     * Whether this device's queue pairs can hand out their peer's registered memory for plain loads
     * and stores ({@link QueuePair#remoteBuffer}): true where the peer is a process on this host
     * sharing the memory (shm), so the CPU's own store is the one-sided write.
     *
     * @return true when {@link QueuePair#remoteBuffer} gives views.
     */
    default boolean mapsRemoteMemory()
    {
        return false;
    }

    /**
     * Allocates a protection domain.
     *
     * @return a new protection domain.
     */
    ProtectionDomain allocateProtectionDomain();

    /**
     * Creates a completion queue.
     *
     * @param depth how many completions it holds; size it for the queue pairs posting to it.
     * @return a new completion queue.
     */
    CompletionQueue createCompletionQueue(int depth);

    /**
     * An agent that makes progress for this device's queue pairs (executes incoming requests,
     * acknowledges, retransmits, produces completions) while the owning threads are busy elsewhere;
     * completions still reach the application through its polls. Run it on an agrona
     * {@code AgentRunner}. Create it before the owning threads start: from then on, their posts and
     * polls and the agent take turns through one compare-and-set each. Providers whose hardware
     * progresses by itself return an agent with nothing to do.
     *
     * @return the agent.
     */
    org.agrona.concurrent.Agent progressAgent();

    /**
     * @return counters the device keeps as responder and requester (rejected accesses, errors).
     */
    DeviceCounters counters();

    /**
     * Closes the device and everything created from it. Idempotent.
     */
    @Override
    void close();
}
