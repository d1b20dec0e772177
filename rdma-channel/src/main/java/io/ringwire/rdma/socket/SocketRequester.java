package io.ringwire.rdma.socket;

import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.soft.SendQueue;
import io.ringwire.rdma.soft.SoftMemoryRegion;
import org.agrona.concurrent.UnsafeBuffer;

import static io.ringwire.rdma.socket.SocketFrame.HEADER_LENGTH;
import static io.ringwire.rdma.soft.SoftQueuePair.KIND_SEND;
import static io.ringwire.rdma.soft.SoftQueuePair.KIND_WRITE;

/**
 * The requester side of a socket queue pair: frames each work request into the connection's staging
 * buffer and writes it at once (TCP_NODELAY); requests stay outstanding in the queue pair's
 * {@link SendQueue} until the responder's cumulative ACK, which is when signaled requests complete,
 * or its NAK, which fails the request it names. A request's frame carries its send queue sequence.
 * AckReq is set on signaled requests, every quarter of the send queue, and once half of it is
 * outstanding, so a requester that signals rarely still hears back before its queue fills.
 *
 * <p>TCP retransmits, so there is no retransmit timer: the peer is lost when requests are
 * outstanding and nothing has come back for the peer timeout.
 *
 * <p>Threading: the queue pair's owning thread. Allocation-free.
 */
final class SocketRequester
{
    private final SocketQueuePair queuePair;
    private final SendQueue sendQueue;
    private final SocketConnection connection;
    private final SocketAcknowledger acknowledgements;
    private final long peerTimeoutNs;
    private final int maxSendRequests;
    private final int ackRequestInterval;
    private int requestsSinceAckRequest;
    private long timerStartNs;

    /**
     * @param queuePair     where completions go.
     * @param sendQueue     its send queue, which holds the requests.
     * @param peerTimeoutNs how long outstanding requests may go unanswered.
     */
    SocketRequester(final SocketQueuePair queuePair, final SendQueue sendQueue, final long peerTimeoutNs)
    {
        this.queuePair = queuePair;
        this.sendQueue = sendQueue;
        this.connection = queuePair.connection();
        this.acknowledgements = queuePair.acknowledgements();
        this.peerTimeoutNs = peerTimeoutNs;
        this.maxSendRequests = sendQueue.capacity();
        this.ackRequestInterval = Math.max(1, maxSendRequests / 4);
    }

    /**
     * Frames an admitted request, stages it and writes what the connection takes.
     *
     * @param kind          a SoftQueuePair KIND_ constant.
     * @param workRequestId of the request.
     * @param local         checked source region.
     * @param localOffset   offset.
     * @param length        bytes.
     * @param remoteAddress destination (writes).
     * @param rkey          destination key (writes).
     * @param immediate     immediate (WRITE_WITH_IMMEDIATE).
     * @param flags         SendFlags.
     * @return {@link PostResult#OK}, or {@link PostResult#QUEUE_FULL} when the staging buffer has no room.
     */
    int post(final int kind, final long workRequestId, final SoftMemoryRegion local, final int localOffset,
        final int length, final long remoteAddress, final int rkey, final int immediate, final int flags)
    {
        final int frameLength = HEADER_LENGTH + length;
        if (!connection.reserve(frameLength))
        {
            return PostResult.QUEUE_FULL;
        }
        if (queuePair.state() == QueuePairState.ERROR)
        {
            // Making room wrote to a connection the peer had closed: the queue was flushed, and so is this.
            return queuePair.flushRequest(kind, workRequestId, length);
        }
        final boolean signaled = SendFlags.isSignaled(flags);
        final int outstanding = sendQueue.size();
        final boolean ackRequested = signaled || ++requestsSinceAckRequest >= ackRequestInterval ||
            outstanding + 1 >= (maxSendRequests + 1) / 2;
        if (ackRequested)
        {
            requestsSinceAckRequest = 0;
        }
        final byte opcode = kind == KIND_WRITE ? SocketFrame.OPCODE_WRITE :
            kind == KIND_SEND ? SocketFrame.OPCODE_SEND : SocketFrame.OPCODE_WRITE_WITH_IMMEDIATE;
        final UnsafeBuffer staging = connection.sendView();
        final int frame = connection.frameIndex();
        SocketFrame.writeRequest(staging, frame, opcode, ackRequested, sendQueue.tail(), remoteAddress, rkey, immediate,
            length);
        if (length > 0)
        {
            staging.putBytes(frame + HEADER_LENGTH, local.buffer(), localOffset, length);
        }
        connection.commit(frameLength);
        acknowledgements.onFrameSent();
        sendQueue.offer(workRequestId, kind, length, signaled);
        if (outstanding == 0)
        {
            timerStartNs = System.nanoTime();
        }
        queuePair.countRequestSent();
        connection.flush();
        return PostResult.OK;
    }

    /**
     * @param requests requests about to be posted.
     * @param bytes    their payloads added up.
     * @return true when their frames fit the staging buffer now: posting them meets no QUEUE_FULL
     *         even while the peer reads nothing.
     */
    boolean canSend(final int requests, final long bytes)
    {
        return (long)requests * HEADER_LENGTH + bytes <= connection.stagingRoom();
    }

    /**
     * Restarts the timer: the peer showed it is alive (it connected).
     *
     * @param nowNs the time.
     */
    void restartTimer(final long nowNs)
    {
        timerStartNs = nowNs;
    }

    /**
     * @param nowNs the progress round's time.
     * @return true when requests are outstanding and the peer has been silent for the peer timeout.
     */
    boolean isPeerSilent(final long nowNs)
    {
        return !sendQueue.isEmpty() && nowNs - timerStartNs > peerTimeoutNs;
    }

    /**
     * @param sequence an ACK's cumulative sequence.
     * @return true when it covers nothing past the last request posted and does not go back behind
     *         the last ACK (ACKs come in order over the stream; one may repeat the last).
     */
    boolean wasPosted(final long sequence)
    {
        return sequence >= sendQueue.head() - 1 && sequence < sendQueue.tail();
    }

    /**
     * @param sequence a NAK's sequence.
     * @return true when it names a request posted and not yet completed.
     */
    boolean isOutstanding(final long sequence)
    {
        return sequence >= sendQueue.head() && sequence < sendQueue.tail();
    }

    /**
     * Completes every outstanding request up to a cumulative ACK.
     *
     * @param sequence the last request the ACK covers.
     */
    void completeThrough(final long sequence)
    {
        final long last = Math.min(sequence, sendQueue.tail() - 1);
        if (sendQueue.head() <= last)
        {
            // Only an ACK of our own requests shows the peer is answering them: its own requests
            // may keep coming while it never executes ours.
            timerStartNs = System.nanoTime();
        }
        while (sendQueue.head() <= last)
        {
            queuePair.completeOldest(CompletionStatus.SUCCESS, false);
        }
    }

    /**
     * Completes the oldest outstanding request, if any, with an error.
     *
     * @param status its completion status.
     */
    void failOldest(final int status)
    {
        if (!sendQueue.isEmpty())
        {
            queuePair.completeOldest(status, true);
        }
    }
}
