package io.ringwire.rdma.soft;

/**
 * Something that moves work forward when its owning thread polls: a queue pair reading its
 * connection, acknowledging, timing out. Called by {@link SoftCompletionQueue#poll} on the owning
 * thread; must not allocate in steady state.
 */
@FunctionalInterface
public interface ProgressSource
{
    /**
     * Does the work that is ready, without blocking.
     *
     * @param nowNs {@link System#nanoTime()} read once by the caller; 0 when no source attached to
     *              the caller {@link #usesClock() uses the clock}.
     * @return an amount of work done, 0 when idle.
     */
    int progress(long nowNs);

    /**
     * Whether {@link #progress(long)} needs the caller to read the clock. A clock read costs more
     * than a poll of an empty ring (far more in a virtual machine whose TSC read traps), and the
     * caller's busy-poll loop pays it on every round, before it can see new work: a source that
     * keeps its own coarse time says false and reads the clock only when it is idle.
     *
     * @return true unless the source reads the clock itself; constant for the source's life.
     */
    default boolean usesClock()
    {
        return true;
    }

    /**
     * Whether a completion this source produces may be handed to the poll's handler at once, from
     * inside {@link #progress(long)}, rather than after it returned (see {@link SoftCompletionQueue}).
     * The handler may then post to this source's queue pairs (or close nothing) while this source is
     * in the middle of its progress, so a source says true only when every state its progress is
     * working on is consistent at the moment it produces a completion, and when a progress the
     * handler's posts start (a full send queue drives progress) cannot re-enter it.
     *
     * @return false unless the source is built for it; constant for the source's life.
     */
    default boolean allowsDirectDelivery()
    {
        return false;
    }
}
