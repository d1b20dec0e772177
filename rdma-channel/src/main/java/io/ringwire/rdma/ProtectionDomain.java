package io.ringwire.rdma;

import java.nio.ByteBuffer;

/**
 * A protection domain ({@code ibv_pd}): memory regions and queue pairs of one domain may only be
 * used together.
 *
 * <p>Threading: used and closed by the device's control thread. Registration is expensive on real
 * hardware: register once, reuse, never on the hot path.
 */
public interface ProtectionDomain extends AutoCloseable
{
    /**
     * Allocates page-aligned memory suited to the provider (a shared-memory file for shm) and
     * registers it. Works on every provider; the only way to get a region a shm peer can write.
     *
     * @param length bytes, &gt; 0.
     * @param access {@link Access} flags.
     * @return the registered region, zero-filled.
     * @throws RdmaException when the memory cannot be allocated or registered.
     */
    MemoryRegion allocateRegion(int length, int access);

    /**
     * Registers existing direct memory ({@code ibv_reg_mr}).
     *
     * @param buffer a direct buffer; the region covers position to limit.
     * @param access {@link Access} flags.
     * @return the registered region, aliasing the buffer.
     * @throws RdmaException when the provider cannot expose this memory with this access (shm
     *                       cannot give remote access to memory it did not allocate).
     */
    MemoryRegion register(ByteBuffer buffer, int access);

    /**
     * Creates a reliable-connected queue pair in state RESET.
     *
     * @param config its completion queues and depths.
     * @return the queue pair.
     */
    QueuePair createQueuePair(QueuePairConfig config);

    /**
     * Closes the domain. Idempotent.
     */
    @Override
    void close();
}
