package io.ringwire.rdma.cm;

import io.ringwire.rdma.config.Settings;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Typed configuration of the connection manager, for either side: defaults, overridable by
 * {@code ringwire.cm.*} system properties, overridable again by the setters, checked by
 * {@link #conclude()}, which fails with a message naming the property and the allowed values.
 *
 * <p>Who is who: each side proves an {@link Identity} (its name and Ed25519 private key signs every
 * message it sends) and accepts only the {@link PeerKey}s it trusts. Give them as
 * {@link #identity(Identity)} and {@link #trust(Collection)}, or from key files
 * ({@value #IDENTITY_FILE_PROP}, {@value #TRUST_PROP}); or, for one trust zone, a shared secret from
 * which every holder derives the same identity {@value Identity#SHARED}, trusted by all of them.
 *
 * <ul>
 *   <li>{@value #IDENTITY_FILE_PROP}: this side's identity file ({@link KeyFiles}).</li>
 *   <li>{@value #TRUST_PROP}: public key files, or directories of them, comma-separated: the
 *       identities this side accepts.</li>
 *   <li>{@value #SECRET_PROP}: a shared secret, used when no identity is given: this side proves,
 *       and accepts, the identity every holder of the secret derives. A system property is visible
 *       to anyone who can list processes: prefer {@link #secret(byte[])} with bytes read from a
 *       protected file, and at least 16 random bytes; prefer keys of one's own to a secret.</li>
 *   <li>{@value #PROTOCOL_VERSION_PROP}: the protocol version spoken and accepted, default
 *       {@value ConnectionManager#PROTOCOL_VERSION}.</li>
 *   <li>{@value #TIMEOUT_PROP}: the limit on every handshake step (TCP connect, and the wait for
 *       each of REQ, REP and RTU), default {@value #DEFAULT_TIMEOUT_MS} ms.</li>
 *   <li>{@value #MAX_PENDING_PROP}: how many handshakes a listener runs at once (reading a REQ,
 *       waiting for the application, waiting for RTU), default {@value #DEFAULT_MAX_PENDING};
 *       further management connections take the slot of one that proved no identity yet, or are
 *       closed at once, and counted.</li>
 *   <li>{@value #MAX_PENDING_PER_SOURCE_PROP}: how many of those one source address may hold,
 *       default {@value #DEFAULT_MAX_PENDING_PER_SOURCE}, so that a flood of silent connections from
 *       one address cannot keep everyone else out; further connections from it are closed at once
 *       and counted (a flood from many addresses is met by eviction: see {@link ConnectionListener}).</li>
 *   <li>{@value #CHALLENGES_PER_SOURCE_PROP}: how many management connections a second one source
 *       address may open at a listener, default {@value #DEFAULT_CHALLENGES_PER_SOURCE} (a burst of
 *       that many, then that rate): each costs the listener a signed CHALLENGE, however soon it
 *       closes; further connections from it are closed at once, unanswered, and counted.</li>
 * </ul>
 *
 * <p>Threading: build it on one thread, conclude it, then share it read-only (concluding publishes
 * it safely to threads that read it afterwards).
 */
public final class ConnectionManagerConfig
{
    /** The shared secret, as UTF-8. */
    public static final String SECRET_PROP = "ringwire.cm.secret";
    /** This side's identity file. */
    public static final String IDENTITY_FILE_PROP = "ringwire.cm.identity.file";
    /** Public key files or directories of them, comma-separated: the identities accepted. */
    public static final String TRUST_PROP = "ringwire.cm.trust";
    /** The protocol version, 1 to 65535. */
    public static final String PROTOCOL_VERSION_PROP = "ringwire.cm.version";
    /** Milliseconds allowed for each handshake step, 1 to 3600000. */
    public static final String TIMEOUT_PROP = "ringwire.cm.timeout.ms";
    /** Handshakes a listener runs at once, 1 to 65536. */
    public static final String MAX_PENDING_PROP = "ringwire.cm.max.pending";
    /** Handshakes one source address may hold at once, 1 to 65536 (at most the total). */
    public static final String MAX_PENDING_PER_SOURCE_PROP = "ringwire.cm.max.pending.per.source";
    /** Management connections (signed CHALLENGEs) one source address may open a second, 1 to 1000000. */
    public static final String CHALLENGES_PER_SOURCE_PROP = "ringwire.cm.challenges.per.source";

    /** Default of {@link #TIMEOUT_PROP}. */
    public static final long DEFAULT_TIMEOUT_MS = 5000;
    /** Default of {@link #MAX_PENDING_PROP}. */
    public static final int DEFAULT_MAX_PENDING = 64;
    /** Default of {@link #MAX_PENDING_PER_SOURCE_PROP}. */
    public static final int DEFAULT_MAX_PENDING_PER_SOURCE = 16;
    /** Default of {@link #CHALLENGES_PER_SOURCE_PROP}. */
    public static final int DEFAULT_CHALLENGES_PER_SOURCE = 200;

    private static final long MAX_TIMEOUT_MS = TimeUnit.HOURS.toMillis(1);
    private static final int MAX_PENDING_LIMIT = 65_536;
    private static final int MAX_CHALLENGES_PER_SOURCE = 1_000_000;

    private byte[] secret = Settings.property(SECRET_PROP, "").getBytes(StandardCharsets.UTF_8);
    private String identityFile = Settings.property(IDENTITY_FILE_PROP, "");
    private String trustFiles = Settings.property(TRUST_PROP, "");
    private Identity identity;
    private final Map<String, PeerKey> trusted = new LinkedHashMap<>();
    private String protocolVersion = Settings.property(PROTOCOL_VERSION_PROP,
        Integer.toString(ConnectionManager.PROTOCOL_VERSION));
    private String timeoutMs = Settings.property(TIMEOUT_PROP, Long.toString(DEFAULT_TIMEOUT_MS));
    private String maxPending = Settings.property(MAX_PENDING_PROP, Integer.toString(DEFAULT_MAX_PENDING));
    private String maxPendingPerSource = Settings.property(MAX_PENDING_PER_SOURCE_PROP,
        Integer.toString(DEFAULT_MAX_PENDING_PER_SOURCE));
    private String challengesPerSource = Settings.property(CHALLENGES_PER_SOURCE_PROP,
        Integer.toString(DEFAULT_CHALLENGES_PER_SOURCE));

    private int protocolVersionValue;
    private long timeoutMsValue;
    private int maxPendingValue;
    private int maxPendingPerSourceValue;
    private int challengesPerSourceValue;
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
        concludeKeys();
        protocolVersionValue = Settings.parseInt(PROTOCOL_VERSION_PROP, protocolVersion, 1, 0xFFFF, "1 to 65535");
        timeoutMsValue = Settings.parseLong(TIMEOUT_PROP, timeoutMs, 1, MAX_TIMEOUT_MS, "1 to " + MAX_TIMEOUT_MS +
            " milliseconds");
        maxPendingValue = Settings.parseInt(MAX_PENDING_PROP, maxPending, 1, MAX_PENDING_LIMIT, "1 to " +
            MAX_PENDING_LIMIT);
        // Never more per source than in all: a single peer may still use the whole listener.
        maxPendingPerSourceValue = Math.min(maxPendingValue, Settings.parseInt(MAX_PENDING_PER_SOURCE_PROP,
            maxPendingPerSource, 1, MAX_PENDING_LIMIT, "1 to " + MAX_PENDING_LIMIT));
        challengesPerSourceValue = Settings.parseInt(CHALLENGES_PER_SOURCE_PROP, challengesPerSource, 1,
            MAX_CHALLENGES_PER_SOURCE, "1 to " + MAX_CHALLENGES_PER_SOURCE + " a second");
        concluded = true;
        return this;
    }

    /**
     * The identity and trust, from the setters, else the key files, else the secret.
     */
    private void concludeKeys()
    {
        if (null == identity && !identityFile.isBlank())
        {
            identity = KeyFiles.readIdentity(Path.of(identityFile.trim()));
        }
        if (trusted.isEmpty() && !trustFiles.isBlank())
        {
            final List<PeerKey> fromFiles = new ArrayList<>();
            for (final String file : trustFiles.split(","))
            {
                if (!file.isBlank())
                {
                    fromFiles.addAll(KeyFiles.readTrusted(Path.of(file.trim())));
                }
            }
            // All or nothing: a refused set leaves nothing trusted.
            trusted.putAll(byName(fromFiles, " in " + TRUST_PROP + "=" + trustFiles));
        }
        if (null == identity && secret.length > 0)
        {
            identity = Identity.derive(Identity.SHARED, secret);
            if (trusted.isEmpty())
            {
                trusted.put(Identity.SHARED, identity.peerKey());
            }
        }
        if (null == identity)
        {
            throw new IllegalArgumentException("no identity: the connection manager signs every message as this " +
                "side's identity; give one with ConnectionManagerConfig.identity(Identity) or -D" + IDENTITY_FILE_PROP +
                "=FILE (make one with ./ringwire keygen NAME), or share a secret for one trust zone with -D" +
                SECRET_PROP + "=... or secret(bytes)");
        }
        if (trusted.isEmpty())
        {
            throw new IllegalArgumentException("no trusted identity: this side would refuse every peer; give the " +
                "public keys it accepts with ConnectionManagerConfig.trust(keys) or -D" + TRUST_PROP +
                "=FILE_OR_DIRECTORY[,...]");
        }
    }

    /**
     * The same limits and timeouts with another identity and another set of trusted keys: what one
     * endpoint of many (a subscription that accepts only some identities) uses.
     *
     * @param endpointIdentity the identity the endpoint proves.
     * @param accepted         the keys it accepts; at least one.
     * @return a concluded configuration.
     * @throws IllegalStateException    unless this configuration is concluded.
     * @throws IllegalArgumentException when {@code accepted} is empty or names one identity twice
     *                                  with different keys.
     */
    public ConnectionManagerConfig withAccess(final Identity endpointIdentity, final Collection<PeerKey> accepted)
    {
        checkConcluded();
        if (accepted.isEmpty())
        {
            // Concluding with no keys would fall back to the trust files: an endpoint meant to take
            // nobody would take everyone they name.
            throw new IllegalArgumentException("an endpoint accepts at least one key; none given for " +
                endpointIdentity.name());
        }
        return new ConnectionManagerConfig()
            .protocolVersion(protocolVersionValue)
            .timeoutMs(timeoutMsValue)
            .maxPendingHandshakes(maxPendingValue)
            .maxPendingPerSource(maxPendingPerSourceValue)
            .challengesPerSource(challengesPerSourceValue)
            .identity(endpointIdentity)
            .trust(accepted)
            .conclude();
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
     * One trust zone: this side proves, and accepts, the identity {@value Identity#SHARED} that every
     * holder of the secret derives ({@link Identity#derive}), unless an identity or trusted keys are
     * given as well.
     *
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
     * @param identity what this side proves: every message it sends is signed with its key.
     * @return this.
     * @throws IllegalStateException when already concluded.
     */
    public ConnectionManagerConfig identity(final Identity identity)
    {
        checkMutable();
        this.identity = Objects.requireNonNull(identity, "identity");
        return this;
    }

    /**
     * @param keys the identities this side accepts, replacing any given before.
     * @return this.
     * @throws IllegalStateException    when already concluded.
     * @throws IllegalArgumentException when one name comes with two different keys, or one key with
     *                                  two names (its holder could prove either, so a link that
     *                                  accepts one of them would accept the other's holder).
     */
    public ConnectionManagerConfig trust(final Collection<PeerKey> keys)
    {
        checkMutable();
        final Map<String, PeerKey> byName = byName(keys, "");
        trusted.clear();
        trusted.putAll(byName);
        return this;
    }

    /**
     * @param where where the keys came from, for the refusal ("" or " in ...").
     * @return the keys by name, each once.
     * @throws IllegalArgumentException when one name comes with two different keys, or one key with
     *                                  two names.
     */
    private static Map<String, PeerKey> byName(final Collection<PeerKey> keys, final String where)
    {
        final Map<String, PeerKey> byName = new LinkedHashMap<>();
        final Map<String, String> nameByKey = new HashMap<>();
        for (final PeerKey key : keys)
        {
            final PeerKey earlier = byName.putIfAbsent(key.name(), key);
            if (null != earlier && !earlier.equals(key))
            {
                throw new IllegalArgumentException("two different keys are named '" + key.name() + "' (" +
                    earlier.fingerprint() + ", " + key.fingerprint() + ")" + where + ": an identity has one key; " +
                    "remove the one that is not its");
            }
            final String otherName = nameByKey.putIfAbsent(HexFormat.of().formatHex(key.encoded()), key.name());
            if (null != otherName && !otherName.equals(key.name()))
            {
                throw new IllegalArgumentException("'" + otherName + "' and '" + key.name() + "' have the same key (" +
                    key.fingerprint() + ")" + where + ": its holder could prove either; each identity needs a key " +
                    "of its own (./ringwire keygen NAME)");
            }
        }
        return byName;
    }

    /**
     * @return the identity this side proves.
     * @throws IllegalStateException unless concluded.
     */
    public Identity identity()
    {
        checkConcluded();
        return identity;
    }

    /**
     * @return the identities this side accepts, by name; unmodifiable.
     * @throws IllegalStateException unless concluded.
     */
    public Map<String, PeerKey> trusted()
    {
        checkConcluded();
        return Collections.unmodifiableMap(trusted);
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
     * @param perSecond management connections one source address may open a second at a listener,
     *                  1 to 1000000 (a burst of that many, then that rate).
     * @return this.
     * @throws IllegalStateException when already concluded.
     */
    public ConnectionManagerConfig challengesPerSource(final int perSecond)
    {
        checkMutable();
        this.challengesPerSource = Integer.toString(perSecond);
        return this;
    }

    /**
     * @return management connections one source address may open a second at a listener.
     * @throws IllegalStateException unless concluded.
     */
    public int challengesPerSource()
    {
        checkConcluded();
        return challengesPerSourceValue;
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
     * @return the values, never a secret or a private key.
     */
    @Override
    public String toString()
    {
        return "ConnectionManagerConfig{protocolVersion=" + protocolVersion + ", timeoutMs=" + timeoutMs +
            ", maxPendingHandshakes=" + maxPending + ", maxPendingPerSource=" + maxPendingPerSource +
            ", identity=" + (null == identity ? "unset" : identity.name()) + ", trusted=" + trusted.keySet() +
            ", secret=" + (secret.length == 0 ? "unset" : "set") + '}';
    }
}
