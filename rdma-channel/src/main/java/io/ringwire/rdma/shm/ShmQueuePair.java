package io.ringwire.rdma.shm;

import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.soft.DirectCopy;
import io.ringwire.rdma.soft.SoftMemoryRegion;
import io.ringwire.rdma.soft.SoftQueuePair;
import org.agrona.concurrent.AtomicBuffer;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A reliable-connected queue pair over shared memory. The state machine, admission checks and flush
 * rules come from {@link SoftQueuePair}; this class is the transport.
 *
 * <p>Requester (in the post, on the owning thread):
 * <ul>
 *   <li>RDMA WRITE: the responder's checks against the peer's shared region table (unknown rkey,
 *       missing REMOTE_WRITE, outside the region), then one copy into the peer's region. A refusal
 *       counts on the peer's counters, completes the request with REMOTE_ACCESS_ERROR (signaled or
 *       not) and moves this queue pair to ERROR, with nothing written. A WRITE is complete when the
 *       post returns.</li>
 *   <li>WRITE WITH IMMEDIATE: as WRITE, then a record (immediate, length) in the peer's inbound ring,
 *       whose commit is the release that orders the data before the notification. When the ring is
 *       full the post returns {@link PostResult#QUEUE_FULL} before anything is copied. Complete when
 *       the post returns (the data is in place; the notification waits in the ring for a receive).</li>
 *   <li>SEND: a record carrying the payload in the peer's inbound ring ({@link PostResult#QUEUE_FULL}
 *       when it has no room, {@link PostResult#INVALID_ARGUMENT} above {@link #maxSendLength()}). It
 *       stays outstanding until the responder consumes it: SUCCESS, or REMOTE_INVALID_REQUEST when
 *       the receive buffer was too small. Requests posted behind an outstanding SEND complete after
 *       it, in order.</li>
 * </ul>
 *
 * <p>Responder (in {@link #progress(long)}, from the poll of an attached completion queue): records
 * of the inbound ring consume posted receives in order. With no receive posted (or no room in the
 * receive CQ) a record stays in the ring until there is (receiver not ready, retried forever).
 *
 * <p>Liveness: a post to a peer whose queue pair is in error or closed completes with
 * RETRY_EXCEEDED; progress checks the peer at most every {@link #PEER_CHECK_INTERVAL_NS} and, when it
 * is gone (see {@link ShmPeer}), counts PEERS_LOST and moves to ERROR, which completes outstanding
 * requests and posted receives with error statuses.
 *
 * <p>Threading: as {@link SoftQueuePair}. Close only after the owning thread stopped polling, since
 * close unmaps the memory progress reads.
 */
public final class ShmQueuePair extends SoftQueuePair
{
    /** Least time between two liveness checks of the peer. */
    public static final long PEER_CHECK_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Idle progress rounds between two reads of the clock. */
    static final int ROUNDS_PER_CLOCK_READ = 16;
    /** Busy progress rounds after which the clock is read anyway (a queue pair that is never idle). */
    static final int MAX_BUSY_ROUNDS = 1024;
    /** Most inbound records executed in one progress round. */
    private static final int READ_BATCH = 64;

    private final ShmDevice device;
    private final ShmProtectionDomain domain;
    private final ShmInboundRing inboundRing;
    private final ShmRecordRing inboundRecords;
    private final ShmRecordRing.RecordHandler inboundRecordHandler = this::onInboundRecord;
    private final ShmSendQueue waitingSends;
    private final long producerToken;

    // Written on the control thread by transportConnect before the queue pair reaches RTR; read by the
    // owning thread afterwards (the volatile state written after transportConnect publishes them).
    private ShmPeer peer;
    private ShmInboundRing peerRing;
    private ShmRecordRing peerRecords;
    private ShmRemoteRegions peerRegions;
    private int maxSendLength;

    // Owning thread only.
    private long appendedRecords;
    private long lastSendRecord;
    private long pendingRequestsSent;
    private long pendingRequestsExecuted;
    private long consumedRecords;
    private long publishedAcknowledgement;
    private long nextPeerCheckNs;
    private int roundsToClockRead;
    /**
     * True while {@link #progress} runs: a completion handler it calls may post, and a post into a
     * full send queue drives progress, which must not read a record the outer read has not finished.
     */
    private boolean progressing;

    ShmQueuePair(final ShmDevice device, final ShmProtectionDomain domain, final int queuePairNumber,
        final QueuePairConfig config)
    {
        super(device, queuePairNumber, ThreadLocalRandom.current().nextInt() & QueuePairEndpoint.MASK_24, config);
        this.device = device;
        this.domain = domain;
        this.waitingSends = new ShmSendQueue(sendQueue, config.maxSendRequests());
        this.inboundRing = ShmInboundRing.create(
            device.shmAddress().ringFile(queuePairNumber), queuePairNumber, device.inboundRingCapacity());
        this.inboundRecords = inboundRing.records();
        long token;
        do
        {
            token = ThreadLocalRandom.current().nextLong();
        }
        while (0 == token);
        this.producerToken = token;
    }

    /**
     * The largest SEND this queue pair can post: a SEND travels as one record of the peer's inbound
     * ring, which takes records up to an eighth of its capacity. Larger SENDs are refused
     * with {@link PostResult#INVALID_ARGUMENT}. Any thread.
     *
     * @return bytes; 0 before the queue pair is connected (RTR).
     */
    public int maxSendLength()
    {
        return maxSendLength;
    }

    @Override
    public AtomicBuffer remoteBuffer(final long remoteAddress, final int rkey, final int length)
    {
        final ShmRemoteRegions regions = peerRegions;
        return null == regions || length < 0 ? null : regions.mapForLoadStore(rkey, remoteAddress, length);
    }

    // ---------------------------------------------------------------- transport hooks

    @Override
    protected void transportConnect(final QueuePairEndpoint remote)
    {
        final ShmAddress remoteAddress = ShmAddress.parse(remote.address());
        checkPeerAddress(device.shmAddress(), remoteAddress);
        final ShmPeer connected = ShmPeer.connect(
            remoteAddress, remote.queuePairNumber(), producerToken, device.config().peerTimeoutNs());
        peer = connected;
        peerRing = connected.ring();
        peerRecords = peerRing.records();
        peerRegions = connected.regions();
        maxSendLength = peerRecords.maxPayloadLength();
    }

    /**
     * Refuses a peer's address that no peer of this device has, before anything is mapped: the
     * address comes from the other side of a handshake, which may be any holder of a trusted key.
     * Peers on one host share one shm directory, so another directory (one its sender made, of
     * links to files of this host's other links) is refused; and a queue pair never connects to a
     * queue pair of its own device (named, its new ring would take its own records, and its peer's
     * regions would be this device's: any region of it, another link's ring too).
     */
    static void checkPeerAddress(final ShmAddress own, final ShmAddress peer)
    {
        if (!peer.directory().toAbsolutePath().normalize().equals(own.directory()))
        {
            throw new RdmaException("the peer's shm device is in " + peer.directory() + ", not in this host's shm " +
                "directory " + own.directory() + " (" + RdmaConfig.SHM_DIRECTORY_PROP + "): peers on one host share " +
                "one directory");
        }
        if (peer.pid() == own.pid() && peer.deviceId() == own.deviceId())
        {
            throw new RdmaException("the peer names this queue pair's own shm device (" + own.format() + "): a " +
                "queue pair connects to another device's");
        }
    }

    @Override
    protected int transportPost(final int kind, final long workRequestId, final SoftMemoryRegion local,
        final int localOffset, final int length, final long remoteAddress, final int rkey, final int immediate,
        final int flags)
    {
        if (KIND_SEND == kind && length > maxSendLength)
        {
            return PostResult.INVALID_ARGUMENT;
        }
        final boolean signaled = SendFlags.isSignaled(flags);
        if (!peer.isQueuePairActive())
        {
            return failPostToLostPeer(kind, workRequestId, length, signaled);
        }
        if (KIND_SEND == kind)
        {
            return postSend(workRequestId, local, localOffset, length, signaled);
        }
        return postWrite(kind, workRequestId, local, localOffset, length, remoteAddress, rkey, immediate, signaled);
    }

    private int postWrite(final int kind, final long workRequestId, final SoftMemoryRegion local,
        final int localOffset, final int length, final long remoteAddress, final int rkey, final int immediate,
        final boolean signaled)
    {
        final long remoteOffset = peerRegions.checkRemoteWrite(rkey, remoteAddress, length);
        if (remoteOffset < 0)
        {
            // The failed request completes first, then enterError flushes what still waits (as
            // SoftQueuePair does for a local protection error).
            completeSend(workRequestId, CompletionOpcode.RDMA_WRITE, CompletionStatus.REMOTE_ACCESS_ERROR, length, true);
            enterError();
            return PostResult.OK;
        }

        final boolean withImmediate = KIND_WRITE_WITH_IMMEDIATE == kind;
        int recordIndex = 0;
        if (withImmediate)
        {
            // Claimed before the copy, so a full ring refuses the request with nothing written.
            recordIndex = peerRecords.tryClaim(ShmRecordRing.WRITE_WITH_IMMEDIATE_TYPE, 0);
            if (recordIndex < 0)
            {
                return PostResult.QUEUE_FULL;
            }
        }

        // Both ranges are checked (the local one on admission, the remote one just above).
        DirectCopy.copy(local.buffer().addressOffset() + localOffset,
            peerRegions.allowedBuffer().addressOffset() + remoteOffset, length);

        if (withImmediate)
        {
            peerRecords.putLengthAndImmediate(recordIndex, length, immediate);
            // Commit is a release store of the record's sequence: the bytes copied into the peer's
            // region and the record body are visible to the responder before it can see the record.
            peerRecords.commit(recordIndex);
            appendedRecords++;
        }
        pendingRequestsSent++;
        if (waitingSends.isEmpty())
        {
            completeSend(workRequestId, CompletionOpcode.RDMA_WRITE, CompletionStatus.SUCCESS, length, signaled);
        }
        else
        {
            // Complete in posting order, after the SENDs ahead of it.
            waitingSends.offer(workRequestId, kind, length, signaled, lastSendRecord, false);
        }
        return PostResult.OK;
    }

    private int postSend(final long workRequestId, final SoftMemoryRegion local, final int localOffset,
        final int length, final boolean signaled)
    {
        final int recordIndex = peerRecords.tryClaim(ShmRecordRing.SEND_TYPE, length);
        if (recordIndex < 0)
        {
            return PostResult.QUEUE_FULL;
        }
        final AtomicBuffer records = peerRecords.buffer();
        records.putInt(recordIndex + ShmRecordRing.LENGTH_OFFSET, length);
        records.putBytes(recordIndex + ShmRecordRing.PAYLOAD_OFFSET, local.buffer(), localOffset, length);
        // Release: the payload is visible to the responder before the record is.
        peerRecords.commit(recordIndex);
        appendedRecords++;
        lastSendRecord = appendedRecords;
        pendingRequestsSent++;
        // Room is certain: SoftQueuePair admits a request only below maxSendRequests outstanding.
        waitingSends.offer(workRequestId, KIND_SEND, length, signaled, appendedRecords, true);
        return PostResult.OK;
    }

    /**
     * The peer queue pair is in error or closed: as if a wire had exhausted its retries. The oldest
     * outstanding request (this one when none waits) fails with RETRY_EXCEEDED, the rest is flushed.
     */
    private int failPostToLostPeer(final int kind, final long workRequestId, final int length, final boolean signaled)
    {
        completeAcknowledgedSends(); // the peer may have failed a SEND of ours before going to ERROR
        if (state() != QueuePairState.ERROR)
        {
            counters.increment(DeviceCounters.PEERS_LOST);
            if (waitingSends.isEmpty())
            {
                completeSend(workRequestId, completionOpcode(kind), CompletionStatus.RETRY_EXCEEDED, length, signaled);
                enterError();
                return PostResult.OK;
            }
            completeOldestSend(CompletionStatus.RETRY_EXCEEDED, true);
            enterError();
        }
        completeSend(workRequestId, completionOpcode(kind), CompletionStatus.WR_FLUSH_ERROR, length, true);
        return PostResult.OK;
    }

    /**
     * Completes the waiting requests the responder has acknowledged, in order; a SEND it failed
     * completes with its failure status and moves this queue pair to ERROR. Owning thread.
     *
     * @return requests completed.
     */
    private int completeAcknowledgedSends()
    {
        if (waitingSends.isEmpty())
        {
            return 0;
        }
        final long acknowledged = peerRing.acknowledgedRecords();
        int completed = 0;
        while (!waitingSends.isEmpty() && waitingSends.headAcknowledgeSequence() <= acknowledged)
        {
            if (waitingSends.headIsSend() && waitingSends.headAcknowledgeSequence() == peerRing.failedRecord())
            {
                completeOldestSend(responderFailure(peerRing.failureStatus()), true);
                enterError();
                return completed + 1;
            }
            completeOldestSend(CompletionStatus.SUCCESS, false);
            completed++;
        }
        return completed;
    }

    /**
     * The status a SEND the responder failed completes with: the responder's refusal, or, for any
     * other value its ring holds (written by no responder: the peer's memory is corrupt or forged),
     * REMOTE_OPERATIONAL_ERROR, counted as a forged acknowledgement; never SUCCESS for a failed SEND.
     */
    private int responderFailure(final int status)
    {
        if (status == CompletionStatus.REMOTE_INVALID_REQUEST || status == CompletionStatus.REMOTE_OPERATIONAL_ERROR ||
            status == CompletionStatus.REMOTE_ACCESS_ERROR)
        {
            return status;
        }
        counters.increment(DeviceCounters.GHOST_ACKNOWLEDGEMENTS);
        return CompletionStatus.REMOTE_OPERATIONAL_ERROR;
    }

    @Override
    protected void transportDisconnect()
    {
        flushCounters();
        inboundRing.markError(); // the peer sees the connection broken
    }

    @Override
    protected void transportClose()
    {
        try
        {
            flushCounters();
            inboundRing.close();
            if (null != peer)
            {
                peer.close();
            }
        }
        finally
        {
            domain.forget(this); // its number too: one whose ring file stays is skipped while it does
        }
    }

    // ---------------------------------------------------------------- responder and liveness

    /**
     * Executes the records of the inbound ring against posted receives, completes acknowledged
     * SENDs, and checks the peer's liveness. Owning thread, from the poll of an attached completion
     * queue; allocation-free in steady state.
     *
     * <p>This source keeps its own coarse time ({@link #usesClock()} is false): the clock is read for
     * the heartbeat, the liveness check and the counter flush once every
     * {@link #ROUNDS_PER_CLOCK_READ} idle rounds (and after {@link #MAX_BUSY_ROUNDS} busy ones), so
     * a busy-polling thread spends its rounds looking at the ring, not at the clock.
     *
     * @param nowNs ignored.
     * @return work done.
     */
    @Override
    public int progress(final long nowNs)
    {
        final QueuePairState current = state();
        if (progressing || (current != QueuePairState.READY_TO_RECEIVE && current != QueuePairState.READY_TO_SEND))
        {
            return 0;
        }
        progressing = true;
        try
        {
            return progressRecordsAndTimers();
        }
        finally
        {
            progressing = false;
        }
    }

    /**
     * @return true: a completion handed to the poll's handler from inside {@link #progress(long)}
     *         finds the record it came from fully executed (the receive consumed, the completion's
     *         fields copied out), the handler's posts write only into the peer's ring, and a progress
     *         they start (a full send queue) does not re-enter this one (see {@link #progressing}).
     */
    @Override
    public boolean allowsDirectDelivery()
    {
        return true;
    }

    private int progressRecordsAndTimers()
    {
        // Records first: requests the peer completed before it went away are still delivered.
        int work = inboundRecords.hasRecord() ? inboundRecords.read(inboundRecordHandler, READ_BATCH) : 0;
        if (work > 0)
        {
            acknowledgeConsumedRecords();
        }
        work += completeAcknowledgedSends();
        if (--roundsToClockRead <= (0 == work ? 0 : -MAX_BUSY_ROUNDS))
        {
            roundsToClockRead = ROUNDS_PER_CLOCK_READ;
            work += timedChecks(System.nanoTime());
        }
        return work;
    }

    /**
     * @return false: {@link #progress(long)} reads the clock itself, now and then.
     */
    @Override
    public boolean usesClock()
    {
        return false;
    }

    private int timedChecks(final long nowNs)
    {
        flushCounters();
        device.heartbeat(nowNs);
        if (nowNs - nextPeerCheckNs < 0)
        {
            return 0;
        }
        nextPeerCheckNs = nowNs + PEER_CHECK_INTERVAL_NS;
        // The peer's state is read before its acknowledgements: a failure it published before going to
        // ERROR then completes our SEND with its own status rather than as a lost peer.
        final boolean peerAlive = peer.isAlive(nowNs);
        int work = completeAcknowledgedSends();
        if (!peerAlive && state() != QueuePairState.ERROR)
        {
            counters.increment(DeviceCounters.PEERS_LOST);
            if (!waitingSends.isEmpty())
            {
                completeOldestSend(CompletionStatus.RETRY_EXCEEDED, true);
            }
            enterError();
            work++;
        }
        return work;
    }

    /**
     * Adds the requests sent and executed since the last flush to the device counters: two atomic
     * adds, kept off the path of a request and its completion. Owning thread.
     */
    private void flushCounters()
    {
        if (0 != pendingRequestsSent)
        {
            counters.add(DeviceCounters.REQUESTS_SENT, pendingRequestsSent);
            pendingRequestsSent = 0;
        }
        if (0 != pendingRequestsExecuted)
        {
            counters.add(DeviceCounters.REQUESTS_EXECUTED, pendingRequestsExecuted);
            pendingRequestsExecuted = 0;
        }
    }

    private void acknowledgeConsumedRecords()
    {
        if (consumedRecords != publishedAcknowledgement)
        {
            publishedAcknowledgement = consumedRecords;
            inboundRing.acknowledge(consumedRecords);
        }
    }

    private int onInboundRecord(final int type, final AtomicBuffer buffer, final int index, final int length,
        final int immediate)
    {
        if (receiveQueue.isEmpty() || receiveCompletionQueue.size() >= receiveCompletionQueue.depth())
        {
            // Receiver not ready (or its CQ is full): leave the record for a later progress.
            return ShmRecordRing.ABORT;
        }
        final long workRequestId = receiveQueue.headWorkRequestId();
        consumedRecords++;
        if (ShmRecordRing.WRITE_WITH_IMMEDIATE_TYPE == type)
        {
            receiveQueue.removeHead();
            pendingRequestsExecuted++;
            completeReceive(workRequestId, CompletionOpcode.RECV_RDMA_WITH_IMM, CompletionStatus.SUCCESS,
                length, immediate);
            return ShmRecordRing.CONTINUE;
        }
        if (ShmRecordRing.SEND_TYPE == type)
        {
            return deliverSend(workRequestId, buffer, index + ShmRecordRing.PAYLOAD_OFFSET, length);
        }
        counters.increment(DeviceCounters.RESPONDER_MALFORMED);
        return failRecord(CompletionStatus.REMOTE_INVALID_REQUEST);
    }

    private int deliverSend(final long workRequestId, final AtomicBuffer buffer, final int index, final int length)
    {
        final SoftMemoryRegion region = receiveQueue.headRegion();
        if (length > receiveQueue.headLength())
        {
            receiveQueue.removeHead();
            counters.increment(DeviceCounters.RESPONDER_LENGTH_ERROR);
            completeReceive(workRequestId, CompletionOpcode.RECV, CompletionStatus.LOCAL_LENGTH_ERROR,
                length, 0);
            return failRecord(CompletionStatus.REMOTE_INVALID_REQUEST);
        }
        if (region.isClosed())
        {
            // Deregistered after the receive was posted: its memory is gone.
            receiveQueue.removeHead();
            completeReceive(workRequestId, CompletionOpcode.RECV, CompletionStatus.LOCAL_PROTECTION_ERROR,
                0, 0);
            return failRecord(CompletionStatus.REMOTE_OPERATIONAL_ERROR);
        }
        region.buffer().putBytes(receiveQueue.headOffset(), buffer, index, length);
        receiveQueue.removeHead();
        pendingRequestsExecuted++;
        completeReceive(workRequestId, CompletionOpcode.RECV, CompletionStatus.SUCCESS, length, 0);
        return ShmRecordRing.CONTINUE;
    }

    private int failRecord(final int requesterStatus)
    {
        // Published before the ERROR state, so the requester learns why its request failed.
        inboundRing.recordFailure(consumedRecords, requesterStatus);
        acknowledgeConsumedRecords();
        enterError();
        return ShmRecordRing.BREAK;
    }
}
