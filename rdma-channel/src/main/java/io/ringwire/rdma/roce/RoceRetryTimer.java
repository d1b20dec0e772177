package io.ringwire.rdma.roce;

import io.ringwire.rdma.RdmaConfig;

/**
 * A RoCEv2 requester's timers and retry budgets (IBA 9.7.6): the retransmit timer, which doubles
 * its timeout at each expiry up to 64 times the configured one; retry_cnt, the expiries allowed
 * before RETRY_EXCEEDED (7: until the peer timeout); rnr_retry, the receiver-not-ready NAKs allowed
 * before RNR_RETRY_EXCEEDED (7: forever), with the wait each such NAK asks for; and the peer
 * timeout, after which a peer that acknowledged nothing is gone. Progress of the acknowledgements
 * resets all of them.
 *
 * <p>Threading: the device's owning thread. Allocation-free.
 */
final class RoceRetryTimer
{
    /** The retry count meaning "no limit": retransmit until the peer timeout, retry RNR forever. */
    private static final int UNLIMITED = 7;

    private final long baseTimeoutNs;
    private final long peerTimeoutNs;
    private final int retryCount;
    private final int rnrRetryCount;

    private long timerStartNs;
    private long lastAckProgressNs;
    private long currentTimeoutNs;
    private int retriesLeft;
    private int rnrRetriesLeft;
    private long rnrResumeNs;
    private boolean rnrWaiting;

    /**
     * @param config the ACK timeout, retry counts and peer timeout.
     */
    RoceRetryTimer(final RdmaConfig config)
    {
        baseTimeoutNs = config.ackTimeoutNs();
        peerTimeoutNs = config.peerTimeoutNs();
        retryCount = config.retryCount();
        rnrRetryCount = config.rnrRetryCount();
    }

    /**
     * Fills the retry budgets and sets the configured timeout, as at connection.
     */
    void reset()
    {
        currentTimeoutNs = baseTimeoutNs;
        retriesLeft = retryCount;
        rnrRetriesLeft = rnrRetryCount;
    }

    /**
     * A request went out with none outstanding before it: both timers start now.
     *
     * @param nowNs the time of the post.
     */
    void start(final long nowNs)
    {
        timerStartNs = nowNs;
        lastAckProgressNs = nowNs;
    }

    /**
     * An acknowledgement completed requests or moved the oldest unacknowledged PSN: the peer lives.
     *
     * @param nowNs the progress round's time.
     */
    void onAcknowledgementProgress(final long nowNs)
    {
        lastAckProgressNs = nowNs;
        timerStartNs = nowNs;
        reset();
    }

    /**
     * Restarts the retransmit timer (transmission was rewound at the peer's request).
     *
     * @param nowNs the progress round's time.
     */
    void restart(final long nowNs)
    {
        timerStartNs = nowNs;
    }

    /**
     * @param nowNs the progress round's time.
     * @return true when the peer has acknowledged nothing for the peer timeout.
     */
    boolean isPeerSilent(final long nowNs)
    {
        return nowNs - lastAckProgressNs > peerTimeoutNs;
    }

    /**
     * @param nowNs the progress round's time.
     * @return true when the retransmit timer expired.
     */
    boolean hasExpired(final long nowNs)
    {
        return nowNs - timerStartNs > currentTimeoutNs;
    }

    /**
     * Takes one retransmission from the budget.
     *
     * @return false when none is left: the request fails with RETRY_EXCEEDED.
     */
    boolean takeRetry()
    {
        return retryCount == UNLIMITED || retriesLeft-- > 0;
    }

    /**
     * Restarts the expired timer with twice its timeout, up to 64 times the configured one.
     *
     * @param nowNs the progress round's time.
     */
    void backOff(final long nowNs)
    {
        currentTimeoutNs = Math.min(currentTimeoutNs * 2, baseTimeoutNs * 64);
        timerStartNs = nowNs;
    }

    /**
     * Takes one RNR retry from the budget.
     *
     * @return false when none is left: the request fails with RNR_RETRY_EXCEEDED.
     */
    boolean takeRnrRetry()
    {
        return rnrRetryCount == UNLIMITED || rnrRetriesLeft-- > 0;
    }

    /**
     * Holds transmission for the wait an RNR NAK asks for, and restarts the retransmit timer.
     *
     * @param nowNs the progress round's time.
     * @param timer the NAK's RNR timer field.
     */
    void waitForReceiver(final long nowNs, final int timer)
    {
        rnrWaiting = true;
        rnrResumeNs = nowNs + rnrDelayNs(timer);
        timerStartNs = nowNs;
    }

    /**
     * @return true while an RNR NAK's wait holds transmission: the timers do not run meanwhile.
     */
    boolean isWaitingForReceiver()
    {
        return rnrWaiting;
    }

    /**
     * @param nowNs the progress round's time.
     * @return true while an RNR NAK's wait still holds transmission; ends the wait once it is over.
     */
    boolean holdsTransmission(final long nowNs)
    {
        if (rnrWaiting)
        {
            if (nowNs - rnrResumeNs < 0)
            {
                return true;
            }
            rnrWaiting = false;
        }
        return false;
    }

    /** The RNR NAK timer field in microseconds, coarsely (IBA table 45 starts at 0.01 ms). */
    private static long rnrDelayNs(final int timer)
    {
        return timer == 0 ? 655_360_000L : Math.min(10_000L << (timer / 2), 100_000_000L);
    }
}
