package io.ringwire.exchange.node;

import io.ringwire.exchange.gateway.Gateway;
import io.ringwire.exchange.gateway.GatewayConfig;
import io.ringwire.exchange.gateway.GatewayOutput;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.collections.IntArrayList;
import org.agrona.concurrent.Agent;

import java.util.ArrayList;
import java.util.List;

/**
 * The gateway as a role: one subscription that every client publishes its orders into (fan-in), one
 * publication back to each configured session's client, a publication of stamped requests to the
 * engine and a subscription to the engine's reports; the rules are {@link Gateway}'s. A client
 * whose image goes away, or whose reply publication reports it is not connected, loses its session,
 * and the gateway cancels its orders.
 *
 * <p>The gateway never waits on anyone (see {@link Outbound}): a request the engine is too far
 * behind to take waits in a backlog, and no client message is read until it has gone; a report
 * for a client that is behind waits in that client's backlog.
 *
 * <p>Threading: one thread (the agent's).
 */
public final class GatewayNode implements Agent, AutoCloseable
{
    private static final int FRAGMENT_LIMIT = 16;

    private final Subscription orders;
    private final Subscription reports;
    private final Outbound toEngine;
    private final Outbound[] toClients;
    private final boolean[] unreachableReported;
    private final Gateway gateway;
    private final FragmentHandler onOrder = this::onOrder;
    private final FragmentHandler onReport = this::onReport;
    private final IntArrayList lostImages = new IntArrayList();
    private final boolean[] pendingUnreachable;
    private long nowNs;

    /**
     * @param context messaging settings.
     * @param layout  where everything listens; {@link ExchangeLayout#clientReplies()} in the order of
     *                the configuration's sessions.
     * @param config  the gateway's sessions and limits.
     * @param running the run's flag.
     */
    public GatewayNode(final MessagingContext context, final ExchangeLayout layout, final GatewayConfig config,
        final RunFlag running)
    {
        if (config.sessions().size() != layout.clientReplies().length)
        {
            throw new IllegalArgumentException("the gateway has " + config.sessions().size() + " sessions but the " +
                "layout " + layout.clientReplies().length + " client endpoints");
        }
        final List<AutoCloseable> opened = new ArrayList<>();
        try
        {
            orders = open(opened, Subscription.open(context, layout.channel(layout.gatewayOrders()),
                ExchangeLayout.ORDERS_STREAM));
            orders.unavailableImageHandler(lostImages::addInt);
            reports = open(opened, Subscription.open(context, layout.channel(layout.gatewayReports()),
                ExchangeLayout.REPORTS_STREAM));
            toEngine = new Outbound(open(opened, Publication.open(context, layout.channel(layout.engineRequests()),
                ExchangeLayout.REQUESTS_STREAM)));
            toClients = new Outbound[layout.clientReplies().length];
            for (int i = 0; i < toClients.length; i++)
            {
                toClients[i] = new Outbound(open(opened, Publication.open(context,
                    layout.channel(layout.clientReplies()[i]), ExchangeLayout.REPLIES_STREAM)));
            }
            unreachableReported = new boolean[toClients.length];
            pendingUnreachable = new boolean[toClients.length];
            gateway = new Gateway(config, new Output(), System::nanoTime);
        }
        catch (final RuntimeException ex)
        {
            for (final AutoCloseable closeable : opened)
            {
                CloseHelper.quietClose(closeable);
            }
            throw ex;
        }
    }

    private static <T extends AutoCloseable> T open(final List<AutoCloseable> opened, final T closeable)
    {
        opened.add(closeable);
        return closeable;
    }

    @Override
    public int doWork()
    {
        nowNs = System.nanoTime();
        int work = toEngine.doWork();
        for (int i = 0; i < toClients.length; i++)
        {
            work += toClients[i].doWork();
        }
        work += reports.poll(onReport, FRAGMENT_LIMIT);
        if (toEngine.isBehind())
        {
            work += orders.doWork(); // accepts and keeps clients alive; their orders wait in the rings
        }
        else
        {
            work += orders.poll(onOrder, FRAGMENT_LIMIT);
        }
        if (!lostImages.isEmpty())
        {
            for (int i = 0; i < lostImages.size(); i++)
            {
                gateway.onTransportLost(lostImages.getInt(i), nowNs);
            }
            lostImages.clear();
            work++;
        }
        for (int i = 0; i < pendingUnreachable.length; i++)
        {
            if (pendingUnreachable[i])
            {
                pendingUnreachable[i] = false;
                gateway.onSessionUnreachable(i, nowNs);
                work++;
            }
        }
        work += gateway.doWork(nowNs);
        return work;
    }

    private void onOrder(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        gateway.onClientMessage(header.sessionId(), buffer, offset, length, System.nanoTime());
    }

    private void onReport(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        gateway.onEngineMessage(buffer, offset, length, System.nanoTime());
    }

    /** @return whether the engine and every client's reply endpoint are connected. */
    public boolean isConnected()
    {
        if (!toEngine.isConnected())
        {
            return false;
        }
        for (final Outbound client : toClients)
        {
            if (!client.isConnected())
            {
                return false;
            }
        }
        return true;
    }

    /** @return the gateway, for its counters. */
    public Gateway gateway()
    {
        return gateway;
    }

    @Override
    public String roleName()
    {
        return "gateway";
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(orders, reports, toEngine.publication());
        for (final Outbound client : toClients)
        {
            CloseHelper.quietClose(client.publication());
        }
    }

    /** Sends the gateway's output on its publications. */
    private final class Output implements GatewayOutput
    {
        @Override
        public boolean toEngine(final DirectBuffer buffer, final int offset, final int length)
        {
            return toEngine.send(buffer, offset, length);
        }

        @Override
        public boolean toSession(final int sessionIndex, final DirectBuffer buffer, final int offset, final int length)
        {
            if (toClients[sessionIndex].send(buffer, offset, length))
            {
                unreachableReported[sessionIndex] = false;
                return true;
            }
            if (!unreachableReported[sessionIndex])
            {
                unreachableReported[sessionIndex] = true;
                pendingUnreachable[sessionIndex] = true; // told to the gateway from doWork, not from inside it
            }
            return false;
        }
    }
}
