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
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;
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
 * <p>The gateway never waits on the engine: a request the engine is too far behind to take waits
 * in a backlog, and no client message is read until it has gone. It waits on a client that is
 * behind (a report must not be lost), and clients never wait on it, so the two cannot wait on each
 * other.
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
    /**
     * Requests the engine was too far behind to take: sent before any new client message is read,
     * so the gateway never waits on the engine (which may be waiting on the gateway to read its
     * reports) and the engine sees requests in the order the gateway stamped them.
     */
    private final ExpandableRingBuffer toEngineBacklog = new ExpandableRingBuffer(1 << 20, 1 << 30, true);
    private final ExpandableRingBuffer.MessageConsumer sendBacklog = this::sendBacklogged;
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
            orders.unavailableImageHandler(lostImages::add);
            reports = open(opened, Subscription.open(context, layout.channel(layout.gatewayReports()),
                ExchangeLayout.REPORTS_STREAM));
            toEngine = new Outbound(open(opened, Publication.open(context, layout.channel(layout.engineRequests()),
                ExchangeLayout.REQUESTS_STREAM)), running);
            toClients = new Outbound[layout.clientReplies().length];
            for (int i = 0; i < toClients.length; i++)
            {
                toClients[i] = new Outbound(open(opened, Publication.open(context,
                    layout.channel(layout.clientReplies()[i]), ExchangeLayout.REPLIES_STREAM)), running);
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
        int work = reports.poll(onReport, FRAGMENT_LIMIT);
        if (!toEngineBacklog.isEmpty())
        {
            work += toEngineBacklog.consume(sendBacklog, Integer.MAX_VALUE);
        }
        if (toEngineBacklog.isEmpty())
        {
            work += orders.poll(onOrder, FRAGMENT_LIMIT);
        }
        else
        {
            work += orders.doWork(); // accepts and keeps clients alive; their orders wait in the rings
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
        work += toEngine.doWork();
        for (int i = 0; i < toClients.length; i++)
        {
            work += toClients[i].doWork();
        }
        return work;
    }

    private boolean sendBacklogged(final MutableDirectBuffer buffer, final int offset, final int length,
        final int headOffset)
    {
        return toEngine.trySend(buffer, offset, length) != Outbound.RETRY;
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
            if (toEngineBacklog.isEmpty())
            {
                final int result = toEngine.trySend(buffer, offset, length);
                if (result != Outbound.RETRY)
                {
                    return result == Outbound.SENT;
                }
            }
            return toEngineBacklog.append(buffer, offset, length);
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
