package io.ringwire.rdma.soft;

import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.SendFlags;

import java.util.Objects;

/**
 * What every software queue pair shares: the state machine, the receive queue, the checks a post
 * makes before a provider sees it, and the error rules (the failed request's completion always
 * reaches the CQ, then the queue pair goes to ERROR and everything outstanding is flushed).
 * Providers implement the transport in the {@code transport*} hooks and {@link #progress(long)}.
 *
 * <p>Threading: posts and progress on the owning thread. Modify calls on the control thread before
 * the owning thread starts, except the move to RTR, which may run on another thread while the owner
 * polls: progress acts on nothing before the volatile state says RTR, and that write publishes the
 * connection. RTS (roce sends ACKs) and ERROR (the flush pushes completions) touch the owner's state
 * and run on the owning thread. Close runs on the owning thread, from a completion handler too (the
 * transport is then released after the progress that called it). {@link #state()} may be read from
 * any thread.
 */
public abstract class SoftQueuePair implements QueuePair, ProgressSource
{
    /** Work request kind handed to the transport: RDMA WRITE. */
    public static final int KIND_WRITE = 0;
    /** RDMA WRITE WITH IMMEDIATE. */
    public static final int KIND_WRITE_WITH_IMMEDIATE = 1;
    /** SEND. */
    public static final int KIND_SEND = 2;

    private static final int ADMITTED = 1;

    protected final int queuePairNumber;
    protected final int startPsn;
    protected final QueuePairConfig config;
    protected final SoftCompletionQueue sendCompletionQueue;
    protected final SoftCompletionQueue receiveCompletionQueue;
    protected final RegionRegistry regions;
    protected final DeviceCounters counters;
    protected final ReceiveQueue receiveQueue;
    /** Send requests posted and not yet complete; the transport adds them, {@link #completeOldestSend} completes them. */
    protected final SendQueue sendQueue;
    protected final int maxMessageSize;
    protected final String deviceAddress;
    protected final int mtu;
    private final ProgressGuard guard;
    /** From the config, read on every post. */
    private final int maxSendRequests;
    private final int maxInlineData;
    private int protectionDomainId = RegionRegistry.NO_DOMAIN;

    private volatile QueuePairState state = QueuePairState.RESET;
    protected QueuePairEndpoint remote;
    private boolean closed;

    /**
     * @param device          the device that creates it.
     * @param queuePairNumber unique on the device, 24 bits.
     * @param startPsn        first PSN this side sends.
     * @param config          completion queues and depths; the queues must be {@link SoftCompletionQueue}s,
     *                        maxInlineData at most the device's.
     * @throws IllegalArgumentException when the configuration does not fit the device.
     */
    protected SoftQueuePair(final SoftDevice device, final int queuePairNumber, final int startPsn,
        final QueuePairConfig config)
    {
        this.queuePairNumber = queuePairNumber;
        this.startPsn = startPsn;
        this.config = config;
        this.sendCompletionQueue = asSoft(config.sendCompletionQueue());
        this.receiveCompletionQueue = asSoft(config.receiveCompletionQueue());
        if (config.maxInlineData() > device.maxInlineData())
        {
            throw new IllegalArgumentException("maxInlineData " + config.maxInlineData() + " exceeds the device's " +
                device.maxInlineData() + " (" + RdmaConfig.MAX_INLINE_PROP + ")");
        }
        this.regions = device.regions();
        this.counters = device.counters();
        this.receiveQueue = new ReceiveQueue(config.maxReceiveRequests());
        this.sendQueue = new SendQueue(config.maxSendRequests());
        this.maxMessageSize = device.maxMessageSize();
        this.deviceAddress = device.address();
        this.mtu = device.mtu();
        this.guard = device.progressGuard();
        this.maxSendRequests = config.maxSendRequests();
        this.maxInlineData = config.maxInlineData();
    }

    private static SoftCompletionQueue asSoft(final Object queue)
    {
        if (!(queue instanceof SoftCompletionQueue soft))
        {
            throw new IllegalArgumentException("completion queue belongs to another provider: " + queue);
        }
        return soft;
    }

    // ---------------------------------------------------------------- transport hooks

    /**
     * Binds the transport to the peer (open or accept a connection, map its memory). Control thread.
     *
     * @param remote the peer.
     */
    protected abstract void transportConnect(QueuePairEndpoint remote);

    /**
     * Starts sending (optional hook). Control thread.
     */
    protected void transportReadyToSend()
    {
    }

    /**
     * @return send requests posted and not yet completed.
     */
    protected final int outstandingSends()
    {
        return sendQueue.size();
    }

    /**
     * The transport's own limit for {@link #canPostSends} beyond the send queue (optional hook).
     *
     * @param requests send requests about to be posted.
     * @param bytes    their lengths added up.
     * @return true when the transport will take them now.
     */
    protected boolean transportCanSend(final int requests, final long bytes)
    {
        return true;
    }

    @Override
    public boolean canPostSends(final int requests, final long bytes)
    {
        final int outstanding = outstandingSends();
        return 0 == outstanding || (maxSendRequests - outstanding >= requests && transportCanSend(requests, bytes));
    }

    /**
     * Hands an admitted send request (state, lengths, local range already checked) to the transport.
     *
     * @param kind          KIND_WRITE, KIND_WRITE_WITH_IMMEDIATE or KIND_SEND.
     * @param workRequestId of the request.
     * @param local         checked source region.
     * @param localOffset   offset.
     * @param length        bytes.
     * @param remoteAddress destination (writes).
     * @param rkey          destination key (writes).
     * @param immediate     immediate (KIND_WRITE_WITH_IMMEDIATE).
     * @param flags         SendFlags.
     * @return a PostResult code.
     */
    protected abstract int transportPost(int kind, long workRequestId, SoftMemoryRegion local, int localOffset,
        int length, long remoteAddress, int rkey, int immediate, int flags);

    /**
     * Releases the connection (and anything of the transport's own that a flush must complete).
     * Called once when the queue pair enters ERROR, on the thread that saw the error, before the
     * outstanding sends and the posted receives are flushed.
     */
    protected abstract void transportDisconnect();

    /**
     * Releases what the transport holds. Called once by {@link #close()} after the flush.
     */
    protected abstract void transportClose();

    // ---------------------------------------------------------------- state machine

    @Override
    public int queuePairNumber()
    {
        return queuePairNumber;
    }

    @Override
    public QueuePairState state()
    {
        return state;
    }

    @Override
    public QueuePairEndpoint localEndpoint()
    {
        return new QueuePairEndpoint(queuePairNumber, startPsn, deviceAddress, mtu,
            QueuePairEndpoint.DEFAULT_PARTITION_KEY);
    }

    /**
     * Ties the queue pair to the protection domain that created it: its local and remote accesses
     * must use regions of that domain. Control thread, before use.
     *
     * @param id the domain's id.
     */
    void bindProtectionDomain(final int id)
    {
        this.protectionDomainId = id;
    }

    /**
     * @return the queue pair's protection domain id, or {@link RegionRegistry#NO_DOMAIN}.
     */
    public int protectionDomainId()
    {
        return protectionDomainId;
    }

    /**
     * @return the peer's endpoint once in RTR, else null.
     */
    public QueuePairEndpoint remoteEndpoint()
    {
        return remote;
    }

    @Override
    public void modifyToInit()
    {
        requireState(QueuePairState.RESET, "INIT");
        sendCompletionQueue.attach(this);
        receiveCompletionQueue.attach(this);
        state = QueuePairState.INIT;
    }

    @Override
    public void modifyToReadyToReceive(final QueuePairEndpoint remote)
    {
        Objects.requireNonNull(remote, "remote");
        requireState(QueuePairState.INIT, "RTR");
        transportConnect(remote);
        this.remote = remote;
        state = QueuePairState.READY_TO_RECEIVE;
    }

    @Override
    public void modifyToReadyToSend()
    {
        requireState(QueuePairState.READY_TO_RECEIVE, "RTS");
        transportReadyToSend();
        state = QueuePairState.READY_TO_SEND;
    }

    @Override
    public void modifyToError()
    {
        enterError();
    }

    private void requireState(final QueuePairState expected, final String target)
    {
        if (state != expected)
        {
            throw new IllegalStateException("queue pair 0x" + Integer.toHexString(queuePairNumber) + " is " + state +
                "; moving to " + target + " needs " + expected);
        }
    }

    /**
     * Moves to ERROR (once): disconnects, then flushes outstanding sends and posted receives. Runs on the owning thread
     * (from a post or progress), or on the control thread only while no owning thread drives the
     * queue pair: the flush touches the owning thread's state.
     */
    protected final void enterError()
    {
        if (state == QueuePairState.ERROR)
        {
            return;
        }
        state = QueuePairState.ERROR;
        transportDisconnect();
        while (!sendQueue.isEmpty())
        {
            completeOldestSend(CompletionStatus.WR_FLUSH_ERROR, true);
        }
        while (!receiveQueue.isEmpty())
        {
            completeReceive(receiveQueue.headWorkRequestId(), CompletionOpcode.RECV,
                CompletionStatus.WR_FLUSH_ERROR, 0, 0);
            receiveQueue.removeHead();
            counters.increment(DeviceCounters.FLUSHED_REQUESTS);
        }
    }

    /**
     * Delivers a send-side completion: always for an error, only when signaled for a success.
     *
     * @param workRequestId of the request.
     * @param opcode        CompletionOpcode.
     * @param status        CompletionStatus.
     * @param length        bytes.
     * @param signaled      whether the request asked for a success completion.
     */
    protected final void completeSend(final long workRequestId, final int opcode, final int status, final int length,
        final boolean signaled)
    {
        if (status != CompletionStatus.SUCCESS || signaled)
        {
            sendCompletionQueue.push(workRequestId, opcode, status, length, 0, queuePairNumber);
        }
        if (status == CompletionStatus.WR_FLUSH_ERROR)
        {
            counters.increment(DeviceCounters.FLUSHED_REQUESTS);
        }
    }

    /**
     * Completes a request the transport could not take because the queue pair entered ERROR while it
     * was being posted (the transport found the peer gone): flushed, as every request behind an error.
     *
     * @param kind          {@link #KIND_WRITE}, {@link #KIND_SEND} or {@link #KIND_WRITE_WITH_IMMEDIATE}.
     * @param workRequestId the caller's id.
     * @param length        bytes.
     * @return {@link PostResult#OK}: the request completes, with WR_FLUSH_ERROR.
     */
    protected final int flushPost(final int kind, final long workRequestId, final int length)
    {
        completeSend(workRequestId, completionOpcode(kind), CompletionStatus.WR_FLUSH_ERROR, length, true);
        return PostResult.OK;
    }

    /**
     * Completes the oldest request of the {@link #sendQueue} and removes it (first, so a completion
     * handler that posts from inside the completion sees it gone).
     *
     * @param status         CompletionStatus.
     * @param alwaysSignaled true to deliver the completion even when the request was unsignaled (any
     *                       status but SUCCESS is delivered anyway).
     */
    protected final void completeOldestSend(final int status, final boolean alwaysSignaled)
    {
        final int index = sendQueue.index(sendQueue.head());
        final long workRequestId = sendQueue.workRequestId(index);
        final int kind = sendQueue.kind(index);
        final int length = sendQueue.length(index);
        final boolean signaled = alwaysSignaled || sendQueue.isSignaled(index);
        sendQueue.removeHead();
        completeSend(workRequestId, completionOpcode(kind), status, length, signaled);
    }

    /**
     * Delivers a receive completion to the queue pair's receive completion queue. Owning thread;
     * for the transport's responder. Allocation-free.
     *
     * @param workRequestId of the receive.
     * @param opcode        CompletionOpcode.RECV or RECV_RDMA_WITH_IMM.
     * @param status        CompletionStatus.
     * @param length        bytes received.
     * @param immediate     the immediate, or 0.
     */
    public final void completeReceive(final long workRequestId, final int opcode, final int status, final int length,
        final int immediate)
    {
        receiveCompletionQueue.push(workRequestId, opcode, status, length, immediate, queuePairNumber);
    }

    /**
     * @param kind a KIND_ constant.
     * @return the completion opcode of that kind on the requester.
     */
    protected static int completionOpcode(final int kind)
    {
        return kind == KIND_SEND ? CompletionOpcode.SEND : CompletionOpcode.RDMA_WRITE;
    }

    // ---------------------------------------------------------------- posting

    @Override
    public final int postWrite(final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length, final long remoteAddress, final int rkey, final int flags)
    {
        return post(KIND_WRITE, workRequestId, local, localOffset, length, remoteAddress, rkey, 0, flags);
    }

    @Override
    public final int postWriteWithImmediate(final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length, final long remoteAddress, final int rkey, final int immediate, final int flags)
    {
        return post(KIND_WRITE_WITH_IMMEDIATE, workRequestId, local, localOffset, length, remoteAddress, rkey,
            immediate, flags);
    }

    @Override
    public final int postSend(final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length, final int flags)
    {
        return post(KIND_SEND, workRequestId, local, localOffset, length, 0, 0, 0, flags);
    }

    private int post(final int kind, final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length, final long remoteAddress, final int rkey, final int immediate, final int flags)
    {
        if (guard.isEnabled())
        {
            guard.enter();
            try
            {
                return postUnguarded(kind, workRequestId, local, localOffset, length, remoteAddress, rkey, immediate, flags);
            }
            finally
            {
                guard.exit();
            }
        }
        return postUnguarded(kind, workRequestId, local, localOffset, length, remoteAddress, rkey, immediate, flags);
    }

    private int postUnguarded(final int kind, final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length, final long remoteAddress, final int rkey, final int immediate, final int flags)
    {
        final int admitted = admitSend(kind, workRequestId, local, localOffset, length, flags);
        if (admitted != ADMITTED)
        {
            return admitted;
        }
        return transportPost(kind, workRequestId, (SoftMemoryRegion)local, localOffset, length, remoteAddress, rkey,
            immediate, flags);
    }

    private int admitSend(final int kind, final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length, final int flags)
    {
        final QueuePairState current = state;
        if (current == QueuePairState.ERROR)
        {
            completeSend(workRequestId, completionOpcode(kind), CompletionStatus.WR_FLUSH_ERROR, length, true);
            return PostResult.OK;
        }
        if (current != QueuePairState.READY_TO_SEND)
        {
            return PostResult.INVALID_STATE;
        }
        if (length < 0 || length > maxMessageSize || (SendFlags.isInline(flags) && length > maxInlineData))
        {
            return PostResult.INVALID_ARGUMENT;
        }
        if (outstandingSends() >= maxSendRequests)
        {
            progress(System.nanoTime());
            if (state == QueuePairState.ERROR)
            {
                // The progress found the peer gone and flushed the queue: this request is flushed too,
                // not admitted to a queue nothing drains any more.
                return flushPost(kind, workRequestId, length);
            }
            if (outstandingSends() >= maxSendRequests)
            {
                return PostResult.QUEUE_FULL;
            }
        }
        if (!regions.checkLocalAccess(local, localOffset, length, false, protectionDomainId))
        {
            // The requests posted before it complete first (flushed), as a send queue's completions
            // come in the order its requests were posted.
            enterError();
            completeSend(workRequestId, completionOpcode(kind), CompletionStatus.LOCAL_PROTECTION_ERROR, length, true);
            return PostResult.OK;
        }
        return ADMITTED;
    }

    @Override
    public final int postReceive(final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length)
    {
        if (guard.isEnabled())
        {
            guard.enter();
            try
            {
                return postReceiveUnguarded(workRequestId, local, localOffset, length);
            }
            finally
            {
                guard.exit();
            }
        }
        return postReceiveUnguarded(workRequestId, local, localOffset, length);
    }

    private int postReceiveUnguarded(final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length)
    {
        final QueuePairState current = state;
        if (current == QueuePairState.RESET)
        {
            return PostResult.INVALID_STATE;
        }
        if (length < 0)
        {
            return PostResult.INVALID_ARGUMENT;
        }
        if (current == QueuePairState.ERROR)
        {
            completeReceive(workRequestId, CompletionOpcode.RECV, CompletionStatus.WR_FLUSH_ERROR, 0, 0);
            counters.increment(DeviceCounters.FLUSHED_REQUESTS);
            return PostResult.OK;
        }
        if (!regions.checkLocalAccess(local, localOffset, length, true, protectionDomainId))
        {
            enterError(); // the receives posted before it complete first, flushed
            completeReceive(workRequestId, CompletionOpcode.RECV, CompletionStatus.LOCAL_PROTECTION_ERROR,
                0, 0);
            return PostResult.OK;
        }
        if (!receiveQueue.offer(workRequestId, (SoftMemoryRegion)local, localOffset, length))
        {
            return PostResult.QUEUE_FULL;
        }
        return PostResult.OK;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        enterError();
        sendCompletionQueue.detach(this);
        receiveCompletionQueue.detach(this);
        // A completion handler may close the queue pair whose progress delivered to it: the transport
        // is then released when that progress has returned, never under it.
        if (!sendCompletionQueue.deferCloseWhileProgressing(this) &&
            !receiveCompletionQueue.deferCloseWhileProgressing(this))
        {
            transportClose();
        }
    }

    /** Releases the transport of a queue pair whose close was deferred. */
    final void releaseTransport()
    {
        transportClose();
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + "{qpn=0x" + Integer.toHexString(queuePairNumber) + ", state=" + state +
            ", remote=" + remote + '}';
    }
}
