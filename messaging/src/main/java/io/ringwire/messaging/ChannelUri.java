package io.ringwire.messaging;

import io.ringwire.rdma.config.EndpointAddress;
import io.ringwire.rdma.config.Settings;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A channel, as a URI in Aeron's style: {@code ringwire:<provider>?endpoint=host:port|key=value...}.
 * The provider is shm, socket, roce, ibverbs or auto. {@code endpoint} is the subscriber's
 * connection-manager address: a subscription listens there; a publication connects there, and to
 * several subscribers at once when it lists several endpoints separated by commas (fan-out).
 * Optional: {@code interface=ip} the local address the data path binds (default: the address that
 * routes to the endpoint), {@code ring=bytes} the ring capacity (a power of two); the keys
 * ({@link ChannelKeys}): {@code identity=name} the identity this end proves, {@code accept=a,b} the
 * identities a subscription takes publications from, {@code peer=a,b} those a publication takes as
 * its subscribers at any endpoint, or {@code endpoint-peers=a,b} the one identity it takes at each
 * endpoint, in the endpoints' order (a fan-out whose subscribers are known apart, so that one's key
 * does not pass for another's); a subscription's limits: {@code max-ring=bytes} the largest ring it maps for one
 * publication, {@code max-per-identity=n} how many publications of one identity it takes at once,
 * {@code max-publications=n} how many it takes at once in all (default: the context's);
 * a publication's: {@code slow-timeout=ms} how long one subscriber may hold it back (more than three
 * quarters of its ring unread, or no room for a frame, reading less than a ring meanwhile) before
 * it is disconnected as a slow consumer (absent: every live subscriber is waited for, however slow),
 * {@code session-id=n} the session id it connects under, kept across its reconnects (absent: a random
 * one, new whenever it connects with no subscriber left, as Aeron's). A subscriber never trusts a
 * session id for who sent a frame: any publisher may name any one (the identity its key proved is
 * what a subscriber asks the image for).
 *
 * <p>Immutable; any thread.
 */
public final class ChannelUri
{
    private static final String PREFIX = "ringwire:";
    private static final String SLOW_TIMEOUT = "slow-timeout";
    private static final String MAX_PUBLICATIONS = "max-publications";
    private static final String SESSION_ID = "session-id";
    private static final String ENDPOINT_PEERS = "endpoint-peers";
    private static final List<String> PROVIDERS = List.of("shm", "socket", "roce", "ibverbs", "auto");
    private static final List<String> KEYS = List.of("endpoint", "interface", "ring", "identity", "accept", "peer",
        ENDPOINT_PEERS, "max-ring", "max-per-identity", "max-publications", "slow-timeout", "session-id");

    private final String provider;
    private final List<InetSocketAddress> endpoints;
    private final Map<String, String> parameters;
    private final String text;

    private ChannelUri(final String provider, final List<InetSocketAddress> endpoints,
        final Map<String, String> parameters, final String text)
    {
        this.provider = provider;
        this.endpoints = endpoints;
        this.parameters = parameters;
        this.text = text;
    }

    /**
     * Parses and checks a channel.
     *
     * @param channel e.g. {@code ringwire:roce?endpoint=10.0.0.1:40123}.
     * @return the channel.
     * @throws IllegalArgumentException naming what is wrong and what is allowed.
     */
    public static ChannelUri parse(final String channel)
    {
        if (null == channel || !channel.startsWith(PREFIX))
        {
            throw new IllegalArgumentException("channel '" + channel + "' must start with '" + PREFIX +
                "', e.g. ringwire:socket?endpoint=127.0.0.1:40123");
        }
        final String rest = channel.substring(PREFIX.length());
        final int question = rest.indexOf('?');
        final String provider = question < 0 ? rest : rest.substring(0, question);
        if (!PROVIDERS.contains(provider))
        {
            throw new IllegalArgumentException("channel '" + channel + "': unknown provider '" + provider +
                "'; allowed: " + String.join(", ", PROVIDERS));
        }
        final Map<String, String> parameters = new LinkedHashMap<>();
        if (question >= 0)
        {
            // Every separator counts: a trailing one is an empty parameter, refused below.
            for (final String pair : rest.substring(question + 1).split("\\|", -1))
            {
                final int equals = pair.indexOf('=');
                if (equals <= 0)
                {
                    throw new IllegalArgumentException("channel '" + channel + "': '" + pair + "' is not key=value");
                }
                final String key = pair.substring(0, equals);
                if (!KEYS.contains(key))
                {
                    throw new IllegalArgumentException("channel '" + channel + "': unknown parameter '" + key +
                        "'; allowed: " + String.join(", ", KEYS));
                }
                if (null != parameters.putIfAbsent(key, pair.substring(equals + 1)))
                {
                    throw new IllegalArgumentException("channel '" + channel + "': parameter '" + key +
                        "' is given twice");
                }
            }
        }
        final String endpointText = parameters.get("endpoint");
        if (null == endpointText || endpointText.isBlank())
        {
            throw new IllegalArgumentException("channel '" + channel + "' needs endpoint=host:port");
        }
        final List<InetSocketAddress> endpoints = new ArrayList<>();
        try
        {
            for (final String endpoint : endpointText.split(","))
            {
                final EndpointAddress address = EndpointAddress.parse("endpoint", endpoint, false);
                final InetSocketAddress resolved = new InetSocketAddress(address.host(), address.port());
                if (endpoints.contains(resolved))
                {
                    // Its second destination would be refused as a session already connected, for good.
                    throw new IllegalArgumentException("endpoint " + endpoint.trim() + " is listed twice: a " +
                        "publication reaches each subscriber once");
                }
                endpoints.add(resolved);
            }
            if (parameters.containsKey("interface"))
            {
                EndpointAddress.parse("interface", parameters.get("interface"), true);
            }
            if (parameters.containsKey("ring"))
            {
                Settings.parsePowerOfTwo("ring", parameters.get("ring"), 4096, 1 << 30);
            }
            if (parameters.containsKey("max-ring"))
            {
                Settings.parsePowerOfTwo("max-ring", parameters.get("max-ring"), 4096, 1 << 30);
            }
            if (parameters.containsKey("max-per-identity"))
            {
                Settings.parseInt("max-per-identity", parameters.get("max-per-identity"), 0, 4096,
                    "0 (no limit) to 4096");
            }
            if (parameters.containsKey(MAX_PUBLICATIONS))
            {
                maxPublicationsOf(parameters.get(MAX_PUBLICATIONS));
            }
            if (parameters.containsKey(SLOW_TIMEOUT))
            {
                slowTimeout(parameters.get(SLOW_TIMEOUT));
            }
            if (parameters.containsKey(SESSION_ID))
            {
                sessionIdOf(parameters.get(SESSION_ID));
            }
            if (parameters.containsKey(ENDPOINT_PEERS))
            {
                endpointPeersOf(parameters.get(ENDPOINT_PEERS), endpoints.size(), parameters.containsKey("peer"));
            }
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("channel '" + channel + "': " + ex.getMessage(), ex);
        }
        return new ChannelUri(provider, Collections.unmodifiableList(endpoints), Collections.unmodifiableMap(parameters),
            channel);
    }



    /**
     * @return the provider name.
     */
    public String provider()
    {
        return provider;
    }

    /**
     * @return the subscriber endpoints (one for a subscription; one or more for a publication).
     */
    public List<InetSocketAddress> endpoints()
    {
        return endpoints;
    }

    /**
     * @param defaultCapacity the context's ring capacity.
     * @return the channel's {@code ring=} capacity (checked when parsed), or {@code defaultCapacity}.
     */
    public int ringCapacity(final int defaultCapacity)
    {
        final String ring = parameters.get("ring");
        return null == ring ? defaultCapacity : Settings.parsePowerOfTwo("ring", ring, 4096, 1 << 30);
    }

    /**
     * @param defaultLimit the context's largest ring.
     * @return the channel's {@code max-ring=} (checked when parsed), or {@code defaultLimit}.
     */
    public int maxRingCapacity(final int defaultLimit)
    {
        final String limit = parameters.get("max-ring");
        return null == limit ? defaultLimit : Settings.parsePowerOfTwo("max-ring", limit, 4096, 1 << 30);
    }

    /**
     * @param defaultLimit the context's limit.
     * @return the channel's {@code max-per-identity=} (checked when parsed), or {@code defaultLimit}.
     */
    public int maxPublicationsPerIdentity(final int defaultLimit)
    {
        final String limit = parameters.get("max-per-identity");
        return null == limit ? defaultLimit : Settings.parseInt("max-per-identity", limit, 0, 4096,
            "0 (no limit) to 4096");
    }

    /**
     * @param defaultLimit the context's {@link MessagingContext#maxPublicationsPerSubscription()}.
     * @return the channel's {@code max-publications=} (checked when parsed), or {@code defaultLimit}.
     */
    public int maxPublications(final int defaultLimit)
    {
        final String limit = parameters.get(MAX_PUBLICATIONS);
        return null == limit ? defaultLimit : maxPublicationsOf(limit);
    }

    private static int maxPublicationsOf(final String value)
    {
        return Settings.parseInt(MAX_PUBLICATIONS, value, 1, 4096, "1 to 4096");
    }

    /**
     * @return the channel's {@code slow-timeout=} in milliseconds (checked when parsed), or 0 where it
     *         has none: a publication then waits for every live subscriber.
     */
    public long slowTimeoutMs()
    {
        final String timeout = parameters.get(SLOW_TIMEOUT);
        return null == timeout ? 0 : slowTimeout(timeout);
    }

    private static int slowTimeout(final String value)
    {
        return Settings.parseInt(SLOW_TIMEOUT, value, 1, 3_600_000, "1 to 3600000 (milliseconds)");
    }

    /**
     * @return the channel's {@code endpoint-peers=} (checked when parsed): the identity each endpoint's
     *         subscriber must prove, in the endpoints' order; empty where it has none.
     */
    public List<String> endpointPeers()
    {
        final String peers = parameters.get(ENDPOINT_PEERS);
        return null == peers ? List.of() : endpointPeersOf(peers, endpoints.size(), false);
    }

    private static List<String> endpointPeersOf(final String value, final int endpoints, final boolean withPeer)
    {
        if (withPeer)
        {
            throw new IllegalArgumentException(ENDPOINT_PEERS + "= and peer= both name whom a publication takes " +
                "as its subscribers: give one");
        }
        final List<String> names = new ArrayList<>();
        for (final String raw : value.split(",", -1))
        {
            final String name = raw.trim();
            if (name.isEmpty())
            {
                throw new IllegalArgumentException(ENDPOINT_PEERS + "=" + value + " has an empty name");
            }
            names.add(name);
        }
        if (names.size() != endpoints)
        {
            throw new IllegalArgumentException(ENDPOINT_PEERS + "=" + value + " names " + names.size() +
                " identities for " + endpoints + " endpoints: give one for each endpoint, in their order");
        }
        return List.copyOf(names);
    }

    /**
     * @return the channel's {@code session-id=} (checked when parsed), or empty where it has none.
     */
    public OptionalInt sessionId()
    {
        final String id = parameters.get(SESSION_ID);
        return null == id ? OptionalInt.empty() : OptionalInt.of(sessionIdOf(id));
    }

    private static int sessionIdOf(final String value)
    {
        try
        {
            return Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(SESSION_ID + "=" + value + " is not a 32-bit integer (" +
                Integer.MIN_VALUE + " to " + Integer.MAX_VALUE + ")", ex);
        }
    }

    /**
     * @param key a parameter name.
     * @return its value or null.
     */
    public String get(final String key)
    {
        return parameters.get(key);
    }

    @Override
    public String toString()
    {
        return text;
    }
}
