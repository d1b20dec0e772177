package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.PostResult;

/**
 * Completions the provider makes itself, for requests posted while their queue pair is in ERROR:
 * this API (and IBA 10.7.3.1) says they are accepted and complete with WR_FLUSH_ERROR, but drivers
 * differ in whether they flush a request posted in ERROR (kernel rxe of Linux 6.1 never flushes a
 * receive posted then, because posting a receive does not enter the kernel). Such requests are
 * therefore not handed to the NIC; they wait here and are delivered by the completion queue's
 * poll, after the completions the NIC produced in the same poll. Those handed to the NIC after it
 * failed the queue pair but before the provider polled the failure are flushed by moving the queue
 * pair to ERROR again ({@link IbverbsQueuePair#onErrorCompletion}).
 *
 * <p>Order: among themselves, in posting order. Relative to the NIC's own flushes of requests posted
 * before the error, a request posted in ERROR can complete first if the NIC has not written those
 * flushes yet (verbs gives no way to tell an unsignaled request the NIC already completed from one
 * it will still flush).
 *
 * <p>Threading: the owning thread of the queue pairs attached to the completion queue.
 */
final class FlushedRequests
{
    private final int mask;
    private final long[] workRequestIds;
    private final int[] opcodes;
    private final int[] lengths;
    private final int[] queuePairNumbers;
    private final DeviceCounters counters;
    private long head;
    private long tail;

    /**
     * @param depth    how many it holds (the completion queue's depth).
     * @param counters where flushes are counted.
     */
    FlushedRequests(final int depth, final DeviceCounters counters)
    {
        final int capacity = Integer.highestOneBit(Math.max(1, depth - 1)) << 1;
        this.mask = capacity - 1;
        this.workRequestIds = new long[capacity];
        this.opcodes = new int[capacity];
        this.lengths = new int[capacity];
        this.queuePairNumbers = new int[capacity];
        this.counters = counters;
    }

    /**
     * Accepts a request posted in ERROR.
     *
     * @return {@link PostResult#OK}, or {@link PostResult#QUEUE_FULL} when as many flushes as the
     *         completion queue holds are waiting to be polled.
     */
    int add(final long workRequestId, final int opcode, final int length, final int queuePairNumber)
    {
        if (tail - head > mask)
        {
            return PostResult.QUEUE_FULL;
        }
        final int index = (int)(tail & mask);
        workRequestIds[index] = workRequestId;
        opcodes[index] = opcode;
        lengths[index] = length;
        queuePairNumbers[index] = queuePairNumber;
        tail++;
        return PostResult.OK;
    }

    /**
     * Delivers the oldest waiting flush.
     *
     * @param handler receives it.
     * @return false when none was waiting.
     */
    boolean deliverOldest(final CompletionHandler handler)
    {
        if (head == tail)
        {
            return false;
        }
        final int index = (int)(head & mask);
        head++;
        counters.increment(DeviceCounters.ERROR_COMPLETIONS);
        counters.increment(DeviceCounters.FLUSHED_REQUESTS);
        handler.onCompletion(workRequestIds[index], opcodes[index], CompletionStatus.WR_FLUSH_ERROR,
            lengths[index], 0, queuePairNumbers[index]);
        return true;
    }
}
