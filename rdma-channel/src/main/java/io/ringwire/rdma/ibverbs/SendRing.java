package io.ringwire.rdma.ibverbs;

/**
 * The send requests of one queue pair between post and completion, so the provider keeps the
 * promises of this API that raw verbs leave to the application:
 * <ul>
 *   <li>The native {@code wr_id} is the request's sequence number; the application's work request id,
 *       the completion opcode and the length are kept here by sequence. A completion therefore
 *       reports them exactly even when the NIC leaves {@code opcode} and {@code byte_len} undefined,
 *       which verbs allows for every error status and for {@code byte_len} of sends.</li>
 *   <li>Posting past {@code maxSendRequests} outstanding requests returns QUEUE_FULL whatever the
 *       NIC rounded the queue up to. A request is known complete when its own completion, or a
 *       later one (send queues complete in order), is polled.</li>
 *   <li>Unsignaled requests produce no completion on success, so an application that signals none
 *       would never see the queue drain (on NICs such as mlx5 the slots of unsignaled requests are
 *       only reclaimed when a later completion is polled). The provider therefore signals every
 *       {@code max(1, depth / 2)}-th request itself and hides that completion when the application
 *       did not ask for it: a full queue always holds a signaled request. This costs at most two
 *       extra completion queue entries per {@code depth} requests, consumed inside poll.</li>
 * </ul>
 *
 * <p>Threading: the queue pair's owning thread (posts, and the polls that complete them).
 */
final class SendRing
{
    private final int depth;
    private final int mask;
    private final int signalInterval;
    private final long[] workRequestIds;
    private final int[] opcodes;
    private final int[] lengths;
    private final boolean[] signaled;
    private long posted;
    private long completed;
    private long lastSignaled = -1;

    /**
     * @param depth the queue pair's maxSendRequests, &gt;= 1.
     */
    SendRing(final int depth)
    {
        this.depth = depth;
        final int capacity = Integer.highestOneBit(Math.max(1, depth - 1)) << 1;
        this.mask = capacity - 1;
        this.signalInterval = Math.max(1, depth / 2);
        this.workRequestIds = new long[capacity];
        this.opcodes = new int[capacity];
        this.lengths = new int[capacity];
        this.signaled = new boolean[capacity];
    }

    /**
     * @return true when {@code depth} requests are outstanding.
     */
    boolean isFull()
    {
        return posted - completed >= depth;
    }

    /**
     * @param requests requests about to be posted.
     * @return true when they fit now, or when nothing is outstanding.
     */
    boolean hasRoomFor(final int requests)
    {
        final long outstanding = posted - completed;
        return 0 == outstanding || depth - outstanding >= requests;
    }

    /**
     * @return requests posted and not yet known complete.
     */
    int outstanding()
    {
        return (int)(posted - completed);
    }

    /**
     * @return the sequence number the next request will have (its native wr_id).
     */
    long nextSequence()
    {
        return posted;
    }

    /**
     * @param applicationSignaled whether the application asked for a completion.
     * @return whether the next request must be posted signaled.
     */
    boolean mustSignal(final boolean applicationSignaled)
    {
        return applicationSignaled || posted - lastSignaled >= signalInterval;
    }

    /**
     * Records a request the NIC accepted, under {@link #nextSequence()}.
     *
     * @param workRequestId       the application's id.
     * @param opcode              its CompletionOpcode.
     * @param length              its length.
     * @param applicationSignaled whether the application asked for a completion.
     * @param postedSignaled      whether it was posted signaled.
     */
    void record(final long workRequestId, final int opcode, final int length, final boolean applicationSignaled,
        final boolean postedSignaled)
    {
        final int index = (int)(posted & mask);
        workRequestIds[index] = workRequestId;
        opcodes[index] = opcode;
        lengths[index] = length;
        signaled[index] = applicationSignaled;
        if (postedSignaled)
        {
            lastSignaled = posted;
        }
        posted++;
    }

    /**
     * Marks the request with this sequence, and every earlier one, complete.
     *
     * @param sequence the native wr_id of a send completion.
     */
    void completeThrough(final long sequence)
    {
        if (sequence + 1 > completed)
        {
            completed = sequence + 1;
        }
    }

    /**
     * @param sequence a native wr_id.
     * @return the application's id of that request.
     */
    long workRequestId(final long sequence)
    {
        return workRequestIds[(int)(sequence & mask)];
    }

    /**
     * @param sequence a native wr_id.
     * @return its CompletionOpcode.
     */
    int opcode(final long sequence)
    {
        return opcodes[(int)(sequence & mask)];
    }

    /**
     * @param sequence a native wr_id.
     * @return its length.
     */
    int length(final long sequence)
    {
        return lengths[(int)(sequence & mask)];
    }

    /**
     * @param sequence a native wr_id.
     * @return whether the application asked for a completion.
     */
    boolean applicationSignaled(final long sequence)
    {
        return signaled[(int)(sequence & mask)];
    }
}
