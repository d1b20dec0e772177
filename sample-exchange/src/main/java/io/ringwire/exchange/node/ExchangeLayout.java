package io.ringwire.exchange.node;

import io.ringwire.exchange.gateway.SessionConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * Where every role of the sample exchange listens and who may talk to whom: one subscription
 * endpoint per stream a role reads (an address each, so roles may run host by host), the member
 * identities of the clients' sessions and of the market-data subscribers, on the provider the user
 * picked. Each channel it gives names the identity its end proves and the only identities that end
 * accepts, so every link is keyed on its own:
 *
 * <pre>
 *   stream             subscriber (accepts)              publisher (proves)
 *   orders        10   gateway    (every member)          member-N
 *   replies       11   member-N   (gateway)               gateway
 *   requests      12   engine     (gateway)               gateway
 *   reports       13   gateway    (engine)                engine
 *   feed          14   marketdata (engine)                engine
 *   market data   15   md-N       (marketdata)            marketdata
 *   snapshot req. 16   marketdata (every md subscriber)   md-N
 * </pre>
 *
 * A member's key opens only the gateway's order endpoint; the core's keys (engine, gateway,
 * marketdata) are held by the core's processes only. A role that does not use an endpoint may
 * leave it null (a role's config gives only what it uses).
 *
 * @param provider               shm, socket, roce or ibverbs.
 * @param gatewayOrders          the gateway's order endpoint (the member-facing one), host:port.
 * @param gatewayReports         the gateway's endpoint for the engine's reports.
 * @param engineRequests         the engine's request endpoint.
 * @param marketDataFeed         the market-data service's endpoint for the engine's feed.
 * @param snapshotRequests       the market-data service's endpoint for snapshot requests.
 * @param clientReplies          each client session's reply endpoint, in the order of the sessions.
 * @param members                each client session's member identity, in the same order.
 * @param marketDataClients      each market-data subscriber's feed endpoint.
 * @param marketDataSubscribers  each market-data subscriber's identity, in the same order.
 */
public record ExchangeLayout(String provider, String gatewayOrders, String gatewayReports, String engineRequests,
    String marketDataFeed, String snapshotRequests, List<String> clientReplies, List<String> members,
    List<String> marketDataClients, List<String> marketDataSubscribers)
{
    /** Stream of client orders into the gateway. */
    public static final int ORDERS_STREAM = 10;
    /** Stream of replies from the gateway to one client. */
    public static final int REPLIES_STREAM = 11;
    /** Stream of stamped requests from the gateway to the engine. */
    public static final int REQUESTS_STREAM = 12;
    /** Stream of execution reports from the engine to the gateway. */
    public static final int REPORTS_STREAM = 13;
    /** Stream of the engine's order-level feed to the market-data service. */
    public static final int FEED_STREAM = 14;
    /** Stream of market data (incrementals and in-band snapshots) to subscribers. */
    public static final int MARKET_DATA_STREAM = 15;
    /** Stream of snapshot requests to the market-data service. */
    public static final int SNAPSHOT_REQUESTS_STREAM = 16;

    /** The matching engine's identity. */
    public static final String ENGINE = "engine";
    /** The gateway's identity. */
    public static final String GATEWAY = "gateway";
    /** The market-data service's identity. */
    public static final String MARKET_DATA = "marketdata";
    /**
     * Publications one member may hold at once at the gateway's order endpoint, and one market-data
     * subscriber at the service's snapshot-request endpoint: a reconnecting client's new one beside
     * its old one, and no more, so no outer identity can fill an endpoint the others share.
     */
    public static final int MEMBER_CONNECTIONS = 2;
    /**
     * The largest ring the gateway maps for a member's orders, and the market-data service for a
     * subscriber's snapshot requests.
     */
    public static final int MEMBER_RING_LIMIT = 4 << 20;
    /**
     * How long one market-data subscriber may hold the fan-out back before the service cuts it off
     * (it rejoins, and recovers from a snapshot): the other subscribers wait on it no longer, and
     * the engine, behind the service's backlog, not at all.
     */
    public static final int MARKET_DATA_SLOW_TIMEOUT_MS = 1_000;
    /** The first session id of a layout on free ports; the demo's sessions count up from it. */
    public static final int FIRST_SESSION_ID = 101;

    /**
     * Copies the lists and checks that each endpoint list goes with its identities.
     */
    public ExchangeLayout
    {
        clientReplies = List.copyOf(clientReplies);
        members = List.copyOf(members);
        marketDataClients = List.copyOf(marketDataClients);
        marketDataSubscribers = List.copyOf(marketDataSubscribers);
        if (clientReplies.size() != members.size() || marketDataClients.size() != marketDataSubscribers.size())
        {
            throw new IllegalArgumentException("exchange layout: " + clientReplies.size() + " reply endpoints for " +
                members.size() + " members, " + marketDataClients.size() + " market-data endpoints for " +
                marketDataSubscribers.size() + " subscribers");
        }
    }

    /**
     * A layout on free TCP ports of the loopback address (the connection manager listens on TCP
     * whatever the provider): sessions {@value #FIRST_SESSION_ID} and up of identities
     * {@code member-<id>}, subscribers {@code md-<index>}.
     *
     * @param provider          the provider.
     * @param clients           client sessions.
     * @param marketDataClients market-data subscribers.
     * @return the layout.
     */
    public static ExchangeLayout onFreePorts(final String provider, final int clients, final int marketDataClients)
    {
        final int[] ports = LoopbackPorts.pick(5 + clients + marketDataClients);
        final List<String> replies = new ArrayList<>();
        final List<String> members = new ArrayList<>();
        for (int i = 0; i < clients; i++)
        {
            replies.add(loopback(ports[5 + i]));
            members.add(SessionConfig.memberIdentity(FIRST_SESSION_ID + i));
        }
        final List<String> marketData = new ArrayList<>();
        final List<String> subscribers = new ArrayList<>();
        for (int i = 0; i < marketDataClients; i++)
        {
            marketData.add(loopback(ports[5 + clients + i]));
            subscribers.add(marketDataSubscriber(i));
        }
        return new ExchangeLayout(provider, loopback(ports[0]), loopback(ports[1]), loopback(ports[2]),
            loopback(ports[3]), loopback(ports[4]), replies, members, marketData, subscribers);
    }

    /**
     * @param index a market-data subscriber's index.
     * @return its identity in a layout on free ports: {@code md-<index>}.
     */
    public static String marketDataSubscriber(final int index)
    {
        return "md-" + index;
    }

    private static String loopback(final int port)
    {
        return "127.0.0.1:" + port;
    }

    private String channel(final String endpoints, final String identity, final String acceptKey,
        final List<String> accepted)
    {
        if (null == endpoints)
        {
            throw new IllegalStateException("this layout has no endpoint for the channel of '" + identity + "' (" +
                acceptKey + " " + accepted + "): its role's config does not give it");
        }
        return "ringwire:" + provider + "?endpoint=" + endpoints + "|identity=" + identity + "|" + acceptKey + "=" +
            String.join(",", accepted);
    }

    /**
     * @return the gateway's order subscription: accepts every member, {@value #MEMBER_CONNECTIONS}
     *         connections each, with rings of at most {@value #MEMBER_RING_LIMIT} bytes.
     */
    public String gatewayOrdersSubscription()
    {
        return channel(gatewayOrders, GATEWAY, "accept", members) + "|max-per-identity=" + MEMBER_CONNECTIONS +
            "|max-ring=" + MEMBER_RING_LIMIT + "|max-publications=" + roomFor(members);
    }

    /** @return the gateway's report subscription: accepts the engine. */
    public String gatewayReportsSubscription()
    {
        return channel(gatewayReports, GATEWAY, "accept", List.of(ENGINE));
    }

    /** @return the gateway's request publication to the engine. */
    public String engineRequestsPublication()
    {
        return channel(engineRequests, GATEWAY, "peer", List.of(ENGINE));
    }

    /**
     * @param session a client session's index.
     * @return the gateway's reply publication to that session's client: the member alone.
     */
    public String clientRepliesPublication(final int session)
    {
        return channel(clientReplies.get(session), GATEWAY, "peer", List.of(members.get(session)));
    }

    /** @return the engine's request subscription: accepts the gateway. */
    public String engineRequestsSubscription()
    {
        return channel(engineRequests, ENGINE, "accept", List.of(GATEWAY));
    }

    /** @return the engine's report publication to the gateway. */
    public String gatewayReportsPublication()
    {
        return channel(gatewayReports, ENGINE, "peer", List.of(GATEWAY));
    }

    /** @return the engine's feed publication to the market-data service. */
    public String marketDataFeedPublication()
    {
        return channel(marketDataFeed, ENGINE, "peer", List.of(MARKET_DATA));
    }

    /** @return the market-data service's feed subscription: accepts the engine. */
    public String marketDataFeedSubscription()
    {
        return channel(marketDataFeed, MARKET_DATA, "accept", List.of(ENGINE));
    }

    /**
     * @return the market-data service's snapshot-request subscription: accepts every subscriber,
     *         {@value #MEMBER_CONNECTIONS} connections each, with rings of at most
     *         {@value #MEMBER_RING_LIMIT} bytes.
     */
    public String snapshotRequestsSubscription()
    {
        return channel(snapshotRequests, MARKET_DATA, "accept", marketDataSubscribers) + "|max-per-identity=" +
            MEMBER_CONNECTIONS + "|max-ring=" + MEMBER_RING_LIMIT + "|max-publications=" +
            roomFor(marketDataSubscribers);
    }

    /**
     * @return publications an endpoint shared by these identities takes at once: each one's
     *         {@value #MEMBER_CONNECTIONS}, so every honest one finds room whatever the others hold.
     */
    private static int roomFor(final List<String> identities)
    {
        return Math.max(1, identities.size() * MEMBER_CONNECTIONS);
    }

    /**
     * @return the market-data service's publication to every subscriber (fan-out), which takes at each
     *         subscriber's endpoint only that subscriber's identity (one subscriber's key does not pass
     *         for another's) and cuts off a subscriber that holds it back for
     *         {@value #MARKET_DATA_SLOW_TIMEOUT_MS} ms.
     */
    public String marketDataPublication()
    {
        return channel(marketDataClients.isEmpty() ? null : String.join(",", marketDataClients), MARKET_DATA,
            "endpoint-peers", marketDataSubscribers) + "|slow-timeout=" + MARKET_DATA_SLOW_TIMEOUT_MS;
    }

    /**
     * @param session a client session's index.
     * @return the client's order publication to the gateway, proving its member identity.
     */
    public String clientOrdersPublication(final int session)
    {
        return channel(gatewayOrders, members.get(session), "peer", List.of(GATEWAY));
    }

    /**
     * @param session a client session's index.
     * @return the client's reply subscription: accepts the gateway alone.
     */
    public String clientRepliesSubscription(final int session)
    {
        return channel(clientReplies.get(session), members.get(session), "accept", List.of(GATEWAY));
    }

    /**
     * @param index a market-data subscriber's index.
     * @return its market-data subscription: accepts the market-data service alone.
     */
    public String marketDataClientSubscription(final int index)
    {
        return channel(marketDataClients.get(index), marketDataSubscribers.get(index), "accept", List.of(MARKET_DATA));
    }

    /**
     * @param index a market-data subscriber's index.
     * @return its snapshot-request publication to the market-data service.
     */
    public String snapshotRequestsPublication(final int index)
    {
        return channel(snapshotRequests, marketDataSubscribers.get(index), "peer", List.of(MARKET_DATA));
    }

    /** @return every identity of the layout: the core's, the members' and the subscribers'. */
    public List<String> identities()
    {
        final List<String> all = new ArrayList<>(List.of(ENGINE, GATEWAY, MARKET_DATA));
        all.addAll(members);
        all.addAll(marketDataSubscribers);
        return all;
    }
}
