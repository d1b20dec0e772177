package io.ringwire.rdma.soft;

import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.DeviceCounters;

import java.util.ArrayList;
import java.util.Arrays;

/**
 * An in-process completion queue: a ring of completions held as parallel primitive arrays, plus
 * the progress sources (queue pairs) attached to it, which {@link #poll} drives before draining.
 * When every attached source {@link ProgressSource#allowsDirectDelivery() allows it}, a poll that
 * finds the ring empty has the completions its sources produce handed to its handler as they are
 * produced, in order, without passing through the ring (up to its limit; the rest, and whatever the
 * handler's own posts complete, is queued and drained behind them). The application's answer to a
 * message then leaves before the source's bookkeeping and its look at the next slot, which the
 * message's round trip otherwise waits for at every hop.
 *
 * <p>Threading: single-threaded. {@link #push} and {@link #poll} run on the owning thread; attach
 * and detach on the control thread before and after that thread runs (the array is replaced, not
 * mutated, and published through a volatile field). With a {@link SoftProgressAgent}, the agent's
 * thread also pushes; the device's {@link ProgressGuard} then serialises every access.
 */
public final class SoftCompletionQueue implements CompletionQueue
{
    /** The deepest queue the software providers create: 2^24 completions. */
    public static final int MAX_DEPTH = 1 << 24;

    private final int capacity;
    private final int mask;
    private final long[] workRequestIds;
    private final int[] opcodes;
    private final int[] statuses;
    private final int[] byteLengths;
    private final int[] immediates;
    private final int[] queuePairNumbers;
    private final DeviceCounters counters;
    private final ProgressGuard guard;

    private volatile ProgressSource[] sources = new ProgressSource[0];
    /** Whether an attached source {@link ProgressSource#usesClock() uses the clock}; set before sources. */
    private volatile boolean clockNeeded;
    /** Whether every attached source {@link ProgressSource#allowsDirectDelivery() allows direct delivery}. */
    private volatile boolean directDeliveryAllowed;
    private long head;
    private long tail;
    private boolean closed;
    /**
     * While a poll that found the queue empty drives the sources: the poll's handler, to which
     * {@link #push} hands a completion straight away instead of through the arrays (null otherwise,
     * and while that handler runs).
     */
    private CompletionHandler directHandler;
    private int directBudget;
    private int directDelivered;
    /** Nesting of {@link #progressUnguarded}: above zero while a source's progress is on the stack. */
    private int progressDepth;
    /**
     * Queue pairs closed by a handler while a source's progress was on the stack: their transport
     * (mapped rings, packet buffers) is released when the outermost progress returns, since the
     * source that ran the handler, or the device loop that dispatched to it, still reads it.
     */
    private final ArrayList<SoftQueuePair> deferredCloses = new ArrayList<>();

    /**
     * @param depth    completions held; rounded up to a power of two.
     * @param counters where overruns are counted.
     * @param guard    the device's progress guard.
     */
    SoftCompletionQueue(final int depth, final DeviceCounters counters, final ProgressGuard guard)
    {
        if (depth < 1 || depth > MAX_DEPTH)
        {
            throw new IllegalArgumentException("completion queue depth must be 1 to " + MAX_DEPTH + ": " + depth);
        }
        this.capacity = Integer.highestOneBit(depth - 1 == 0 ? 1 : depth - 1) << 1;
        this.mask = capacity - 1;
        this.workRequestIds = new long[capacity];
        this.opcodes = new int[capacity];
        this.statuses = new int[capacity];
        this.byteLengths = new int[capacity];
        this.immediates = new int[capacity];
        this.queuePairNumbers = new int[capacity];
        this.counters = counters;
        this.guard = guard;
    }

    /**
     * Adds a progress source polled before each drain. Control thread.
     *
     * @param source to attach.
     */
    synchronized void attach(final ProgressSource source)
    {
        for (final ProgressSource existing : sources)
        {
            if (existing == source)
            {
                return;
            }
        }
        final ProgressSource[] updated = Arrays.copyOf(sources, sources.length + 1);
        updated[sources.length] = source;
        clockNeeded = needsClock(updated);
        directDeliveryAllowed = allowDirectDelivery(updated);
        sources = updated;
    }

    private static boolean allowDirectDelivery(final ProgressSource[] sources)
    {
        for (final ProgressSource source : sources)
        {
            if (!source.allowsDirectDelivery())
            {
                return false;
            }
        }
        return sources.length > 0;
    }

    private static boolean needsClock(final ProgressSource[] sources)
    {
        for (final ProgressSource source : sources)
        {
            if (source.usesClock())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Removes a progress source. Control thread.
     *
     * @param source to detach.
     */
    synchronized void detach(final ProgressSource source)
    {
        final ProgressSource[] current = sources;
        int index = -1;
        for (int i = 0; i < current.length; i++)
        {
            if (current[i] == source)
            {
                index = i;
                break;
            }
        }
        if (index < 0)
        {
            return;
        }
        final ProgressSource[] updated = new ProgressSource[current.length - 1];
        System.arraycopy(current, 0, updated, 0, index);
        System.arraycopy(current, index + 1, updated, index, current.length - index - 1);
        clockNeeded = needsClock(updated);
        directDeliveryAllowed = allowDirectDelivery(updated);
        sources = updated;
    }

    /**
     * Appends a completion. Owning thread; allocation-free.
     *
     * @param workRequestId   of the request.
     * @param opcode          a CompletionOpcode.
     * @param status          a CompletionStatus.
     * @param byteLength      bytes.
     * @param immediate       immediate value or 0.
     * @param queuePairNumber the request's queue pair.
     * @return false when the queue was full: the completion is lost and counted as an overrun.
     */
    boolean push(
        final long workRequestId,
        final int opcode,
        final int status,
        final int byteLength,
        final int immediate,
        final int queuePairNumber)
    {
        final CompletionHandler handler = directHandler;
        if (null != handler && head == tail && directBudget > 0)
        {
            // The poll that drives this progress is waiting for exactly this: hand it over now. Not
            // re-entrant: what the handler's own posts complete is queued, and drained after.
            directBudget--;
            directDelivered++;
            if (status != 0)
            {
                counters.increment(DeviceCounters.ERROR_COMPLETIONS);
            }
            directHandler = null;
            try
            {
                handler.onCompletion(workRequestId, opcode, status, byteLength, immediate, queuePairNumber);
            }
            finally
            {
                directHandler = closed ? null : handler; // a handler that closed this queue ends the poll's delivery
            }
            return true;
        }
        if (tail - head >= capacity)
        {
            counters.increment(DeviceCounters.COMPLETION_QUEUE_OVERRUNS);
            return false;
        }
        final int index = (int)(tail & mask);
        workRequestIds[index] = workRequestId;
        opcodes[index] = opcode;
        statuses[index] = status;
        byteLengths[index] = byteLength;
        immediates[index] = immediate;
        queuePairNumbers[index] = queuePairNumber;
        tail++;
        if (status != 0)
        {
            counters.increment(DeviceCounters.ERROR_COMPLETIONS);
        }
        return true;
    }

    /**
     * Drives the attached sources once; the caller holds the guard or no agent exists.
     *
     * @return work done.
     */
    int progressUnguarded()
    {
        final ProgressSource[] current = sources;
        if (current.length == 0)
        {
            return 0;
        }
        final long nowNs = clockNeeded ? System.nanoTime() : 0L;
        int work = 0;
        progressDepth++;
        try
        {
            for (final ProgressSource source : current)
            {
                work += source.progress(nowNs);
            }
        }
        finally
        {
            if (--progressDepth == 0 && !deferredCloses.isEmpty())
            {
                releaseDeferredCloses();
            }
        }
        return work;
    }

    /**
     * Takes over the release of a closing queue pair's transport when a progress of this queue is on
     * the stack (the close comes from a completion handler). Owning thread.
     *
     * @param queuePair closing, already detached.
     * @return true when deferred: the queue releases it when the progress returns.
     */
    boolean deferCloseWhileProgressing(final SoftQueuePair queuePair)
    {
        if (progressDepth == 0)
        {
            return false;
        }
        deferredCloses.add(queuePair);
        return true;
    }

    private void releaseDeferredCloses()
    {
        for (int i = 0; i < deferredCloses.size(); i++)
        {
            deferredCloses.get(i).releaseTransport();
        }
        deferredCloses.clear();
    }

    @Override
    public int poll(final CompletionHandler handler, final int maxCompletions)
    {
        if (guard.isEnabled())
        {
            guard.enter();
            try
            {
                return pollUnguarded(handler, maxCompletions);
            }
            finally
            {
                guard.exit();
            }
        }
        return pollUnguarded(handler, maxCompletions);
    }

    @Override
    public int progress()
    {
        if (closed)
        {
            return 0;
        }
        if (guard.isEnabled())
        {
            guard.enter();
            try
            {
                return progressUnguarded();
            }
            finally
            {
                guard.exit();
            }
        }
        return progressUnguarded();
    }

    private int pollUnguarded(final CompletionHandler handler, final int maxCompletions)
    {
        if (closed)
        {
            return 0;
        }
        int count = 0;
        if (directDeliveryAllowed && head == tail)
        {
            // Nothing queued: completions the sources produce now go to the handler as they come.
            directHandler = handler;
            directBudget = maxCompletions;
            directDelivered = 0;
            try
            {
                progressUnguarded();
            }
            finally
            {
                directHandler = null;
            }
            count = directDelivered;
        }
        else if (tail - head < maxCompletions)
        {
            progressUnguarded();
        }
        while (count < maxCompletions && head < tail && !closed)
        {
            final int index = (int)(head & mask);
            head++;
            count++;
            handler.onCompletion(
                workRequestIds[index], opcodes[index], statuses[index], byteLengths[index], immediates[index],
                queuePairNumbers[index]);
        }
        return count;
    }

    /**
     * @return completions waiting to be polled.
     */
    public int size()
    {
        return (int)(tail - head);
    }

    @Override
    public int depth()
    {
        return capacity;
    }

    @Override
    public void close()
    {
        closed = true;
        sources = new ProgressSource[0];
    }
}
