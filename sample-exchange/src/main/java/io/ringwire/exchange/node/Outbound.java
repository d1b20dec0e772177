package io.ringwire.exchange.node;

import io.ringwire.messaging.Publication;
import org.agrona.DirectBuffer;

/**
 * A role's way out onto one publication: offers a message, and while the subscriber is behind
 * (back-pressured, or the ring's end needs padding) drives the publication and offers again, so a
 * message the role has committed to (a report for a journaled request) is not dropped for a moment's
 * lag. A publication that is not connected (its subscriber is gone) or closed refuses at once, and
 * a subscriber that stays behind for a second is given up on: the message is counted as dropped
 * and the caller hears false. The subscriber must be on another thread.
 *
 * <p>Threading: the role's thread. Allocation-free.
 */
public final class Outbound
{
    /** {@link #trySend}: on its way. */
    public static final int SENT = 1;
    /** {@link #trySend}: the subscriber is behind; offer the message again later. */
    public static final int RETRY = 0;
    /** {@link #trySend}: not connected or closed; the message is dropped and counted. */
    public static final int DROPPED = -1;

    /** Longest a message waits for a subscriber that is behind before it is dropped. */
    private static final long MAX_WAIT_NS = 1_000_000_000L;

    private final Publication publication;
    private final RunFlag running;
    private long sent;
    private long dropped;
    private long backPressured;

    /**
     * @param publication where the messages go.
     * @param running     ends the retries when the role stops.
     */
    public Outbound(final Publication publication, final RunFlag running)
    {
        this.publication = publication;
        this.running = running;
    }

    /**
     * @return true when the message is on its way; false when dropped (not connected, closed, or
     *         stopping).
     */
    public boolean send(final DirectBuffer buffer, final int offset, final int length)
    {
        long deadline = 0;
        while (true)
        {
            final long result = publication.offer(buffer, offset, length);
            if (result > 0)
            {
                sent++;
                return true;
            }
            if (result == Publication.NOT_CONNECTED || result == Publication.CLOSED ||
                result == Publication.MAX_POSITION_EXCEEDED || !running.isRunning())
            {
                dropped++;
                return false;
            }
            backPressured++;
            final long nowNs = System.nanoTime();
            if (deadline == 0)
            {
                deadline = nowNs + MAX_WAIT_NS;
            }
            else if (nowNs - deadline > 0)
            {
                dropped++; // the subscriber has stopped consuming without going away
                return false;
            }
            publication.doWork();
            Thread.onSpinWait();
        }
    }

    /**
     * Offers once, without waiting: for a role whose subscriber may itself be waiting on it (a
     * client and the gateway answer each other), which must keep polling while it retries.
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

    /** @return the publication's duty cycle's work. */
    public int doWork()
    {
        return publication.doWork();
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

    /** @return offers that found the subscriber behind and were retried. */
    public long backPressured()
    {
        return backPressured;
    }
}
