package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.SendFlags;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

import static io.ringwire.rdma.ibverbs.VerbsLayouts.*;
import static io.ringwire.rdma.ibverbs.VerbsValues.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

// "restricted": this class binds native functions or gives native pointers a size (FFM restricted methods);
// the JVM runs with --enable-native-access=ALL-UNNAMED (surefire argLine, ./ringwire, jar manifest).
/**
 * A reliable-connected queue pair ({@code ibv_create_qp}, {@code IBV_QPT_RC}): the NIC does the
 * transport (segmentation, ACKs, retransmission, access checks); this class fills work requests.
 *
 * <p>Posting: one {@code struct ibv_send_wr} and one {@code struct ibv_recv_wr}, each with one
 * {@code struct ibv_sge} and a {@code bad_wr} out-pointer, are allocated once per queue pair in native
 * memory; a post fills them and calls the driver's {@code post_send}/{@code post_recv} (see
 * {@link VerbsOps}). No allocation, no exception. Driver errors map to PostResult codes: ENOMEM (or
 * EAGAIN) means the queue is full, EINVAL an invalid argument, anything else an invalid state.
 *
 * <p>Checks before the NIC sees a request: the tracked state (sends need RTS, receives INIT or
 * later; in ERROR the request is accepted and flushed, see {@link FlushedRequests}), the length
 * (0 to the port's max_msg_sz; INLINE at most the queue pair's maxInlineData), the region (one of
 * this provider's, not deregistered: else INVALID_ARGUMENT) and the queue depth.
 *
 * <p>Local ranges outside the region: a non-inline request is posted as it is, and the NIC, which
 * checks every scatter/gather element against the region its lkey names before it reads or
 * writes a byte, completes it with LOCAL_PROTECTION_ERROR and moves the queue pair to ERROR, as
 * this API requires. An INLINE payload, however, is copied by the driver's user-space library at
 * post time, without any lkey check: an out-of-range inline request is therefore posted without
 * INLINE, so the NIC checks it and fails it the same way. No address outside a registered region is
 * ever read by this process or the kernel on its behalf.
 *
 * <p>State: tracked by this class (it performs every transition) and moved to ERROR when a failed
 * completion is polled or {@link #state()} finds the NIC has moved it there.
 *
 * <p>Threading: transitions on the control thread, posts on the owning thread (which polls the
 * attached completion queues); {@link #state()} from any thread. The state field is written by the
 * control thread, the polling thread and {@link #state()} callers, only ever towards ERROR after RTS,
 * and is volatile. The transitions, {@link #state()}, {@link #close()} and the flush after a failed
 * completion hold this object's monitor (none is on the hot path): a close on one thread waits for a transition another thread is making
 * (a publication closing while its connection handshake runs on another thread), and a transition
 * after the close fails on the closed check instead of handing libibverbs a destroyed queue pair.
 */
@SuppressWarnings("restricted")
final class IbverbsQueuePair implements QueuePair
{
    private static final System.Logger LOGGER = System.getLogger(IbverbsQueuePair.class.getName());
    private static final int IBV_SEND_SIGNALED = SendFlags.SIGNALED;
    private static final int IBV_SEND_INLINE = SendFlags.INLINE;

    private final IbverbsProtectionDomain domain;
    private final IbverbsDevice device;
    private final Verbs verbs;
    private final MemorySegment qp;
    private final int queuePairNumber;
    private final int startPsn;
    private final int maxInlineData;
    private final int maxMessageSize;
    private final IbverbsCompletionQueue sendCompletionQueue;
    private final IbverbsCompletionQueue receiveCompletionQueue;
    private final SendRing sendRing;
    private final ReceiveRing receiveRing;
    private final DeviceCounters counters;
    private final MemorySegment postSend;
    private final MemorySegment postRecv;

    private final Arena arena;
    private final MemorySegment sendWr;
    private final MemorySegment sendSge;
    private final MemorySegment badSendWr;
    private final MemorySegment recvWr;
    private final MemorySegment recvSge;
    private final MemorySegment badRecvWr;

    private volatile QueuePairState state = QueuePairState.RESET;
    /** The queue pair was moved to ERROR again after its first failed completion ({@link #onErrorCompletion}). */
    private boolean flushedAgain;
    private volatile boolean closed;

    IbverbsQueuePair(final IbverbsProtectionDomain domain, final QueuePairConfig config,
        final IbverbsCompletionQueue sendCompletionQueue, final IbverbsCompletionQueue receiveCompletionQueue)
    {
        this.domain = domain;
        this.device = domain.device();
        this.verbs = device.verbs();
        this.sendCompletionQueue = sendCompletionQueue;
        this.receiveCompletionQueue = receiveCompletionQueue;
        this.maxInlineData = config.maxInlineData();
        this.maxMessageSize = device.maxMessageSize();
        this.counters = device.counters();
        this.postSend = device.ops().postSend();
        this.postRecv = device.ops().postRecv();
        this.sendRing = new SendRing(config.maxSendRequests());
        this.receiveRing = new ReceiveRing(config.maxReceiveRequests());
        this.startPsn = ThreadLocalRandom.current().nextInt(QueuePairEndpoint.MASK_24 + 1);

        final MemorySegment created = create(config);
        this.qp = MemorySegment.ofAddress(created.address());
        this.queuePairNumber = created.reinterpret(VerbsLayouts.QP.byteSize()).get(JAVA_INT, QP_QP_NUM);

        this.arena = Arena.ofShared();
        final long sendWrAt = 0;
        final long sendSgeAt = sendWrAt + SEND_WR.byteSize();
        final long badSendAt = sendSgeAt + SGE.byteSize();
        final long recvWrAt = badSendAt + ADDRESS.byteSize();
        final long recvSgeAt = recvWrAt + RECV_WR.byteSize();
        final long badRecvAt = recvSgeAt + SGE.byteSize();
        final long total = badRecvAt + ADDRESS.byteSize();
        // A view of the global scope: no arena acquire on each access or downcall. Freed in close().
        final MemorySegment scratch = MemorySegment.ofAddress(arena.allocate(total, 64).address()).reinterpret(total);
        this.sendWr = scratch.asSlice(sendWrAt, SEND_WR.byteSize());
        this.sendSge = scratch.asSlice(sendSgeAt, SGE.byteSize());
        this.badSendWr = scratch.asSlice(badSendAt, ADDRESS.byteSize());
        this.recvWr = scratch.asSlice(recvWrAt, RECV_WR.byteSize());
        this.recvSge = scratch.asSlice(recvSgeAt, SGE.byteSize());
        this.badRecvWr = scratch.asSlice(badRecvAt, ADDRESS.byteSize());
        sendWr.set(ADDRESS, SEND_WR_NEXT, MemorySegment.NULL);
        sendWr.set(ADDRESS, SEND_WR_SG_LIST, sendSge);
        recvWr.set(ADDRESS, RECV_WR_NEXT, MemorySegment.NULL);
        recvWr.set(ADDRESS, RECV_WR_SG_LIST, recvSge);
    }

    private MemorySegment create(final QueuePairConfig config)
    {
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment attr = scratch.allocate(QP_INIT_ATTR);
            attr.set(ADDRESS, QP_INIT_ATTR_SEND_CQ, sendCompletionQueue.cq());
            attr.set(ADDRESS, QP_INIT_ATTR_RECV_CQ, receiveCompletionQueue.cq());
            attr.set(JAVA_INT, QP_INIT_ATTR_MAX_SEND_WR, config.maxSendRequests());
            attr.set(JAVA_INT, QP_INIT_ATTR_MAX_RECV_WR, config.maxReceiveRequests());
            attr.set(JAVA_INT, QP_INIT_ATTR_MAX_SEND_SGE, 1);
            attr.set(JAVA_INT, QP_INIT_ATTR_MAX_RECV_SGE, 1);
            attr.set(JAVA_INT, QP_INIT_ATTR_MAX_INLINE_DATA, config.maxInlineData());
            attr.set(JAVA_INT, QP_INIT_ATTR_QP_TYPE, IBV_QPT_RC);
            attr.set(JAVA_INT, QP_INIT_ATTR_SQ_SIG_ALL, 0);
            return verbs.createQp(domain.pd(), attr);
        }
        catch (final VerbsCallException ex)
        {
            throw new RdmaException("ibv_create_qp on " + device.name() + " (RC, send " + config.maxSendRequests() +
                ", receive " + config.maxReceiveRequests() + ", inline " + config.maxInlineData() + ") failed: " +
                Errno.describe(ex.errno()) + (ex.errno() == Errno.ENOMEM ?
                "; lower the queue depths, or raise the memlock limit (ulimit -l)" : ""), ex);
        }
    }

    SendRing sendRing()
    {
        return sendRing;
    }

    ReceiveRing receiveRing()
    {
        return receiveRing;
    }

    boolean isClosed()
    {
        return closed;
    }

    /**
     * A completion of this queue pair failed: the NIC has moved it to ERROR. Polling thread.
     *
     * <p>The first time, the queue pair is moved to ERROR once more. The NIC flushed what its queues
     * held when it failed, but receives posted since, before this completion told of the failure,
     * wait in its receive queue: on rxe a user queue pair's {@code ibv_post_recv} writes the request
     * into the mapped queue without entering the kernel, and nothing flushes it. Moving the queue
     * pair to ERROR again (a transition verbs allows) flushes them with completions, so every
     * accepted request still completes. Posts after this one go to {@link FlushedRequests}.
     */
    void onErrorCompletion()
    {
        // Keyed on a flag of its own, not on the state: state() may have seen the NIC's ERROR first.
        if (!flushedAgain)
        {
            flushAgain();
        }
        state = QueuePairState.ERROR;
    }

    private synchronized void flushAgain()
    {
        if (closed || flushedAgain)
        {
            return;
        }
        flushedAgain = true;
        try
        {
            QueuePairTransitions.toError(verbs, qp);
        }
        catch (final VerbsCallException ex)
        {
            // Best effort: the failure the completion told of stands, and close destroys the queue.
            LOGGER.log(System.Logger.Level.WARNING, "ibv_modify_qp of queue pair 0x" +
                Integer.toHexString(queuePairNumber) + " on " + device.name() + " to ERROR after its failed " +
                "completion failed: " + Errno.describe(ex.errno()) + "; receives posted before it may not complete");
        }
        finally
        {
            state = QueuePairState.ERROR;
        }
    }

    // ---------------------------------------------------------------- state machine

    @Override
    public int queuePairNumber()
    {
        return queuePairNumber;
    }

    /**
     * {@inheritDoc}
     *
     * <p>In INIT, RTR and RTS this asks the NIC ({@code ibv_query_qp}, a system call: not for the hot
     * path), because the NIC moves a queue pair to ERROR by itself when a request fails.
     */
    @Override
    public synchronized QueuePairState state()
    {
        final QueuePairState tracked = state;
        if (closed || tracked == QueuePairState.RESET || tracked == QueuePairState.ERROR)
        {
            return tracked;
        }
        try
        {
            final int nicState = QueuePairTransitions.queryState(verbs, qp);
            if (nicState == IBV_QPS_ERR || nicState == IBV_QPS_SQE)
            {
                state = QueuePairState.ERROR;
                return QueuePairState.ERROR;
            }
        }
        catch (final VerbsCallException ignored)
        {
            // the tracked state is the best answer left
        }
        return tracked;
    }

    @Override
    public QueuePairEndpoint localEndpoint()
    {
        return new QueuePairEndpoint(queuePairNumber, startPsn, device.address(), device.mtu(),
            QueuePairEndpoint.DEFAULT_PARTITION_KEY);
    }

    @Override
    public synchronized void modifyToInit()
    {
        requireState(QueuePairState.RESET, "INIT");
        transition("INIT", () -> QueuePairTransitions.toInit(verbs, qp, device.port()));
        state = QueuePairState.INIT;
    }

    @Override
    public synchronized void modifyToReadyToReceive(final QueuePairEndpoint remote)
    {
        Objects.requireNonNull(remote, "remote");
        requireState(QueuePairState.INIT, "RTR");
        if ((remote.partitionKey() & 0x7FFF) != (QueuePairEndpoint.DEFAULT_PARTITION_KEY & 0x7FFF))
        {
            throw new RdmaException("peer P_Key 0x" + Integer.toHexString(remote.partitionKey()) +
                " does not match ours 0x" + Integer.toHexString(QueuePairEndpoint.DEFAULT_PARTITION_KEY));
        }
        final byte[] destinationGid = GidAddress.fromAddress(remote.address());
        final int pathMtu = mtuEnum(Math.min(device.mtu(), remote.mtu()));
        transition("RTR to " + remote.address() + " qpn 0x" + Integer.toHexString(remote.queuePairNumber()), () ->
            QueuePairTransitions.toReadyToReceive(verbs, qp, device.port(), device.gidIndex(), destinationGid,
                pathMtu, remote.queuePairNumber(), remote.startPsn()));
        state = QueuePairState.READY_TO_RECEIVE;
    }

    @Override
    public synchronized void modifyToReadyToSend()
    {
        requireState(QueuePairState.READY_TO_RECEIVE, "RTS");
        final RdmaConfig config = device.config();
        final RetryPolicy retry = RetryPolicy.of(config);
        transition("RTS", () -> QueuePairTransitions.toReadyToSend(verbs, qp, retry.timeoutExponent(),
            retry.retryCount(), config.rnrRetryCount(), startPsn));
        state = QueuePairState.READY_TO_SEND;
    }

    @Override
    public synchronized void modifyToError()
    {
        if (closed)
        {
            state = QueuePairState.ERROR;
            return;
        }
        try
        {
            QueuePairTransitions.toError(verbs, qp);
        }
        catch (final VerbsCallException ex)
        {
            throw new RdmaException("ibv_modify_qp of queue pair 0x" + Integer.toHexString(queuePairNumber) + " on " +
                device.name() + " to ERROR failed: " + Errno.describe(ex.errno()), ex);
        }
        finally
        {
            state = QueuePairState.ERROR;
        }
    }

    private void requireState(final QueuePairState expected, final String target)
    {
        if (closed)
        {
            throw new IllegalStateException("queue pair 0x" + Integer.toHexString(queuePairNumber) + " is closed");
        }
        if (state != expected)
        {
            throw new IllegalStateException("queue pair 0x" + Integer.toHexString(queuePairNumber) + " is " + state +
                "; moving to " + target + " needs " + expected);
        }
    }

    /** Runs a modify; on failure moves the queue pair to ERROR, as this API says, and explains. */
    private void transition(final String what, final Runnable modify)
    {
        try
        {
            modify.run();
        }
        catch (final VerbsCallException ex)
        {
            try
            {
                QueuePairTransitions.toError(verbs, qp);
            }
            catch (final VerbsCallException ignored)
            {
                // the original failure is what the user needs to see
            }
            state = QueuePairState.ERROR;
            throw new RdmaException("ibv_modify_qp of queue pair 0x" + Integer.toHexString(queuePairNumber) + " on " +
                device.name() + " to " + what + " failed: " + Errno.describe(ex.errno()) + transitionHint(ex.errno()), ex);
        }
    }

    private String transitionHint(final int errno)
    {
        if (errno == Errno.EINVAL)
        {
            return "; check " + IbverbsProvider.GID_INDEX_PROP + "=" + device.gidIndex() + " (a RoCE v2 GID of port " +
                device.port() + "), the peer's address and MTU, and " + RdmaConfig.RETRY_COUNT_PROP + "/" +
                RdmaConfig.RNR_RETRY_COUNT_PROP;
        }
        if (errno == Errno.ENETDOWN || errno == Errno.ENODEV)
        {
            return "; the network interface behind " + device.name() + " is down";
        }
        return "";
    }

    // ---------------------------------------------------------------- posting

    @Override
    public int postWrite(final long workRequestId, final MemoryRegion local, final int localOffset, final int length,
        final long remoteAddress, final int rkey, final int flags)
    {
        return postSendRequest(IBV_WR_RDMA_WRITE, CompletionOpcode.RDMA_WRITE, workRequestId, local, localOffset,
            length, remoteAddress, rkey, 0, flags);
    }

    @Override
    public int postWriteWithImmediate(final long workRequestId, final MemoryRegion local, final int localOffset,
        final int length, final long remoteAddress, final int rkey, final int immediate, final int flags)
    {
        return postSendRequest(IBV_WR_RDMA_WRITE_WITH_IMM, CompletionOpcode.RDMA_WRITE, workRequestId, local,
            localOffset, length, remoteAddress, rkey, immediate, flags);
    }

    @Override
    public boolean canPostSends(final int requests, final long bytes)
    {
        return sendRing.hasRoomFor(requests); // the NIC keeps its own packet window: only the send queue can refuse
    }

    @Override
    public int postSend(final long workRequestId, final MemoryRegion local, final int localOffset, final int length,
        final int flags)
    {
        return postSendRequest(IBV_WR_SEND, CompletionOpcode.SEND, workRequestId, local, localOffset, length, 0, 0, 0,
            flags);
    }

    private int postSendRequest(final int verbsOpcode, final int completionOpcode, final long workRequestId,
        final MemoryRegion local, final int localOffset, final int length, final long remoteAddress, final int rkey,
        final int immediate, final int flags)
    {
        final QueuePairState current = state;
        if (current != QueuePairState.READY_TO_SEND)
        {
            return current == QueuePairState.ERROR && !closed ?
                sendCompletionQueue.flushed().add(workRequestId, completionOpcode, length, queuePairNumber) :
                PostResult.INVALID_STATE;
        }
        if (length < 0 || length > maxMessageSize || !(local instanceof IbverbsMemoryRegion region) ||
            region.isClosed() || region.domain() != domain)
        {
            return PostResult.INVALID_ARGUMENT;
        }
        boolean inline = (flags & SendFlags.INLINE) != 0;
        if (inline && length > maxInlineData)
        {
            return PostResult.INVALID_ARGUMENT;
        }
        if (sendRing.isFull())
        {
            return PostResult.QUEUE_FULL;
        }
        if (inline && !region.contains(localOffset, length))
        {
            inline = false; // the NIC checks the range against the lkey and fails it; the driver's inline copy would not
        }
        final boolean applicationSignaled = (flags & SendFlags.SIGNALED) != 0;
        final boolean signaled = sendRing.mustSignal(applicationSignaled);
        final MemorySegment wr = sendWr;
        wr.set(JAVA_LONG, SEND_WR_WR_ID, sendRing.nextSequence());
        wr.set(JAVA_INT, SEND_WR_NUM_SGE, length == 0 ? 0 : 1); // a zero-length SGE means 2 GiB on some NICs
        wr.set(JAVA_INT, SEND_WR_OPCODE, verbsOpcode);
        wr.set(JAVA_INT, SEND_WR_SEND_FLAGS, (signaled ? IBV_SEND_SIGNALED : 0) | (inline ? IBV_SEND_INLINE : 0));
        wr.set(JAVA_INT, SEND_WR_IMM_DATA, Integer.reverseBytes(immediate)); // __be32: network byte order
        wr.set(JAVA_LONG, SEND_WR_REMOTE_ADDR, remoteAddress);
        wr.set(JAVA_INT, SEND_WR_RKEY, rkey);
        setScatterGather(sendSge, region, localOffset, length);
        final int result = VerbsOps.post(postSend, qp, sendWr, badSendWr);
        if (result != 0)
        {
            return postResult(result);
        }
        sendRing.record(workRequestId, completionOpcode, length, applicationSignaled, signaled);
        counters.increment(DeviceCounters.REQUESTS_SENT);
        return PostResult.OK;
    }

    @Override
    public int postReceive(final long workRequestId, final MemoryRegion local, final int localOffset, final int length)
    {
        final QueuePairState current = state;
        if (current == QueuePairState.RESET || closed)
        {
            return PostResult.INVALID_STATE;
        }
        if (length < 0)
        {
            return PostResult.INVALID_ARGUMENT; // in ERROR too, as every provider answers it
        }
        if (current == QueuePairState.ERROR)
        {
            return receiveCompletionQueue.flushed().add(workRequestId, CompletionOpcode.RECV, 0, queuePairNumber);
        }
        if (length < 0 || !(local instanceof IbverbsMemoryRegion region) || region.isClosed() ||
            region.domain() != domain)
        {
            return PostResult.INVALID_ARGUMENT;
        }
        if (receiveRing.isFull())
        {
            return PostResult.QUEUE_FULL;
        }
        recvWr.set(JAVA_LONG, RECV_WR_WR_ID, receiveRing.nextNativeWorkRequestId());
        recvWr.set(JAVA_INT, RECV_WR_NUM_SGE, length == 0 ? 0 : 1);
        setScatterGather(recvSge, region, localOffset, length);
        final int result = VerbsOps.post(postRecv, qp, recvWr, badRecvWr);
        if (result != 0)
        {
            return postResult(result);
        }
        receiveRing.record(workRequestId);
        return PostResult.OK;
    }

    private static void setScatterGather(final MemorySegment sge, final IbverbsMemoryRegion region, final int localOffset,
        final int length)
    {
        sge.set(JAVA_LONG, SGE_ADDR, region.address() + localOffset);
        sge.set(JAVA_INT, SGE_LENGTH, length);
        sge.set(JAVA_INT, SGE_LKEY, region.lkey());
    }

    /**
     * @param driverResult a non-zero return of post_send/post_recv: an errno value (negated by some drivers).
     * @return the PostResult code.
     */
    static int postResult(final int driverResult)
    {
        final int errno = Math.abs(driverResult);
        if (errno == Errno.ENOMEM || errno == Errno.EAGAIN)
        {
            return PostResult.QUEUE_FULL;
        }
        return errno == Errno.EINVAL ? PostResult.INVALID_ARGUMENT : PostResult.INVALID_STATE;
    }

    /**
     * {@inheritDoc}
     *
     * <p>{@code ibv_destroy_qp} discards outstanding requests without completions; to see their
     * flushes, call {@link #modifyToError()} and poll them before closing.
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        state = QueuePairState.ERROR;
        device.unregister(this);
        domain.forget(this);
        try
        {
            verbs.destroyQp(qp);
        }
        catch (final VerbsCallException ex)
        {
            throw new RdmaException("ibv_destroy_qp of queue pair 0x" + Integer.toHexString(queuePairNumber) + " on " +
                device.name() + ": " + ex.getMessage(), ex);
        }
        finally
        {
            arena.close();
        }
    }

    @Override
    public String toString()
    {
        return "IbverbsQueuePair{qpn=0x" + Integer.toHexString(queuePairNumber) + ", " + state + ", " + device.name() +
            ", outstanding sends=" + sendRing.outstanding() + ", receives=" + receiveRing.outstanding() + '}';
    }
}
