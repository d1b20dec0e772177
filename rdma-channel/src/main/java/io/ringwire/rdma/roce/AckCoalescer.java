package io.ringwire.rdma.roce;

import static io.ringwire.rdma.roce.RoceWire.addPsn;
import static io.ringwire.rdma.roce.RoceWire.psnDistance;

/**
 * Decides when a responder sends the ACK its requester asked for with AckReq. IBA lets a responder
 * coalesce ACKs (an ACK of PSN n acknowledges every PSN up to n) and bounds the wait only by the
 * requester's retransmit timer. One ACK per message costs a send system call here and a receive
 * system call at the requester, as much as the message itself in a ping-pong, so an owed ACK waits
 * until the first of:
 * <ul>
 *   <li>{@link #MAX_UNACKNOWLEDGED_PSNS} PSNs are executed and unacknowledged, well inside the
 *       requester's window of {@value RoceWire#MAX_UNACKNOWLEDGED_PSNS} PSNs and its AckReq
 *       interval of {@value RoceWire#ACK_REQUEST_INTERVAL} packets (fewer after stalls, below);</li>
 *   <li>the delay ({@code ringwire.rdma.ack.delay.us}, 50 us by default) has passed since the first
 *       packet it covers asked for it; when this queue pair sends the requester a request of its
 *       own, an ACK that would fall due before the next one goes right behind it instead
 *       ({@link #releaseWithAnswer});</li>
 *   <li>at once (the next progress round, after the application has seen the batch's completions
 *       and posted its answer, so the ACK never goes before the answer): when the delay is 0, and
 *       when a duplicate arrived, which shows a requester that already waited a retransmit
 *       timeout.</li>
 * </ul>
 * NAKs are never held: the responder sends them at once, and each one acknowledges the PSNs before
 * the one it names ({@link #acknowledgedThrough}), as rxe's requester and ours read them.
 *
 * <p>A requester that needs the ACK to go on (a send queue full of requests that complete only when
 * acknowledged, or an application waiting for a signaled completion) would wait the whole delay
 * each time. Such a requester stalls: the timer releases an ACK when this queue pair had sent the
 * requester nothing since its last packet (so the ACK was all the requester could be waiting for
 * from us) and the requester had been quiet for at least half the delay, and its next packet comes
 * within the delay after the ACK, in a later progress round (a packet read in the round that
 * released the ACK was waiting before the ACK went: the requester sent it without the ACK, which a
 * thread that polls several devices in turn sees whenever it comes back to this one). After
 * {@link #STALLS_TO_LEARN} such stalls in a row (no timer release in between found the requester
 * busy, no ACK went by count or behind an answer), the fewest PSNs those ACKs covered become the
 * limit, so the next run of that length is acknowledged as soon as it is complete, and the
 * requester waits for the delay twice, not at every run. One stall is not enough: a requester that
 * was not waiting but paused (a JIT or GC pause, a descheduled thread) and then resumed looks the
 * same once, and a limit learned from it would cost an ACK datagram per message for the next
 * {@link #LEARNED_LIMIT_LIFETIME_PSNS} PSNs (a ping-pong whose answers go through another queue
 * pair would then pay a system call on each side for every message, where one ACK covers several).
 * The learned limit is forgotten after {@link #LEARNED_LIMIT_LIFETIME_PSNS} PSNs, since the
 * requester may have changed its pattern; relearning costs two delays.
 *
 * <p>When this queue pair answered (a ping-pong), the requester is taken to wait for the answer, not
 * for the ACK: timing cannot tell the two apart on a busy machine (a ping-pong peer that is
 * descheduled looks like one waiting for an ACK). A peer that waits for both the answer and the ACK
 * of its previous request before its next one (perftest's latency tests post with a send queue of
 * one) therefore waits up to the delay per round trip: set the delay to 0 for such peers.
 *
 * <p>Threading: the device's owning thread.
 */
final class AckCoalescer
{
    /** Most PSNs executed and not yet acknowledged before an owed ACK goes. */
    static final int MAX_UNACKNOWLEDGED_PSNS = 16;
    /** PSNs executed after which a limit learned from a waiting requester is forgotten. */
    static final int LEARNED_LIMIT_LIFETIME_PSNS = 1024;
    /** Stalls in a row that show a requester waiting for the ACK. */
    static final int STALLS_TO_LEARN = 2;

    private final long delayNs;

    private int acknowledgedPsn;
    private boolean owed;
    private boolean urgent;
    private long owedSinceNs;

    private int limit = MAX_UNACKNOWLEDGED_PSNS;
    private int psnsSinceLimitLearned;
    private long lastRequestNs;
    private long answersAtLastRequest;
    private boolean watchingForResume;
    private long timerReleaseNs;
    private int psnsCoveredByTimerRelease;
    private int stallsInARow;
    private int shortestStalledRun;

    /**
     * @param delayNs longest an owed ACK waits; 0 sends every owed ACK at the next progress round.
     */
    AckCoalescer(final long delayNs)
    {
        this.delayNs = delayNs;
    }

    /**
     * @param expectedPsn the first PSN the requester will send.
     */
    void connect(final int expectedPsn)
    {
        acknowledgedPsn = addPsn(expectedPsn, -1);
    }

    /**
     * A request packet arrived, whatever becomes of it.
     *
     * @param nowNs   the progress round's time.
     * @param answers request packets this queue pair has sent the requester so far.
     */
    void onRequest(final long nowNs, final long answers)
    {
        if (watchingForResume)
        {
            watchingForResume = false;
            if (nowNs == timerReleaseNs)
            {
                // Read in the round that released the ACK, right behind it: the packet was waiting
                // already (a thread that polls this device now and then), sent without the ACK.
                stallsInARow = 0;
            }
            else if (nowNs - timerReleaseNs <= delayNs)
            {
                // The requester was quiet until the delayed ACK reached it: it stalled on it.
                shortestStalledRun = stallsInARow == 0 ?
                    psnsCoveredByTimerRelease : Math.min(shortestStalledRun, psnsCoveredByTimerRelease);
                if (++stallsInARow >= STALLS_TO_LEARN)
                {
                    limit = Math.max(1, Math.min(limit, shortestStalledRun));
                    psnsSinceLimitLearned = 0;
                    stallsInARow = 0;
                }
            }
            else
            {
                stallsInARow = 0;
            }
        }
        lastRequestNs = nowNs;
        answersAtLastRequest = answers;
    }

    /**
     * A packet was executed.
     *
     * @param ackRequested its AckReq bit.
     * @param nowNs        the progress round's time.
     * @return true when this made an ACK owed that was not before: {@link #release} must then be
     *         asked every progress round until it sends it.
     */
    boolean onExecuted(final boolean ackRequested, final long nowNs)
    {
        if (limit < MAX_UNACKNOWLEDGED_PSNS && ++psnsSinceLimitLearned >= LEARNED_LIMIT_LIFETIME_PSNS)
        {
            limit = MAX_UNACKNOWLEDGED_PSNS;
        }
        return ackRequested && owe(nowNs, false);
    }

    /**
     * A duplicate arrived: its requester retransmitted, so it waits; the ACK goes at once.
     *
     * @param nowNs the progress round's time.
     * @return true when this made an ACK owed that was not before (see {@link #onExecuted}).
     */
    boolean onDuplicate(final long nowNs)
    {
        return owe(nowNs, true);
    }

    private boolean owe(final long nowNs, final boolean now)
    {
        urgent |= now;
        if (owed)
        {
            return false;
        }
        owed = true;
        owedSinceNs = nowNs;
        return true;
    }

    /**
     * @return true when an ACK is owed, sent or not yet.
     */
    boolean isOwed()
    {
        return owed;
    }

    /**
     * Decides whether the owed ACK goes now. When it does, it counts as sent: the caller must send
     * an ACK of {@code lastExecutedPsn}.
     *
     * @param nowNs           the progress round's time.
     * @param lastExecutedPsn the PSN the ACK would acknowledge.
     * @param answers         request packets this queue pair has sent the requester so far.
     * @return true when the ACK must be sent now; false when none is owed or it may wait.
     */
    boolean release(final long nowNs, final int lastExecutedPsn, final long answers)
    {
        if (!owed)
        {
            return false;
        }
        final int unacknowledged = psnDistance(lastExecutedPsn, acknowledgedPsn);
        if (!urgent && delayNs != 0 && unacknowledged < limit)
        {
            if (nowNs - owedSinceNs < delayNs)
            {
                return false;
            }
            if (answers == answersAtLastRequest && nowNs - lastRequestNs >= delayNs / 2)
            {
                watchingForResume = true;
                timerReleaseNs = nowNs;
                psnsCoveredByTimerRelease = unacknowledged;
            }
            else
            {
                stallsInARow = 0; // busy until the timer: not waiting for this ACK
            }
        }
        else
        {
            stallsInARow = 0; // by count or at once: no stall
        }
        owed = false;
        urgent = false;
        acknowledgedPsn = lastExecutedPsn;
        return true;
    }

    /**
     * Decides whether the owed ACK goes right behind a request this queue pair just sent the
     * requester. Behind a request it costs neither side latency (each reads it after the request, and
     * in a ping-pong both are then waiting for the other), while {@link #release} may send it at any
     * moment, perhaps just as the requester's next packet arrives. So it goes now if it is due, or if
     * it would fall due before the next request is likely (one interval later); when it goes, it
     * counts as sent: the caller must send an ACK of {@code lastExecutedPsn}.
     *
     * @param nowNs            when the request went.
     * @param lastExecutedPsn  the PSN the ACK would acknowledge.
     * @param answerIntervalNs time between the previous request this queue pair sent and this one.
     * @return true when the ACK must be sent now.
     */
    boolean releaseWithAnswer(final long nowNs, final int lastExecutedPsn, final long answerIntervalNs)
    {
        if (!owed)
        {
            return false;
        }
        if (!urgent && delayNs != 0 && psnDistance(lastExecutedPsn, acknowledgedPsn) < limit &&
            nowNs - owedSinceNs + answerIntervalNs < delayNs)
        {
            return false;
        }
        stallsInARow = 0; // the requester hears from us: whatever it waited for, it was not only this ACK
        owed = false;
        urgent = false;
        acknowledgedPsn = lastExecutedPsn;
        return true;
    }

    /**
     * An ACK or NAK was sent outside {@link #release} and {@link #releaseWithAnswer}: a NAK
     * acknowledges every PSN before the one it names, so after either nothing up to {@code psn} is
     * owed.
     *
     * @param psn the PSN an ACK named, or the one before the PSN a NAK named.
     */
    void acknowledgedThrough(final int psn)
    {
        owed = false;
        urgent = false;
        acknowledgedPsn = psn;
    }

    /**
     * Forgets an owed ACK the queue pair can no longer send (it left RTR/RTS).
     */
    void drop()
    {
        owed = false;
        urgent = false;
    }

    /**
     * @return the most PSNs executed before an owed ACK goes: {@link #MAX_UNACKNOWLEDGED_PSNS}, or
     *         fewer while a limit learned from a waiting requester holds.
     */
    int limit()
    {
        return limit;
    }
}
