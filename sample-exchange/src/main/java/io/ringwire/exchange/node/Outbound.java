package io.ringwire.exchange.node;

import io.ringwire.messaging.Publication;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A role's way out onto one publication, which never waits: a message the subscriber is too far
 * behind to take (back-pressure) goes to a backlog, sent in order ahead of anything newer by
 * {@link #doWork()}. A role must not wait on a subscriber that may be waiting on it (a gateway and
 * its clients answer each other, and on a small machine they share a thread), so back-pressure
 * travels the other way: a role whose outbound backlog is not empty stops reading its own inputs
 * ({@link #isBehind()}) until it has drained, and its publishers back off in turn.
 *
 * <p>A message is dropped, and counted, only when the subscriber is gone (not connected, closed)
 * or the backlog has reached its bound.
 *
 * <p>Threading: the role's thread. Allocation-free while the backlog stays within its first
 * capacity.
 */
public final class Outbound
{
    /** {@link #trySend}: on its way. */
    public static final int SENT = 1;
    /** {@link #trySend}: the subscriber is behind; offer the message again later. */
    public static final int RETRY = 0;
    /** {@link #trySend}: not connected or closed; the message is dropped and counted. */
    public static final int DROPPED = -1;

    private static final int INITIAL_BACKLOG = 1 << 20;
    private static final int MAX_BACKLOG = 1 << 28;

    private final Publication publication;
    private final ExpandableRingBuffer backlog = new ExpandableRingBuffer(INITIAL_BACKLOG, MAX_BACKLOG, true);
    private final ExpandableRingBuffer.MessageConsumer flush = this::flush;
    private long sent;
    private long dropped;
    private long backPressured;

    /**
     * @param publication where the messages go.
     */
    public Outbound(final Publication publication)
    {
        this.publication = publication;
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
     *         {@link #DROPPED} (not connected or closed; counted).
     */
    public int trySend(final DirectBuffer buffer, final int offset, final int length)
    {
        final long result = publication.offer(buffer, offset, length);
        if (result > 0)
        {
            sent++;
            return SENT;
        }
        if (result == Publication.NOT_CONNECTED || result == Publication.CLOSED ||
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
        return trySend(buffer, offset, length) != RETRY;
    }

    /** @return the publication's duty cycle's work, and the backlog's messages sent. */
    public int doWork()
    {
        final int work = publication.doWork();
        return backlog.isEmpty() ? work : work + backlog.consume(flush, Integer.MAX_VALUE);
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
