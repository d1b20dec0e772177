package io.ringwire.perf;

/**
 * Both ends of a ping-pong driven by one thread, for {@code ringwire perf path}: each round trip is
 * two hops, a message each way, and nothing crosses cores.
 *
 * <p>Threading: created, run and closed on one thread.
 */
interface PathHops extends AutoCloseable
{
    /**
     * Runs round trips, allocation-free in steady state.
     *
     * @param roundTrips how many (two hops each).
     * @throws IllegalStateException when a completion fails, a post is refused or a message goes
     *                               missing (the benchmark ends: numbers without every message are
     *                               no numbers).
     */
    void roundTrips(long roundTrips);

    @Override
    void close();
}
