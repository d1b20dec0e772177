package io.ringwire.messaging;

import io.ringwire.messaging.status.PublicationCounters;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionQueue;

import java.util.function.IntSupplier;

/**
 * A publication's admin work, its duty cycle: reaps completions (a failed one disconnects its
 * subscriber), reconnects disconnected subscribers every reconnect interval, and, at most every
 * quarter heartbeat interval, updates the device's counters, declares silent subscribers gone
 * after the liveness timeout, disconnects subscribers that hold it back past the channel's
 * {@code slow-timeout} (where set) and has a heartbeat sent when no frame went out for a heartbeat
 * interval. It also paces the cycles that offers run themselves, one every so many attempts.
 *
 * <p>Into memory logs the completion queue is reaped at most every so many nanoseconds rather than
 * every cycle: no frame goes through the queue pair, so only failures come there, and polling it
 * drives the provider's queue-pair progress (its peer's record ring and acknowledgements read each
 * time), a cost each publication of a thread that owns many would pay every cycle. The provider's
 * timed work (its peer check, its device's heartbeat) runs once every so many of those polls, so it
 * slows down by the same factor.
 *
 * <p>It sends no frame itself: the heartbeat is the publication's, which lays it out in its ring
 * like any frame.
 *
 * <p>Threading: the publication's owning thread. Allocation-free.
 */
final class PublicationDuty
{
    /** The longest wait between two passes of the slow part of the cycle. */
    private static final long MAX_DUTY_INTERVAL_NS = 10_000_000L;

    private final MessagingContext context;
    private final CompletionQueue completionQueue;
    private final CompletionHandler completionHandler;
    private final PublicationDestinations destinations;
    private final PublicationCounters counters;
    /**
     * Sends a heartbeat frame (1), or where the subscribers have no room for one a keepalive to each
     * that can take one: how many went out.
     */
    private final IntSupplier heartbeat;
    /** Offer attempts between the cycles offers run themselves. */
    private final int offersPerDuty;
    /** The channel's slow-timeout; 0: every subscriber is waited for. */
    private final long slowTimeoutNs;
    /** The least time between two reaps of the completion queue; 0: every cycle. */
    private final long completionPollIntervalNs;

    private long lastFrameNs;
    private long nextDutyNs;
    private long nextCompletionPollNs;
    private int offersSinceDuty;
    private long framesPublishedAtLastDuty;

    /**
     * @param completionHandler what the reaped completions go to.
     * @param heartbeat         sends a heartbeat (a frame, or keepalives) and says how many went out.
     * @param slowTimeoutNs     how long a subscriber may hold the publication back before it is
     *                          disconnected; 0 for as long as it stays alive.
     * @param completionPollIntervalNs the least time between two reaps of the completion queue; 0
     *                          to reap it every cycle (frames complete there).
     */
    PublicationDuty(final MessagingContext context, final CompletionQueue completionQueue,
        final CompletionHandler completionHandler, final PublicationDestinations destinations,
        final PublicationCounters counters, final IntSupplier heartbeat, final int offersPerDuty,
        final long slowTimeoutNs, final long completionPollIntervalNs)
    {
        this.slowTimeoutNs = slowTimeoutNs;
        this.completionPollIntervalNs = completionPollIntervalNs;
        this.offersPerDuty = offersPerDuty;
        this.context = context;
        this.completionQueue = completionQueue;
        this.completionHandler = completionHandler;
        this.destinations = destinations;
        this.counters = counters;
        this.heartbeat = heartbeat;
        // Due at the first cycle, whatever the sign of the clock's values.
        nextDutyNs = System.nanoTime();
        nextCompletionPollNs = nextDutyNs;
    }

    /**
     * Runs the cycle.
     *
     * @param position        the stream position, where a reconnected subscriber joins.
     * @param framesPublished frames the publication has sent so far: a change means it was not idle.
     * @param nowNs           {@link System#nanoTime()}, read in the owner's duty cycle.
     * @return work done.
     */
    int doWork(final long position, final long framesPublished, final long nowNs)
    {
        int work = 0;
        if (0 == completionPollIntervalNs || nowNs - nextCompletionPollNs >= 0)
        {
            nextCompletionPollNs = nowNs + completionPollIntervalNs;
            work += completionQueue.poll(completionHandler, 64);
        }
        work += destinations.connectDisconnected(nowNs, false, position);
        if (nowNs - nextDutyNs < 0)
        {
            return work;
        }
        nextDutyNs = nowNs + Math.min(context.heartbeatIntervalNs() / 4, MAX_DUTY_INTERVAL_NS);
        counters.device.update();
        work += destinations.disconnectSilent(nowNs);
        work += destinations.disconnectSlow(nowNs, position, slowTimeoutNs); // notes who holds back too
        if (framesPublished != framesPublishedAtLastDuty)
        {
            framesPublishedAtLastDuty = framesPublished;
            lastFrameNs = nowNs;
        }
        if (destinations.isConnected() && nowNs - lastFrameNs > context.heartbeatIntervalNs())
        {
            work += heartbeat.getAsInt();
            lastFrameNs = nowNs;
        }
        return work;
    }

    /**
     * When the cycle has work next: at once while a subscriber is not connected (its connection is
     * driven every cycle) or where completions are reaped every cycle; else at the next reap or the
     * next pass of the slow part, whichever comes first. Nothing else makes work for the cycle: a
     * connection's change makes the publication run it at once (see {@code onConnectionChange}).
     *
     * @param nowNs the clock of the cycle that just ran.
     * @return the clock from which the next cycle has work.
     */
    long nextDueNs(final long nowNs)
    {
        if (0 == completionPollIntervalNs || !destinations.allConnected())
        {
            return nowNs;
        }
        return nextCompletionPollNs - nextDutyNs < 0 ? nextCompletionPollNs : nextDutyNs;
    }

    /**
     * Counts an offer attempt that got past the publication's admission.
     *
     * @return true every {@code offersPerDuty}th time: the offer runs the cycle, after
     *         its frame went out.
     */
    boolean offerAttempted()
    {
        if (++offersSinceDuty >= offersPerDuty)
        {
            offersSinceDuty = 0;
            return true;
        }
        return false;
    }
}
