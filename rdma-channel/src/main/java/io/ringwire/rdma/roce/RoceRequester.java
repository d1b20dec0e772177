package io.ringwire.rdma.roce;

import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.soft.SendQueue;
import io.ringwire.rdma.soft.SoftMemoryRegion;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

import static io.ringwire.rdma.roce.RoceWire.*;
import static io.ringwire.rdma.soft.SoftQueuePair.KIND_SEND;
import static io.ringwire.rdma.soft.SoftQueuePair.KIND_WRITE_WITH_IMMEDIATE;

/**
 * The requester side of a RoCEv2 queue pair, as IBA chapter 9 and the kernel's rxe behave: each
 * posted request gets consecutive PSNs, one per packet of at most the path MTU (FIRST/MIDDLE/LAST,
 * or ONLY); AckReq is set on the last packet of each message and at least every
 * {@value RoceWire#ACK_REQUEST_INTERVAL} packets; at most {@value RoceWire#MAX_UNACKNOWLEDGED_PSNS}
 * PSNs are sent and unacknowledged, and requests past that wait in the send queue until the window
 * opens, as on a NIC (a post returns QUEUE_FULL only for a full send queue, or past
 * {@link RoceWire#MAX_QUEUED_PSNS} PSNs assigned); an ACK completes every request
 * it covers (coalesced ACKs included); a PSN sequence-error NAK rewinds transmission to the PSN it
 * names (go-back-N); an RNR NAK waits, then rewinds; the retransmit timer rewinds to the oldest
 * unacknowledged PSN, doubling its timeout up to 64 times the configured one; retry_cnt (7: until
 * the peer timeout) and rnr_retry (7: forever) end in RETRY_EXCEEDED / RNR_RETRY_EXCEEDED; access,
 * invalid-request and operational NAKs fail the request they name. Requests are read from their
 * memory at each (re)transmission, as a NIC does; INLINE payloads are copied at post.
 *
 * <p>The requests themselves wait in the queue pair's {@link SendQueue}; this class keeps what
 * transmitting them needs, at the same slots. {@link RoceRetryTimer} keeps the timers and retry
 * budgets.
 *
 * <p>Threading: the device's owning thread. Allocation-free.
 */
final class RoceRequester
{
    private final RoceQueuePair queuePair;
    private final SendQueue sendQueue;
    private final DeviceCounters counters;
    private final RoceRetryTimer timer;

    /** Where each request's payload is read at each (re)transmission: its region, or its inline copy. */
    private final UnsafeBuffer[] sources;
    private final int[] sourceOffsets;
    private final long[] remoteAddresses;
    private final int[] rkeys;
    private final int[] immediates;
    private final int[] firstPsns;
    private final int[] packetCounts;
    private final UnsafeBuffer inlineData;
    private final int inlineStride;

    private long transmitRequest;
    private int transmitPacket;
    private int nextPsn;
    private int oldestUnacknowledgedPsn;
    /** One past the highest PSN transmitted: an acknowledgement beyond it answers nothing sent. */
    private int sentPsnEnd;
    private int packetsSinceAckRequest;
    private long requestPacketsSent;

    /**
     * @param queuePair     whose requests it sends, over its connection.
     * @param sendQueue     its send queue, which holds the requests.
     * @param counters      the device's counters.
     * @param startPsn      the first PSN it sends.
     * @param maxInlineData the largest INLINE payload a request of the queue pair carries.
     * @param config        the device's configuration: timeouts and retry counts.
     */
    RoceRequester(final RoceQueuePair queuePair, final SendQueue sendQueue, final DeviceCounters counters,
        final int startPsn, final int maxInlineData, final RdmaConfig config)
    {
        this.queuePair = queuePair;
        this.sendQueue = sendQueue;
        this.counters = counters;
        this.timer = new RoceRetryTimer(config);
        final int depth = sendQueue.capacity();
        this.sources = new UnsafeBuffer[depth];
        this.sourceOffsets = new int[depth];
        this.remoteAddresses = new long[depth];
        this.rkeys = new int[depth];
        this.immediates = new int[depth];
        this.firstPsns = new int[depth];
        this.packetCounts = new int[depth];
        this.inlineStride = Math.max(1, maxInlineData);
        this.inlineData = new UnsafeBuffer(ByteBuffer.allocateDirect(depth * inlineStride));
        this.nextPsn = startPsn;
        this.oldestUnacknowledgedPsn = nextPsn;
        this.sentPsnEnd = nextPsn;
    }

    /**
     * Arms the retry counters for a newly connected peer. Control thread.
     */
    void connect()
    {
        timer.reset();
    }

    /**
     * @param requests send requests about to be posted.
     * @param bytes    their lengths added up.
     * @return true when their PSNs fit what the requester takes now: a post of them meets no QUEUE_FULL.
     */
    boolean canSend(final int requests, final long bytes)
    {
        final int pathMtu = queuePair.pathMtu();
        if (0 == pathMtu)
        {
            return true; // not connected: the post reports its state
        }
        // Each request takes ceil(length / MTU) PSNs (at least one): at most its share of the bytes plus one.
        final long packets = requests + bytes / pathMtu;
        return psnDistance(nextPsn, oldestUnacknowledgedPsn) + packets <= MAX_QUEUED_PSNS;
    }

    /**
     * @return true when {@link RoceWire#MAX_QUEUED_PSNS} PSNs are assigned and unacknowledged: a post must wait.
     */
    boolean isFull()
    {
        return psnDistance(nextPsn, oldestUnacknowledgedPsn) >= MAX_QUEUED_PSNS;
    }

    /**
     * Queues an admitted request (not {@link #isFull}) and transmits what the window allows.
     *
     * @param nowNs the time of the post.
     */
    void post(final int kind, final long workRequestId, final SoftMemoryRegion local, final int localOffset,
        final int length, final long remoteAddress, final int rkey, final int immediate, final int flags,
        final long nowNs)
    {
        final boolean wasIdle = sendQueue.isEmpty();
        final int index = sendQueue.offer(workRequestId, kind, length, SendFlags.isSignaled(flags));
        setSource(index, local, localOffset, length, SendFlags.isInline(flags));
        remoteAddresses[index] = remoteAddress;
        rkeys[index] = rkey;
        immediates[index] = immediate;
        assignPsns(index, length);
        if (wasIdle)
        {
            timer.start(nowNs);
        }
        counters.increment(DeviceCounters.REQUESTS_SENT);
        transmit(nowNs);
    }

    /**
     * Says where the request's payload is read at each (re)transmission: its region, or for an
     * INLINE request a copy taken now, so the application may reuse its buffer once the post returns.
     */
    private void setSource(final int index, final SoftMemoryRegion local, final int localOffset, final int length,
        final boolean inlined)
    {
        if (inlined)
        {
            final int inlineOffset = index * inlineStride;
            if (length > 0)
            {
                inlineData.putBytes(inlineOffset, local.buffer(), localOffset, length);
            }
            sources[index] = inlineData;
            sourceOffsets[index] = inlineOffset;
        }
        else
        {
            sources[index] = local.buffer();
            sourceOffsets[index] = localOffset;
        }
    }

    /**
     * Gives the request its PSNs: the next ones, one per packet of at most the path MTU (one for an
     * empty message).
     */
    private void assignPsns(final int index, final int length)
    {
        final int pathMtu = queuePair.pathMtu();
        final int packets = Math.max(1, (int)(((long)length + pathMtu - 1) / pathMtu));
        firstPsns[index] = nextPsn;
        packetCounts[index] = packets;
        nextPsn = addPsn(nextPsn, packets);
    }

    /**
     * Sends the packets the window allows, unless an RNR NAK's wait is still running.
     *
     * @param nowNs the progress round's time.
     * @return packets sent.
     */
    int transmit(final long nowNs)
    {
        if (timer.holdsTransmission(nowNs))
        {
            return 0;
        }
        int sent = 0;
        while (transmitRequest < sendQueue.tail())
        {
            final int index = sendQueue.index(transmitRequest);
            final int psn = addPsn(firstPsns[index], transmitPacket);
            if (psnDistance(psn, oldestUnacknowledgedPsn) >= MAX_UNACKNOWLEDGED_PSNS)
            {
                break;
            }
            sendPacket(index, transmitPacket, psn);
            if (psnDistance(psn, sentPsnEnd) >= 0)
            {
                sentPsnEnd = addPsn(psn, 1);
            }
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
        final int pathMtu = queuePair.pathMtu();
        final int length = sendQueue.length(index);
        final boolean last = packetIndex == packetCounts[index] - 1;
        final int opcode = opcodeFor(sendQueue.kind(index), packetIndex == 0, last);
        final int payloadOffset = packetIndex * pathMtu;
        final int payloadLength = Math.min(pathMtu, length - payloadOffset);
        final boolean ackRequest = last || ++packetsSinceAckRequest >= ACK_REQUEST_INTERVAL;
        if (ackRequest)
        {
            packetsSinceAckRequest = 0;
        }

        final RoceTransmitter transmitter = queuePair.transmitter();
        final UnsafeBuffer packet = transmitter.packet();
        final int payloadIndex = RocePacket.writeRequestHeaders(packet, 0, opcode, queuePair.partitionKey(),
            queuePair.remoteQueuePairNumber(), ackRequest, psn, remoteAddresses[index], rkeys[index], length,
            immediates[index], payloadLength);
        if (payloadLength > 0)
        {
            packet.putBytes(payloadIndex, sources[index], sourceOffsets[index] + payloadOffset, payloadLength);
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
        for (long request = sendQueue.head(); request < sendQueue.tail(); request++)
        {
            final int index = sendQueue.index(request);
            final int offset = psnDistance(psn, firstPsns[index]);
            if (offset >= 0 && offset < packetCounts[index])
            {
                if (request < transmitRequest || (request == transmitRequest && offset < transmitPacket))
                {
                    counters.add(DeviceCounters.RETRANSMITS, psnDistance(currentTransmitPsn(), psn));
                }
                transmitRequest = request;
                transmitPacket = offset;
                return;
            }
        }
    }

    private int currentTransmitPsn()
    {
        if (transmitRequest >= sendQueue.tail())
        {
            return nextPsn;
        }
        return addPsn(firstPsns[sendQueue.index(transmitRequest)], transmitPacket);
    }

    /**
     * Applies an ACKNOWLEDGE packet from the peer: completes what it acknowledges, and rewinds,
     * waits or fails as its syndrome says.
     *
     * @param packet the parsed packet.
     * @param nowNs  the progress round's time.
     * @return false for a ghost, an acknowledgement of nothing outstanding (dropped).
     */
    boolean onAcknowledge(final RocePacket packet, final long nowNs)
    {
        final int psn = packet.psn();
        final int syndrome = packet.syndrome();
        if (isGhost(psn, syndrome))
        {
            counters.increment(DeviceCounters.GHOST_ACKNOWLEDGEMENTS);
            return false;
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
                if (!timer.takeRnrRetry())
                {
                    failHead(CompletionStatus.RNR_RETRY_EXCEEDED);
                    return true;
                }
                timer.waitForReceiver(nowNs, syndrome & 0x1F);
                rewindTo(psn);
                break;

            default:
                counters.increment(DeviceCounters.NAKS_RECEIVED);
                completeThrough(addPsn(psn, -1), nowNs);
                onNak(psn, syndrome, nowNs);
                break;
        }
        return true;
    }

    /**
     * True for an ACK or NAK that answers nothing outstanding: its PSN lies outside the window from
     * the oldest unacknowledged PSN (one before it for an ACK, which may repeat the last one: a
     * duplicate ACK, always valid) to the last PSN transmitted (not the last assigned: a request
     * longer than the window, or one held by an RNR wait, has PSNs no packet carried yet). The
     * IBA's requester drops such a packet;
     * acting on it would let any packet with the right queue pair number complete or fail requests
     * it never saw.
     */
    private boolean isGhost(final int psn, final int syndrome)
    {
        final boolean acknowledge = (syndrome & AETH_KIND_MASK) == AETH_KIND_ACK;
        final int lastAcknowledged = addPsn(oldestUnacknowledgedPsn, -1);
        if (sendQueue.isEmpty())
        {
            return !(acknowledge && psn == lastAcknowledged);
        }
        final int windowStart = acknowledge ? lastAcknowledged : oldestUnacknowledgedPsn;
        return psnDistance(psn, windowStart) < 0 || psnDistance(psn, sentPsnEnd) >= 0;
    }

    private void onNak(final int psn, final int syndrome, final long nowNs)
    {
        if (syndrome == AETH_NAK_PSN_SEQUENCE_ERROR)
        {
            rewindTo(psn);
            timer.restart(nowNs);
            transmit(nowNs);
        }
        else
        {
            failHead(syndrome == AETH_NAK_REMOTE_ACCESS_ERROR ? CompletionStatus.REMOTE_ACCESS_ERROR :
                syndrome == AETH_NAK_INVALID_REQUEST ? CompletionStatus.REMOTE_INVALID_REQUEST :
                    CompletionStatus.REMOTE_OPERATIONAL_ERROR);
        }
    }

    /** Completes every request whose last packet is at or before {@code psn}. */
    private void completeThrough(final int psn, final long nowNs)
    {
        boolean progressed = false;
        while (!sendQueue.isEmpty())
        {
            final int index = sendQueue.index(sendQueue.head());
            final int lastPsn = addPsn(firstPsns[index], packetCounts[index] - 1);
            if (psnDistance(lastPsn, psn) > 0)
            {
                break;
            }
            sources[index] = null;
            queuePair.completeOldest(CompletionStatus.SUCCESS, false);
            progressed = true;
        }
        if (psnDistance(addPsn(psn, 1), oldestUnacknowledgedPsn) > 0)
        {
            oldestUnacknowledgedPsn = addPsn(psn, 1);
            progressed = true;
        }
        if (transmitRequest < sendQueue.head())
        {
            transmitRequest = sendQueue.head();
            transmitPacket = 0;
        }
        if (psnDistance(currentTransmitPsn(), oldestUnacknowledgedPsn) < 0)
        {
            rewindTo(oldestUnacknowledgedPsn);
        }
        if (progressed)
        {
            timer.onAcknowledgementProgress(nowNs);
        }
    }

    private void failHead(final int status)
    {
        if (!sendQueue.isEmpty())
        {
            sources[sendQueue.index(sendQueue.head())] = null;
            queuePair.completeOldest(status, true);
        }
        queuePair.fail();
    }

    /**
     * Transmits, and runs the timers: the peer timeout since the last acknowledged progress, and the
     * retransmit timeout, which rewinds to the oldest unacknowledged PSN.
     *
     * @param nowNs the progress round's time.
     * @return work done.
     */
    int progress(final long nowNs)
    {
        int work = transmit(nowNs);
        if (sendQueue.isEmpty() || timer.isWaitingForReceiver())
        {
            return work;
        }
        if (timer.isPeerSilent(nowNs))
        {
            counters.increment(DeviceCounters.PEERS_LOST);
            failHead(CompletionStatus.RETRY_EXCEEDED);
            return work + 1;
        }
        if (timer.hasExpired(nowNs))
        {
            counters.increment(DeviceCounters.RETRANSMIT_TIMEOUTS);
            if (!timer.takeRetry())
            {
                failHead(CompletionStatus.RETRY_EXCEEDED);
                return work + 1;
            }
            timer.backOff(nowNs);
            rewindTo(oldestUnacknowledgedPsn);
            work += transmit(nowNs);
        }
        return work;
    }

    /**
     * Stops transmitting: the queue pair is leaving for ERROR and its requests are about to be flushed.
     */
    void stop()
    {
        transmitRequest = sendQueue.tail();
        transmitPacket = 0;
    }

    /** @return the PSN the next new request packet takes. */
    int nextPsn()
    {
        return nextPsn;
    }

    /** @return the oldest PSN not yet acknowledged; {@link #nextPsn()} when nothing is outstanding. */
    int oldestUnacknowledgedPsn()
    {
        return oldestUnacknowledgedPsn;
    }

    /**
     * @return request packets (first transmissions and retransmissions) sent to the peer so far.
     */
    long requestPacketsSent()
    {
        return requestPacketsSent;
    }
}
