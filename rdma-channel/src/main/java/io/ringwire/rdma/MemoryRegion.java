package io.ringwire.rdma;

import org.agrona.concurrent.AtomicBuffer;

/**
 * A registered memory region ({@code ibv_mr}). The lkey names it in local work requests; the rkey,
 * with an address inside {@code [address, address + length)}, names it to a remote peer.
 *
 * <p>Threading: the accessors are safe from any thread; {@link #close()} (deregistration) belongs
 * to the control thread. After close, the rkey is unknown to the responder: remote writes with it
 * fail with REMOTE_ACCESS_ERROR and write nothing.
 */
public interface MemoryRegion extends AutoCloseable
{
    /**
     * @return the virtual address of the first byte, as peers must use it in remote addresses.
     */
    long address();

    /**
     * @return length in bytes.
     */
    int length();

    /**
     * @return the local key.
     */
    int lkey();

    /**
     * @return the remote key.
     */
    int rkey();

    /**
     * @return {@link Access} flags.
     */
    int access();

    /**
     * @return a buffer over exactly this region (index 0 is {@link #address()}).
     */
    AtomicBuffer buffer();

    /**
     * Deregisters the region (and frees memory the domain allocated for it). Idempotent.
     */
    @Override
    void close();
}
