package io.ringwire.messaging;

import io.ringwire.rdma.cm.ConnectionManagerConfig;
import io.ringwire.rdma.cm.Identity;
import io.ringwire.rdma.cm.PeerKey;

import java.util.ArrayList;
import java.util.List;

/**
 * Which keys apply to one channel: the identity its end proves ({@code identity=}, or the context's
 * only one), and whom it accepts: a subscription the publications of the identities its
 * {@code accept=} names, a publication the subscribers of those its {@code peer=} names, or at each
 * endpoint only the one its {@code endpoint-peers=} names there; every key the context trusts when the
 * channel names none. What a channel names must be among what the
 * context holds, so a typo is refused when the channel opens, not taken for "nobody".
 *
 * <p>Threading: called when a publication or subscription opens; not a hot path.
 */
final class ChannelKeys
{
    /** The channel parameter naming the identity an end proves. */
    static final String IDENTITY = "identity";
    /** The channel parameter naming the identities a subscription accepts. */
    static final String ACCEPT = "accept";
    /** The channel parameter naming the identities a publication accepts as subscribers. */
    static final String PEER = "peer";
    /** The channel parameter naming the one identity a publication accepts at each endpoint. */
    static final String ENDPOINT_PEERS = "endpoint-peers";

    private ChannelKeys()
    {
    }

    /**
     * @param context the concluded context.
     * @param channel a subscription's channel.
     * @return the connection-manager settings its listener uses.
     * @throws IllegalArgumentException naming the parameter and what the context holds.
     */
    static ConnectionManagerConfig forSubscription(final MessagingContext context, final ChannelUri channel)
    {
        return context.connectionManagerConfig().withAccess(identity(context, channel),
            accepted(context, channel, ACCEPT, null == channel.get(PEER) ? ENDPOINT_PEERS : PEER));
    }

    /**
     * @param context the concluded context.
     * @param channel a publication's channel.
     * @return the connection-manager settings its connection to each endpoint uses, in the endpoints'
     *         order.
     * @throws IllegalArgumentException naming the parameter and what the context holds.
     */
    static List<ConnectionManagerConfig> forPublication(final MessagingContext context, final ChannelUri channel)
    {
        final Identity identity = identity(context, channel);
        final List<String> endpointPeers = channel.endpointPeers();
        final List<ConnectionManagerConfig> configs = new ArrayList<>();
        if (endpointPeers.isEmpty())
        {
            final ConnectionManagerConfig config = context.connectionManagerConfig().withAccess(identity,
                accepted(context, channel, PEER, ACCEPT));
            for (int i = 0; i < channel.endpoints().size(); i++)
            {
                configs.add(config);
            }
            return configs;
        }
        for (final String name : endpointPeers)
        {
            configs.add(context.connectionManagerConfig().withAccess(identity,
                List.of(trustedKey(context, channel, ENDPOINT_PEERS, name))));
        }
        return configs;
    }

    private static Identity identity(final MessagingContext context, final ChannelUri channel)
    {
        final List<Identity> identities = context.identities();
        final String named = channel.get(IDENTITY);
        if (null == named)
        {
            if (identities.size() > 1)
            {
                throw new IllegalArgumentException("channel '" + channel + "' names no identity, and the context " +
                    "holds several (" + names(identities) + "): add |" + IDENTITY + "=NAME");
            }
            return identities.getFirst();
        }
        for (final Identity identity : identities)
        {
            if (identity.name().equals(named.trim()))
            {
                return identity;
            }
        }
        throw new IllegalArgumentException("channel '" + channel + "': " + IDENTITY + "=" + named + " is not an " +
            "identity the context holds; it holds " + names(identities));
    }

    /**
     * @param parameter the one this end reads.
     * @param other     the other end's: on its own it means a restriction this end would not make
     *                  (a subscription written with peer= would take every trusted key), so it is
     *                  refused; beside this end's own (one channel written for both ends) it is the
     *                  other end's business.
     */
    private static List<PeerKey> accepted(final MessagingContext context, final ChannelUri channel,
        final String parameter, final String other)
    {
        final List<PeerKey> trusted = context.trusted();
        final String named = channel.get(parameter);
        if (null == named)
        {
            if (null != channel.get(other))
            {
                throw new IllegalArgumentException("channel '" + channel + "': " + other + "= names whom the other " +
                    "end accepts, and this end reads " + parameter + "=: name the identities it accepts with " +
                    parameter + "=NAME,...");
            }
            return trusted;
        }
        final List<PeerKey> accepted = new ArrayList<>();
        for (final String raw : named.split(","))
        {
            accepted.add(trustedKey(context, channel, parameter, raw.trim()));
        }
        return accepted;
    }

    private static PeerKey trustedKey(final MessagingContext context, final ChannelUri channel,
        final String parameter, final String name)
    {
        final List<PeerKey> trusted = context.trusted();
        for (final PeerKey key : trusted)
        {
            if (key.name().equals(name))
            {
                return key;
            }
        }
        throw new IllegalArgumentException("channel '" + channel + "': " + parameter + " names '" + name +
            "', which is not among the keys the context trusts (" + trusted.stream().map(PeerKey::name).toList() + ")");
    }

    private static List<String> names(final List<Identity> identities)
    {
        return identities.stream().map(Identity::name).toList();
    }
}
