package io.ringwire.rdma.ibverbs;

/**
 * The receive requests of one queue pair between post and completion. Every receive completes
 * (successfully, with an error, or flushed), in posting order, so the count is exact: posting past
 * {@code maxReceiveRequests} returns QUEUE_FULL whatever the NIC rounded its queue up to.
 *
 * <p>The native {@code wr_id} of a receive is {@link #RECEIVE_BIT} plus its sequence number: a
 * completion whose status is an error carries no valid opcode, and that bit is how the completion
 * queue tells a receive from a send. The application's id is kept here by sequence.
 *
 * <p>Threading: the queue pair's owning thread.
 */
final class ReceiveRing
{
    /** Set in the native wr_id of every receive, never in a send's. */
    static final long RECEIVE_BIT = Long.MIN_VALUE;

    private final int depth;
    private final int mask;
    private final long[] workRequestIds;
    private long posted;
    private long completed;

    /**
     * @param depth the queue pair's maxReceiveRequests, &gt;= 1.
     */
    ReceiveRing(final int depth)
    {
        this.depth = depth;
        final int capacity = Integer.highestOneBit(Math.max(1, depth - 1)) << 1;
        this.mask = capacity - 1;
        this.workRequestIds = new long[capacity];
    }

    /**
     * @param nativeWorkRequestId a completion's wr_id.
     * @return true when it belongs to a receive.
     */
    static boolean isReceive(final long nativeWorkRequestId)
    {
        return nativeWorkRequestId < 0;
    }

    /**
     * @return true when {@code depth} receives are outstanding.
     */
    boolean isFull()
    {
        return posted - completed >= depth;
    }

    /**
     * @return receives posted and not yet completed.
     */
    int outstanding()
    {
        return (int)(posted - completed);
    }

    /**
     * @return the native wr_id the next receive will have.
     */
    long nextNativeWorkRequestId()
    {
        return RECEIVE_BIT | posted;
    }

    /**
     * Records a receive the NIC accepted.
     *
     * @param workRequestId the application's id.
     */
    void record(final long workRequestId)
    {
        workRequestIds[(int)(posted & mask)] = workRequestId;
        posted++;
    }

    /**
     * Completes one receive.
     *
     * @param nativeWorkRequestId the completion's wr_id.
     * @return the application's id.
     */
    long complete(final long nativeWorkRequestId)
    {
        final long sequence = nativeWorkRequestId & ~RECEIVE_BIT;
        if (sequence + 1 > completed)
        {
            completed = sequence + 1;
        }
        return workRequestIds[(int)(sequence & mask)];
    }
}
