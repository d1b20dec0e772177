package io.ringwire.rdma.soft;

/**
 * The send requests of one queue pair that are posted and not yet complete, oldest first, with what
 * their completion needs: work request id, kind, length and whether a success is signaled. Every
 * software transport completes its requests in posting order, so one ring serves them all; what a
 * transport needs beyond this (a PSN, a record sequence) it keeps in its own arrays, at the slot
 * {@link #offer} returns. Parallel primitive arrays: posting and completing allocate nothing.
 *
 * <p>Sequences count requests from 0 for the queue pair's life: {@link #head()} is the oldest
 * outstanding one, {@link #tail()} the next to be posted.
 *
 * <p>Threading: the queue pair's owning thread only.
 */
public final class SendQueue
{
    private final int capacity;
    private final long[] workRequestIds;
    private final int[] kinds;
    private final int[] lengths;
    private final boolean[] signaled;
    private long head;
    private long tail;

    /**
     * @param capacity the send queue depth.
     */
    public SendQueue(final int capacity)
    {
        this.capacity = capacity;
        this.workRequestIds = new long[capacity];
        this.kinds = new int[capacity];
        this.lengths = new int[capacity];
        this.signaled = new boolean[capacity];
    }

    /**
     * Appends a request. The caller makes sure there is room: {@link SoftQueuePair} admits a
     * request only while fewer than the depth are outstanding.
     *
     * @param workRequestId of the request.
     * @param kind          a {@link SoftQueuePair} KIND_ constant.
     * @param length        bytes.
     * @param isSignaled    whether a success completes visibly.
     * @return the request's slot, for the transport's own arrays.
     */
    public int offer(final long workRequestId, final int kind, final int length, final boolean isSignaled)
    {
        final int index = index(tail++);
        workRequestIds[index] = workRequestId;
        kinds[index] = kind;
        lengths[index] = length;
        signaled[index] = isSignaled;
        return index;
    }

    /**
     * @return the send queue depth: requests it holds at most.
     */
    public int capacity()
    {
        return capacity;
    }

    /**
     * @param sequence of a request.
     * @return its slot.
     */
    public int index(final long sequence)
    {
        return (int)(sequence % capacity);
    }

    /**
     * @return requests posted and not yet complete.
     */
    public int size()
    {
        return (int)(tail - head);
    }

    /**
     * @return true when none is outstanding.
     */
    public boolean isEmpty()
    {
        return head == tail;
    }

    /**
     * @return the sequence of the oldest outstanding request.
     */
    public long head()
    {
        return head;
    }

    /**
     * @return the sequence the next request gets.
     */
    public long tail()
    {
        return tail;
    }

    /**
     * @param index a slot.
     * @return the kind of the request there.
     */
    public int kind(final int index)
    {
        return kinds[index];
    }

    /**
     * @param index a slot.
     * @return the length of the request there.
     */
    public int length(final int index)
    {
        return lengths[index];
    }

    /**
     * @param index a slot.
     * @return the work request id of the request there.
     */
    long workRequestId(final int index)
    {
        return workRequestIds[index];
    }

    /**
     * @param index a slot.
     * @return whether the request there asked for a success completion.
     */
    boolean isSignaled(final int index)
    {
        return signaled[index];
    }

    /**
     * Forgets the oldest request: {@link SoftQueuePair#completeOldestSend} completes it.
     */
    void removeHead()
    {
        head++;
    }
}
