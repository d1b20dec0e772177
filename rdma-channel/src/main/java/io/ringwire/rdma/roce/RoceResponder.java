package io.ringwire.rdma.roce;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.support.ReceiveQueue;
import io.ringwire.rdma.support.RegionRegistry;
import io.ringwire.rdma.support.SoftMemoryRegion;
import org.agrona.DirectBuffer;

import static io.ringwire.rdma.roce.RoceWire.*;

/**
 * Executes the requests a queue pair receives, in PSN order, as IBA chapter 9.7 prescribes:
 * <ul>
 *   <li>the expected PSN: executed, then the expected PSN advances (the MSN too at a message end);</li>
 *   <li>behind it (a duplicate): never executed again, answered by an ACK of the last executed PSN;</li>
 *   <li>ahead of it (a gap): one PSN sequence-error NAK naming the expected PSN per gap, then the
 *       packets are dropped until the expected one arrives;</li>
 *   <li>an RDMA WRITE's rkey, range (the whole DMA length, at its FIRST or ONLY packet) and access
 *       are checked before a byte is written; a refusal is a remote-access-error NAK, and the
 *       queue pair goes to ERROR;</li>
 *   <li>a request that needs a receive (SEND, WRITE WITH IMMEDIATE at its end) when none is posted
 *       gets an RNR NAK and is not executed: the requester retries it;</li>
 *   <li>opcode sequence or length violations are an invalid-request NAK, then ERROR;</li>
 *   <li>ACKs are sent only where a packet asked (AckReq), coalesced to one per receive batch.</li>
 * </ul>
 *
 * <p>Threading: the device's owning thread.
 */
final class RoceResponder
{
    private static final int NO_MESSAGE = 0;
    private static final int WRITE_MESSAGE = 1;
    private static final int SEND_MESSAGE = 2;
    /** Timer field of the RNR NAKs sent: 0.01 ms, the shortest wait. */
    private static final int RNR_TIMER = 1;

    private final RoceQueuePair queuePair;
    private final RegionRegistry regions;
    private final DeviceCounters counters;

    private int expectedPsn;
    private int messageSequenceNumber;
    private boolean sequenceNakSent;
    private boolean acknowledgementOwed;

    private int messageKind = NO_MESSAGE;
    private SoftMemoryRegion writeRegion;
    private long writeOffset;
    private int writeRemaining;
    private int writeTotal;
    private long sendWorkRequestId;
    private MemoryRegion sendRegion;
    private int sendOffset;
    private int sendCapacity;
    private int sendReceived;

    RoceResponder(final RoceQueuePair queuePair, final RegionRegistry regions, final DeviceCounters counters)
    {
        this.queuePair = queuePair;
        this.regions = regions;
        this.counters = counters;
    }

    void connect(final int peerStartPsn)
    {
        expectedPsn = peerStartPsn & PSN_MASK;
    }

    void onRequest(final RocePacket packet, final DirectBuffer buffer)
    {
        final int distance = psnDistance(packet.psn(), expectedPsn);
        if (distance < 0)
        {
            counters.increment(DeviceCounters.DUPLICATE_REQUESTS);
            owe();
            return;
        }
        if (distance > 0)
        {
            counters.increment(DeviceCounters.OUT_OF_ORDER_DROPPED);
            if (!sequenceNakSent)
            {
                sequenceNakSent = true;
                counters.increment(DeviceCounters.SEQUENCE_NAKS_SENT);
                queuePair.sendAcknowledge(expectedPsn, AETH_NAK_PSN_SEQUENCE_ERROR, messageSequenceNumber);
            }
            return;
        }

        final int opcode = packet.opcode();
        if (packet.payloadLength() > queuePair.pathMtu())
        {
            refuse(AETH_NAK_INVALID_REQUEST, DeviceCounters.RESPONDER_MALFORMED);
            return;
        }
        final boolean starts = startsMessage(opcode);
        final boolean write = isWrite(opcode);
        if (starts != (messageKind == NO_MESSAGE) ||
            (!starts && (messageKind == WRITE_MESSAGE) != write))
        {
            refuse(AETH_NAK_INVALID_REQUEST, DeviceCounters.RESPONDER_MALFORMED);
            return;
        }
        final boolean executed = write ? onWrite(packet, buffer) : onSend(packet, buffer);
        if (!executed)
        {
            return;
        }
        sequenceNakSent = false;
        expectedPsn = nextPsn(expectedPsn);
        if (endsMessage(opcode))
        {
            messageSequenceNumber = (messageSequenceNumber + 1) & MSN_MASK;
            counters.increment(DeviceCounters.REQUESTS_EXECUTED);
        }
        if (packet.ackRequested())
        {
            owe();
        }
    }

    private boolean onWrite(final RocePacket packet, final DirectBuffer buffer)
    {
        final int opcode = packet.opcode();
        final int payload = packet.payloadLength();
        final int mtu = queuePair.pathMtu();
        final boolean last = endsMessage(opcode);
        final ReceiveQueue receives = queuePair.receives();
        if (hasImmediate(opcode) && receives.isEmpty())
        {
            receiverNotReady();
            return false;
        }
        if (startsMessage(opcode))
        {
            final int dmaLength = packet.dmaLength();
            final boolean lengthOk = last ? payload == dmaLength : payload == mtu && dmaLength > mtu;
            if (dmaLength < 0 || !lengthOk)
            {
                refuse(AETH_NAK_INVALID_REQUEST, DeviceCounters.RESPONDER_MALFORMED);
                return false;
            }
            if (dmaLength == 0)
            {
                // IBA: a zero-length RDMA WRITE validates neither R_Key nor VA, and touches no memory.
                writeRegion = null;
                writeOffset = 0;
            }
            else
            {
                final long offset = regions.checkRemoteAccess(packet.rkey(), packet.virtualAddress(), dmaLength,
                    Access.REMOTE_WRITE, queuePair.protectionDomainId());
                if (offset < 0)
                {
                    refuse(AETH_NAK_REMOTE_ACCESS_ERROR, -1);
                    return false;
                }
                writeRegion = regions.byKey(packet.rkey());
                writeOffset = offset;
            }
            writeRemaining = dmaLength;
            writeTotal = dmaLength;
        }
        else
        {
            final boolean lengthOk = last ? payload == writeRemaining && payload > 0 : payload == mtu && writeRemaining > mtu;
            if (!lengthOk)
            {
                refuse(AETH_NAK_INVALID_REQUEST, DeviceCounters.RESPONDER_MALFORMED);
                return false;
            }
            if (writeRegion.isClosed())
            {
                counters.increment(DeviceCounters.RESPONDER_UNKNOWN_RKEY);
                refuse(AETH_NAK_REMOTE_ACCESS_ERROR, -1);
                return false;
            }
        }
        if (payload > 0)
        {
            writeRegion.buffer().putBytes((int)writeOffset, buffer, packet.payloadOffset(), payload);
        }
        writeOffset += payload;
        writeRemaining -= payload;
        if (last)
        {
            messageKind = NO_MESSAGE;
            writeRegion = null;
            if (hasImmediate(opcode))
            {
                final long workRequestId = receives.headWorkRequestId();
                receives.removeHead();
                queuePair.receiveCompletions().push(workRequestId, CompletionOpcode.RECV_RDMA_WITH_IMM,
                    CompletionStatus.SUCCESS, writeTotal, packet.immediate(), queuePair.queuePairNumber());
                queuePair.completionProduced();
            }
        }
        else
        {
            messageKind = WRITE_MESSAGE;
        }
        return true;
    }

    private boolean onSend(final RocePacket packet, final DirectBuffer buffer)
    {
        final int opcode = packet.opcode();
        final int payload = packet.payloadLength();
        final boolean last = endsMessage(opcode);
        if (startsMessage(opcode))
        {
            final ReceiveQueue receives = queuePair.receives();
            if (receives.isEmpty())
            {
                receiverNotReady();
                return false;
            }
            sendWorkRequestId = receives.headWorkRequestId();
            sendRegion = receives.headRegion();
            sendOffset = receives.headOffset();
            sendCapacity = receives.headLength();
            sendReceived = 0;
            receives.removeHead();
        }
        if (!last && payload != queuePair.pathMtu())
        {
            completeHeldReceive(CompletionStatus.REMOTE_INVALID_REQUEST);
            refuse(AETH_NAK_INVALID_REQUEST, DeviceCounters.RESPONDER_MALFORMED);
            return false;
        }
        if (sendReceived + payload > sendCapacity)
        {
            counters.increment(DeviceCounters.RESPONDER_LENGTH_ERROR);
            sendReceived += payload;
            completeHeldReceive(CompletionStatus.LOCAL_LENGTH_ERROR);
            refuse(AETH_NAK_INVALID_REQUEST, -1);
            return false;
        }
        if (payload > 0)
        {
            sendRegion.buffer().putBytes(sendOffset + sendReceived, buffer, packet.payloadOffset(), payload);
        }
        sendReceived += payload;
        if (last)
        {
            messageKind = NO_MESSAGE;
            queuePair.receiveCompletions().push(sendWorkRequestId, CompletionOpcode.RECV, CompletionStatus.SUCCESS,
                sendReceived, packet.immediate(), queuePair.queuePairNumber());
            queuePair.completionProduced();
            sendRegion = null;
        }
        else
        {
            messageKind = SEND_MESSAGE;
        }
        return true;
    }

    /**
     * Completes the receive an unfinished SEND holds (it left the receive queue at SEND FIRST, so the
     * queue pair's flush would not see it). Idempotent.
     *
     * @param status of the receive's completion.
     */
    void completeHeldReceive(final int status)
    {
        if (messageKind == SEND_MESSAGE || null != sendRegion)
        {
            queuePair.receiveCompletions().push(sendWorkRequestId, CompletionOpcode.RECV, status,
                status == CompletionStatus.WR_FLUSH_ERROR ? 0 : sendReceived, 0, queuePair.queuePairNumber());
            if (status == CompletionStatus.WR_FLUSH_ERROR)
            {
                counters.increment(DeviceCounters.FLUSHED_REQUESTS);
            }
            messageKind = NO_MESSAGE;
            sendRegion = null;
        }
    }

    private void receiverNotReady()
    {
        counters.increment(DeviceCounters.RNR_NAKS_SENT);
        queuePair.sendAcknowledge(expectedPsn, AETH_RNR_NAK | RNR_TIMER, messageSequenceNumber);
    }

    /** NAKs the expected PSN with a fatal syndrome and moves the queue pair to ERROR. */
    private void refuse(final int syndrome, final int counter)
    {
        if (counter >= 0)
        {
            counters.increment(counter);
        }
        if (acknowledgementOwed)
        {
            sendOwedAcknowledgement();
        }
        queuePair.sendAcknowledge(expectedPsn, syndrome, messageSequenceNumber);
        queuePair.failFromResponder();
    }

    private void owe()
    {
        if (!acknowledgementOwed)
        {
            acknowledgementOwed = true;
            queuePair.acknowledgeAtEndOfBatch();
        }
    }

    /** One cumulative ACK of the last executed PSN. */
    void sendOwedAcknowledgement()
    {
        if (acknowledgementOwed)
        {
            acknowledgementOwed = false;
            queuePair.sendAcknowledge(addPsn(expectedPsn, -1), AETH_ACK | AETH_CREDITS_UNLIMITED, messageSequenceNumber);
        }
    }
}
