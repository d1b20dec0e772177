package io.ringwire.exchange.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Arrays;

/**
 * Where every role of the sample exchange listens: one subscription endpoint per stream a role
 * reads, on one host, on the provider the user picked. All roles of a run share one layout (in one
 * process, or handed to each process), so each publication knows its subscriber before either
 * starts.
 *
 * <p>Streams: clients publish orders to the gateway (fan-in) and read their replies each on an
 * endpoint of their own; the gateway publishes requests to the engine and reads its reports; the
 * engine publishes its order-level feed to the market-data service, which fans it out to every
 * market-data subscriber and reads their snapshot requests.
 *
 * @param provider          shm, socket, roce or ibverbs.
 * @param host              the address every endpoint is on.
 * @param gatewayOrders     the gateway's order subscription.
 * @param gatewayReports    the gateway's subscription to the engine's reports.
 * @param engineRequests    the engine's request subscription.
 * @param marketDataFeed    the market-data service's subscription to the engine's feed.
 * @param snapshotRequests  the market-data service's subscription to snapshot requests.
 * @param clientReplies     each client's reply subscription, by session index.
 * @param marketDataClients each market-data subscriber's feed subscription.
 */
public record ExchangeLayout(String provider, String host, int gatewayOrders, int gatewayReports, int engineRequests,
    int marketDataFeed, int snapshotRequests, int[] clientReplies, int[] marketDataClients)
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

    /**
     * Copies the arrays.
     */
    public ExchangeLayout
    {
        clientReplies = clientReplies.clone();
        marketDataClients = marketDataClients.clone();
    }

    /**
     * A layout on free TCP ports of the loopback address (the connection manager listens on TCP
     * whatever the provider).
     *
     * @param provider          the provider.
     * @param clients           client sessions.
     * @param marketDataClients market-data subscribers.
     * @return the layout.
     */
    public static ExchangeLayout onFreePorts(final String provider, final int clients, final int marketDataClients)
    {
        final int[] ports = freePorts(5 + clients + marketDataClients);
        return new ExchangeLayout(provider, "127.0.0.1", ports[0], ports[1], ports[2], ports[3], ports[4],
            Arrays.copyOfRange(ports, 5, 5 + clients), Arrays.copyOfRange(ports, 5 + clients, ports.length));
    }

    private static int[] freePorts(final int count)
    {
        final ServerSocket[] sockets = new ServerSocket[count];
        try
        {
            final int[] ports = new int[count];
            for (int i = 0; i < count; i++)
            {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("could not find " + count + " free ports on the loopback address", ex);
        }
        finally
        {
            for (final ServerSocket socket : sockets)
            {
                if (null != socket)
                {
                    try
                    {
                        socket.close();
                    }
                    catch (final IOException ignored)
                    {
                        // a port we only looked at
                    }
                }
            }
        }
    }

    /**
     * @param port an endpoint's port.
     * @return the channel of that endpoint on this layout's provider.
     */
    public String channel(final int port)
    {
        return "ringwire:" + provider + "?endpoint=" + host + ":" + port;
    }

    /**
     * @return the channel the market-data service publishes on: every subscriber's endpoint (fan-out).
     */
    public String marketDataChannel()
    {
        final StringBuilder endpoints = new StringBuilder();
        for (final int port : marketDataClients)
        {
            endpoints.append(endpoints.isEmpty() ? "" : ",").append(host).append(':').append(port);
        }
        return "ringwire:" + provider + "?endpoint=" + endpoints;
    }

    /**
     * @return the layout as command-line arguments for a role's own process.
     */
    public String[] toArguments()
    {
        return new String[]{ "--provider", provider, "--host", host, "--ports",
            gatewayOrders + "," + gatewayReports + "," + engineRequests + "," + marketDataFeed + "," + snapshotRequests,
            "--client-ports", join(clientReplies), "--md-ports", join(marketDataClients) };
    }

    private static String join(final int[] ports)
    {
        final StringBuilder text = new StringBuilder();
        for (final int port : ports)
        {
            text.append(text.isEmpty() ? "" : ",").append(port);
        }
        return text.toString();
    }
}
