package io.ringwire.rdma.soft;

/**
 * Posted receives of one queue pair, consumed in posting order, held in parallel arrays so posting
 * and consuming allocate nothing.
 *
 * <p>Built for the cost of a post: slots are a power of two (a mask, not a division), the region
 * array holds the final {@link SoftMemoryRegion} type (an interface-typed array makes every store
 * search the value's interfaces), and a slot's region is only written when it changes and never
 * cleared (a reference store into a long-lived array costs a GC write barrier with a fence; a
 * consumed slot keeps naming its region until reused, which keeps at most the small region object,
 * never its memory, reachable).
 *
 * <p>Threading: the queue pair's owning thread only.
 */
public final class ReceiveQueue
{
    private final int capacity;
    private final int mask;
    private final long[] workRequestIds;
    private final SoftMemoryRegion[] regions;
    private final int[] offsets;
    private final int[] lengths;
    private long head;
    private long tail;

    /**
     * @param capacity the receive queue depth.
     */
    public ReceiveQueue(final int capacity)
    {
        this.capacity = capacity;
        // Slots are a power of two so the hot path indexes with a mask, not a division.
        final int slots = 1 << (32 - Integer.numberOfLeadingZeros(Math.max(1, capacity) - 1));
        this.mask = slots - 1;
        this.workRequestIds = new long[slots];
        this.regions = new SoftMemoryRegion[slots];
        this.offsets = new int[slots];
        this.lengths = new int[slots];
    }

    /**
     * @param workRequestId of the receive.
     * @param region        its buffer's region.
     * @param offset        in the region.
     * @param length        capacity of the buffer.
     * @return false when full.
     */
    public boolean offer(final long workRequestId, final SoftMemoryRegion region, final int offset, final int length)
    {
        if (tail - head >= capacity)
        {
            return false;
        }
        final int index = (int)tail & mask;
        workRequestIds[index] = workRequestId;
        if (regions[index] != region)
        {
            regions[index] = region;
        }
        offsets[index] = offset;
        lengths[index] = length;
        tail++;
        return true;
    }

    /**
     * @return true when no receive is posted.
     */
    public boolean isEmpty()
    {
        return head == tail;
    }

    /**
     * @return posted receives.
     */
    public int size()
    {
        return (int)(tail - head);
    }

    /**
     * @return the oldest receive's work request id; only when not empty.
     */
    public long headWorkRequestId()
    {
        return workRequestIds[(int)head & mask];
    }

    /**
     * @return the oldest receive's region; only when not empty.
     */
    public SoftMemoryRegion headRegion()
    {
        return regions[(int)head & mask];
    }

    /**
     * @return the oldest receive's offset; only when not empty.
     */
    public int headOffset()
    {
        return offsets[(int)head & mask];
    }

    /**
     * @return the oldest receive's buffer length; only when not empty.
     */
    public int headLength()
    {
        return lengths[(int)head & mask];
    }

    /**
     * Removes the oldest receive.
     */
    public void removeHead()
    {
        head++;
    }
}
