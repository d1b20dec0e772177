package io.ringwire.rdma.cm;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a {@link ConnectionListener} counts: handshakes that went through and every way one can fail
 * on the passive side. Each failure is also logged (WARNING) with the remote socket address.
 *
 * <p>Threading: incremented by the listener's threads and by threads completing pending
 * connections; readable from any thread. Not a hot path, hence plain atomics.
 */
public final class ConnectionManagerCounters
{
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong rejectedBadAuthentication = new AtomicLong();
    private final AtomicLong rejectedBadVersion = new AtomicLong();
    private final AtomicLong rejectedByApplication = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();
    private final AtomicLong refusedAtCapacity = new AtomicLong();
    private final AtomicLong refusedPerSource = new AtomicLong();
    private final AtomicLong refusedSourceRate = new AtomicLong();
    private final AtomicLong evictedUnauthenticated = new AtomicLong();
    private final AtomicLong rejectedStale = new AtomicLong();
    private final AtomicLong rejectedUnknownIdentity = new AtomicLong();
    private final AtomicLong challengesRefused = new AtomicLong();
    private final AtomicLong lostInHandshake = new AtomicLong();

    ConnectionManagerCounters()
    {
    }

    /**
     * @return authenticated REQs queued for {@link ConnectionListener#accept}.
     */
    public long accepted()
    {
        return accepted.get();
    }

    /**
     * @return handshakes completed on the passive side (RTU received, queue pair in RTS).
     */
    public long completed()
    {
        return completed.get();
    }

    /**
     * @return messages (REQ or RTU) this listener refused because their signature did not verify or
     *         they answered the wrong message.
     */
    public long rejectedBadAuthentication()
    {
        return rejectedBadAuthentication.get();
    }

    /**
     * @return messages refused because of an unsupported protocol version.
     */
    public long rejectedBadVersion()
    {
        return rejectedBadVersion.get();
    }

    /**
     * @return requests the application refused with {@link PendingConnection#reject(String)}.
     */
    public long rejectedByApplication()
    {
        return rejectedByApplication.get();
    }

    /**
     * @return frames refused as malformed: bad magic, unknown type, bad length, truncated, bad field.
     */
    public long malformed()
    {
        return malformed.get();
    }

    /**
     * @return handshake steps that timed out: a REQ or RTU that did not arrive in time, or a request
     *         the application did not accept in time.
     */
    public long timedOut()
    {
        return timedOut.get();
    }

    /**
     * @return management connections closed at once because the limit of pending handshakes was
     *         reached.
     */
    public long refusedAtCapacity()
    {
        return refusedAtCapacity.get();
    }

    /**
     * @return management connections that had not yet proved an identity, closed when the listener
     *         was at its limit of pending handshakes so that a newer connection could take the slot.
     */
    public long evictedUnauthenticated()
    {
        return evictedUnauthenticated.get();
    }

    /**
     * @return management connections closed at once because their source address already held
     *         {@link ConnectionManagerConfig#maxPendingPerSource()} handshakes.
     */
    public long refusedPerSource()
    {
        return refusedPerSource.get();
    }

    /**
     * @return management connections closed at once, unanswered, because their source address had
     *         opened {@link ConnectionManagerConfig#challengesPerSource()} in the last second.
     */
    public long refusedSourceRate()
    {
        return refusedSourceRate.get();
    }

    /**
     * @return requests refused as {@link RejectReason#STALE_REQUEST}: replayed, or without the
     *         challenge of their connection.
     */
    public long rejectedStale()
    {
        return rejectedStale.get();
    }

    /**
     * @return requests refused as {@link RejectReason#UNKNOWN_IDENTITY}: signed as an identity the
     *         listener does not accept.
     */
    public long rejectedUnknownIdentity()
    {
        return rejectedUnknownIdentity.get();
    }

    void incrementRefusedPerSource()
    {
        refusedPerSource.incrementAndGet();
    }

    void incrementRefusedSourceRate()
    {
        refusedSourceRate.incrementAndGet();
    }

    void incrementEvictedUnauthenticated()
    {
        evictedUnauthenticated.incrementAndGet();
    }

    void incrementAccepted()
    {
        accepted.incrementAndGet();
    }

    void incrementCompleted()
    {
        completed.incrementAndGet();
    }

    void incrementRefusedAtCapacity()
    {
        refusedAtCapacity.incrementAndGet();
    }

    /**
     * Counts a refusal under its reason. QUEUE_PAIR_FAILED has no counter: it is a local failure
     * surfaced to the application as an exception.
     */
    void incrementRejected(final RejectReason reason)
    {
        switch (reason)
        {
            case BAD_AUTHENTICATION -> rejectedBadAuthentication.incrementAndGet();
            case UNSUPPORTED_VERSION -> rejectedBadVersion.incrementAndGet();
            case MALFORMED -> malformed.incrementAndGet();
            case REJECTED_BY_APPLICATION -> rejectedByApplication.incrementAndGet();
            case TIMEOUT -> timedOut.incrementAndGet();
            case STALE_REQUEST -> rejectedStale.incrementAndGet();
            case UNKNOWN_IDENTITY -> rejectedUnknownIdentity.incrementAndGet();
            case QUEUE_PAIR_FAILED ->
            {
            }
        }
    }

    /**
     * @return handshakes the active side ended with a REJ in answer to this listener's CHALLENGE: it
     *         does not accept the listener's identity at this endpoint, holds another key for its
     *         name, or speaks another protocol version (the REJ is read unsigned, as a REJ always is).
     */
    public long challengesRefused()
    {
        return challengesRefused.get();
    }

    void incrementChallengesRefused()
    {
        challengesRefused.incrementAndGet();
    }

    /**
     * @return management connections that failed under the listener while it challenged the peer
     *         or read its REQ (reset, or any other I/O error but a clean close or a timeout): a peer
     *         that went away mid-handshake, or one that resets on purpose.
     */
    public long lostInHandshake()
    {
        return lostInHandshake.get();
    }

    void incrementLostInHandshake()
    {
        lostInHandshake.incrementAndGet();
    }

    @Override
    public String toString()
    {
        return "ConnectionManagerCounters{accepted=" + accepted() + ", completed=" + completed() +
            ", rejectedBadAuthentication=" + rejectedBadAuthentication() + ", rejectedBadVersion=" +
            rejectedBadVersion() + ", rejectedByApplication=" + rejectedByApplication() + ", malformed=" +
            malformed() + ", timedOut=" + timedOut() + ", refusedAtCapacity=" + refusedAtCapacity() +
            ", refusedPerSource=" + refusedPerSource() + ", refusedSourceRate=" + refusedSourceRate() +
            ", evictedUnauthenticated=" + evictedUnauthenticated() +
            ", rejectedStale=" + rejectedStale() +
            ", rejectedUnknownIdentity=" + rejectedUnknownIdentity() +
            ", challengesRefused=" + challengesRefused() +
            ", lostInHandshake=" + lostInHandshake() + '}';
    }
}
