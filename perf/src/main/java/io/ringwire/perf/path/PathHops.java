package io.ringwire.perf.path;

import org.agrona.CloseHelper;

import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Both ends of a ping-pong driven by one thread, for {@code ringwire perf path}: each round trip is
 * two hops, a message each way, and nothing crosses cores. Subclasses send the ping and poll each
 * side (their handlers count {@link #pings} and {@link #echoes} and answer); this class waits for
 * each hop, polling the other side too when the awaited one has nothing, so a provider that needs
 * both ends driven (socket adopting its connection, roce's ACKs) progresses.
 *
 * <p>Both sides are closed with the hops. Subclasses keep their own typed references to them, so
 * the timed loop reads them without a cast.
 *
 * <p>Threading: created, run and closed on one thread.
 */
abstract class PathHops implements AutoCloseable
{
    private static final long HOP_TIMEOUT_NS = 10_000_000_000L;

    private final AutoCloseable pingerSide;
    private final AutoCloseable pongerSide;

    /** Pings the ponger's handler has had; this thread only. */
    protected long pings;
    /** Echoes the pinger's handler has had. */
    protected long echoes;
    /** The first thing that went wrong (set by the handlers), or null. */
    protected String failure;
    private long idleRounds;
    private long waitStartNs;

    /**
     * @param pinger the side that pings, connected to the other.
     * @param ponger the side that echoes.
     */
    PathHops(final AutoCloseable pinger, final AutoCloseable ponger)
    {
        this.pingerSide = pinger;
        this.pongerSide = ponger;
    }

    /**
     * Opens both sides and joins them into hops, closing both when anything fails.
     *
     * @param side    opens one side.
     * @param connect connects the pinger's side and the ponger's and makes the hops.
     * @param <S>     the kind of side.
     * @param <H>     the kind of hops.
     * @return the hops, owning both sides.
     */
    static <S extends AutoCloseable, H extends PathHops> H openBoth(final Supplier<S> side,
        final BiFunction<S, S, H> connect)
    {
        final S pinger = side.get();
        S ponger = null;
        try
        {
            ponger = side.get();
            return connect.apply(pinger, ponger);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(ponger, pinger);
            throw ex;
        }
    }

    /** Posts (or offers) the next ping. */
    protected abstract void sendPing();

    /** @return work the ponger's side found (its handler answers each ping). */
    protected abstract int pollPonger();

    /** @return work the pinger's side found. */
    protected abstract int pollPinger();

    /** @return the transport and both sides' state, for a failure. */
    protected abstract String describe();

    /**
     * Runs round trips, allocation-free in steady state.
     *
     * @param roundTrips how many (two hops each).
     * @throws IllegalStateException when a completion fails, a post is refused or a message goes
     *                               missing (numbers without every message are no numbers).
     */
    final void roundTrips(final long roundTrips)
    {
        for (long i = 0; i < roundTrips; i++)
        {
            sendPing();
            awaitHop(false);
            awaitHop(true);
        }
    }

    /**
     * Polls until the hop arrives: the ping at the ponger's side, or the echo at the pinger's. Called
     * with a constant at both calls, where the JIT inlines it and folds the choice of side away, so
     * the timed loop keeps no branch for it.
     */
    private void awaitHop(final boolean echo)
    {
        final long expected = (echo ? echoes : pings) + 1;
        idleRounds = 0;
        while ((echo ? echoes : pings) < expected)
        {
            if ((echo ? pollPinger() : pollPonger()) == 0)
            {
                idle(echo, echo ? "echo" : "ping");
            }
            failIfFailed();
        }
    }

    /** Polls the other side (it may have to progress for this one to) and, now and then, checks the time. */
    private void idle(final boolean pollPonger, final String what)
    {
        if (pollPonger)
        {
            pollPonger();
        }
        else
        {
            pollPinger();
        }
        if (++idleRounds == 1)
        {
            waitStartNs = System.nanoTime();
        }
        else if ((idleRounds & 0x3FF) == 0 && System.nanoTime() - waitStartNs > HOP_TIMEOUT_NS)
        {
            throw new IllegalStateException("perf path: no " + what + " within 10 s over " + describe());
        }
    }

    private void failIfFailed()
    {
        if (null != failure)
        {
            throw new IllegalStateException("perf path over " + describe() + ": " + failure);
        }
    }

    @Override
    public final void close()
    {
        CloseHelper.quietCloseAll(pongerSide, pingerSide);
    }
}
