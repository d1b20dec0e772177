package io.ringwire.rdma.support;

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
     * @param nowNs {@link System#nanoTime()} read once by the caller.
     * @return an amount of work done, 0 when idle.
     */
    int progress(long nowNs);
}
