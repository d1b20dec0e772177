package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.ringwire.rdma.ibverbs.VerbsLayouts.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

// "restricted": this class binds native functions or gives native pointers a size (FFM restricted methods);
// the JVM runs with --enable-native-access=ALL-UNNAMED (surefire argLine, ./ringwire, jar manifest).
/**
 * A completion queue ({@code ibv_create_cq}) polled through the driver's {@code poll_cq} into an
 * array of {@code struct ibv_wc} allocated once in native memory.
 *
 * <p>Each native completion is mapped to one handler call, or none: {@code wr_id} names the queue
 * pair's request (see {@link SendRing} and {@link ReceiveRing}), which gives the application's id,
 * opcode and length even for error statuses, where verbs leaves {@code opcode} and
 * {@code byte_len} undefined. The immediate arrives in network byte order and is handed over in
 * host order. Completions the provider requested for its own accounting (unsignaled requests it
 * signaled) are consumed and not delivered. After the NIC's completions, the flushes of requests
 * posted in ERROR ({@link FlushedRequests}) are delivered.
 *
 * <p>The NIC moves a queue pair to ERROR when a request fails; the first error completion polled for a
 * queue pair records that in its state.
 *
 * <p>Threading: one polling thread, the owning thread of the queue pairs attached to it. Allocation-free.
 */
@SuppressWarnings("restricted")
final class IbverbsCompletionQueue implements CompletionQueue
{
    /** Completions fetched per {@code poll_cq} call. */
    static final int POLL_BATCH = 16;

    private final IbverbsDevice device;
    private final MemorySegment cq;
    private final MemorySegment pollCq;
    private final int depth;
    private final Arena arena;
    private final MemorySegment completions;
    /**
     * The next of {@link #completions} to dispatch, and the end of those the last poll_cq gave: a
     * handler that throws leaves the rest here (taken from the NIC's queue already), dispatched
     * first by the next poll, so that none is lost and its own counts as handed over.
     */
    private int next;
    private int end;
    private final FlushedRequests flushed;
    private final DeviceCounters counters;

    // One-entry cache: most completion queues serve one queue pair.
    private int cachedQueuePairNumber = -1;
    private IbverbsQueuePair cachedQueuePair;
    private boolean closed;

    IbverbsCompletionQueue(final IbverbsDevice device, final MemorySegment cq, final int depth)
    {
        this.device = device;
        this.cq = MemorySegment.ofAddress(cq.address());
        this.pollCq = device.ops().pollCq();
        this.depth = depth;
        this.arena = Arena.ofShared();
        final MemorySegment owned = arena.allocate(WC_SIZE * POLL_BATCH, 64);
        // A view of the global scope: no arena acquire on each access or downcall.
        this.completions = MemorySegment.ofAddress(owned.address()).reinterpret(owned.byteSize());
        this.flushed = new FlushedRequests(depth, device.counters());
        this.counters = device.counters();
    }

    IbverbsDevice device()
    {
        return device;
    }

    /**
     * @return the {@code struct ibv_cq *}.
     */
    MemorySegment cq()
    {
        return cq;
    }

    /**
     * @return where requests posted in ERROR wait for their flush completion.
     */
    FlushedRequests flushed()
    {
        return flushed;
    }

    @Override
    public int depth()
    {
        return depth;
    }

    @Override
    public int poll(final CompletionHandler handler, final int maxCompletions)
    {
        if (closed)
        {
            return 0;
        }
        int delivered = 0;
        while (next < end && delivered < maxCompletions)
        {
            delivered += dispatch(handler, next++ * WC_SIZE); // left by a handler that threw
            if (closed)
            {
                return delivered; // the handler closed this queue: its completion array is freed
            }
        }
        while (next == end && delivered < maxCompletions)
        {
            final int wanted = Math.min(POLL_BATCH, maxCompletions - delivered);
            final int polled = pollNative(wanted);
            if (polled <= 0)
            {
                if (polled < 0)
                {
                    // poll_cq fails only when the queue overran (the NIC had nowhere to write): size it larger.
                    counters.increment(DeviceCounters.COMPLETION_QUEUE_OVERRUNS);
                }
                break;
            }
            next = 0;
            end = polled;
            while (next < end)
            {
                delivered += dispatch(handler, next++ * WC_SIZE);
                if (closed)
                {
                    return delivered;
                }
            }
            if (polled < wanted)
            {
                break;
            }
        }
        while (delivered < maxCompletions && !closed && flushed.deliverOldest(handler))
        {
            delivered++; // one at a time: a handler may close this queue, after which nothing more goes
        }
        return delivered;
    }

    private int pollNative(final int wanted)
    {
        try
        {
            return (int)VerbsOps.POLL_CQ.invokeExact(pollCq, cq, wanted, completions);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("poll_cq downcall failed", ex);
        }
    }

    private int dispatch(final CompletionHandler handler, final long base)
    {
        final long nativeId = completions.get(JAVA_LONG, base + WC_WR_ID);
        final int status = completions.get(JAVA_INT, base + WC_STATUS);
        final int queuePairNumber = completions.get(JAVA_INT, base + WC_QP_NUM);
        final IbverbsQueuePair queuePair = queuePair(queuePairNumber);
        if (null == queuePair)
        {
            return 0; // the queue pair was destroyed after the NIC wrote this completion
        }
        if (status != CompletionStatus.SUCCESS)
        {
            queuePair.onErrorCompletion();
            counters.increment(DeviceCounters.ERROR_COMPLETIONS);
            if (status == CompletionStatus.WR_FLUSH_ERROR)
            {
                counters.increment(DeviceCounters.FLUSHED_REQUESTS);
            }
        }
        if (ReceiveRing.isReceive(nativeId))
        {
            final long workRequestId = queuePair.receiveRing().complete(nativeId);
            if (status == CompletionStatus.SUCCESS)
            {
                final int flags = completions.get(JAVA_INT, base + WC_WC_FLAGS);
                final int immediate = (flags & VerbsValues.IBV_WC_WITH_IMM) != 0 ?
                    Integer.reverseBytes(completions.get(JAVA_INT, base + WC_IMM_DATA)) : 0;
                handler.onCompletion(workRequestId, completions.get(JAVA_INT, base + WC_OPCODE), status,
                    completions.get(JAVA_INT, base + WC_BYTE_LEN), immediate, queuePairNumber);
            }
            else
            {
                if (status == CompletionStatus.LOCAL_LENGTH_ERROR)
                {
                    counters.increment(DeviceCounters.RESPONDER_LENGTH_ERROR);
                }
                handler.onCompletion(workRequestId, CompletionOpcode.RECV, status, 0, 0, queuePairNumber);
            }
            return 1;
        }
        final SendRing sends = queuePair.sendRing();
        sends.completeThrough(nativeId);
        if (status == CompletionStatus.SUCCESS && !sends.applicationSignaled(nativeId))
        {
            return 0; // a completion the provider asked for, to learn that the queue drained
        }
        handler.onCompletion(sends.workRequestId(nativeId), sends.opcode(nativeId), status, sends.length(nativeId),
            0, queuePairNumber);
        return 1;
    }

    private IbverbsQueuePair queuePair(final int queuePairNumber)
    {
        if (queuePairNumber == cachedQueuePairNumber && !cachedQueuePair.isClosed())
        {
            return cachedQueuePair;
        }
        final IbverbsQueuePair found = device.queuePair(queuePairNumber);
        if (null != found)
        {
            cachedQueuePairNumber = queuePairNumber;
            cachedQueuePair = found;
        }
        return found;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        try
        {
            device.verbs().destroyCq(cq);
        }
        catch (final VerbsCallException ex)
        {
            // Still open and still the device's (EBUSY: a queue pair uses it): it goes on polling,
            // and closes once its queue pairs are closed.
            throw new RdmaException("ibv_destroy_cq on " + device.name() + ": " + ex.getMessage() +
                " (close the queue pairs using it first, then close it again)", ex);
        }
        release();
    }

    /** Its device closed while the driver still held it: closed here without a verb, which the context took. */
    void abandon()
    {
        if (!closed)
        {
            release();
        }
    }

    /** Its {@code struct ibv_cq} is gone: it polls nothing and is no longer the device's. */
    private void release()
    {
        closed = true;
        cachedQueuePair = null;
        cachedQueuePairNumber = -1;
        device.forget(this);
        arena.close();
    }

    /** @return whether it is closed: its {@code struct ibv_cq} is freed and must reach no verb. */
    boolean isClosed()
    {
        return closed;
    }

    @Override
    public String toString()
    {
        return "IbverbsCompletionQueue{" + device.name() + ", depth=" + depth + (closed ? ", closed" : "") + '}';
    }
}
