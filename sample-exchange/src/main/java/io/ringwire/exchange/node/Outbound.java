package io.ringwire.exchange.node;

import io.ringwire.messaging.Publication;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.LongArrayQueue;

/**
 * A role's way out onto one publication, which never waits: a message the subscriber is too far
 * behind to take (back-pressure) goes to a backlog, sent in order ahead of anything newer by
 * {@link #doWork()}. A role must not wait on a subscriber that may be waiting on it (a gateway and
 * its clients answer each other, and on a small machine they share a thread), so back-pressure
 * travels the other way: a role whose outbound backlog is not empty stops reading its own inputs
 * ({@link #isBehind()}) until it has drained, and its publishers back off in turn.
 *
 * <p>A message is dropped, and counted, only when the subscriber is gone (not connected, closed)
 * or the backlog has reached its bound. A link whose one subscriber is the only way on (the
 * gateway's requests to the engine, the engine's reports to the gateway) is made with
 * {@link #holdingWhileDisconnected}: while its subscriber is away (a restart, a reconnection) the
 * messages wait in the backlog, as behind a slow one, and go once it is back. A role that must not
 * let one slow subscriber hold memory or time bounds the backlog in bytes and watches its age
 * ({@link #backlogAgeNs}): the gateway disconnects a client whose replies wait longer than it allows.
 *
 * <p>Threading: the role's thread. Allocation-free while the backlog stays within its first
 * capacity (and holds at most {@value #INITIAL_QUEUED_TIMES} messages).
 */
public final class Outbound
{
    /** {@link #trySend}: on its way. */
    public static final int SENT = 1;
    /**
     * {@link #trySend}: the subscriber is behind (or, {@link #holdingWhileDisconnected}, away);
     * offer the message again later.
     */
    public static final int RETRY = 0;
    /** {@link #trySend}: closed, or not connected where that drops; the message is dropped and counted. */
    public static final int DROPPED = -1;

    /** Told of each message as it leaves the backlog, oldest first. */
    @FunctionalInterface
    public interface BacklogListener
    {
        /** @param sent true when it went onto the publication, false when it was dropped. */
        void onLeft(boolean sent);
    }

    private static final BacklogListener NO_LISTENER = sent ->
    {
    };

    private static final int INITIAL_BACKLOG = 1 << 20;
    /** Queue times held without growing: the initial backlog's worth of 64-byte messages. */
    private static final int INITIAL_QUEUED_TIMES = INITIAL_BACKLOG / 64;
    static final int MAX_BACKLOG = 1 << 28;

    private final Publication publication;
    private final boolean holdsWhileDisconnected;
    private final ExpandableRingBuffer backlog;
    /** When each message in the backlog was queued, oldest first. */
    private final LongArrayQueue queuedAtNs = new LongArrayQueue(INITIAL_QUEUED_TIMES, Long.MIN_VALUE);
    private final ExpandableRingBuffer.MessageConsumer flush = this::flush;
    /** Messages in the backlog. */
    private int waiting;
    private BacklogListener backlogListener = NO_LISTENER;
    private long sent;
    private long dropped;
    private long backPressured;

    /**
     * @param publication where the messages go.
     */
    public Outbound(final Publication publication)
    {
        this(publication, MAX_BACKLOG);
    }

    /**
     * @param publication     where the messages go.
     * @param maxBacklogBytes the most the backlog holds (rounded to a power of two); a message that
     *                        would pass it is dropped and counted.
     */
    public Outbound(final Publication publication, final int maxBacklogBytes)
    {
        this(publication, maxBacklogBytes, false);
    }

    private Outbound(final Publication publication, final int maxBacklogBytes, final boolean holdsWhileDisconnected)
    {
        this.publication = publication;
        this.holdsWhileDisconnected = holdsWhileDisconnected;
        final int max = Math.max(4096, Integer.highestOneBit(Math.max(1, maxBacklogBytes)));
        this.backlog = new ExpandableRingBuffer(Math.min(INITIAL_BACKLOG, max), max, true);
    }

    /**
     * An outbound whose messages wait while its subscriber is not connected, instead of being
     * dropped: for a link nothing else can stand in for, whose subscriber comes back.
     *
     * @param publication where the messages go.
     */
    public static Outbound holdingWhileDisconnected(final Publication publication)
    {
        return new Outbound(publication, MAX_BACKLOG, true);
    }

    /**
     * @param maxBacklogBytes the most the backlog holds (rounded to a power of two).
     * @see #holdingWhileDisconnected(Publication)
     */
    static Outbound holdingWhileDisconnected(final Publication publication, final int maxBacklogBytes)
    {
        return new Outbound(publication, maxBacklogBytes, true);
    }

    /**
     * Sends a message, or queues it behind the ones already waiting.
     *
     * @return true when sent or queued; false when dropped (the subscriber is gone, or the backlog is full).
     */
    public boolean send(final DirectBuffer buffer, final int offset, final int length)
    {
        if (backlog.isEmpty())
        {
            final int result = trySend(buffer, offset, length);
            if (result != RETRY)
            {
                return result == SENT;
            }
        }
        if (backlog.append(buffer, offset, length))
        {
            queuedAtNs.addLong(System.nanoTime());
            waiting++;
            return true;
        }
        dropped++;
        return false;
    }

    /**
     * Offers once, without queueing: for a role that keeps the message itself (a client holds its
     * next order rather than let a backlog grow).
     *
     * @return {@link #SENT}, {@link #RETRY} (the subscriber is behind: offer it again later) or
     *         {@link #DROPPED} (closed, or not connected where that drops; counted).
     */
    public int trySend(final DirectBuffer buffer, final int offset, final int length)
    {
        final long result = publication.offer(buffer, offset, length);
        if (result > 0)
        {
            sent++;
            return SENT;
        }
        if ((result == Publication.NOT_CONNECTED && !holdsWhileDisconnected) || result == Publication.CLOSED ||
            result == Publication.MAX_POSITION_EXCEEDED)
        {
            dropped++;
            return DROPPED;
        }
        backPressured++;
        return RETRY;
    }

    private boolean flush(final MutableDirectBuffer buffer, final int offset, final int length, final int headOffset)
    {
        final int result = trySend(buffer, offset, length);
        if (result == RETRY)
        {
            return false;
        }
        waiting--;
        queuedAtNs.pollLong();
        backlogListener.onLeft(result == SENT);
        return true;
    }

    /** @return the publication's duty cycle's work, and the backlog's messages sent. */
    public int doWork()
    {
        return doWork(System.nanoTime());
    }

    /**
     * {@link #doWork()} on the clock the caller's duty cycle already read.
     *
     * @param nowNs {@link System#nanoTime()}, read in this duty cycle.
     * @return work done.
     */
    public int doWork(final long nowNs)
    {
        final int work = publication.doWork(nowNs);
        return backlog.isEmpty() ? work : work + backlog.consume(flush, Integer.MAX_VALUE);
    }

    /**
     * @param nowNs {@link System#nanoTime()} now.
     * @return how long the oldest waiting message has waited, 0 when none waits.
     */
    public long backlogAgeNs(final long nowNs)
    {
        return backlog.isEmpty() ? 0 : nowNs - queuedAtNs.peekLong();
    }

    /**
     * @param listener told of each message as it leaves the backlog, for an owner that counts
     *                 what it queued by what became of it.
     */
    public void backlogListener(final BacklogListener listener)
    {
        this.backlogListener = null == listener ? NO_LISTENER : listener;
    }

    /** @return messages waiting in the backlog. */
    public int backlogMessages()
    {
        return waiting;
    }

    /** @return bytes waiting in the backlog. */
    public int backlogBytes()
    {
        return backlog.size();
    }

    /**
     * Drops everything waiting, counted as dropped: its subscriber was cut off.
     *
     * @return messages dropped.
     */
    public int clearBacklog()
    {
        final int[] count = new int[1];
        backlog.consume((buffer, offset, length, headOffset) ->
        {
            count[0]++;
            backlogListener.onLeft(false);
            return true;
        }, Integer.MAX_VALUE);
        dropped += count[0];
        waiting = 0;
        queuedAtNs.clear();
        return count[0];
    }

    /** @return true while messages wait in the backlog: the role should not take more input. */
    public boolean isBehind()
    {
        return !backlog.isEmpty();
    }

    /** @return whether the subscriber is connected. */
    public boolean isConnected()
    {
        return publication.isConnected();
    }

    /** @return the publication. */
    public Publication publication()
    {
        return publication;
    }

    /** @return messages sent. */
    public long sent()
    {
        return sent;
    }

    /** @return messages dropped. */
    public long dropped()
    {
        return dropped;
    }

    /** @return offers that found the subscriber behind. */
    public long backPressured()
    {
        return backPressured;
    }
}
