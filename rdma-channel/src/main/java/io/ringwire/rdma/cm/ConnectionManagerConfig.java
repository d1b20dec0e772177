package io.ringwire.rdma.cm;

import io.ringwire.rdma.config.Settings;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Typed configuration of the connection manager, for either side: defaults, overridable by
 * {@code ringwire.cm.*} system properties, overridable again by the setters, checked by
 * {@link #conclude()}, which fails with a message naming the property and the allowed values.
 *
 * <ul>
 *   <li>{@value #SECRET_PROP}: the shared secret every message is authenticated with
 *       (HMAC-SHA256). Required, no default; both sides must hold the same bytes. A system property is
 *       visible to anyone who can list processes: prefer {@link #secret(byte[])} with bytes read from
 *       a protected file, and use at least 16 random bytes.</li>
 *   <li>{@value #PROTOCOL_VERSION_PROP}: the protocol version spoken and accepted, default
 *       {@value ConnectionManager#PROTOCOL_VERSION}.</li>
 *   <li>{@value #TIMEOUT_PROP}: the limit on every handshake step (TCP connect, and the wait for
 *       each of REQ, REP and RTU), default {@value #DEFAULT_TIMEOUT_MS} ms.</li>
 *   <li>{@value #MAX_PENDING_PROP}: how many handshakes a listener runs at once (reading a REQ,
 *       waiting for the application, waiting for RTU), default {@value #DEFAULT_MAX_PENDING};
 *       further management connections are closed at once and counted.</li>
 *   <li>{@value #MAX_PENDING_PER_SOURCE_PROP}: how many of those one source address may hold,
 *       default {@value #DEFAULT_MAX_PENDING_PER_SOURCE}, so that a flood of silent connections from
 *       one host cannot keep everyone else out; further connections from it are closed at once and
 *       counted.</li>
 * </ul>
 *
 * <p>Threading: build it on one thread, conclude it, then share it read-only (concluding publishes
 * it safely to threads that read it afterwards).
 */
public final class ConnectionManagerConfig
{
    /** The shared secret, as UTF-8. */
    public static final String SECRET_PROP = "ringwire.cm.secret";
    /** The protocol version, 1 to 65535. */
    public static final String PROTOCOL_VERSION_PROP = "ringwire.cm.version";
    /** Milliseconds allowed for each handshake step, 1 to 3600000. */
    public static final String TIMEOUT_PROP = "ringwire.cm.timeout.ms";
    /** Handshakes a listener runs at once, 1 to 65536. */
    public static final String MAX_PENDING_PROP = "ringwire.cm.max.pending";
    /** Handshakes one source address may hold at once, 1 to 65536 (at most the total). */
    public static final String MAX_PENDING_PER_SOURCE_PROP = "ringwire.cm.max.pending.per.source";

    /** Default of {@link #TIMEOUT_PROP}. */
    public static final long DEFAULT_TIMEOUT_MS = 5000;
    /** Default of {@link #MAX_PENDING_PROP}. */
    public static final int DEFAULT_MAX_PENDING = 64;
    /** Default of {@link #MAX_PENDING_PER_SOURCE_PROP}. */
    public static final int DEFAULT_MAX_PENDING_PER_SOURCE = 16;

    private static final long MAX_TIMEOUT_MS = TimeUnit.HOURS.toMillis(1);
    private static final int MAX_PENDING_LIMIT = 65_536;

    private byte[] secret = Settings.property(SECRET_PROP, "").getBytes(StandardCharsets.UTF_8);
    private String protocolVersion = Settings.property(PROTOCOL_VERSION_PROP,
        Integer.toString(ConnectionManager.PROTOCOL_VERSION));
    private String timeoutMs = Settings.property(TIMEOUT_PROP, Long.toString(DEFAULT_TIMEOUT_MS));
    private String maxPending = Settings.property(MAX_PENDING_PROP, Integer.toString(DEFAULT_MAX_PENDING));
    private String maxPendingPerSource = Settings.property(MAX_PENDING_PER_SOURCE_PROP,
        Integer.toString(DEFAULT_MAX_PENDING_PER_SOURCE));

    private int protocolVersionValue;
    private long timeoutMsValue;
    private int maxPendingValue;
    private int maxPendingPerSourceValue;
    private FrameAuthenticator authenticator;
    // Written last by conclude(): a thread that sees it true sees every value above.
    private volatile boolean concluded;

    /**
     * Checks every value and freezes the configuration. Calling it again does nothing.
     *
     * @return this.
     * @throws IllegalArgumentException naming the offending property and its allowed values.
     */
    public ConnectionManagerConfig conclude()
    {
        if (concluded)
        {
            return this;
        }
        if (secret.length == 0)
        {
            throw new IllegalArgumentException(SECRET_PROP + " is empty: the connection manager authenticates " +
                "every message with a shared secret; set the same secret on both sides with -D" + SECRET_PROP +
                "=... or ConnectionManagerConfig.secret(bytes)");
        }
        protocolVersionValue = Settings.parseInt(PROTOCOL_VERSION_PROP, protocolVersion, 1, 0xFFFF, "1 to 65535");
        timeoutMsValue = Settings.parseLong(TIMEOUT_PROP, timeoutMs, 1, MAX_TIMEOUT_MS, "1 to " + MAX_TIMEOUT_MS +
            " milliseconds");
        maxPendingValue = Settings.parseInt(MAX_PENDING_PROP, maxPending, 1, MAX_PENDING_LIMIT, "1 to " +
            MAX_PENDING_LIMIT);
        // Never more per source than in all: a single peer may still use the whole listener.
        maxPendingPerSourceValue = Math.min(maxPendingValue, Settings.parseInt(MAX_PENDING_PER_SOURCE_PROP,
            maxPendingPerSource, 1, MAX_PENDING_LIMIT, "1 to " + MAX_PENDING_LIMIT));
        authenticator = new FrameAuthenticator(secret);
        concluded = true;
        return this;
    }


    private void checkMutable()
    {
        if (concluded)
        {
            throw new IllegalStateException("ConnectionManagerConfig is concluded and can no longer change");
        }
    }

    /**
     * @throws IllegalStateException unless {@link #conclude()} has been called.
     */
    void checkConcluded()
    {
        if (!concluded)
        {
            throw new IllegalStateException("call ConnectionManagerConfig.conclude() before using it");
        }
    }

    /**
     * @param secret the shared secret; copied. Must be the same bytes on both sides.
     * @return this.
     * @throws IllegalStateException when already concluded.
     */
    public ConnectionManagerConfig secret(final byte[] secret)
    {
        checkMutable();
        this.secret = Objects.requireNonNull(secret, "secret").clone();
        return this;
    }

    /**
     * @param version the protocol version to speak and accept, 1 to 65535.
     * @return this.
     * @throws IllegalStateException when already concluded.
     */
    public ConnectionManagerConfig protocolVersion(final int version)
    {
        checkMutable();
        this.protocolVersion = Integer.toString(version);
        return this;
    }

    /**
     * @param timeoutMs the limit on each handshake step, 1 to 3600000 milliseconds.
     * @return this.
     * @throws IllegalStateException when already concluded.
     */
    public ConnectionManagerConfig timeoutMs(final long timeoutMs)
    {
        checkMutable();
        this.timeoutMs = Long.toString(timeoutMs);
        return this;
    }

    /**
     * @param maxPending handshakes a listener runs at once, 1 to 65536.
     * @return this.
     * @throws IllegalStateException when already concluded.
     */
    public ConnectionManagerConfig maxPendingHandshakes(final int maxPending)
    {
        checkMutable();
        this.maxPending = Integer.toString(maxPending);
        return this;
    }

    /**
     * @param maxPending handshakes one source address may hold at once, 1 to 65536 (capped at
     *                   {@link #maxPendingHandshakes()}).
     * @return this.
     * @throws IllegalStateException when already concluded.
     */
    public ConnectionManagerConfig maxPendingPerSource(final int maxPending)
    {
        checkMutable();
        this.maxPendingPerSource = Integer.toString(maxPending);
        return this;
    }

    /**
     * @return how many handshakes one source address may hold at once.
     * @throws IllegalStateException unless concluded.
     */
    public int maxPendingPerSource()
    {
        checkConcluded();
        return maxPendingPerSourceValue;
    }

    /**
     * @return the protocol version.
     * @throws IllegalStateException unless concluded.
     */
    public int protocolVersion()
    {
        checkConcluded();
        return protocolVersionValue;
    }

    /**
     * @return the limit on each handshake step.
     * @throws IllegalStateException unless concluded.
     */
    public Duration timeout()
    {
        checkConcluded();
        return Duration.ofMillis(timeoutMsValue);
    }

    /**
     * @return the limit on each handshake step in milliseconds.
     * @throws IllegalStateException unless concluded.
     */
    public long timeoutMs()
    {
        checkConcluded();
        return timeoutMsValue;
    }

    /**
     * @return how many handshakes a listener runs at once.
     * @throws IllegalStateException unless concluded.
     */
    public int maxPendingHandshakes()
    {
        checkConcluded();
        return maxPendingValue;
    }

    /**
     * @return signs and verifies frames with the secret, which is not otherwise readable.
     */
    FrameAuthenticator authenticator()
    {
        checkConcluded();
        return authenticator;
    }

    /**
     * @return the values, never the secret.
     */
    @Override
    public String toString()
    {
        return "ConnectionManagerConfig{protocolVersion=" + protocolVersion + ", timeoutMs=" + timeoutMs +
            ", maxPendingHandshakes=" + maxPending + ", maxPendingPerSource=" + maxPendingPerSource +
            ", secret=" + (secret.length == 0 ? "unset" : "set") + '}';
    }
}
