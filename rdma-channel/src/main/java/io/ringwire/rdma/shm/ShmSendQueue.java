package io.ringwire.rdma.shm;

/**
 * Send requests of one queue pair that wait for the responder before they complete, oldest first,
 * in parallel arrays so queuing allocates nothing.
 *
 * <p>A SEND waits for the responder to consume its record (it may fail there, on a too-small
 * receive buffer). A WRITE posted behind a waiting SEND waits too, so the send queue completes in
 * posting order as verbs requires. Each entry completes once the responder has acknowledged
 * {@code acknowledgeSequence} records of the inbound ring.
 *
 * <p>Threading: the queue pair's owning thread only.
 */
final class ShmSendQueue
{
    private final int capacity;
    private final long[] workRequestIds;
    private final int[] opcodes;
    private final int[] lengths;
    private final boolean[] signaled;
    private final long[] acknowledgeSequences;
    private final boolean[] sends;
    private long head;
    private long tail;

    /**
     * @param capacity the send queue depth.
     */
    ShmSendQueue(final int capacity)
    {
        this.capacity = capacity;
        this.workRequestIds = new long[capacity];
        this.opcodes = new int[capacity];
        this.lengths = new int[capacity];
        this.signaled = new boolean[capacity];
        this.acknowledgeSequences = new long[capacity];
        this.sends = new boolean[capacity];
    }

    /**
     * @param workRequestId       of the request.
     * @param opcode              its completion opcode.
     * @param length              bytes.
     * @param isSignaled          whether a success completes visibly.
     * @param acknowledgeSequence records the responder must have acknowledged before it completes.
     * @param isSend              true for a SEND, whose own record it is.
     * @return false when full.
     */
    boolean offer(final long workRequestId, final int opcode, final int length, final boolean isSignaled,
        final long acknowledgeSequence, final boolean isSend)
    {
        if (tail - head >= capacity)
        {
            return false;
        }
        final int index = (int)(tail % capacity);
        workRequestIds[index] = workRequestId;
        opcodes[index] = opcode;
        lengths[index] = length;
        signaled[index] = isSignaled;
        acknowledgeSequences[index] = acknowledgeSequence;
        sends[index] = isSend;
        tail++;
        return true;
    }

    boolean isEmpty()
    {
        return head == tail;
    }

    int size()
    {
        return (int)(tail - head);
    }

    long headWorkRequestId()
    {
        return workRequestIds[(int)(head % capacity)];
    }

    int headOpcode()
    {
        return opcodes[(int)(head % capacity)];
    }

    int headLength()
    {
        return lengths[(int)(head % capacity)];
    }

    boolean headSignaled()
    {
        return signaled[(int)(head % capacity)];
    }

    long headAcknowledgeSequence()
    {
        return acknowledgeSequences[(int)(head % capacity)];
    }

    boolean headIsSend()
    {
        return sends[(int)(head % capacity)];
    }

    void removeHead()
    {
        head++;
    }
}
