package io.ringwire.messaging;

import io.ringwire.rdma.host.OnlineCpus;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.cm.ConnectionManagerConfig;
import io.ringwire.rdma.cm.Identity;
import io.ringwire.rdma.cm.PeerKey;
import io.ringwire.rdma.config.Settings;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Typed configuration of publications and subscriptions, like Aeron's {@code Context}: defaults,
 * overridden by {@code ringwire.*} system properties, overridden again by the setters, checked by
 * {@link #conclude()} with a message naming the property and the allowed values.
 *
 * <p>Keys: publications and subscriptions prove an {@link Identity} and accept the {@link PeerKey}s
 * the context trusts ({@link #identity}, {@link #trust}, or {@value #IDENTITY_FILES_PROP} and
 * {@value #TRUST_PROP}); a channel names which of several identities it proves ({@code identity=}),
 * and narrows whom it accepts ({@code accept=} on a subscription, {@code peer=} on a publication).
 * Without keys, a shared secret ({@value #SECRET_PROP}) makes every holder one identity of one
 * trust zone.
 *
 * <p>Threading: build on one thread, conclude, then share read-only.
 */
public final class MessagingContext
{
    /** Ring capacity in bytes (a power of two); a channel's {@code ring=} parameter overrides it. */
    public static final String RING_CAPACITY_PROP = "ringwire.messaging.ring.bytes";
    /** The subscriber sends credit every 1/N of the ring consumed. */
    public static final String CREDIT_FRACTION_PROP = "ringwire.messaging.credit.fraction";
    /** Idle publications send a heartbeat frame, and subscribers a credit update, this often. */
    public static final String HEARTBEAT_INTERVAL_PROP = "ringwire.messaging.heartbeat.interval.ms";
    /** A peer silent this long is gone: the publication reports NOT_CONNECTED, the image closes. */
    public static final String LIVENESS_TIMEOUT_PROP = "ringwire.messaging.liveness.timeout.ms";
    /** A disconnected publication retries its subscribers this often. */
    public static final String RECONNECT_INTERVAL_PROP = "ringwire.messaging.reconnect.interval.ms";
    /**
     * Shared secret authenticating connections (both ends must agree), when no identity is given:
     * every holder proves, and accepts, the one identity the secret derives.
     */
    public static final String SECRET_PROP = "ringwire.messaging.secret";
    /** This process's identity files, comma-separated ({@code ringwire keygen} makes them). */
    public static final String IDENTITY_FILES_PROP = "ringwire.messaging.identity.files";
    /** Public key files, or directories of them, comma-separated: the identities this process accepts. */
    public static final String TRUST_PROP = "ringwire.messaging.trust";
    /**
     * The largest ring a subscription maps for one publication; a publication asking for more is
     * refused at the handshake. A subscription's channel {@code max-ring=} overrides it.
     */
    public static final String MAX_RING_PROP = "ringwire.messaging.subscription.max.ring.bytes";
    /**
     * How many publications of one identity a subscription takes at once; 0: no limit of its own
     * beyond {@link #MAX_PUBLICATIONS_PROP}. A subscription's channel {@code max-per-identity=}
     * overrides it.
     */
    public static final String MAX_PER_IDENTITY_PROP = "ringwire.messaging.subscription.max.publications.per.identity";
    /** Directory of the counters files read by {@code ringwire stat}. */
    public static final String COUNTERS_DIR_PROP = "ringwire.messaging.counters.dir";
    /** Default of {@link #COUNTERS_DIR_PROP}: tmpfs, so counters cost no disk I/O. */
    public static final String DEFAULT_COUNTERS_DIR = "/dev/shm/ringwire-counters";
    /** Every Nth write is signaled, so send queues drain on every provider. */
    public static final String SIGNAL_INTERVAL_PROP = "ringwire.messaging.signal.interval";
    /**
     * How many publications one subscription takes at once; the subscription sizes its shared
     * completion queue for them, and takes fewer when the device's queues are smaller.
     */
    public static final String MAX_PUBLICATIONS_PROP = "ringwire.messaging.subscription.max.publications";
    /** Idle strategy of the agents {@link Agents} starts: busy, yield, backoff or sleep. */
    public static final String IDLE_PROP = "ringwire.messaging.idle";
    /**
     * Cores the agents {@link Agents} starts are pinned to, in order (e.g. "2,3"); empty: none
     * pinned. Each must be an online CPU.
     */
    public static final String CORES_PROP = "ringwire.messaging.cores";
    /**
     * End-to-end CRC32C in every data frame (see {@code FrameDescriptor.CHECKSUM_FLAG}): {@code auto}
     * (the default) asks for it where the subscription's transport does not verify every byte
     * itself (roce without a view of the IP header), {@code on} always, {@code off} never. The
     * subscription decides and tells each publication in the handshake.
     */
    public static final String CHECKSUM_PROP = "ringwire.messaging.checksum";
    private static final List<String> CHECKSUM_MODES = List.of("auto", "on", "off");

    private String ringCapacity = Settings.property(RING_CAPACITY_PROP, Integer.toString(1 << 20));
    private String creditFraction = Settings.property(CREDIT_FRACTION_PROP, "4");
    private String heartbeatIntervalMs = Settings.property(HEARTBEAT_INTERVAL_PROP, "100");
    private String livenessTimeoutMs = Settings.property(LIVENESS_TIMEOUT_PROP, "2000");
    private String reconnectIntervalMs = Settings.property(RECONNECT_INTERVAL_PROP, "200");
    private final ContextKeys keys = new ContextKeys(Settings.property(SECRET_PROP, ""),
        Settings.property(IDENTITY_FILES_PROP, ""), Settings.property(TRUST_PROP, ""));
    private String maxRing = Settings.property(MAX_RING_PROP, Integer.toString(64 << 20));
    private String maxPerIdentity = Settings.property(MAX_PER_IDENTITY_PROP, "0");
    private String countersDirectory = Settings.property(COUNTERS_DIR_PROP, DEFAULT_COUNTERS_DIR);
    private String signalInterval = Settings.property(SIGNAL_INTERVAL_PROP, "16");
    private String maxPublications = Settings.property(MAX_PUBLICATIONS_PROP, "32");
    private String idleStrategy = Settings.property(IDLE_PROP, "busy");
    private String cores = Settings.property(CORES_PROP, "");
    private String checksum = Settings.property(CHECKSUM_PROP, "auto");
    private java.util.function.Consumer<RdmaConfig> rdmaSettings = config -> { };

    private boolean concluded;
    private int ringCapacityValue;
    private int creditFractionValue;
    private long heartbeatIntervalNs;
    private long livenessTimeoutNs;
    private long reconnectIntervalNs;
    private int signalIntervalValue;
    private int maxPublicationsValue;
    private int maxRingValue;
    private int maxPerIdentityValue;
    private int[] coresValue;
    private ConnectionManagerConfig connectionManagerConfig;

    /**
     * Checks every value and freezes the context.
     *
     * @return this.
     * @throws IllegalArgumentException naming the property and its allowed values.
     */
    public MessagingContext conclude()
    {
        ringCapacityValue = Settings.parsePowerOfTwo(RING_CAPACITY_PROP, ringCapacity, 4096, 1 << 30);
        // Read just short of a credit (under 1/fraction of the ring), the ring must still take the
        // longest message with its frame headers and padding (up to about 5/8 of it): 2 would not.
        creditFractionValue = Settings.parseInt(CREDIT_FRACTION_PROP, creditFraction, 3, 64, "3 to 64");
        heartbeatIntervalNs = TimeUnit.MILLISECONDS.toNanos(Settings.parseLong(HEARTBEAT_INTERVAL_PROP,
            heartbeatIntervalMs, 1, 60_000, "1 to 60000 ms"));
        livenessTimeoutNs = TimeUnit.MILLISECONDS.toNanos(Settings.parseLong(LIVENESS_TIMEOUT_PROP, livenessTimeoutMs,
            2, 3_600_000, "2 to 3600000 ms"));
        if (livenessTimeoutNs < 2 * heartbeatIntervalNs)
        {
            throw Settings.invalid(LIVENESS_TIMEOUT_PROP, livenessTimeoutMs, "is shorter than twice " +
                HEARTBEAT_INTERVAL_PROP + "=" + heartbeatIntervalMs, "at least twice the heartbeat interval");
        }
        reconnectIntervalNs = TimeUnit.MILLISECONDS.toNanos(Settings.parseLong(RECONNECT_INTERVAL_PROP,
            reconnectIntervalMs, 1, 3_600_000, "1 to 3600000 ms"));
        signalIntervalValue = Settings.parseInt(SIGNAL_INTERVAL_PROP, signalInterval, 1, 1024, "1 to 1024");
        maxPublicationsValue = Settings.parseInt(MAX_PUBLICATIONS_PROP, maxPublications, 1, 4096, "1 to 4096");
        // Kept as checked (trimmed): the agents tell a spinning strategy by its name.
        idleStrategy = Settings.oneOf(IDLE_PROP, idleStrategy, Agents.IDLE_STRATEGIES);
        coresValue = parseCores(cores);
        if (null == countersDirectory || countersDirectory.isBlank())
        {
            // Blank is the working directory, which `stat` run from anywhere else would not look in.
            throw Settings.invalid(COUNTERS_DIR_PROP, countersDirectory, "is blank", "a directory");
        }
        checksum = Settings.oneOf(CHECKSUM_PROP, checksum, CHECKSUM_MODES);
        maxRingValue = Settings.parsePowerOfTwo(MAX_RING_PROP, maxRing, 4096, 1 << 30);
        maxPerIdentityValue = Settings.parseInt(MAX_PER_IDENTITY_PROP, maxPerIdentity, 0, 4096, "0 (no limit) to 4096");
        connectionManagerConfig = keys.conclude(new ConnectionManagerConfig()
            .timeoutMs(Math.max(1000, TimeUnit.NANOSECONDS.toMillis(livenessTimeoutNs))));
        concluded = true;
        return this;
    }


    private static int[] parseCores(final String list)
    {
        if (list.isBlank())
        {
            return new int[0];
        }
        final String allowed = "a comma list of online CPU numbers, e.g. 2,3 (online here: " + OnlineCpus.list() + ")";
        final int[] parsed = Settings.parseIntList(CORES_PROP, list, 0, 4095, allowed);
        for (final int core : parsed)
        {
            if (!OnlineCpus.isOnline(core))
            {
                throw Settings.invalid(CORES_PROP, list, "names CPU " + core + ", which is not online here", allowed);
            }
        }
        return parsed;
    }

    /**
     * @param mode auto, on or off (see {@link #CHECKSUM_PROP}).
     * @return this.
     */
    public MessagingContext checksum(final String mode)
    {
        checkMutable();
        this.checksum = mode;
        return this;
    }

    /**
     * @param transportVerifiesIntegrity whether the subscription's device keeps corrupted bytes out
     *                                   by itself ({@code Device.verifiesIntegrity()}).
     * @return whether a subscription on such a device asks publications to checksum every data frame.
     */
    public boolean frameChecksums(final boolean transportVerifiesIntegrity)
    {
        checkConcluded();
        return "on".equals(checksum) || ("auto".equals(checksum) && !transportVerifiesIntegrity);
    }

    private void checkMutable()
    {
        if (concluded)
        {
            throw new IllegalStateException("MessagingContext is concluded");
        }
    }

    private void checkConcluded()
    {
        if (!concluded)
        {
            throw new IllegalStateException("call MessagingContext.conclude() first");
        }
    }

    /**
     * @param settings applied to each device's configuration (shm directory, timeouts, MTU...) before
     *                 the channel sets the provider and the address.
     * @return this.
     */
    public MessagingContext rdmaSettings(final java.util.function.Consumer<RdmaConfig> settings)
    {
        checkMutable();
        this.rdmaSettings = settings;
        return this;
    }

    /**
     * A fresh device configuration for a channel.
     *
     * @param provider    from the channel.
     * @param bindAddress the local address the data path binds.
     * @return the concluded configuration.
     */
    RdmaConfig newRdmaConfig(final String provider, final String bindAddress)
    {
        final RdmaConfig config = new RdmaConfig();
        rdmaSettings.accept(config);
        return config.provider(provider).bindAddress(bindAddress).conclude();
    }

    /**
     * @param bytes ring capacity, a power of two.
     * @return this.
     */
    public MessagingContext ringCapacity(final int bytes)
    {
        checkMutable();
        this.ringCapacity = Integer.toString(bytes);
        return this;
    }

    /**
     * @return the default ring capacity.
     */
    public int ringCapacity()
    {
        checkConcluded();
        return ringCapacityValue;
    }

    /**
     * @param fraction credit sent every 1/fraction of the ring, 3 to 64.
     * @return this.
     */
    public MessagingContext creditFraction(final int fraction)
    {
        checkMutable();
        this.creditFraction = Integer.toString(fraction);
        return this;
    }

    /**
     * @return the credit fraction.
     */
    public int creditFraction()
    {
        checkConcluded();
        return creditFractionValue;
    }

    /**
     * @param ms heartbeat interval.
     * @return this.
     */
    public MessagingContext heartbeatIntervalMs(final long ms)
    {
        checkMutable();
        this.heartbeatIntervalMs = Long.toString(ms);
        return this;
    }

    /**
     * @return heartbeat interval in ns.
     */
    public long heartbeatIntervalNs()
    {
        checkConcluded();
        return heartbeatIntervalNs;
    }

    /**
     * @param ms liveness timeout.
     * @return this.
     */
    public MessagingContext livenessTimeoutMs(final long ms)
    {
        checkMutable();
        this.livenessTimeoutMs = Long.toString(ms);
        return this;
    }

    /**
     * @return liveness timeout in ns.
     */
    public long livenessTimeoutNs()
    {
        checkConcluded();
        return livenessTimeoutNs;
    }

    /**
     * @param ms reconnect interval.
     * @return this.
     */
    public MessagingContext reconnectIntervalMs(final long ms)
    {
        checkMutable();
        this.reconnectIntervalMs = Long.toString(ms);
        return this;
    }

    /**
     * @return reconnect interval in ns.
     */
    public long reconnectIntervalNs()
    {
        checkConcluded();
        return reconnectIntervalNs;
    }

    /**
     * @param secret shared secret: used when the context holds no identity; every end that holds it
     *               proves, and accepts, the identity it derives (one trust zone).
     * @return this.
     */
    public MessagingContext secret(final String secret)
    {
        checkMutable();
        keys.secret(secret);
        return this;
    }

    /**
     * Adds an identity this process proves; the first is the default of a channel that names none.
     *
     * @param identity the identity.
     * @return this.
     */
    public MessagingContext identity(final Identity identity)
    {
        checkMutable();
        keys.add(identity);
        return this;
    }

    /**
     * Adds keys this process accepts.
     *
     * @param keys the public keys.
     * @return this.
     */
    public MessagingContext trust(final Collection<PeerKey> keys)
    {
        checkMutable();
        this.keys.trust(keys);
        return this;
    }

    /**
     * @return the identities this process proves, the default first; unmodifiable.
     */
    public List<Identity> identities()
    {
        checkConcluded();
        return keys.identities();
    }

    /**
     * @return the keys this process accepts; unmodifiable.
     */
    public List<PeerKey> trusted()
    {
        checkConcluded();
        return keys.trusted();
    }

    /**
     * @param bytes the largest ring a subscription maps for one publication (a power of two, 4096 to 2^30).
     * @return this.
     */
    public MessagingContext maxRingCapacity(final int bytes)
    {
        checkMutable();
        this.maxRing = Integer.toString(bytes);
        return this;
    }

    /**
     * @return the largest ring a subscription maps for one publication, unless its channel says otherwise.
     */
    public int maxRingCapacity()
    {
        checkConcluded();
        return maxRingValue;
    }

    /**
     * @param publications how many publications of one identity a subscription takes at once (0: no
     *                     limit of its own).
     * @return this.
     */
    public MessagingContext maxPublicationsPerIdentity(final int publications)
    {
        checkMutable();
        this.maxPerIdentity = Integer.toString(publications);
        return this;
    }

    /**
     * @return how many publications of one identity a subscription takes at once (0: no limit of its own).
     */
    public int maxPublicationsPerIdentity()
    {
        checkConcluded();
        return maxPerIdentityValue;
    }

    /**
     * @param directory for counters files.
     * @return this.
     */
    public MessagingContext countersDirectory(final String directory)
    {
        checkMutable();
        this.countersDirectory = directory;
        return this;
    }

    /**
     * @return the counters directory.
     */
    public Path countersDirectory()
    {
        return Path.of(countersDirectory);
    }

    /**
     * @param interval every Nth write signaled.
     * @return this.
     */
    public MessagingContext signalInterval(final int interval)
    {
        checkMutable();
        this.signalInterval = Integer.toString(interval);
        return this;
    }

    /**
     * @return the signal interval.
     */
    public int signalInterval()
    {
        checkConcluded();
        return signalIntervalValue;
    }

    /**
     * @param publications how many publications one subscription takes at once (1 to 4096).
     * @return this.
     */
    public MessagingContext maxPublicationsPerSubscription(final int publications)
    {
        checkMutable();
        this.maxPublications = Integer.toString(publications);
        return this;
    }

    /**
     * @return how many publications one subscription takes at once, at most (the device may allow
     *         fewer: {@link Subscription#maxPublications()}).
     */
    public int maxPublicationsPerSubscription()
    {
        checkConcluded();
        return maxPublicationsValue;
    }

    /**
     * @return the connection manager settings derived from this context: the default identity,
     *         every trusted key; {@link ChannelKeys} narrows them per channel.
     */
    public ConnectionManagerConfig connectionManagerConfig()
    {
        checkConcluded();
        return connectionManagerConfig;
    }

    /**
     * @param name idle strategy of the agents {@link Agents} starts: busy, yield, backoff or sleep.
     * @return this.
     */
    public MessagingContext idleStrategy(final String name)
    {
        checkMutable();
        this.idleStrategy = name;
        return this;
    }

    /**
     * @return the agents' idle strategy name.
     */
    public String idleStrategy()
    {
        checkConcluded();
        return idleStrategy;
    }

    /**
     * @param list cores to pin agents to, in order (e.g. "2,3"); empty for none.
     * @return this.
     */
    public MessagingContext cores(final String list)
    {
        checkMutable();
        this.cores = list;
        return this;
    }

    /**
     * @return the cores agents are pinned to, in order (empty: none pinned); a copy.
     */
    public int[] cores()
    {
        checkConcluded();
        return coresValue.clone();
    }
}
