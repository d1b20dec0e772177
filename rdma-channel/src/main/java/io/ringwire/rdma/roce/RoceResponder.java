package io.ringwire.rdma.roce;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.soft.ReceiveQueue;
import io.ringwire.rdma.soft.RegionRegistry;
import io.ringwire.rdma.soft.SoftMemoryRegion;
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
 *   <li>ACKs are sent only where a packet asked (AckReq), and coalesced: {@link AckCoalescer}
 *       decides when an owed ACK goes; NAKs go at once.</li>
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

    /** {@link #releaseAcknowledgement}: no ACK is owed. */
    static final int NO_ACKNOWLEDGEMENT = 0;
    /** {@link #releaseAcknowledgement}: the owed ACK was sent. */
    static final int ACKNOWLEDGEMENT_SENT = 1;
    /** {@link #releaseAcknowledgement}: an ACK is owed and may wait longer. */
    static final int ACKNOWLEDGEMENT_HELD = 2;

    private final RoceQueuePair queuePair;
    private final RegionRegistry regions;
    private final DeviceCounters counters;
    private final AckCoalescer acknowledgements;

    private int expectedPsn;
    private int messageSequenceNumber;
    private boolean sequenceNakSent;

    private int messageKind = NO_MESSAGE;
    private SoftMemoryRegion writeRegion;
    private long writeOffset;
    private int writeRemaining;
    private int writeTotal;
    private long sendWorkRequestId;
    private SoftMemoryRegion sendRegion;
    private int sendOffset;
    private int sendCapacity;
    private int sendReceived;

    /**
     * @param queuePair    the queue pair whose peer's requests this executes.
     * @param regions      the device's regions.
     * @param counters     the device's counters.
     * @param ackDelayNs   longest an owed ACK may wait (see {@link AckCoalescer}).
     */
    RoceResponder(final RoceQueuePair queuePair, final RegionRegistry regions, final DeviceCounters counters,
        final long ackDelayNs)
    {
        this.queuePair = queuePair;
        this.regions = regions;
        this.counters = counters;
        this.acknowledgements = new AckCoalescer(ackDelayNs);
    }

    /** @return the PSN of the next request this responder executes. */
    int expectedPsn()
    {
        return expectedPsn;
    }

    void connect(final int peerStartPsn)
    {
        expectedPsn = peerStartPsn & PSN_MASK;
        acknowledgements.connect(expectedPsn);
    }

    /**
     * Applies a request packet from the peer.
     *
     * @return true when it was executed: at the expected PSN, valid, and taken.
     */
    boolean onRequest(final RocePacket packet, final DirectBuffer buffer, final long nowNs)
    {
        acknowledgements.onRequest(nowNs, queuePair.requestPacketsSent());
        if (!isExpected(packet.psn(), nowNs) || !isValid(packet))
        {
            return false;
        }
        final int opcode = packet.opcode();
        final boolean executed = isWrite(opcode) ? onWrite(packet, buffer) : onSend(packet, buffer);
        if (!executed)
        {
            return false;
        }
        sequenceNakSent = false;
        expectedPsn = nextPsn(expectedPsn);
        if (endsMessage(opcode))
        {
            messageSequenceNumber = (messageSequenceNumber + 1) & MSN_MASK;
            counters.increment(DeviceCounters.REQUESTS_EXECUTED);
        }
        if (acknowledgements.onExecuted(packet.ackRequested(), nowNs))
        {
            queuePair.acknowledgeLater();
        }
        return true;
    }

    /**
     * Answers a PSN other than the expected one: a duplicate with an ACK, a gap with one sequence
     * NAK per gap.
     *
     * @return true when the PSN is the expected one.
     */
    private boolean isExpected(final int psn, final long nowNs)
    {
        final int distance = psnDistance(psn, expectedPsn);
        if (distance < 0)
        {
            counters.increment(DeviceCounters.DUPLICATE_REQUESTS);
            if (acknowledgements.onDuplicate(nowNs))
            {
                queuePair.acknowledgeLater();
            }
            return false;
        }
        if (distance > 0)
        {
            counters.increment(DeviceCounters.OUT_OF_ORDER_DROPPED);
            if (!sequenceNakSent)
            {
                sequenceNakSent = true;
                counters.increment(DeviceCounters.SEQUENCE_NAKS_SENT);
                queuePair.sendAcknowledge(expectedPsn, AETH_NAK_PSN_SEQUENCE_ERROR, messageSequenceNumber);
                acknowledgements.acknowledgedThrough(addPsn(expectedPsn, -1));
            }
            return false;
        }
        return true;
    }

    /**
     * Refuses, with an invalid-request NAK, a request this queue pair cannot execute: an operation
     * it does not offer, a payload the path or the pad count does not allow, or an opcode out of
     * sequence with the message under way.
     *
     * @return true when the request may be executed.
     */
    private boolean isValid(final RocePacket packet)
    {
        final int opcode = packet.opcode();
        if (isRefusedOperation(opcode))
        {
            // RDMA READ and the atomics: no region here enables them (the API offers neither), so
            // the request is invalid for this queue pair, and says so rather than going silent.
            refuse(AETH_NAK_INVALID_REQUEST, DeviceCounters.RESPONDER_REFUSED_OPERATION);
            return false;
        }
        final int pad = packet.padCount();
        if (packet.payloadLength() > queuePair.pathMtu() ||
            ((packet.payloadLength() + pad) & 3) != 0 || (!endsMessage(opcode) && pad != 0))
        {
            // Too long for the path, or a pad count that does not align the payload to 4 bytes
            // (FIRST and MIDDLE packets carry none): an invalid request.
            refuse(AETH_NAK_INVALID_REQUEST, DeviceCounters.RESPONDER_MALFORMED);
            return false;
        }
        final boolean starts = startsMessage(opcode);
        if (starts != (messageKind == NO_MESSAGE) ||
            (!starts && (messageKind == WRITE_MESSAGE) != isWrite(opcode)))
        {
            refuse(AETH_NAK_INVALID_REQUEST, DeviceCounters.RESPONDER_MALFORMED);
            return false;
        }
        return true;
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
        if (!(startsMessage(opcode) ? startWrite(packet, last, mtu) : continueWrite(payload, last, mtu)))
        {
            return false;
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
                queuePair.completeReceive(workRequestId, CompletionOpcode.RECV_RDMA_WITH_IMM,
                    CompletionStatus.SUCCESS, writeTotal, packet.immediate());
                queuePair.completionProduced();
            }
        }
        else
        {
            messageKind = WRITE_MESSAGE;
        }
        return true;
    }

    /**
     * Checks the FIRST or ONLY packet of a WRITE: its lengths, then (unless it writes nothing) the
     * rkey, range and access of the whole DMA length, before a byte is written.
     *
     * @return true when the write may go on; false after a NAK.
     */
    private boolean startWrite(final RocePacket packet, final boolean last, final int mtu)
    {
        final int payload = packet.payloadLength();
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
            writeRegion = regions.checkedRegion(packet.rkey());
            if (null == writeRegion)
            {
                refuse(AETH_NAK_REMOTE_ACCESS_ERROR, -1);
                return false;
            }
            writeOffset = offset;
        }
        writeRemaining = dmaLength;
        writeTotal = dmaLength;
        return true;
    }

    /**
     * Checks a MIDDLE or LAST packet of a WRITE: its length, and that the region is still there.
     *
     * @return true when the write may go on; false after a NAK.
     */
    private boolean continueWrite(final int payload, final boolean last, final int mtu)
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
        if ((!last && payload != queuePair.pathMtu()) || (last && !startsMessage(opcode) && payload == 0))
        {
            // FIRST and MIDDLE carry exactly the path MTU, a LAST at least one byte (IBA 9.7.5.1.3).
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
        if (sendRegion.isClosed())
        {
            // Deregistered after the receive was posted: its memory is no longer the application's to fill.
            completeHeldReceive(CompletionStatus.LOCAL_PROTECTION_ERROR);
            refuse(AETH_NAK_REMOTE_OPERATIONAL_ERROR, -1);
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
            queuePair.completeReceive(sendWorkRequestId, CompletionOpcode.RECV, CompletionStatus.SUCCESS,
                sendReceived, packet.immediate());
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
            queuePair.completeReceive(sendWorkRequestId, CompletionOpcode.RECV, status,
                status == CompletionStatus.WR_FLUSH_ERROR ? 0 : sendReceived, 0);
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
        acknowledgements.acknowledgedThrough(addPsn(expectedPsn, -1));
    }

    /** NAKs the expected PSN with a fatal syndrome and moves the queue pair to ERROR. */
    private void refuse(final int syndrome, final int counter)
    {
        if (counter >= 0)
        {
            counters.increment(counter);
        }
        if (acknowledgements.isOwed())
        {
            sendAcknowledgement();
        }
        queuePair.sendAcknowledge(expectedPsn, syndrome, messageSequenceNumber);
        acknowledgements.acknowledgedThrough(addPsn(expectedPsn, -1));
        queuePair.fail();
    }

    /**
     * Sends the owed ACK if {@link AckCoalescer} says it is due. Called at the start of each
     * progress round for as long as it returns {@link #ACKNOWLEDGEMENT_HELD}.
     *
     * @param nowNs the progress round's time.
     * @return {@link #NO_ACKNOWLEDGEMENT}, {@link #ACKNOWLEDGEMENT_SENT} or {@link #ACKNOWLEDGEMENT_HELD}.
     */
    int releaseAcknowledgement(final long nowNs)
    {
        if (!acknowledgements.isOwed())
        {
            return NO_ACKNOWLEDGEMENT;
        }
        if (!acknowledgements.release(nowNs, addPsn(expectedPsn, -1), queuePair.requestPacketsSent()))
        {
            return ACKNOWLEDGEMENT_HELD;
        }
        sendAcknowledgementPacket();
        return ACKNOWLEDGEMENT_SENT;
    }

    /**
     * The application just sent the peer a request: sends the owed ACK right behind it if the
     * coalescer would otherwise release it before the next such request, at a moment that suits the
     * ping-pong less (see {@link AckCoalescer#releaseWithAnswer}).
     *
     * @param nowNs            when the request went.
     * @param answerIntervalNs time since the previous request the application sent the peer.
     */
    void acknowledgeWithAnswer(final long nowNs, final long answerIntervalNs)
    {
        if (acknowledgements.isOwed() &&
            acknowledgements.releaseWithAnswer(nowNs, addPsn(expectedPsn, -1), answerIntervalNs))
        {
            sendAcknowledgementPacket();
        }
    }

    /** Sends the owed ACK now, whatever the coalescer would say. */
    private void sendAcknowledgement()
    {
        acknowledgements.acknowledgedThrough(addPsn(expectedPsn, -1));
        sendAcknowledgementPacket();
    }

    /** One cumulative ACK of the last executed PSN. */
    private void sendAcknowledgementPacket()
    {
        queuePair.sendAcknowledge(addPsn(expectedPsn, -1), AETH_ACK | AETH_CREDITS_UNLIMITED, messageSequenceNumber);
    }

    /** Forgets an owed ACK: the queue pair left RTR/RTS and sends nothing more. */
    void dropAcknowledgement()
    {
        acknowledgements.drop();
    }

    /**
     * @return the coalescer's current limit of unacknowledged PSNs (for tests).
     */
    int acknowledgementLimit()
    {
        return acknowledgements.limit();
    }
}
