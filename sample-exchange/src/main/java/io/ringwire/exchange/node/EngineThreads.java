package io.ringwire.exchange.node;

import io.ringwire.rdma.host.OnlineCpus;

/**
 * Which of the engine's work runs on threads of its own rather than the engine's.
 *
 * @param journaller a {@link Journaller} journals ahead of the engine.
 * @param digest     a {@link io.ringwire.exchange.engine.DigestAgent} keeps the output digest.
 * @param replica    a {@link io.ringwire.exchange.engine.SnapshotReplica} writes the snapshots.
 */
public record EngineThreads(boolean journaller, boolean digest, boolean replica)
{
    /** The fewest CPUs on which a replica writes the snapshots instead of the engine's thread. */
    public static final int REPLICA_MIN_CPUS = 4;
    /**
     * The fewest CPUs on which a thread of its own keeps the output digest instead of the engine's:
     * those on which a replica writes the snapshots (a snapshot holds the digest's chain, which the
     * engine's thread cannot read while another thread keeps it).
     */
    public static final int DIGEST_THREAD_MIN_CPUS = REPLICA_MIN_CPUS;
    /**
     * The fewest CPUs on which a journaller spins ahead of the engine: the exchange's five spinning
     * roles, the journaller, and two for the threads that do not spin.
     */
    public static final int JOURNALLER_MIN_CPUS = 8;

    /**
     * @throws IllegalArgumentException for a digest thread without a replica: the engine's thread
     *                                  would then write snapshots holding a digest chain that
     *                                  another thread is still updating.
     */
    public EngineThreads
    {
        if (digest && !replica)
        {
            throw new IllegalArgumentException("the digest's thread needs the replica's: a snapshot the engine's " +
                "thread writes takes the digest's chain from that thread");
        }
    }

    /** Everything on the engine's thread. */
    public static final EngineThreads NONE = new EngineThreads(false, false, false);
    /** Everything that can leave the engine's thread on threads of its own. */
    public static final EngineThreads ALL = new EngineThreads(true, true, true);

    /**
     * @param cpus online CPUs.
     * @return what that many allow: see {@link #JOURNALLER_MIN_CPUS}, {@link #DIGEST_THREAD_MIN_CPUS}
     *         and {@link #REPLICA_MIN_CPUS}.
     */
    public static EngineThreads forCpus(final int cpus)
    {
        return new EngineThreads(cpus >= JOURNALLER_MIN_CPUS, cpus >= DIGEST_THREAD_MIN_CPUS, cpus >= REPLICA_MIN_CPUS);
    }

    /**
     * @param words {@code auto} (what this host's CPUs allow), {@code none}, or any of
     *              {@code journaller}, {@code digest} and {@code replica}, comma-separated.
     * @return the threads they name.
     * @throws IllegalArgumentException naming a word it does not know.
     */
    public static EngineThreads parse(final String words)
    {
        final String trimmed = words.trim();
        if (trimmed.isEmpty() || "auto".equals(trimmed))
        {
            return forCpus(OnlineCpus.count());
        }
        if ("none".equals(trimmed))
        {
            return NONE;
        }
        boolean journaller = false;
        boolean digest = false;
        boolean replica = false;
        for (final String word : trimmed.split(","))
        {
            switch (word.trim())
            {
                case "journaller" -> journaller = true;
                case "digest" -> digest = true;
                case "replica" -> replica = true;
                default -> throw new IllegalArgumentException("takes auto, none, or any of journaller, digest " +
                    "and replica, not '" + word.trim() + "'");
            }
        }
        return new EngineThreads(journaller, digest, replica);
    }
}
