package io.ringwire.rdma.roce;

import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.config.EndpointAddress;
import io.ringwire.rdma.soft.SoftMemoryRegion;
import io.ringwire.rdma.soft.SoftQueuePair;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;

import static io.ringwire.rdma.roce.RoceWire.*;

/**
 * A RoCEv2 reliable-connected queue pair. This class is the requester; {@link RoceResponder}
 * executes the peer's requests.
 *
 * <p>Requester, as IBA chapter 9 and the kernel's rxe behave: each posted request gets consecutive
 * PSNs, one per packet of at most the path MTU (FIRST/MIDDLE/LAST, or ONLY); AckReq is set on the
 * last packet of each message and at least every {@value RoceWire#ACK_REQUEST_INTERVAL} packets; at
 * most {@value RoceWire#MAX_UNACKNOWLEDGED_PSNS} PSNs are unacknowledged (a post beyond that returns
 * QUEUE_FULL); an ACK completes every request it covers (coalesced ACKs included); a PSN
 * sequence-error NAK rewinds transmission to the PSN it names (go-back-N); an RNR NAK waits, then
 * rewinds; the retransmit timer rewinds to the oldest unacknowledged PSN, doubling its timeout up
 * to 64 times the configured one; retry_cnt (7: until the peer timeout) and rnr_retry (7: forever)
 * end in RETRY_EXCEEDED / RNR_RETRY_EXCEEDED; access, invalid-request and operational NAKs fail the
 * request they name. Requests are read from their memory at each (re)transmission, as a NIC does;
 * INLINE payloads are copied at post.
 *
 * <p>Threading: posts and progress on the device's single owning thread.
 */
final class RoceQueuePair extends SoftQueuePair
{
    private final RoceDevice device;
    private final RoceResponder responder;
    private final long baseTimeoutNs;
    private final long peerTimeoutNs;
    private final int retryCount;
    private final int rnrRetryCount;

    // Send queue, indexed by request sequence modulo depth.
    private final int depth;
    private final long[] workRequestIds;
    private final int[] kinds;
    private final SoftMemoryRegion[] regionsByRequest;
    private final int[] localOffsets;
    private final int[] lengths;
    private final long[] remoteAddresses;
    private final int[] rkeys;
    private final int[] immediates;
    private final boolean[] signaled;
    private final boolean[] inline;
    private final int[] firstPsns;
    private final int[] packetCounts;
    private final UnsafeBuffer inlineData;
    private final int inlineStride;
    private long head;
    private long tail;

    private long transmitRequest;
    private int transmitPacket;
    private int nextPsn;
    private int oldestUnacknowledgedPsn;
    private int packetsSinceAckRequest;
    private long requestPacketsSent;
    private long lastPostNs;

    private long timerStartNs;
    private long lastAckProgressNs;
    private long currentTimeoutNs;
    private int retriesLeft;
    private int rnrRetriesLeft;
    private long rnrResumeNs;
    private boolean rnrWaiting;

    private RoceTransmitter transmitter;
    /**
     * The IPv4 Identification the peer's next datagram should carry (its last one plus one; 0 when
     * it sends ID 0). Read and written by the device's receive path on the owning thread.
     */
    int expectedIpIdentification;
    private int remoteQueuePairNumber;
    private int pathMtu;
    private final int partitionKey = QueuePairEndpoint.DEFAULT_PARTITION_KEY;
    /** True while the device's list of queue pairs owing an ACK holds this one; written by the device. */
    boolean acknowledgementListed;

    RoceQueuePair(final RoceDevice device, final int queuePairNumber, final QueuePairConfig config)
    {
        super(device, queuePairNumber, ThreadLocalRandom.current().nextInt(PSN_MASK + 1), config);
        this.device = device;
        this.baseTimeoutNs = device.config().ackTimeoutNs();
        this.peerTimeoutNs = device.config().peerTimeoutNs();
        this.retryCount = device.config().retryCount();
        this.rnrRetryCount = device.config().rnrRetryCount();
        this.depth = config.maxSendRequests();
        this.workRequestIds = new long[depth];
        this.kinds = new int[depth];
        this.regionsByRequest = new SoftMemoryRegion[depth];
        this.localOffsets = new int[depth];
        this.lengths = new int[depth];
        this.remoteAddresses = new long[depth];
        this.rkeys = new int[depth];
        this.immediates = new int[depth];
        this.signaled = new boolean[depth];
        this.inline = new boolean[depth];
        this.firstPsns = new int[depth];
        this.packetCounts = new int[depth];
        this.inlineStride = Math.max(1, config.maxInlineData());
        this.inlineData = new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(depth * inlineStride));
        this.nextPsn = startPsn;
        this.oldestUnacknowledgedPsn = startPsn;
        this.responder = new RoceResponder(this, device.regions(), device.counters(), device.config().ackDelayNs());
    }

    int partitionKey()
    {
        return partitionKey;
    }

    int pathMtu()
    {
        return pathMtu;
    }

    RoceTransmitter transmitter()
    {
        return transmitter;
    }

    int remoteQueuePairNumber()
    {
        return remoteQueuePairNumber;
    }

    // ---------------------------------------------------------------- connection

    @Override
    protected void transportConnect(final QueuePairEndpoint remote)
    {
        if ((remote.partitionKey() & 0x7FFF) != (partitionKey & 0x7FFF))
        {
            throw new RdmaException("peer P_Key 0x" + Integer.toHexString(remote.partitionKey()) +
                " does not match ours 0x" + Integer.toHexString(partitionKey));
        }
        final InetSocketAddress peer;
        try
        {
            peer = EndpointAddress.resolve("roce device address", remote.address());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RdmaException(ex.getMessage(), ex);
        }
        pathMtu = Math.min(mtu, remote.mtu());
        remoteQueuePairNumber = remote.queuePairNumber();
        transmitter = new RoceTransmitter(device.localAddress(), peer,
            RoceWire.sourcePort(queuePairNumber, remoteQueuePairNumber),
            BTH_LENGTH + RETH_LENGTH + IMMDT_LENGTH + pathMtu + 3 + Icrc.LENGTH, device.settings().connectedSend());
        responder.connect(remote.startPsn());
        retriesLeft = retryCount;
        rnrRetriesLeft = rnrRetryCount;
        currentTimeoutNs = baseTimeoutNs;
    }


    // ---------------------------------------------------------------- posting

    @Override
    protected int outstandingSends()
    {
        return (int)(tail - head);
    }

    @Override
    protected boolean transportCanSend(final int requests, final long bytes)
    {
        if (0 == pathMtu)
        {
            return true; // not connected: the post reports its state
        }
        // Each request takes ceil(length / MTU) PSNs (at least one): at most its share of the bytes plus one.
        final long packets = requests + bytes / pathMtu;
        return psnDistance(nextPsn, oldestUnacknowledgedPsn) + packets <= MAX_UNACKNOWLEDGED_PSNS;
    }

    @Override
    protected int transportPost(final int kind, final long workRequestId, final SoftMemoryRegion local,
        final int localOffset, final int length, final long remoteAddress, final int rkey, final int immediate,
        final int flags)
    {
        if (psnDistance(nextPsn, oldestUnacknowledgedPsn) >= MAX_UNACKNOWLEDGED_PSNS)
        {
            return PostResult.QUEUE_FULL;
        }
        final int packets = Math.max(1, (int)(((long)length + pathMtu - 1) / pathMtu));
        final int index = (int)(tail % depth);
        workRequestIds[index] = workRequestId;
        kinds[index] = kind;
        regionsByRequest[index] = local;
        localOffsets[index] = localOffset;
        lengths[index] = length;
        remoteAddresses[index] = remoteAddress;
        rkeys[index] = rkey;
        immediates[index] = immediate;
        signaled[index] = SendFlags.isSignaled(flags);
        inline[index] = SendFlags.isInline(flags);
        if (inline[index] && length > 0)
        {
            inlineData.putBytes(index * inlineStride, local.buffer(), localOffset, length);
        }
        firstPsns[index] = nextPsn;
        packetCounts[index] = packets;
        nextPsn = addPsn(nextPsn, packets);
        final long nowNs = System.nanoTime();
        if (head == tail)
        {
            timerStartNs = nowNs;
            lastAckProgressNs = nowNs;
        }
        tail++;
        counters.increment(DeviceCounters.REQUESTS_SENT);
        transmit(nowNs);
        // An ACK owed to the peer goes best right behind this request: the peer reads it after the
        // request, and neither side's next packet waits for it.
        responder.acknowledgeWithAnswer(nowNs, nowNs - lastPostNs);
        lastPostNs = nowNs;
        return PostResult.OK;
    }

    // ---------------------------------------------------------------- transmission

    private int transmit(final long nowNs)
    {
        if (rnrWaiting)
        {
            if (nowNs - rnrResumeNs < 0)
            {
                return 0;
            }
            rnrWaiting = false;
        }
        int sent = 0;
        while (transmitRequest < tail)
        {
            final int index = (int)(transmitRequest % depth);
            final int psn = addPsn(firstPsns[index], transmitPacket);
            if (psnDistance(psn, oldestUnacknowledgedPsn) >= MAX_UNACKNOWLEDGED_PSNS)
            {
                break;
            }
            sendPacket(index, transmitPacket, psn);
            requestPacketsSent++;
            sent++;
            if (++transmitPacket == packetCounts[index])
            {
                transmitPacket = 0;
                transmitRequest++;
            }
        }
        return sent;
    }

    private void sendPacket(final int index, final int packetIndex, final int psn)
    {
        final int kind = kinds[index];
        final int packets = packetCounts[index];
        final boolean first = packetIndex == 0;
        final boolean last = packetIndex == packets - 1;
        final int opcode = opcodeFor(kind, first, last);
        final int payloadOffset = packetIndex * pathMtu;
        final int payloadLength = Math.min(pathMtu, lengths[index] - payloadOffset);
        final boolean ackRequest = last || ++packetsSinceAckRequest >= ACK_REQUEST_INTERVAL;
        if (ackRequest)
        {
            packetsSinceAckRequest = 0;
        }

        final UnsafeBuffer packet = transmitter.packet();
        final int payloadIndex = RocePacket.writeRequestHeaders(packet, 0, opcode, partitionKey, remoteQueuePairNumber,
            ackRequest, psn, remoteAddresses[index], rkeys[index], lengths[index], immediates[index], payloadLength);
        if (payloadLength > 0)
        {
            if (inline[index])
            {
                packet.putBytes(payloadIndex, inlineData, index * inlineStride + payloadOffset, payloadLength);
            }
            else
            {
                packet.putBytes(payloadIndex, regionsByRequest[index].buffer(), localOffsets[index] + payloadOffset,
                    payloadLength);
            }
        }
        transmitter.send(RocePacket.finish(packet, 0, payloadIndex + Math.max(payloadLength, 0)));
    }

    private static int opcodeFor(final int kind, final boolean first, final boolean last)
    {
        if (kind == KIND_SEND)
        {
            return first && last ? SEND_ONLY : first ? SEND_FIRST : last ? SEND_LAST : SEND_MIDDLE;
        }
        final boolean immediate = kind == KIND_WRITE_WITH_IMMEDIATE;
        if (first && last)
        {
            return immediate ? WRITE_ONLY_WITH_IMMEDIATE : WRITE_ONLY;
        }
        return first ? WRITE_FIRST : last ? (immediate ? WRITE_LAST_WITH_IMMEDIATE : WRITE_LAST) : WRITE_MIDDLE;
    }

    /** Moves the transmit cursor to the packet with this PSN (go-back-N). */
    private void rewindTo(final int psn)
    {
        for (long request = head; request < tail; request++)
        {
            final int index = (int)(request % depth);
            final int offset = psnDistance(psn, firstPsns[index]);
            if (offset >= 0 && offset < packetCounts[index])
            {
                final long resendFrom = request;
                if (resendFrom < transmitRequest || (resendFrom == transmitRequest && offset < transmitPacket))
                {
                    counters.add(DeviceCounters.RETRANSMITS, psnDistance(currentTransmitPsn(), psn));
                }
                transmitRequest = resendFrom;
                transmitPacket = offset;
                return;
            }
        }
    }

    private int currentTransmitPsn()
    {
        if (transmitRequest >= tail)
        {
            return nextPsn;
        }
        return addPsn(firstPsns[(int)(transmitRequest % depth)], transmitPacket);
    }

    // ---------------------------------------------------------------- acknowledgements

    void onPacket(final RocePacket packet, final DirectBuffer buffer, final long nowNs)
    {
        final QueuePairState current = state();
        if (current != QueuePairState.READY_TO_RECEIVE && current != QueuePairState.READY_TO_SEND)
        {
            return;
        }
        if (packet.opcode() == ACKNOWLEDGE)
        {
            onAcknowledge(packet, nowNs);
        }
        else
        {
            responder.onRequest(packet, buffer, nowNs);
        }
    }

    private void onAcknowledge(final RocePacket packet, final long nowNs)
    {
        final int psn = packet.psn();
        final int syndrome = packet.syndrome();
        if (head == tail || psnDistance(psn, nextPsn) >= 0)
        {
            return; // nothing outstanding, or an ACK for a PSN never sent: stale or bogus
        }
        switch (syndrome & AETH_KIND_MASK)
        {
            case AETH_KIND_ACK:
                if (psnDistance(psn, oldestUnacknowledgedPsn) >= 0)
                {
                    completeThrough(psn, nowNs);
                }
                break;

            case AETH_KIND_RNR_NAK:
                counters.increment(DeviceCounters.NAKS_RECEIVED);
                completeThrough(addPsn(psn, -1), nowNs);
                if (rnrRetryCount != 7 && rnrRetriesLeft-- <= 0)
                {
                    failHead(CompletionStatus.RNR_RETRY_EXCEEDED);
                    return;
                }
                rnrWaiting = true;
                rnrResumeNs = nowNs + rnrDelayNs(syndrome & 0x1F);
                rewindTo(psn);
                timerStartNs = nowNs;
                break;

            default:
                counters.increment(DeviceCounters.NAKS_RECEIVED);
                completeThrough(addPsn(psn, -1), nowNs);
                if (syndrome == AETH_NAK_PSN_SEQUENCE_ERROR)
                {
                    rewindTo(psn);
                    timerStartNs = nowNs;
                    transmit(nowNs);
                }
                else
                {
                    failHead(syndrome == AETH_NAK_REMOTE_ACCESS_ERROR ? CompletionStatus.REMOTE_ACCESS_ERROR :
                        syndrome == AETH_NAK_INVALID_REQUEST ? CompletionStatus.REMOTE_INVALID_REQUEST :
                            CompletionStatus.REMOTE_OPERATIONAL_ERROR);
                }
                break;
        }
    }

    /** The RNR NAK timer field in microseconds, coarsely (IBA table 45 starts at 0.01 ms). */
    private static long rnrDelayNs(final int timer)
    {
        return timer == 0 ? 655_360_000L : Math.min(10_000L << (timer / 2), 100_000_000L);
    }

    /** Completes every request whose last packet is at or before {@code psn}. */
    private void completeThrough(final int psn, final long nowNs)
    {
        boolean progressed = false;
        while (head < tail)
        {
            final int index = (int)(head % depth);
            final int lastPsn = addPsn(firstPsns[index], packetCounts[index] - 1);
            if (psnDistance(lastPsn, psn) > 0)
            {
                break;
            }
            completeSend(workRequestIds[index], completionOpcode(kinds[index]), CompletionStatus.SUCCESS, lengths[index],
                signaled[index]);
            regionsByRequest[index] = null;
            head++;
            progressed = true;
        }
        if (psnDistance(addPsn(psn, 1), oldestUnacknowledgedPsn) > 0)
        {
            oldestUnacknowledgedPsn = addPsn(psn, 1);
            progressed = true;
        }
        if (transmitRequest < head)
        {
            transmitRequest = head;
            transmitPacket = 0;
        }
        if (psnDistance(currentTransmitPsn(), oldestUnacknowledgedPsn) < 0)
        {
            rewindTo(oldestUnacknowledgedPsn);
        }
        if (progressed)
        {
            lastAckProgressNs = nowNs;
            timerStartNs = nowNs;
            currentTimeoutNs = baseTimeoutNs;
            retriesLeft = retryCount;
            rnrRetriesLeft = rnrRetryCount;
        }
    }

    private void failHead(final int status)
    {
        if (head < tail)
        {
            final int index = (int)(head % depth);
            completeSend(workRequestIds[index], completionOpcode(kinds[index]), status, lengths[index], true);
            regionsByRequest[index] = null;
            head++;
        }
        enterError();
    }

    // ---------------------------------------------------------------- progress

    @Override
    public int progress(final long nowNs)
    {
        int work = device.pollReceive(nowNs);
        final QueuePairState current = state();
        if (current != QueuePairState.READY_TO_SEND)
        {
            return work;
        }
        work += transmit(nowNs);
        if (head < tail && !rnrWaiting)
        {
            if (nowNs - lastAckProgressNs > peerTimeoutNs)
            {
                counters.increment(DeviceCounters.PEERS_LOST);
                failHead(CompletionStatus.RETRY_EXCEEDED);
                return work + 1;
            }
            if (nowNs - timerStartNs > currentTimeoutNs)
            {
                counters.increment(DeviceCounters.RETRANSMIT_TIMEOUTS);
                if (retryCount != 7 && retriesLeft-- <= 0)
                {
                    failHead(CompletionStatus.RETRY_EXCEEDED);
                    return work + 1;
                }
                currentTimeoutNs = Math.min(currentTimeoutNs * 2, baseTimeoutNs * 64);
                timerStartNs = nowNs;
                rewindTo(oldestUnacknowledgedPsn);
                work += transmit(nowNs);
            }
        }
        return work;
    }

    // ---------------------------------------------------------------- responder callbacks

    /** Sends an ACKNOWLEDGE packet now. */
    void sendAcknowledge(final int psn, final int syndrome, final int messageSequenceNumber)
    {
        final UnsafeBuffer packet = transmitter.packet();
        final int end = RocePacket.writeAcknowledge(packet, 0, partitionKey, remoteQueuePairNumber, psn, syndrome,
            messageSequenceNumber);
        transmitter.send(end + Icrc.LENGTH);
        counters.increment(DeviceCounters.ACKNOWLEDGEMENTS_SENT);
    }

    /**
     * Called by the device at the start of each progress round while this queue pair owes an ACK.
     *
     * @param nowNs the progress round's time.
     * @return {@link RoceResponder#NO_ACKNOWLEDGEMENT}, {@link RoceResponder#ACKNOWLEDGEMENT_SENT}
     *         or {@link RoceResponder#ACKNOWLEDGEMENT_HELD}.
     */
    int releaseAcknowledgement(final long nowNs)
    {
        final QueuePairState current = state();
        if (current != QueuePairState.READY_TO_RECEIVE && current != QueuePairState.READY_TO_SEND)
        {
            responder.dropAcknowledgement();
            return RoceResponder.NO_ACKNOWLEDGEMENT;
        }
        return responder.releaseAcknowledgement(nowNs);
    }

    /**
     * @return request packets (first transmissions and retransmissions) sent to the peer so far.
     */
    long requestPacketsSent()
    {
        return requestPacketsSent;
    }

    /**
     * @return the responder's current limit of unacknowledged PSNs before an owed ACK goes (tests).
     */
    int acknowledgementLimit()
    {
        return responder.acknowledgementLimit();
    }

    void completionProduced()
    {
        device.completionProduced();
    }

    void acknowledgeLater()
    {
        device.acknowledgeLater(this);
    }

    void failFromResponder()
    {
        enterError();
    }

    io.ringwire.rdma.soft.ReceiveQueue receives()
    {
        return receiveQueue;
    }

    io.ringwire.rdma.soft.SoftCompletionQueue receiveCompletions()
    {
        return receiveCompletionQueue;
    }

    // ---------------------------------------------------------------- teardown

    @Override
    protected void transportFlushAndDisconnect()
    {
        responder.completeHeldReceive(io.ringwire.rdma.CompletionStatus.WR_FLUSH_ERROR);
        while (head < tail)
        {
            final int index = (int)(head % depth);
            completeSend(workRequestIds[index], completionOpcode(kinds[index]), CompletionStatus.WR_FLUSH_ERROR,
                lengths[index], true);
            regionsByRequest[index] = null;
            head++;
        }
        transmitRequest = tail;
        transmitPacket = 0;
    }

    @Override
    protected void transportClose()
    {
        if (null != transmitter)
        {
            transmitter.close();
        }
        device.removeQueuePair(this);
    }
}
