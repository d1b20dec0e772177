package io.ringwire.rdma.support;

import io.ringwire.rdma.MemoryRegion;

/**
 * Posted receives of one queue pair, consumed in posting order, held in parallel arrays so posting
 * and consuming allocate nothing.
 *
 * <p>Threading: the queue pair's owning thread only.
 */
public final class ReceiveQueue
{
    private final int capacity;
    private final long[] workRequestIds;
    private final MemoryRegion[] regions;
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
        this.workRequestIds = new long[capacity];
        this.regions = new MemoryRegion[capacity];
        this.offsets = new int[capacity];
        this.lengths = new int[capacity];
    }

    /**
     * @param workRequestId of the receive.
     * @param region        its buffer's region.
     * @param offset        in the region.
     * @param length        capacity of the buffer.
     * @return false when full.
     */
    public boolean offer(final long workRequestId, final MemoryRegion region, final int offset, final int length)
    {
        if (tail - head >= capacity)
        {
            return false;
        }
        final int index = (int)(tail % capacity);
        workRequestIds[index] = workRequestId;
        regions[index] = region;
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
        return workRequestIds[(int)(head % capacity)];
    }

    /**
     * @return the oldest receive's region; only when not empty.
     */
    public MemoryRegion headRegion()
    {
        return regions[(int)(head % capacity)];
    }

    /**
     * @return the oldest receive's offset; only when not empty.
     */
    public int headOffset()
    {
        return offsets[(int)(head % capacity)];
    }

    /**
     * @return the oldest receive's buffer length; only when not empty.
     */
    public int headLength()
    {
        return lengths[(int)(head % capacity)];
    }

    /**
     * Removes the oldest receive.
     */
    public void removeHead()
    {
        regions[(int)(head % capacity)] = null;
        head++;
    }
}
