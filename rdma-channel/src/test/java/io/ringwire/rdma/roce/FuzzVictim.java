package io.ringwire.rdma.roce;

import io.ringwire.rdma.Completion;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.QueuePair;
import org.agrona.DirectBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One fuzzed queue pair and the model of its responder, written from IBA vol. 1 ch. 9.7 (and the
 * roce responder rules of docs/architecture.md): what each request that reaches it must do to its PSN
 * state, its receives, the memory, the counters, the completions and the NAKs it answers with.
 *
 * <p>{@link #decide} is pure (the generator uses it to steer clear of known provider deviations);
 * {@link #apply} commits the decision.
 */
final class FuzzVictim
{
    static final int NO_MESSAGE = 0;
    static final int WRITE_MESSAGE = 1;
    static final int SEND_MESSAGE = 2;

    /** Decisions. */
    static final int DROPPED_IN_ERROR = 0;
    static final int ACK_IGNORED = 1;
    static final int DUPLICATE = 2;
    static final int AHEAD = 3;
    static final int RECEIVER_NOT_READY = 4;
    static final int INVALID_REQUEST = 5;
    static final int ACCESS_ERROR = 6;
    static final int LENGTH_ERROR = 7;
    static final int EXECUTE = 8;
    /** An RDMA READ request or an atomic, in order: refused with an invalid-request NAK. */
    static final int REFUSED_OPERATION = 9;
    /** The packet would hit a provider deviation a separate test pins down; the generator avoids it. */
    static final int KNOWN_DEVIATION = 10;

    static final String[] DECISION_NAMES = {
        "dropped (queue pair in ERROR)", "ACK ignored (nothing outstanding)", "duplicate (re-ACKed)",
        "ahead of expected PSN (dropped)", "RNR NAK", "invalid-request NAK -> ERROR", "remote-access NAK -> ERROR",
        "receive too small -> ERROR", "executed", "READ/atomic refused (invalid-request NAK) -> ERROR" };

    static final int NAK_SEQUENCE = 0x60;
    static final int NAK_RNR = 0x21;
    static final int NAK_INVALID_REQUEST = 0x61;
    static final int NAK_REMOTE_ACCESS = 0x62;

    /** A NAK the queue pair must send, in order. */
    record Nak(int psn, int syndrome, int messageSequenceNumber)
    {
        @Override
        public String toString()
        {
            return "NAK{psn=0x" + Integer.toHexString(psn) + ", syndrome=0x" + Integer.toHexString(syndrome) +
                ", msn=" + messageSequenceNumber + '}';
        }
    }

    /** A posted receive: its work request id and where its buffer is in the receive region. */
    record Receive(long workRequestId, int slot, int capacity)
    {
        int offset()
        {
            return slot * FuzzMemory.RECEIVE_SLOT;
        }
    }

    final QueuePair queuePair;
    final int queuePairNumber;
    final int peerQueuePairNumber;
    final int pathMtu;
    final int startPsn;

    int expectedPsn;
    int messageSequenceNumber;
    boolean sequenceNakSent;
    int messageKind = NO_MESSAGE;
    long writeOffset;
    int writeRemaining;
    int writeTotal;
    Receive sendReceive;
    int sendReceived;
    final ArrayDeque<Receive> receives = new ArrayDeque<>();
    boolean error;
    int errorBatch = -1;
    String errorReason;

    final List<Nak> expectedNaks = new ArrayList<>();
    final List<Nak> receivedNaks = new ArrayList<>();
    /** Every (PSN of the last executed request, MSN) the responder has held: an ACK must carry one. */
    final Set<Long> acknowledgeableStates = new HashSet<>();
    /**
     * A packet asked for an ACK (or a duplicate arrived) and no sequence or RNR NAK came after it:
     * a NAK acknowledges every PSN before the one it names, so it stands in for the owed ACK.
     */
    boolean acknowledgementOwed;
    int acknowledgementsReceived;
    long executedRequests;
    boolean crossedPsnWrap;

    // Decision details, valid after decide().
    private int accessResult;
    private long accessOffset;
    String deviation;

    FuzzVictim(final QueuePair queuePair, final int peerQueuePairNumber, final int startPsn, final int pathMtu)
    {
        this.queuePair = queuePair;
        this.queuePairNumber = queuePair.queuePairNumber();
        this.peerQueuePairNumber = peerQueuePairNumber;
        this.startPsn = startPsn;
        this.expectedPsn = startPsn;
        this.pathMtu = pathMtu;
        rememberAcknowledgeableState();
    }

    private void rememberAcknowledgeableState()
    {
        acknowledgeableStates.add(((long)((expectedPsn - 1) & 0xFF_FFFF) << 24) | messageSequenceNumber);
    }

    boolean acknowledgeable(final int psn, final int messageSequenceNumber)
    {
        return acknowledgeableStates.contains(((long)psn << 24) | messageSequenceNumber);
    }

    /**
     * What this queue pair must do with a packet that passed the device's checks (parse, ICRC,
     * queue pair number, P_Key). Pure.
     */
    int decide(final FuzzParsed p, final FuzzMemory memory)
    {
        deviation = null;
        if (error)
        {
            return DROPPED_IN_ERROR;
        }
        if (p.opcode == FuzzParsed.ACKNOWLEDGE)
        {
            return ACK_IGNORED; // this queue pair never posts a send, so nothing is outstanding
        }
        final int distance = FuzzParsed.psnDistance(p.psn, expectedPsn);
        if (distance < 0)
        {
            return DUPLICATE;
        }
        if (distance > 0)
        {
            return AHEAD;
        }
        final int opcode = p.opcode;
        if (FuzzParsed.isRefusedOperation(opcode))
        {
            return refuse(REFUSED_OPERATION);
        }
        final boolean starts = FuzzParsed.startsMessage(opcode);
        final boolean last = FuzzParsed.endsMessage(opcode);
        final boolean write = FuzzParsed.isWrite(opcode);
        final int payload = p.payloadLength;
        if (((payload + p.padCount) & 3) != 0 || (!last && p.padCount != 0) || payload > pathMtu)
        {
            return refuse(INVALID_REQUEST);
        }
        if (starts != (messageKind == NO_MESSAGE) || (!starts && (messageKind == WRITE_MESSAGE) != write))
        {
            return refuse(INVALID_REQUEST);
        }
        if (write)
        {
            if (FuzzParsed.hasImmediate(opcode) && receives.isEmpty())
            {
                return RECEIVER_NOT_READY;
            }
            if (starts)
            {
                final int dma = p.dmaLength;
                final boolean lengthOk = last ? payload == dma : payload == pathMtu && dma > pathMtu;
                if (dma < 0 || !lengthOk)
                {
                    return refuse(INVALID_REQUEST);
                }
                accessResult = memory.check(p.rkey, p.virtualAddress, dma);
                if (accessResult == FuzzMemory.OTHER_DOMAIN)
                {
                    return deviate("the rkey of a region in another protection domain");
                }
                if (accessResult != FuzzMemory.ACCESS_OK)
                {
                    if (dma == 0)
                    {
                        return deviate("a zero-length RDMA WRITE with an invalid rkey/VA (IBA C9-88: not checked)");
                    }
                    return refuse(ACCESS_ERROR);
                }
                accessOffset = memory.lastOffset();
                return EXECUTE;
            }
            final boolean lengthOk = last ? payload == writeRemaining && payload > 0 :
                payload == pathMtu && writeRemaining > pathMtu;
            return lengthOk ? EXECUTE : refuse(INVALID_REQUEST);
        }
        if (starts && receives.isEmpty())
        {
            return RECEIVER_NOT_READY;
        }
        if (!last && payload != pathMtu)
        {
            return deviate("a SEND FIRST/MIDDLE of the wrong length after its receive was taken");
        }
        if (last && !starts && payload == 0)
        {
            return refuse(INVALID_REQUEST); // IBA: a LAST carries at least one byte
        }
        final Receive receive = starts ? receives.peekFirst() : sendReceive;
        final int received = starts ? 0 : sendReceived;
        return received + payload > receive.capacity() ? LENGTH_ERROR : EXECUTE;
    }

    private int refuse(final int decision)
    {
        if (messageKind == SEND_MESSAGE)
        {
            return deviate("a fatal error while a SEND holds a receive");
        }
        return decision;
    }

    private int deviate(final String why)
    {
        deviation = why;
        return KNOWN_DEVIATION;
    }

    /**
     * Commits a decision of {@link #decide} for the same packet.
     *
     * @param counters    expected device counters, updated.
     * @param completions expected completions of the victims' completion queue, appended to.
     */
    void apply(final int decision, final FuzzParsed p, final DirectBuffer bytes, final FuzzMemory memory,
        final long[] counters, final List<Completion> completions, final int batch)
    {
        switch (decision)
        {
            case DROPPED_IN_ERROR -> counters[DeviceCounters.ERROR_STATE_DROPPED]++;
            case ACK_IGNORED -> counters[DeviceCounters.GHOST_ACKNOWLEDGEMENTS]++;
            case DUPLICATE ->
            {
                counters[DeviceCounters.DUPLICATE_REQUESTS]++;
                acknowledgementOwed = true;
            }
            case AHEAD ->
            {
                counters[DeviceCounters.OUT_OF_ORDER_DROPPED]++;
                if (!sequenceNakSent)
                {
                    sequenceNakSent = true;
                    counters[DeviceCounters.SEQUENCE_NAKS_SENT]++;
                    expectedNaks.add(new Nak(expectedPsn, NAK_SEQUENCE, messageSequenceNumber));
                    acknowledgementOwed = false;
                }
            }
            case RECEIVER_NOT_READY ->
            {
                counters[DeviceCounters.RNR_NAKS_SENT]++;
                expectedNaks.add(new Nak(expectedPsn, NAK_RNR, messageSequenceNumber));
                acknowledgementOwed = false;
            }
            case INVALID_REQUEST ->
            {
                counters[DeviceCounters.RESPONDER_MALFORMED]++;
                fail(NAK_INVALID_REQUEST, "invalid request " + RoceWire.opcodeName(p.opcode), counters, completions,
                    batch);
            }
            case REFUSED_OPERATION ->
            {
                counters[DeviceCounters.RESPONDER_REFUSED_OPERATION]++;
                fail(NAK_INVALID_REQUEST, "refused " + RoceWire.opcodeName(p.opcode), counters, completions, batch);
            }
            case ACCESS_ERROR ->
            {
                counters[accessResult == FuzzMemory.UNKNOWN_RKEY ? DeviceCounters.RESPONDER_UNKNOWN_RKEY :
                    accessResult == FuzzMemory.ACCESS_DENIED ? DeviceCounters.RESPONDER_ACCESS_DENIED :
                        DeviceCounters.RESPONDER_OUT_OF_BOUNDS]++;
                fail(NAK_REMOTE_ACCESS, "remote access error (rkey 0x" + Integer.toHexString(p.rkey) + ", va 0x" +
                    Long.toHexString(p.virtualAddress) + ", length " + p.dmaLength + ")", counters, completions, batch);
            }
            case LENGTH_ERROR ->
            {
                final boolean starts = FuzzParsed.startsMessage(p.opcode);
                final Receive receive = starts ? receives.pollFirst() : sendReceive;
                final int received = starts ? 0 : sendReceived;
                counters[DeviceCounters.RESPONDER_LENGTH_ERROR]++;
                counters[DeviceCounters.ERROR_COMPLETIONS]++;
                completions.add(new Completion(receive.workRequestId(), CompletionOpcode.RECV,
                    CompletionStatus.LOCAL_LENGTH_ERROR, received + p.payloadLength, 0, queuePairNumber));
                sendReceive = null;
                messageKind = NO_MESSAGE;
                fail(NAK_INVALID_REQUEST, "SEND longer than its receive", counters, completions, batch);
            }
            case EXECUTE -> execute(p, bytes, memory, counters, completions);
            default -> throw new IllegalArgumentException("decision " + decision + " cannot be applied");
        }
    }

    private void execute(final FuzzParsed p, final DirectBuffer bytes, final FuzzMemory memory, final long[] counters,
        final List<Completion> completions)
    {
        final int opcode = p.opcode;
        final boolean starts = FuzzParsed.startsMessage(opcode);
        final boolean last = FuzzParsed.endsMessage(opcode);
        final int payload = p.payloadLength;
        if (FuzzParsed.isWrite(opcode))
        {
            if (starts)
            {
                writeOffset = accessOffset;
                writeRemaining = p.dmaLength;
                writeTotal = p.dmaLength;
            }
            memory.writeTarget(writeOffset, bytes, p.payloadOffset, payload);
            writeOffset += payload;
            writeRemaining -= payload;
            messageKind = last ? NO_MESSAGE : WRITE_MESSAGE;
            if (last && FuzzParsed.hasImmediate(opcode))
            {
                final Receive receive = receives.pollFirst();
                completions.add(new Completion(receive.workRequestId(), CompletionOpcode.RECV_RDMA_WITH_IMM,
                    CompletionStatus.SUCCESS, writeTotal, p.immediate, queuePairNumber));
            }
        }
        else
        {
            if (starts)
            {
                sendReceive = receives.pollFirst();
                sendReceived = 0;
            }
            memory.writeReceive(sendReceive.offset() + sendReceived, bytes, p.payloadOffset, payload);
            sendReceived += payload;
            if (last)
            {
                completions.add(new Completion(sendReceive.workRequestId(), CompletionOpcode.RECV,
                    CompletionStatus.SUCCESS, sendReceived, p.immediate, queuePairNumber));
                sendReceive = null;
                messageKind = NO_MESSAGE;
            }
            else
            {
                messageKind = SEND_MESSAGE;
            }
        }
        sequenceNakSent = false;
        expectedPsn = (expectedPsn + 1) & 0xFF_FFFF;
        crossedPsnWrap |= expectedPsn == 0;
        if (last)
        {
            messageSequenceNumber = (messageSequenceNumber + 1) & 0xFF_FFFF;
            counters[DeviceCounters.REQUESTS_EXECUTED]++;
            executedRequests++;
        }
        rememberAcknowledgeableState();
        if (p.ackRequest)
        {
            acknowledgementOwed = true;
        }
    }

    private void fail(final int syndrome, final String why, final long[] counters, final List<Completion> completions,
        final int batch)
    {
        expectedNaks.add(new Nak(expectedPsn, syndrome, messageSequenceNumber));
        enterError(why, counters, completions, batch);
    }

    /** The queue pair goes to ERROR: every posted receive is flushed, in order. */
    void enterError(final String why, final long[] counters, final List<Completion> completions, final int batch)
    {
        error = true;
        errorBatch = batch;
        errorReason = why;
        while (!receives.isEmpty())
        {
            final Receive receive = receives.pollFirst();
            completions.add(new Completion(receive.workRequestId(), CompletionOpcode.RECV,
                CompletionStatus.WR_FLUSH_ERROR, 0, 0, queuePairNumber));
            counters[DeviceCounters.FLUSHED_REQUESTS]++;
            counters[DeviceCounters.ERROR_COMPLETIONS]++;
        }
    }

    @Override
    public String toString()
    {
        return "victim{qpn=0x" + Integer.toHexString(queuePairNumber) + ", expectedPsn=0x" +
            Integer.toHexString(expectedPsn) + ", msn=" + messageSequenceNumber + ", message=" +
            (messageKind == NO_MESSAGE ? "none" : messageKind == WRITE_MESSAGE ? "write" : "send") +
            ", receives=" + receives.size() + (error ? ", ERROR: " + errorReason : "") + '}';
    }
}
