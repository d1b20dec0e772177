package io.ringwire.rdma.socket;

import io.ringwire.rdma.DeviceCounters;

import static io.ringwire.rdma.socket.SocketFrame.HEADER_LENGTH;
import static io.ringwire.rdma.socket.SocketFrame.OPCODE_ACK;
import static io.ringwire.rdma.socket.SocketFrame.OPCODE_NAK;

/**
 * Stages a socket responder's acknowledgement frames: the NAKs its refusals send at once, and the
 * cumulative ACK, for which it decides when it goes: at the start of a progress round, for
 * requests executed in an earlier round, so the application has had their completions and sent its
 * answer, and the ACK never delays that answer. It goes when a request asked for one (AckReq), and
 * also when the queue pair wrote nothing to the peer since its last executed request: on such a
 * one-way connection (a messaging subscriber's, whose answers leave through another queue pair) the
 * kernel would otherwise acknowledge the requests' TCP segments itself, with a pure ACK sent from the
 * read of the next request, on that request's path (Linux acknowledges at once a read that drains
 * small pushed segments on a connection that does not look interactive). Riding on this frame, the
 * TCP acknowledgement costs the next request nothing, and the connection looks interactive. Where
 * the queue pair answers on the same connection (a ping-pong over one queue pair), the answer
 * carries the TCP acknowledgement and no ACK frame is sent unless asked for.
 *
 * <p>Whatever was asked, executed requests are acknowledged within a quarter of the peer timeout:
 * the requester's timer runs on ACKs, and a requester that asks for one only every few requests
 * would otherwise declare a live but slow peer lost (a JVM still warming up, in an emulated guest
 * above all, can take longer than the peer timeout for its first few answers).
 *
 * <p>Threading: the queue pair's owning thread. Allocation-free.
 */
final class SocketAcknowledger
{
    private final SocketConnection connection;
    private final DeviceCounters counters;
    private final long boundNs;

    private long lastExecutedSequence = -1;
    /** The last sequence an ACK covered. */
    private long acknowledgedSequence = -1;
    /** A request executed here asked for an ACK (AckReq). */
    private boolean owed;
    /** The queue pair wrote a frame to the peer after the last request it executed. */
    private boolean sentSinceLastExecuted;
    /** When the oldest executed request no ACK has covered yet was executed. */
    private long firstUnacknowledgedExecutedNs;
    /** The time of the progress round under way. */
    private long roundNs;

    /**
     * @param connection    where the frames are staged.
     * @param counters      the device's counters.
     * @param peerTimeoutNs the peer timeout; executed requests are acknowledged within a quarter of it.
     */
    SocketAcknowledger(final SocketConnection connection, final DeviceCounters counters, final long peerTimeoutNs)
    {
        this.connection = connection;
        this.counters = counters;
        this.boundNs = peerTimeoutNs / 4;
    }

    /**
     * @param nowNs the time of the progress round that starts.
     */
    void startRound(final long nowNs)
    {
        roundNs = nowNs;
    }

    /**
     * @param nowNs the progress round's time.
     * @return true when the ACK of {@link #lastExecutedSequence()} goes now.
     */
    boolean isDue(final long nowNs)
    {
        return lastExecutedSequence != acknowledgedSequence &&
            (owed || !sentSinceLastExecuted || nowNs - firstUnacknowledgedExecutedNs > boundNs);
    }

    /**
     * @return the sequence of the last request executed, -1 before the first.
     */
    long lastExecutedSequence()
    {
        return lastExecutedSequence;
    }

    /**
     * A request was executed in the round under way.
     *
     * @param sequence     its sequence.
     * @param ackRequested its AckReq flag.
     */
    void onExecuted(final long sequence, final boolean ackRequested)
    {
        if (lastExecutedSequence == acknowledgedSequence)
        {
            firstUnacknowledgedExecutedNs = roundNs;
        }
        lastExecutedSequence = sequence;
        sentSinceLastExecuted = false;
        if (ackRequested)
        {
            owed = true;
        }
    }

    /**
     * The queue pair staged a frame for the peer: its TCP segment acknowledges what this side read.
     */
    void onFrameSent()
    {
        sentSinceLastExecuted = true;
    }

    /**
     * Stages the cumulative ACK of the last executed request.
     */
    void acknowledge()
    {
        stage(OPCODE_ACK, lastExecutedSequence, 0);
    }

    /**
     * Stages a NAK of a refused request; the requester completes everything before it as done.
     *
     * @param sequence the refused request.
     * @param status   the completion status the requester's request gets.
     */
    void refuse(final long sequence, final int status)
    {
        stage(OPCODE_NAK, sequence, status);
    }

    private void stage(final byte opcode, final long sequence, final int status)
    {
        if (!connection.reserve(HEADER_LENGTH))
        {
            return; // an ACK stays owed: the next progress round tries again
        }
        SocketFrame.writeAcknowledgement(connection.sendView(), connection.frameIndex(), opcode, sequence, status);
        connection.commit(HEADER_LENGTH);
        sentSinceLastExecuted = true;
        counters.increment(DeviceCounters.ACKNOWLEDGEMENTS_SENT);
        if (opcode == OPCODE_ACK)
        {
            owed = false;
            acknowledgedSequence = sequence;
        }
    }
}
