package io.ringwire.rdma.shm;

import io.ringwire.rdma.soft.SendQueue;

/**
 * What shm adds to a queue pair's {@link SendQueue}: for each outstanding request, how many records
 * of the peer's inbound ring the responder must have acknowledged before it completes, and whether
 * the last of those is its own (a SEND's).
 *
 * <p>A SEND waits for the responder to consume its record (it may fail there, on a too-small
 * receive buffer). A WRITE posted behind a waiting SEND waits too, so the send queue completes in
 * posting order as verbs requires.
 *
 * <p>Threading: the queue pair's owning thread only. Allocation-free.
 */
final class ShmSendQueue
{
    private final SendQueue requests;
    private final long[] acknowledgeSequences;
    private final boolean[] sends;

    /**
     * @param requests the queue pair's send queue, whose slots this shares.
     * @param capacity its depth.
     */
    ShmSendQueue(final SendQueue requests, final int capacity)
    {
        this.requests = requests;
        this.acknowledgeSequences = new long[capacity];
        this.sends = new boolean[capacity];
    }

    /**
     * @param workRequestId       of the request.
     * @param kind                its SoftQueuePair KIND_.
     * @param length              bytes.
     * @param isSignaled          whether a success completes visibly.
     * @param acknowledgeSequence records the responder must have acknowledged before it completes.
     * @param isSend              true for a SEND, whose own record it is.
     */
    void offer(final long workRequestId, final int kind, final int length, final boolean isSignaled,
        final long acknowledgeSequence, final boolean isSend)
    {
        final int index = requests.offer(workRequestId, kind, length, isSignaled);
        acknowledgeSequences[index] = acknowledgeSequence;
        sends[index] = isSend;
    }

    /**
     * @return true when no request waits.
     */
    boolean isEmpty()
    {
        return requests.isEmpty();
    }

    /**
     * @return records the responder must have acknowledged before the oldest request completes.
     */
    long headAcknowledgeSequence()
    {
        return acknowledgeSequences[requests.index(requests.head())];
    }

    /**
     * @return true when the oldest request is a SEND.
     */
    boolean headIsSend()
    {
        return sends[requests.index(requests.head())];
    }
}
