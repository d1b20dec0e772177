package io.ringwire.exchange.demo;

import io.ringwire.exchange.node.EngineThreads;

import java.util.List;

/**
 * How the in-process exchange's roles share spinning threads, by the CPUs the machine has. Each
 * group is one agent on one thread, pinned to a CPU of its own, the engine's first. The threads
 * that do not spin (the engine's output digest, the main thread, the FIX door's and members'
 * threads) need CPU too, so a layout leaves at least one CPU beyond its spinning groups, two where
 * it can.
 *
 * <ul>
 *   <li>{@link #SHARED}, up to 3 CPUs: the engine, and one thread for every other role.</li>
 *   <li>{@link #PAIRED}, 4 to 6 CPUs: the engine; gateway and market-data fan-out; clients and
 *       market-data subscriber.</li>
 *   <li>{@link #SEPARATE}, 7 CPUs or more: every role on a core of its own; from
 *       {@value EngineThreads#JOURNALLER_MIN_CPUS} the engine's journaller spins on one more, and every
 *       CPU beyond that takes one more group of clients ({@link #clientGroups}).</li>
 * </ul>
 */
enum ThreadLayout
{
    SHARED(List.of(List.of(Role.ENGINE), List.of(Role.GATEWAY, Role.MARKET_DATA, Role.CLIENTS, Role.MARKET_DATA_SUBSCRIBER))),
    PAIRED(List.of(List.of(Role.ENGINE), List.of(Role.GATEWAY, Role.MARKET_DATA),
        List.of(Role.CLIENTS, Role.MARKET_DATA_SUBSCRIBER))),
    SEPARATE(List.of(List.of(Role.ENGINE), List.of(Role.GATEWAY), List.of(Role.MARKET_DATA), List.of(Role.CLIENTS),
        List.of(Role.MARKET_DATA_SUBSCRIBER)));

    /** The roles of the in-process exchange that run as agents. */
    enum Role
    {
        ENGINE("engine"),
        GATEWAY("gateway"),
        MARKET_DATA("market data"),
        CLIENTS("clients"),
        MARKET_DATA_SUBSCRIBER("market-data subscriber");

        private final String words;

        Role(final String words)
        {
            this.words = words;
        }

        /** @return the role's name in a printed layout. */
        String words()
        {
            return words;
        }
    }

    private final List<List<Role>> groups;

    ThreadLayout(final List<List<Role>> groups)
    {
        this.groups = groups;
    }

    /**
     * @param cpus online CPUs.
     * @return the layout for that many.
     */
    static ThreadLayout forCpus(final int cpus)
    {
        if (cpus >= SEPARATE.groups.size() + 2)
        {
            return SEPARATE;
        }
        return cpus >= PAIRED.groups.size() + 1 ? PAIRED : SHARED;
    }

    /**
     * How many groups the simulated clients are dealt into, each on a spinning thread of its own in
     * the place of {@link Role#CLIENTS}: one, but in {@link #SEPARATE}, where every CPU beyond those
     * its groups, the engine's journaller and two threads that do not spin take adds one, up to one
     * per client.
     *
     * @param cpus    online CPUs.
     * @param clients simulated clients.
     * @return client groups, at least one.
     */
    static int clientGroups(final int cpus, final int clients)
    {
        if (forCpus(cpus) != SEPARATE)
        {
            return 1;
        }
        final int taken = SEPARATE.groups.size() + (EngineThreads.forCpus(cpus).journaller() ? 1 : 0) + 2;
        return Math.max(1, Math.min(clients, 1 + cpus - taken));
    }

    /** @return the groups, each one thread's roles, the engine's first. */
    List<List<Role>> groups()
    {
        return groups;
    }

    /**
     * @param group one of {@link #groups()}.
     * @return its roles in words, joined with " + ".
     */
    static String words(final List<Role> group)
    {
        final StringBuilder text = new StringBuilder();
        for (final Role role : group)
        {
            text.append(text.isEmpty() ? "" : " + ").append(role.words());
        }
        return text.toString();
    }
}
