package io.ringwire.exchange.fix;

import org.agrona.BitUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Each FIX door member's queue at the door: its records that the outbound ring could not take yet,
 * in order, and the members whose queue holds a record, in the order they are served (a circular
 * list, so that one with a long queue does not keep the room the sender frees from the others).
 * A queue is a byte array of {@link #QUEUE_BYTES} holding records one after another, each behind
 * its ring record type and length; the records taken from its front leave room there, which
 * {@link #hasRoom} reclaims by moving the rest to the start.
 *
 * <p>Threading: the gateway's thread. Allocation-free after construction.
 */
final class SessionQueues
{
    /** Bytes of one member's queue. */
    static final int QUEUE_BYTES = 64 << 10;
    /** A queued record's header: its ring record type, then its length. */
    private static final int QUEUED_HEADER = 2 * BitUtil.SIZE_OF_INT;

    /** Per session index, its queue (null for an index no member has). */
    private final UnsafeBuffer[] queues;
    /** Per session index, where its queue's oldest record starts and where the next goes. */
    private final int[] heads;
    private final int[] tails;
    /** The sessions whose queue holds a record, in the order they are served. */
    private final int[] waiting;
    private final boolean[] isWaiting;
    private int waitingHead;
    private int waitingCount;

    /**
     * @param slots   one more than the highest session index.
     * @param members the session indexes of the door's members (each gets a queue), each below
     *                {@code slots}.
     */
    SessionQueues(final int slots, final int[] members)
    {
        queues = new UnsafeBuffer[slots];
        heads = new int[slots];
        tails = new int[slots];
        waiting = new int[slots];
        isWaiting = new boolean[slots];
        for (final int member : members)
        {
            queues[member] = new UnsafeBuffer(new byte[QUEUE_BYTES]);
        }
    }

    /** @return whether the session index, one the ring accounts for, has a queue (is a member's). */
    boolean has(final int sessionIndex)
    {
        return null != queues[sessionIndex];
    }

    /** @return whether the session's queue holds no record. */
    boolean isEmpty(final int sessionIndex)
    {
        return heads[sessionIndex] == tails[sessionIndex];
    }

    /** @return bytes of records in the session's queue. */
    int queuedBytes(final int sessionIndex)
    {
        return tails[sessionIndex] - heads[sessionIndex];
    }

    /** @return how many sessions' queues hold a record. */
    int waitingCount()
    {
        return waitingCount;
    }

    /** @return the session served next: the first of those waiting (there is one). */
    int nextWaiting()
    {
        return waiting[waitingHead];
    }

    /** Takes the first waiting session off the list and puts it back at its end while its queue holds a record. */
    void rotate()
    {
        final int session = waiting[waitingHead];
        waitingHead = waitingHead + 1 == waiting.length ? 0 : waitingHead + 1;
        waitingCount--;
        if (isEmpty(session))
        {
            isWaiting[session] = false;
        }
        else
        {
            enlist(session);
        }
    }

    /** @return the ring record type of the session's oldest record (its queue holds one). */
    int oldestType(final int sessionIndex)
    {
        return queues[sessionIndex].getInt(heads[sessionIndex]);
    }

    /** @return the length of the session's oldest record (its queue holds one). */
    int oldestLength(final int sessionIndex)
    {
        return queues[sessionIndex].getInt(heads[sessionIndex] + BitUtil.SIZE_OF_INT);
    }

    /** Copies the session's oldest record into {@code to} at {@code index}. */
    void copyOldest(final int sessionIndex, final MutableDirectBuffer to, final int index)
    {
        to.putBytes(index, queues[sessionIndex], heads[sessionIndex] + QUEUED_HEADER, oldestLength(sessionIndex));
    }

    /** Takes the session's oldest record off its queue (an emptied queue starts again at 0). */
    void removeOldest(final int sessionIndex)
    {
        final int next = heads[sessionIndex] + room(oldestLength(sessionIndex));
        if (next == tails[sessionIndex])
        {
            heads[sessionIndex] = 0;
            tails[sessionIndex] = 0;
        }
        else
        {
            heads[sessionIndex] = next;
        }
    }

    /**
     * Whether the session's queue has room for a record of {@code recordLength} at its end,
     * compacting it when at least {@code compactFrom} bytes lie free before its oldest record: with
     * a quarter of the queue, one that only ever moves a little is not copied for each record.
     */
    boolean hasRoom(final int sessionIndex, final int recordLength, final int compactFrom)
    {
        final int needed = room(recordLength);
        final UnsafeBuffer queue = queues[sessionIndex];
        final int tail = tails[sessionIndex];
        if (queue.capacity() - tail >= needed)
        {
            return true;
        }
        final int head = heads[sessionIndex];
        if (head < compactFrom)
        {
            return false;
        }
        queue.putBytes(0, queue, head, tail - head);
        heads[sessionIndex] = 0;
        tails[sessionIndex] = tail - head;
        return queue.capacity() - (tail - head) >= needed;
    }

    /**
     * Lays out a record's header at the end of the session's queue ({@link #hasRoom} said it fits);
     * {@link #commit} adds it.
     *
     * @return where the record's bytes go in {@link #buffer}.
     */
    int claim(final int sessionIndex, final int type, final int recordLength)
    {
        final UnsafeBuffer queue = queues[sessionIndex];
        final int tail = tails[sessionIndex];
        queue.putInt(tail, type);
        queue.putInt(tail + BitUtil.SIZE_OF_INT, recordLength);
        return tail + QUEUED_HEADER;
    }

    /** @return the session's queue, where {@link #claim} put the record. */
    MutableDirectBuffer buffer(final int sessionIndex)
    {
        return queues[sessionIndex];
    }

    /** Adds the record {@link #claim} laid out, and lists the session as waiting if it was not. */
    void commit(final int sessionIndex, final int recordLength)
    {
        tails[sessionIndex] += room(recordLength);
        if (!isWaiting[sessionIndex])
        {
            isWaiting[sessionIndex] = true;
            enlist(sessionIndex);
        }
    }

    private void enlist(final int session)
    {
        final int at = waitingHead + waitingCount;
        waiting[at >= waiting.length ? at - waiting.length : at] = session;
        waitingCount++;
    }

    /** The room a record takes in a queue: its header with it, aligned. */
    private static int room(final int recordLength)
    {
        return BitUtil.align(QUEUED_HEADER + recordLength, BitUtil.SIZE_OF_LONG);
    }
}
