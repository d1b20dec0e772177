package io.ringwire.exchange.fix;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The FIX door's outbound ring, from the gateway's thread to the door's sender thread, with each
 * member's share of it and its queue at the door: the gateway's replies to a member, the mass
 * cancels it forwarded and the disconnects it asks for go in here, in order per member, and no
 * member's replies take the room the others' need.
 *
 * <p>Threading: the gateway's thread writes (every method but {@link #read}, {@link #taken} and
 * the counters' getters); the sender thread reads and reports what it took. Allocation-free.
 */
final class FixReplyRing
{
    /** Outbound records: a reply (SBE), a mass cancel the gateway forwarded (SBE), a disconnect. */
    static final int REPLY = 1;
    static final int MASS_CANCEL_FORWARDED = 2;
    static final int DISCONNECT = 3;
    /**
     * A record's header, in this ring and in the door's inbound ring: the session's index, then when
     * it was written (ns, this host's monotonic clock).
     */
    static final int RECORD_HEADER = BitUtil.SIZE_OF_INT + BitUtil.SIZE_OF_LONG;
    /**
     * A reply's header: the record's, then the member's connection the gateway knew when it replied
     * (the logons and logouts of it the gateway had read), so that a Logout or a refused logon meant
     * for a connection gone leaves the member's next one up.
     */
    static final int REPLY_HEADER = RECORD_HEADER + BitUtil.SIZE_OF_INT;
    /** The outbound ring's least and most bytes (it holds the shares of every member and two more). */
    private static final int MIN_OUTBOUND_RING_BYTES = 16 << 20;
    private static final int MAX_OUTBOUND_RING_BYTES = 64 << 20;
    /** The most of the outbound ring one session's records may hold, where the ring has room for every share. */
    static final int MAX_SESSION_SHARE = 4 << 20;
    /**
     * The least: past about 60 members the shares no longer fit the largest ring, and a member
     * within its share may then meet the ring full (it waits in its queue), rather than every
     * member being cut at a few hundred replies behind.
     */
    private static final int MIN_SESSION_SHARE = 1 << 20;
    /**
     * The shares one session's records may hold in all, of every connection of it: a member that
     * logs on again before its last connection's backlog (up to two shares, were it cut off) is sent
     * has its whole share for the new one, and no more however often it logs on again.
     */
    static final long SHARES_HELD_AT_MOST = 3;
    /**
     * Outbound ring bytes no share counts on: the sender frees a batch of records only after the
     * batch, a claim wants a little more than its record, and the wrap pads.
     */
    private static final int RING_HEADROOM = 64 << 10;
    /**
     * Each session's queue at the door ({@link SessionQueues}): its records that the ring could not
     * take yet (its share held, the ring full, or its earlier records waiting), in order. A session
     * whose queue overflows is the one behind: the gateway cuts it off as a slow consumer
     * ({@link #takeSlow}). It overflows when the next record does not fit at its end and less than a
     * quarter of it has been taken from its front: compacting only then keeps a nearly full queue
     * from being moved on every record.
     */
    static final int SESSION_QUEUE_BYTES = SessionQueues.QUEUE_BYTES;
    /** Records moved from the sessions' queues into the ring in one call at most. */
    private static final int DRAIN_LIMIT = 256;
    /** What {@link #moveQueued} did with a session's oldest queued record; EMPTY: it had none. */
    private static final int MOVED = 0;
    private static final int AT_SHARE = 1;
    private static final int RING_FULL = 2;
    private static final int EMPTY = 3;

    /**
     * Every member's replies pass through the one outbound ring and its one sender thread. It holds
     * every member's share and two more (up to about 60 members): a member whose replies come
     * faster than the sender maps them waits at its share, in its own queue, and so never takes the
     * room of a member within its own, while no more than two members are being cut off at once
     * (each may take twice its share), or one logs on again over its last connection's backlog
     * (its records may take three shares, {@link #SHARES_HELD_AT_MOST}).
     */
    private final OneToOneRingBuffer outbound;
    /** The outbound ring one session's records may hold at most. */
    private final int sessionShare;
    /** Per session index: a disconnect the full ring could not take yet. */
    private final boolean[] disconnectOwed;
    /**
     * Per session index: the connection an owed disconnect is for (the logons and logouts of it the
     * gateway had read when it asked).
     */
    private final int[] disconnectOwedFor;
    private int disconnectsOwed;
    /** Per session index, ring bytes its records took (the gateway's thread writes them). */
    private final long[] ringBytesWritten;
    /** Per session index, ring bytes of its records the sender thread has taken. */
    private final AtomicLongArray ringBytesTaken;
    /**
     * Per session index, {@link #ringBytesWritten} when its current connection logged on: what its
     * earlier connections left in the ring, which the sender takes first (the ring is in order) and
     * which its share does not count.
     */
    private final long[] ringBytesBeforeConnection;
    /** The members' queues at the door, and the order {@link #drainQueues} serves them in. */
    private final SessionQueues queues;
    /**
     * Per session index: its queue overflowed, so the gateway is cutting it off; until its next
     * logon its records may take twice its share of the ring, so that what the gateway sends it as
     * it goes (the engine's cancels of its orders) reaches the store for its ResendRequest.
     */
    private final boolean[] pastShare;
    /** Per session index: its queue overflowed and the gateway has not yet asked ({@link #takeSlow}). */
    private final boolean[] slow;
    /** Where {@link #claim} put the record: the ring (its claim's index) or a session's queue. */
    private MutableDirectBuffer claimedIn;
    private int claimedRingIndex;
    private long disconnectsDeferred;
    private final AtomicLong repliesRefused = new AtomicLong();
    private final AtomicLong repliesQueued = new AtomicLong();

    /**
     * @param slots         one more than the highest session index.
     * @param members       the session indexes of the door's members (each gets a queue), each
     *                      below {@code slots} and none twice: the door has checked them.
     * @param sharesInRing  session shares the ring holds (the members and two more; fewer in a test's
     *                      door lets members within their share fill it).
     */
    FixReplyRing(final int slots, final int[] members, final int sharesInRing)
    {
        if (sharesInRing < 1)
        {
            throw new IllegalArgumentException("the outbound ring holds at least one share: " + sharesInRing);
        }
        final long wanted = (long)sharesInRing * MAX_SESSION_SHARE;
        final int ringBytes = wanted >= MAX_OUTBOUND_RING_BYTES ? MAX_OUTBOUND_RING_BYTES :
            Math.max(MIN_OUTBOUND_RING_BYTES, BitUtil.findNextPositivePowerOfTwo((int)wanted));
        outbound = new OneToOneRingBuffer(
            new UnsafeBuffer(ByteBuffer.allocateDirect(ringBytes + RingBufferDescriptor.TRAILER_LENGTH)));
        sessionShare = Math.clamp((ringBytes - RING_HEADROOM) / sharesInRing, MIN_SESSION_SHARE, MAX_SESSION_SHARE);
        disconnectOwed = new boolean[slots];
        disconnectOwedFor = new int[slots];
        ringBytesWritten = new long[slots];
        ringBytesTaken = new AtomicLongArray(slots);
        ringBytesBeforeConnection = new long[slots];
        queues = new SessionQueues(slots, members);
        pastShare = new boolean[slots];
        slow = new boolean[slots];
    }

    /** @return the ring one session's records may hold at most. */
    int sessionShare()
    {
        return sessionShare;
    }

    /** @return bytes of records waiting in the session's queue at the door (the gateway's thread). */
    int queuedBytesOf(final int sessionIndex)
    {
        return queues.queuedBytes(sessionIndex);
    }

    /** @return replies neither their session's queue nor the ring had room for. */
    long repliesRefused()
    {
        return repliesRefused.get();
    }

    /** @return records that waited in their session's queue before the ring took them. */
    long repliesQueued()
    {
        return repliesQueued.get();
    }

    /** @return disconnects the full ring could not take at once, written later (the gateway's thread). */
    long disconnectsDeferred()
    {
        return disconnectsDeferred;
    }

    /** @return bytes in the ring the sender thread has not taken yet. */
    int backlog()
    {
        return outbound.size();
    }

    /**
     * The sender thread's read of the ring; the handler calls {@link #taken} for each record.
     *
     * @return records read.
     */
    int read(final MessageHandler handler, final int limit)
    {
        return outbound.read(handler, limit);
    }

    /**
     * A record the sender thread took: its session's share has that room again.
     *
     * @param sessionIndex the record's session.
     * @param length       the record's length.
     */
    void taken(final int sessionIndex, final int length)
    {
        if (accounted(sessionIndex))
        {
            // Only the sender thread writes a session's taken count; the gateway's thread reads it.
            ringBytesTaken.setRelease(sessionIndex, ringBytesTaken.getPlain(sessionIndex) + ringBytes(length));
        }
    }

    /**
     * A mass cancel the gateway forwarded, its request's record as the door read it: into the ring,
     * or the session's queue, as a reply.
     */
    void forwarded(final int sessionIndex, final DirectBuffer record, final int index, final int length)
    {
        final int at = claim(MASS_CANCEL_FORWARDED, sessionIndex, length);
        if (at >= 0)
        {
            claimedIn.putBytes(at, record, index, length);
            commitClaim(sessionIndex, length);
        }
    }

    /**
     * Writes the disconnects owed, then moves the sessions' queued records into the ring where it
     * has room. The gateway's thread calls it on every cycle, also while it reads no input
     * ({@link FixDoor#poll} does too). Allocation-free.
     *
     * @return records and disconnects written.
     */
    int sendOwed()
    {
        // Disconnects first: few and small, they do not wait behind the queues for the room the sender frees.
        final int disconnects = disconnectsOwed > 0 ? sendOwedDisconnects() : 0;
        return disconnects + (queues.waitingCount() > 0 ? drainQueues() : 0);
    }

    /**
     * Whether the session's queue overflowed since the last call (its replies come faster than the
     * door sends them, or a reply of it was refused): the gateway's thread cuts it off as a slow
     * consumer. Clears the mark.
     */
    boolean takeSlow(final int sessionIndex)
    {
        if (accounted(sessionIndex) && slow[sessionIndex])
        {
            slow[sessionIndex] = false;
            return true;
        }
        return false;
    }

    /**
     * The sessions' queued records into the ring, one record of each session in turn, so that a
     * session with a long queue does not keep the room the sender frees from one with a short one.
     * A session at its share waits for the sender; a full ring ends the call, and the session it
     * stopped at is served first next time.
     */
    private int drainQueues()
    {
        int moved = 0;
        int atShare = 0;
        while (queues.waitingCount() > 0 && moved < DRAIN_LIMIT && atShare < queues.waitingCount())
        {
            final int session = queues.nextWaiting();
            // Its queue may have gone into the ring already, past its share, as it overflowed.
            final int result = queues.isEmpty(session) ? EMPTY : moveQueued(session);
            if (result == RING_FULL)
            {
                return moved;
            }
            queues.rotate();
            moved += result == MOVED ? 1 : 0;
            atShare = result == AT_SHARE ? atShare + 1 : 0;
        }
        return moved;
    }

    /**
     * Moves the session's oldest queued record into the ring, where its share allows.
     *
     * @return {@link #MOVED}, {@link #AT_SHARE} or {@link #RING_FULL}.
     */
    private int moveQueued(final int session)
    {
        final int recordLength = queues.oldestLength(session);
        if (!withinShare(session, recordLength))
        {
            return AT_SHARE;
        }
        final int claimed = outbound.tryClaim(queues.oldestType(session), recordLength);
        if (claimed < 0)
        {
            return RING_FULL;
        }
        queues.copyOldest(session, outbound.buffer(), claimed);
        outbound.commit(claimed);
        wrote(session, recordLength);
        queues.removeOldest(session);
        return MOVED;
    }

    /** The session's connection is gone (its loss read): a disconnect owed for it must not cut a later one. */
    void forgetOwedDisconnect(final int sessionIndex)
    {
        if (sessionIndex >= 0 && sessionIndex < disconnectOwed.length && disconnectOwed[sessionIndex])
        {
            disconnectOwed[sessionIndex] = false;
            disconnectsOwed--;
        }
    }

    /**
     * A new connection of the session (its logon read): its share holds again, counted from here, so
     * that what its last connection left in the ring (up to twice the share, were it cut off as slow)
     * neither holds the new one's replies back until its queue overflows nor cuts it; the last one's
     * overflow does not cut it either. The sender takes that backlog first (it is sent, and stored
     * for a ResendRequest), so it is gone from the ring before long; while it is there the session's
     * records may hold up to {@link #SHARES_HELD_AT_MOST} shares in all. What its last connection
     * left in its queue goes into the ring after the logon, and counts on the new one's share.
     */
    void connectionBegan(final int sessionIndex)
    {
        pastShare[sessionIndex] = false;
        slow[sessionIndex] = false;
        ringBytesBeforeConnection[sessionIndex] = ringBytesWritten[sessionIndex];
    }

    /**
     * The gateway's reply to one of the door's sessions: copied into the outbound ring for the sender
     * thread, or, while the ring cannot take it for this session (its share held, the ring full, or
     * its earlier records waiting), into the session's queue, from which {@link #sendOwed} moves it
     * in order. A member's replies are few or many: the queues keep one member's from taking the
     * room the others' need, and none is lost while its session's queue or the ring has room. A
     * session whose queue overflows (its replies come faster than the sender takes them) is marked
     * for the gateway to cut off ({@link #takeSlow}). Allocation-free.
     *
     * @param connection the member's logons and logouts the gateway had read: a Logout or a refused
     *                   logon meant for a connection gone leaves the member's next one up.
     * @return false when neither the session's queue nor the ring could take the reply (counted):
     *         its queue overflowed, so the session is marked ({@link #takeSlow}) and the gateway
     *         cuts it off as a slow consumer.
     */
    boolean reply(final int sessionIndex, final int connection, final DirectBuffer message, final int offset,
        final int length)
    {
        final int recordLength = REPLY_HEADER + length;
        final int at = claim(REPLY, sessionIndex, recordLength);
        if (at < 0)
        {
            return false;
        }
        final MutableDirectBuffer to = claimedIn;
        to.putInt(at, sessionIndex);
        to.putLong(at + BitUtil.SIZE_OF_INT, System.nanoTime());
        to.putInt(at + RECORD_HEADER, connection);
        to.putBytes(at + REPLY_HEADER, message, offset, length);
        commitClaim(sessionIndex, recordLength);
        return true;
    }

    /**
     * Room for one record of a session: in the ring when none of the session's records waits and
     * its share allows, else at the end of its queue ({@link #claimedIn} says which). A session whose
     * queue is full is marked slow for the gateway to cut off, and from then on its records may take
     * twice its share of the ring: its queue's first, then this one, else this one behind what is
     * left of its queue.
     *
     * @return where the record goes in {@link #claimedIn}, or -1 when neither has room (counted).
     */
    private int claim(final int type, final int sessionIndex, final int recordLength)
    {
        final boolean member = accounted(sessionIndex) && queues.has(sessionIndex);
        final boolean queued = member && !queues.isEmpty(sessionIndex);
        if (!queued && withinShare(sessionIndex, recordLength) && claimInRing(type, recordLength))
        {
            return claimedRingIndex;
        }
        if (!member)
        {
            repliesRefused.incrementAndGet();
            return -1;
        }
        if (queues.hasRoom(sessionIndex, recordLength, SESSION_QUEUE_BYTES / 4))
        {
            return claimInQueue(type, sessionIndex, recordLength);
        }
        slow[sessionIndex] = true;
        pastShare[sessionIndex] = true;
        while (!queues.isEmpty(sessionIndex) && moveQueued(sessionIndex) == MOVED)
        {
            // Its queue into the ring, ahead of this record: its order holds.
        }
        if (queues.isEmpty(sessionIndex) && withinShare(sessionIndex, recordLength) &&
            claimInRing(type, recordLength))
        {
            return claimedRingIndex;
        }
        if (queues.hasRoom(sessionIndex, recordLength, 1)) // behind what is left of its queue, compacted whatever it takes
        {
            return claimInQueue(type, sessionIndex, recordLength);
        }
        repliesRefused.incrementAndGet();
        return -1;
    }

    private int claimInQueue(final int type, final int sessionIndex, final int recordLength)
    {
        claimedIn = queues.buffer(sessionIndex);
        claimedRingIndex = -1;
        return queues.claim(sessionIndex, type, recordLength);
    }

    private boolean claimInRing(final int type, final int recordLength)
    {
        final int claimed = outbound.tryClaim(type, recordLength);
        if (claimed < 0)
        {
            return false;
        }
        claimedIn = outbound.buffer();
        claimedRingIndex = claimed;
        return true;
    }

    private void commitClaim(final int sessionIndex, final int recordLength)
    {
        if (claimedRingIndex >= 0)
        {
            outbound.commit(claimedRingIndex);
            wrote(sessionIndex, recordLength);
            return;
        }
        queues.commit(sessionIndex, recordLength);
        repliesQueued.incrementAndGet();
    }

    /**
     * Whether the ring may take the record for the session: its current connection's records hold
     * at most its share, or twice that once its queue overflowed (a session being cut off: the
     * engine's cancels of its orders), and all its records at most {@link #SHARES_HELD_AT_MOST}
     * shares, so that even then the others find their shares' room.
     */
    private boolean withinShare(final int sessionIndex, final int recordLength)
    {
        if (!accounted(sessionIndex))
        {
            return true;
        }
        final long written = ringBytesWritten[sessionIndex] + ringBytes(recordLength);
        final long taken = ringBytesTaken.getAcquire(sessionIndex);
        return written - Math.max(taken, ringBytesBeforeConnection[sessionIndex]) <=
            (pastShare[sessionIndex] ? 2L : 1L) * sessionShare && written - taken <= SHARES_HELD_AT_MOST * sessionShare;
    }

    private boolean accounted(final int sessionIndex)
    {
        return sessionIndex >= 0 && sessionIndex < ringBytesWritten.length;
    }

    /** Ring bytes the session's records hold now, of every connection of it (for tests). */
    long ringBytesHeld(final int sessionIndex)
    {
        return ringBytesWritten[sessionIndex] - ringBytesTaken.getAcquire(sessionIndex);
    }

    private void wrote(final int sessionIndex, final int recordLength)
    {
        if (accounted(sessionIndex))
        {
            ringBytesWritten[sessionIndex] += ringBytes(recordLength);
        }
    }

    /** The room a record takes in the ring: the ring's own header with it, aligned as the ring aligns. */
    private static int ringBytes(final int recordLength)
    {
        return BitUtil.align(recordLength + RecordDescriptor.HEADER_LENGTH, RecordDescriptor.ALIGNMENT);
    }

    /**
     * Writes a disconnect of the session's connection (the gateway asked for it) for the sender
     * thread to act on: into the ring at once, ahead of any replies waiting in the session's queue
     * (those then reach QuickFIX/J's store, for the member's ResendRequest); one the full ring cannot
     * take now is owed, and written by a later {@link #sendOwed}.
     *
     * @param connection the member's logons and logouts the gateway had read: the sender acts only
     *                   while that connection is the member's current one.
     */
    void disconnect(final int sessionIndex, final int connection)
    {
        if (!writeDisconnect(sessionIndex, connection))
        {
            disconnectOwedFor[sessionIndex] = connection;
            if (!disconnectOwed[sessionIndex])
            {
                disconnectOwed[sessionIndex] = true;
                disconnectsOwed++;
                disconnectsDeferred++;
            }
        }
    }

    private boolean writeDisconnect(final int sessionIndex, final int connection)
    {
        final int claimed = outbound.tryClaim(DISCONNECT, RECORD_HEADER + BitUtil.SIZE_OF_INT);
        if (claimed < 0)
        {
            return false;
        }
        outbound.buffer().putInt(claimed, sessionIndex);
        outbound.buffer().putLong(claimed + BitUtil.SIZE_OF_INT, System.nanoTime());
        outbound.buffer().putInt(claimed + RECORD_HEADER, connection);
        outbound.commit(claimed);
        wrote(sessionIndex, RECORD_HEADER + BitUtil.SIZE_OF_INT);
        forgetOwedDisconnect(sessionIndex);
        return true;
    }

    private int sendOwedDisconnects()
    {
        int sent = 0;
        for (int i = 0; i < disconnectOwed.length && disconnectsOwed > 0; i++)
        {
            if (disconnectOwed[i])
            {
                if (!writeDisconnect(i, disconnectOwedFor[i]))
                {
                    break;
                }
                sent++;
            }
        }
        return sent;
    }
}
