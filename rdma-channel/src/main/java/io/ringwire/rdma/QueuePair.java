package io.ringwire.rdma;

import org.agrona.concurrent.AtomicBuffer;

/**
 * A reliable-connected queue pair ({@code ibv_qp}, type RC).
 *
 * <p>Lifecycle: created in {@link QueuePairState#RESET}; {@link #modifyToInit()}, then
 * {@link #modifyToReadyToReceive(QueuePairEndpoint)} with the peer's endpoint (from the connection
 * manager), then {@link #modifyToReadyToSend()}. Any failure, or {@link #modifyToError()}, moves it
 * to ERROR, which completes every outstanding request with
 * {@link CompletionStatus#WR_FLUSH_ERROR}.
 *
 * <p>Posting: returns {@link PostResult#OK} when accepted. A request that fails later (remote
 * access error, retries exhausted, peer gone, flush) always produces a completion with an error
 * status, signaled or not (IBA 10.7.3.1). Requests posted while in ERROR are accepted and complete
 * with a flush status, as in verbs. Local ranges are checked against the lkey's region: a range
 * outside it completes with {@link CompletionStatus#LOCAL_PROTECTION_ERROR}.
 *
 * <p>Threading: modify calls on the control thread before the queue pair is handed to its owning
 * thread; {@code post*} only on the owning thread, which also polls the attached completion queues.
 * The post calls allocate nothing and never block.
 */
public interface QueuePair extends AutoCloseable
{
    /**
     * @return the queue pair number (24 bits), unique on its device.
     */
    int queuePairNumber();

    /**
     * @return the current state. Reading it is safe from any thread.
     */
    QueuePairState state();

    /**
     * @return what the peer needs to connect to this queue pair.
     */
    QueuePairEndpoint localEndpoint();

    /**
     * RESET to INIT: receives may be posted from now on.
     *
     * @throws IllegalStateException when not in RESET.
     */
    void modifyToInit();

    /**
     * INIT to RTR: binds the queue pair to its peer; incoming requests are executed from now on.
     *
     * @param remote the peer's endpoint, from the connection manager.
     * @throws IllegalStateException when not in INIT.
     * @throws RdmaException         when the peer's address cannot be reached or understood.
     */
    void modifyToReadyToReceive(QueuePairEndpoint remote);

    /**
     * RTR to RTS: sends may be posted from now on.
     *
     * @throws IllegalStateException when not in RTR.
     */
    void modifyToReadyToSend();

    /**
     * A view of a region the peer registered, for plain loads and stores from this process: where
     * the provider shares memory with the peer ({@link Device#mapsRemoteMemory()}), an application
     * may place data in the peer's region with its own stores instead of posting a WRITE, and order
     * them with a release store the peer reads with acquire semantics. The range is checked as the
     * responder checks a WRITE (a known rkey, inside the region, REMOTE_WRITE); a refusal is counted
     * on the peer's counters. The view stays valid as long as it is referenced, whatever happens to
     * the queue pair or the peer (the mapping outlives both). Control path: call it once per
     * connection, after RTS.
     *
     * @param remoteAddress the peer's virtual address of the range's first byte.
     * @param rkey          the peer region's remote key.
     * @param length        bytes.
     * @return the view, or null when the provider does not map remote memory or the range is refused.
     */
    default AtomicBuffer remoteBuffer(final long remoteAddress, final int rkey,
        final int length)
    {
        return null;
    }

    /**
     * Moves to ERROR and flushes outstanding requests. Allowed from any state. Call it on the owning
     * thread, or on the control thread while no thread posts to or polls for this queue pair.
     */
    void modifyToError();

    /**
     * Posts an RDMA WRITE of {@code [localOffset, localOffset + length)} of {@code local} to
     * {@code remoteAddress} in the peer region named by {@code rkey}.
     *
     * @param workRequestId returned in the completion.
     * @param local         source region (ignored, except for bounds, with INLINE).
     * @param localOffset   offset in the source region.
     * @param length        bytes, &gt;= 0.
     * @param remoteAddress destination virtual address in the peer's region.
     * @param rkey          the peer region's remote key.
     * @param flags         {@link SendFlags}.
     * @return a {@link PostResult} code.
     */
    int postWrite(long workRequestId, MemoryRegion local, int localOffset, int length,
        long remoteAddress, int rkey, int flags);

    /**
     * Posts an RDMA WRITE WITH IMMEDIATE: as {@link #postWrite}, and then consumes one receive on the
     * peer, which completes as {@link CompletionOpcode#RECV_RDMA_WITH_IMM} carrying
     * {@code immediate} and {@code length}, after the data is in place.
     *
     * @param workRequestId returned in the completion.
     * @param local         source region.
     * @param localOffset   offset in the source region.
     * @param length        bytes, &gt;= 0.
     * @param remoteAddress destination virtual address in the peer's region.
     * @param rkey          the peer region's remote key.
     * @param immediate     32-bit value delivered to the peer.
     * @param flags         {@link SendFlags}.
     * @return a {@link PostResult} code.
     */
    int postWriteWithImmediate(long workRequestId, MemoryRegion local, int localOffset, int length,
        long remoteAddress, int rkey, int immediate, int flags);

    /**
     * Posts a SEND: the peer's oldest posted receive takes the bytes and completes as
     * {@link CompletionOpcode#RECV}. If that receive buffer is too small, the peer's receive
     * completes with LOCAL_LENGTH_ERROR and this send with REMOTE_INVALID_REQUEST.
     *
     * @param workRequestId returned in the completion.
     * @param local         source region.
     * @param localOffset   offset in the source region.
     * @param length        bytes, &gt;= 0.
     * @param flags         {@link SendFlags}.
     * @return a {@link PostResult} code.
     */
    int postSend(long workRequestId, MemoryRegion local, int localOffset, int length, int flags);

    /**
     * Whether {@code requests} send-queue requests carrying {@code bytes} in all can be posted now
     * without {@link PostResult#QUEUE_FULL}: room in the send queue and in any bound of the
     * transport's own (socket: its staging buffer). Requests past a window of packets in flight
     * wait in the send queue, as on a NIC, so the window is no bound here. Also true when nothing
     * is outstanding. A caller that must post several requests as one unit (a message's frames) asks first
     * and refuses the unit instead of waiting between its requests. Owning thread; makes no
     * progress; allocation-free.
     *
     * @param requests send-queue requests.
     * @param bytes    their lengths added up.
     * @return true when posting them now will not meet QUEUE_FULL.
     */
    boolean canPostSends(int requests, long bytes);

    /**
     * Posts a receive buffer. Receives are consumed in posting order by incoming SENDs and WRITE WITH
     * IMMEDIATEs.
     *
     * @param workRequestId returned in the completion.
     * @param local         destination region; needs LOCAL_WRITE.
     * @param localOffset   offset in it.
     * @param length        capacity of the buffer, &gt;= 0.
     * @return a {@link PostResult} code.
     */
    int postReceive(long workRequestId, MemoryRegion local, int localOffset, int length);

    /**
     * Destroys the queue pair (flushing what is outstanding). Idempotent.
     */
    @Override
    void close();
}
