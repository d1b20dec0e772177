package io.ringwire.rdma.socket;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.soft.ReceiveQueue;
import io.ringwire.rdma.soft.RegionRegistry;
import io.ringwire.rdma.soft.SoftMemoryRegion;
import org.agrona.concurrent.UnsafeBuffer;

import static io.ringwire.rdma.socket.SocketFrame.*;

/**
 * The responder side of a socket queue pair: executes the peer's request frames in sequence order,
 * checking each against the device's regions (rkey, bounds, access, protection domain) before a
 * byte is touched, produces the receive completions, and has {@link SocketAcknowledger} answer. A request
 * that needs a receive waits in the connection's buffer until one is posted (receiver not ready);
 * a refused or malformed request is NAKed and moves the queue pair to ERROR, which ends the reading.
 *
 * <p>Threading: the queue pair's owning thread. Allocation-free.
 */
final class SocketResponder
{
    private final SocketQueuePair queuePair;
    private final SocketAcknowledger acknowledgements;
    private final DeviceCounters counters;
    private final RegionRegistry regions;
    private final ReceiveQueue receives;
    private long expectedSequence;

    /**
     * @param queuePair the queue pair it executes requests for, whose acknowledger answers them.
     * @param regions   the device's regions.
     * @param receives  the queue pair's posted receives.
     */
    SocketResponder(final SocketQueuePair queuePair, final RegionRegistry regions, final ReceiveQueue receives)
    {
        this.queuePair = queuePair;
        this.acknowledgements = queuePair.acknowledgements();
        this.counters = queuePair.counters();
        this.regions = regions;
        this.receives = receives;
    }

    /**
     * Executes a request frame, or refuses it (a NAK, and the queue pair goes to ERROR).
     *
     * @param received      the connection's receive buffer.
     * @param opcode        OPCODE_WRITE, OPCODE_WRITE_WITH_IMMEDIATE or OPCODE_SEND.
     * @param frame         index of the frame in it.
     * @param payloadLength bytes of its payload.
     * @return true when the frame is done with (executed or refused); false when it needs a receive
     *         and none is posted: it stays in the buffer for a later round (receiver not ready).
     */
    boolean apply(final UnsafeBuffer received, final byte opcode, final int frame, final int payloadLength)
    {
        final long sequence = SocketFrame.sequence(received, frame);
        if (sequence != expectedSequence)
        {
            protocolError(sequence);
            return true;
        }
        if (opcode != OPCODE_WRITE && receives.isEmpty())
        {
            return false;
        }
        final boolean executed = opcode == OPCODE_SEND ?
            applySend(received, frame, payloadLength, sequence) :
            applyWrite(received, frame, payloadLength, sequence, opcode);
        if (executed)
        {
            expectedSequence++;
            acknowledgements.onExecuted(sequence, (received.getByte(frame + FLAGS_OFFSET) & FLAG_ACK_REQUESTED) != 0);
            counters.increment(DeviceCounters.REQUESTS_EXECUTED);
        }
        return true;
    }

    private boolean applyWrite(final UnsafeBuffer received, final int frame, final int payloadLength,
        final long sequence, final byte opcode)
    {
        // IBA: a zero-length RDMA WRITE validates neither R_Key nor VA, and touches no memory.
        if (payloadLength > 0)
        {
            final int rkey = received.getInt(frame + RKEY_OFFSET, ORDER);
            final long remoteAddress = received.getLong(frame + REMOTE_ADDRESS_OFFSET, ORDER);
            final long offset = regions.checkRemoteAccess(rkey, remoteAddress, payloadLength, Access.REMOTE_WRITE,
                queuePair.protectionDomainId());
            final SoftMemoryRegion target = offset < 0 ? null : regions.checkedRegion(rkey);
            if (null == target)
            {
                refuse(sequence, CompletionStatus.REMOTE_ACCESS_ERROR);
                return false;
            }
            target.buffer().putBytes((int)offset, received, frame + HEADER_LENGTH, payloadLength);
        }
        if (opcode == OPCODE_WRITE_WITH_IMMEDIATE)
        {
            final long workRequestId = receives.headWorkRequestId();
            receives.removeHead();
            queuePair.completeReceive(workRequestId, CompletionOpcode.RECV_RDMA_WITH_IMM, CompletionStatus.SUCCESS,
                payloadLength, received.getInt(frame + IMMEDIATE_OFFSET, ORDER));
        }
        return true;
    }

    private boolean applySend(final UnsafeBuffer received, final int frame, final int payloadLength,
        final long sequence)
    {
        final long workRequestId = receives.headWorkRequestId();
        final SoftMemoryRegion target = receives.headRegion();
        final int targetOffset = receives.headOffset();
        final int capacity = receives.headLength();
        receives.removeHead();
        if (payloadLength > capacity)
        {
            counters.increment(DeviceCounters.RESPONDER_LENGTH_ERROR);
            queuePair.completeReceive(workRequestId, CompletionOpcode.RECV, CompletionStatus.LOCAL_LENGTH_ERROR,
                payloadLength, 0);
            refuse(sequence, CompletionStatus.REMOTE_INVALID_REQUEST);
            return false;
        }
        if (target.isClosed())
        {
            // Deregistered after the receive was posted: its memory is no longer the application's to fill.
            queuePair.completeReceive(workRequestId, CompletionOpcode.RECV, CompletionStatus.LOCAL_PROTECTION_ERROR,
                0, 0);
            refuse(sequence, CompletionStatus.REMOTE_OPERATIONAL_ERROR);
            return false;
        }
        if (payloadLength > 0)
        {
            target.buffer().putBytes(targetOffset, received, frame + HEADER_LENGTH, payloadLength);
        }
        queuePair.completeReceive(workRequestId, CompletionOpcode.RECV, CompletionStatus.SUCCESS, payloadLength, 0);
        return true;
    }

    /**
     * Refuses a frame that breaks the protocol (bad length, sequence or opcode): counts it as
     * malformed, NAKs it and moves the queue pair to ERROR.
     *
     * @param sequence the frame's sequence.
     */
    void protocolError(final long sequence)
    {
        counters.increment(DeviceCounters.RESPONDER_MALFORMED);
        refuse(sequence, CompletionStatus.REMOTE_INVALID_REQUEST);
    }

    /** NAKs a request (the requester completes everything before it as done), then moves to ERROR. */
    private void refuse(final long sequence, final int status)
    {
        acknowledgements.refuse(sequence, status);
        queuePair.fail();
    }
}
