package io.ringwire.rdma.cm;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * A {@link ConnectionListener}'s handshake slots: at most {@link ConnectionManagerConfig#maxPendingHandshakes()}
 * management connections handshake at once, at most {@link ConnectionManagerConfig#maxPendingPerSource()}
 * of them from one source address, and a connection that finds every slot held takes the slot of one
 * that has not yet proved an identity (see {@link #take}), at most the handshake limit's worth every
 * {@value #EVICTION_WINDOW_MS} ms. A slot is held from the accept until the connection is refused or
 * closes, whichever comes first ({@link #release} gives it back once per admitted connection). A
 * refused connection's wait for its peer to read the REJ (its drain) holds no slot: at most the
 * handshake limit's worth of drains run at once ({@link #startDrain}).
 *
 * <p>Every slot taken costs a CHALLENGE's signature, however soon its connection closes, so one
 * source address also takes at most {@link ConnectionManagerConfig#challengesPerSource()} slots a
 * second (a burst of that many, then that rate): a loop that connects and closes at once holds few
 * slots but would otherwise keep the listener signing as fast as it can.
 *
 * <p>Threading: {@link #take} and {@link #admitted} on the accept loop; {@link #proved} on the
 * handshake's thread; {@link #release} on whichever thread closes the channel.
 */
final class HandshakeSlots
{
    /** {@link #take}: the connection has its slot. */
    static final int TAKEN = 0;
    /** {@link #take}: every slot is held and none could be taken from an unproven connection. */
    static final int AT_CAPACITY = 1;
    /** {@link #take}: the source address holds its limit. */
    static final int AT_SOURCE_LIMIT = 2;
    /** {@link #take}: the source address took its share of slots (of signatures) this second. */
    static final int AT_SOURCE_RATE = 3;
    /** The window over which evictions are bounded by the handshake limit. */
    static final long EVICTION_WINDOW_MS = 100;

    private final int maxPending;
    private final int maxPendingPerSource;
    private final Semaphore permits;
    /** Admitted connections whose slot is not yet given back: each is given back once. */
    private final Set<ManagementChannel> holding = ConcurrentHashMap.newKeySet();
    private final Semaphore drains;
    /** Handshakes each source address holds; an entry lives while its count is above zero. */
    private final ConcurrentHashMap<InetAddress, Integer> bySource = new ConcurrentHashMap<>();
    /**
     * Admitted connections whose REQ has not yet proved an identity, oldest first: whoever removes
     * one (its reader, once it proved one; the accept loop, evicting it) decides its fate.
     */
    private final ConcurrentLinkedDeque<ManagementChannel> unauthenticated = new ConcurrentLinkedDeque<>();
    /** The accept loop's: when the current eviction window began, and the evictions in it. */
    private long evictionWindowStartNs;
    private int evictionsInWindow;
    /** Nanoseconds between two slots one source address may take, on average. */
    private final long challengeIntervalNs;
    /** How far ahead of now a source's schedule may run: a burst of the rate's worth. */
    private final long challengeBurstNs;
    /**
     * The accept loop's: each source's next slot time on its own schedule (a source whose time has
     * passed is owed nothing and is dropped by the next {@link #sweepRates sweep}).
     */
    private final Map<InetAddress, Long> challengeSchedule = new HashMap<>();
    private long nextSweepNs;

    HandshakeSlots(final ConnectionManagerConfig config)
    {
        maxPending = config.maxPendingHandshakes();
        maxPendingPerSource = config.maxPendingPerSource();
        permits = new Semaphore(maxPending);
        drains = new Semaphore(maxPending);
        final int perSecond = config.challengesPerSource();
        challengeIntervalNs = TimeUnit.SECONDS.toNanos(1) / perSecond;
        challengeBurstNs = challengeIntervalNs * (perSecond - 1);
    }

    /**
     * A slot for a new connection from {@code source}: a free one, else the slot of a connection
     * that has not yet proved an identity, whose close gives its slot back. The one closed is the
     * oldest of those whose address holds the most handshakes: a flood's, rather than a genuine
     * peer's single handshake midway through its round trip (a genuine peer proves an identity
     * within a round trip of its CHALLENGE, and only connections that never speak grow old
     * unproven). An address at its own limit evicts no one, and since each taken slot costs a new
     * CHALLENGE's signature, no more than the handshake limit are evicted in a window.
     *
     * @param source the new connection's address.
     * @param evict  closes an evicted connection (and counts it): called before its slot is taken.
     * @return {@link #TAKEN}, {@link #AT_CAPACITY}, {@link #AT_SOURCE_LIMIT} or {@link #AT_SOURCE_RATE}.
     */
    int take(final InetAddress source, final BiConsumer<ManagementChannel, InetAddress> evict)
    {
        final long nowNs = System.nanoTime();
        sweepRates(nowNs);
        final long due = challengeDue(source, nowNs);
        if (due - nowNs > challengeBurstNs)
        {
            return AT_SOURCE_RATE; // before any eviction: a source over its rate takes no one's slot
        }
        if (!permits.tryAcquire() && !takeFromUnauthenticated(source, evict, nowNs))
        {
            return AT_CAPACITY;
        }
        if (!reserveForSource(source))
        {
            permits.release();
            return AT_SOURCE_LIMIT;
        }
        challengeSchedule.put(source, due + challengeIntervalNs);
        return TAKEN;
    }

    /** @return when, on its schedule, the source's next slot falls: now or later. */
    private long challengeDue(final InetAddress source, final long nowNs)
    {
        final Long scheduled = challengeSchedule.get(source);
        return null == scheduled || scheduled - nowNs < 0 ? nowNs : scheduled;
    }

    /** Once a second, forgets the sources owed nothing, so the schedule holds only recent ones. */
    private void sweepRates(final long nowNs)
    {
        if (nowNs - nextSweepNs < 0)
        {
            return;
        }
        nextSweepNs = nowNs + TimeUnit.SECONDS.toNanos(1);
        challengeSchedule.values().removeIf(scheduled -> scheduled - nowNs <= 0);
    }

    /** A connection {@link #take} gave a slot whose channel could not be made: the slot back. */
    void giveBack(final InetAddress source)
    {
        permits.release();
        releaseForSource(source);
    }

    /** The channel of a connection that has its slot: unproven until {@link #proved}. */
    void admitted(final ManagementChannel channel)
    {
        holding.add(channel);
        unauthenticated.addLast(channel);
    }

    /**
     * @return true when the channel proved an identity before anyone evicted it, from then on never
     *         evicted; false when it was evicted (closed, its slot taken).
     */
    boolean proved(final ManagementChannel channel)
    {
        return unauthenticated.remove(channel);
    }

    /** The channel was refused or closed: its slot is free (the first call gives it back, later ones nothing). */
    void release(final ManagementChannel channel)
    {
        if (holding.remove(channel))
        {
            unauthenticated.remove(channel);
            giveBack(channel.remoteAddress().getAddress());
        }
    }

    /** @return whether a refused connection may wait for its peer to read the REJ: one of the bounded drains is its. */
    boolean startDrain()
    {
        return drains.tryAcquire();
    }

    /** A drain {@link #startDrain} allowed has ended. */
    void endDrain()
    {
        drains.release();
    }

    private boolean takeFromUnauthenticated(final InetAddress source,
        final BiConsumer<ManagementChannel, InetAddress> evict, final long nowNs)
    {
        final Integer held = bySource.get(source);
        if (null != held && held >= maxPendingPerSource)
        {
            return false;
        }
        if (nowNs - evictionWindowStartNs > TimeUnit.MILLISECONDS.toNanos(EVICTION_WINDOW_MS))
        {
            evictionWindowStartNs = nowNs;
            evictionsInWindow = 0;
        }
        if (evictionsInWindow >= maxPending)
        {
            return false; // a churning flood: each eviction costs a signature
        }
        ManagementChannel victim;
        while (null != (victim = evictionCandidate()))
        {
            if (!unauthenticated.remove(victim))
            {
                continue; // it proved an identity meanwhile, or closed
            }
            evictionsInWindow++;
            evict.accept(victim, source); // its close gives its slot back
            if (permits.tryAcquire())
            {
                return true;
            }
        }
        return false;
    }

    /** @return the oldest unproven connection of the address holding the most handshakes, or null. */
    private ManagementChannel evictionCandidate()
    {
        ManagementChannel candidate = null;
        int most = 0;
        for (final ManagementChannel channel : unauthenticated) // oldest first
        {
            final Integer held = bySource.get(channel.remoteAddress().getAddress());
            final int count = null == held ? 0 : held;
            if (null == candidate || count > most)
            {
                candidate = channel;
                most = count;
            }
        }
        return candidate;
    }

    /** Takes a handshake slot for the source address, unless it holds its limit already. */
    private boolean reserveForSource(final InetAddress source)
    {
        final boolean[] reserved = new boolean[1];
        bySource.compute(source, (address, held) ->
        {
            final int count = null == held ? 0 : held;
            reserved[0] = count < maxPendingPerSource;
            return reserved[0] ? count + 1 : held;
        });
        return reserved[0];
    }

    private void releaseForSource(final InetAddress source)
    {
        bySource.computeIfPresent(source, (address, held) -> held > 1 ? held - 1 : null);
    }
}
