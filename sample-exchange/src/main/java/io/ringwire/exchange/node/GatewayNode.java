package io.ringwire.exchange.node;

import io.ringwire.exchange.ExchangeClock;
import io.ringwire.exchange.fix.FixDoor;
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
 * for a client that is behind waits in that client's backlog. The engine's stream holds its
 * requests while the engine is away too ({@link Outbound#holdingWhileDisconnected}), so a request is
 * refused ({@link Gateway#BACK_PRESSURED}, and dropped) only once that publication is closed, as the
 * gateway stops, or past the backlog's bound, which a gateway that stops reading while behind never
 * reaches. What still waits for the engine when the gateway closes (an engine that never came
 * back) is dropped: counted as forwarded when it was taken, it never reached the engine and its
 * client hears nothing, so the close counts it ({@link #engineRequestsUnsent}) and says so.
 *
 * <p>With a {@link FixDoor}, the sessions it serves are FIX sessions: their members reach the same
 * gateway through the door (no reply publication), and the door is polled, like the order
 * subscription, only while the engine's stream keeps up.
 *
 * <p>A report that names another engine life than the one the gateway serves (an engine started
 * again on a new journal; see {@link Gateway#otherEngineLife}) stops the gateway's work: it reads
 * and sends nothing more, and says so ({@link #otherEngineLife}), for its process to end. What its
 * clients sent meanwhile waits unread in their streams, for the gateway started again.
 *
 * <p>Threading: one thread (the agent's); the door's QuickFIX/J threads only queue for it.
 */
public final class GatewayNode implements Agent, AutoCloseable
{
    private static final int FRAGMENT_LIMIT = 16;
    /**
     * The most reports a duty cycle takes: four times the most orders it admits. Each order makes
     * one report or more (its acknowledgement, a fill for each side), so at an even limit the
     * reports fall behind whenever orders come faster than the engine's output is read, and reports
     * that fill the engine's stream hold the engine (it takes no request while its output is
     * behind); the queue then builds in the engine's streams both ways, where it costs every client,
     * rather than in the clients' own rings, where it back-pressures the ones that send.
     */
    private static final int REPORT_LIMIT = 4 * FRAGMENT_LIMIT;
    /**
     * A gap between duty cycles past this is the gateway's own absence (descheduled, a pause): what
     * its clients sent meanwhile waits unread, so their silence is not measured across it. Well
     * above an idle strategy's park, so that an idle gateway still loses silent sessions.
     */
    private static final long OWN_STALL_NS = 100_000_000L;
    private static final System.Logger LOG = System.getLogger(GatewayNode.class.getName());

    private final Subscription orders;
    private final Subscription reports;
    private final Outbound toEngine;
    private final Outbound[] toClients;
    private final boolean[] unreachableReported;
    private final Gateway gateway;
    private final FragmentHandler onOrder = this::onOrder;
    private final FragmentHandler onReport = this::onReport;
    private final IntArrayList lostImages = new IntArrayList();
    private final IntArrayList toDisconnect = new IntArrayList();
    private final boolean[] pendingUnreachable;
    /** A client's backlog was full when a reply came: cut off at the next duty cycle. */
    private final boolean[] pendingSlow;
    private long engineRequestsUnsent;
    private final long maxReplyBacklogNs;
    /** The FIX door, or null. */
    private final FixDoor door;
    private long nowNs;
    private long lastDutyCycleNs;
    /** The other engine life, once a report named one, published for the role's thread; 0 before. */
    private volatile long otherEngineLife;

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
        this(context, layout, config, running, null);
    }

    /**
     * @param door the FIX door whose sessions it serves, or null; closed with the node.
     */
    public GatewayNode(final MessagingContext context, final ExchangeLayout layout, final GatewayConfig config,
        final RunFlag running, final FixDoor door)
    {
        this.door = door;
        if (config.sessions().size() != layout.clientReplies().size())
        {
            throw new IllegalArgumentException("the gateway has " + config.sessions().size() + " sessions but the " +
                "layout " + layout.clientReplies().size() + " client endpoints");
        }
        final List<AutoCloseable> opened = new ArrayList<>();
        try
        {
            orders = open(opened, Subscription.open(context, layout.gatewayOrdersSubscription(),
                ExchangeLayout.ORDERS_STREAM));
            orders.unavailableImageHandler(lostImages::addInt);
            orders.availableImageHandler(this::onImageAvailable);
            if (null != door)
            {
                // The door's sessions are the gateway's transports too: a network publication naming
                // one of their ids (any publication may name its own) would otherwise speak for a FIX member.
                orders.reserveSessionIds(FixDoor.FIRST_TRANSPORT, FixDoor.MAX_SESSIONS);
            }
            reports = open(opened, Subscription.open(context, layout.gatewayReportsSubscription(),
                ExchangeLayout.REPORTS_STREAM));
            // The engine is the requests' only way on: while it is away (restarting, reconnecting)
            // they wait, and no client message is read meanwhile.
            toEngine = Outbound.holdingWhileDisconnected(open(opened, Publication.open(context,
                layout.engineRequestsPublication(), ExchangeLayout.REQUESTS_STREAM)));
            toClients = new Outbound[layout.clientReplies().size()];
            for (int i = 0; i < toClients.length; i++)
            {
                if (null != door && door.serves(i))
                {
                    continue; // a FIX session: its replies go out through the door
                }
                toClients[i] = new Outbound(open(opened, Publication.open(context,
                    layout.clientRepliesPublication(i), ExchangeLayout.REPLIES_STREAM)),
                    config.transportLimits().maxReplyBacklogBytes());
            }
            unreachableReported = new boolean[toClients.length];
            pendingUnreachable = new boolean[toClients.length];
            pendingSlow = new boolean[toClients.length];
            gateway = new Gateway(config, new Output(), ExchangeClock::nowNs);
            maxReplyBacklogNs = config.transportLimits().maxReplyBacklogMs() * 1_000_000L;
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

    /**
     * @return the engine life other than the gateway's own that a report named, once one did (the
     *         gateway then does no more work, and its process should end); 0 before. Any thread.
     */
    public long otherEngineLife()
    {
        return otherEngineLife;
    }

    @Override
    public int doWork()
    {
        if (gateway.otherEngineLife() != 0)
        {
            return 0;
        }
        // Messaging keeps the monotonic clock; the gateway stamps and times its sessions on the
        // exchange's, the same reading moved to the epoch.
        final long monotonicNs = System.nanoTime();
        nowNs = ExchangeClock.fromMonotonic(monotonicNs);
        if (lastDutyCycleNs != 0 && nowNs - lastDutyCycleNs > OWN_STALL_NS)
        {
            // Before anything is read: a session whose messages sat in its ring is not lost for it.
            gateway.stalled(nowNs - lastDutyCycleNs, nowNs);
        }
        lastDutyCycleNs = nowNs;
        int work = toEngine.doWork(monotonicNs);
        for (final Outbound client : toClients)
        {
            work += null == client ? 0 : client.doWork(monotonicNs);
        }
        work += reports.poll(onReport, REPORT_LIMIT);
        if (gateway.otherEngineLife() != 0)
        {
            otherEngineLife = gateway.otherEngineLife();
            return work;
        }
        if (toEngine.isBehind())
        {
            work += orders.doWork(); // accepts and keeps clients alive; their orders wait in the rings
            work += null == door ? 0 : door.sendOwed(); // a cut-off FIX member goes now, input or not
            gateway.notReadingClients(nowNs);
        }
        else
        {
            work += orders.poll(onOrder, FRAGMENT_LIMIT);
            work += null == door ? 0 : door.poll(gateway, nowNs);
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
                // Told once per loss: the next logon's sends may find the client unreachable again.
                unreachableReported[i] = false;
                gateway.onSessionUnreachable(i, nowNs);
                work++;
            }
        }
        work += cutOffSlowConsumers(monotonicNs);
        work += gateway.doWork(nowNs);
        if (!toDisconnect.isEmpty())
        {
            for (int i = 0; i < toDisconnect.size(); i++)
            {
                orders.closeImage(toDisconnect.getInt(i)); // its loss comes back through lostImages
            }
            toDisconnect.clear();
            work++;
        }
        return work;
    }

    /**
     * A client whose replies wait longer, or take more room, than the gateway allows is cut off: its
     * session is lost (its orders canceled), its connection closed and its backlog dropped, so it
     * holds no other session up.
     */
    private int cutOffSlowConsumers(final long monotonicNs)
    {
        int work = 0;
        for (int i = 0; i < toClients.length; i++)
        {
            final Outbound client = toClients[i];
            if (null == client)
            {
                // A FIX session the door marked (its queue there overflowed, as it has before any
                // reply of it is refused): a logon the door reads clears the mark, so that it
                // cannot cut the member's next connection.
                if (null != door && door.takeSlow(i))
                {
                    gateway.onSlowConsumer(i, nowNs);
                    work++;
                }
                continue;
            }
            if (pendingSlow[i] || (client.isBehind() && client.backlogAgeNs(monotonicNs) > maxReplyBacklogNs))
            {
                pendingSlow[i] = false;
                final int session = i;
                LOG.log(System.Logger.Level.WARNING, () -> "session " + session + "'s client reads its replies too " +
                    "slowly (they waited past " + maxReplyBacklogNs / 1_000_000 + " ms, or filled the backlog): " +
                    "disconnected, its orders canceled");
                gateway.onSlowConsumer(i, nowNs);
                client.clearBacklog();
                work++;
            }
        }
        return work;
    }

    private void onImageAvailable(final int transportSession)
    {
        gateway.onTransportAvailable(transportSession, orders.imageIdentity(transportSession), ExchangeClock.nowNs());
    }

    private void onOrder(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        gateway.onClientMessage(header.sessionId(), buffer, offset, length, ExchangeClock.nowNs());
    }

    /**
     * @return offers to the engine's stream that found the engine behind or away: each retry of a
     *         waiting request counts, so this measures how long requests waited, not how many.
     */
    public long engineOffersWaited()
    {
        return toEngine.backPressured();
    }

    private void onReport(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        gateway.onEngineMessage(buffer, offset, length, ExchangeClock.nowNs());
    }

    /**
     * @return whether the engine's stream is connected: all the gateway waits for before it serves.
     *         Its members come as they come (one offline, at the start or after a restart, keeps no
     *         other out): a Logon that comes before the gateway's reply link to it is left for the
     *         client's next ({@link GatewayOutput#canReach}), and a reply that finds a logged-on
     *         session's link down loses that session alone.
     */
    public boolean isConnected()
    {
        return toEngine.isConnected();
    }

    /**
     * @return whether every client's reply link is up: for a run that starts every client with the
     *         gateway (the in-process demo, tests) and waits until all can trade.
     */
    public boolean clientsConnected()
    {
        for (final Outbound client : toClients)
        {
            if (null != client && !client.isConnected())
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

    /** @return publications its order and report endpoints refused at the handshake for their identity. */
    public long identitiesRefused()
    {
        return orders.identitiesRefused() + reports.identitiesRefused();
    }

    @Override
    public String roleName()
    {
        return "gateway";
    }

    /** @return requests taken for the engine (counted forwarded) that still wait for its stream. */
    public int engineRequestsHeld()
    {
        return toEngine.backlogMessages();
    }

    /** @return requests the close found waiting for the engine: dropped unsent, their clients unanswered. */
    public long engineRequestsUnsent()
    {
        return engineRequestsUnsent;
    }

    @Override
    public void close()
    {
        final int unsent = toEngine.clearBacklog();
        if (unsent > 0)
        {
            engineRequestsUnsent += unsent;
            LOG.log(System.Logger.Level.WARNING, () -> unsent + " request(s) waiting for the engine (its stream " +
                (toEngine.isConnected() ? "behind" : "not connected") + ") dropped unsent as the gateway closes: " +
                "counted forwarded, they never reached the engine and their clients get no answer");
        }
        CloseHelper.quietCloseAll(door, orders, reports, toEngine.publication());
        for (final Outbound client : toClients)
        {
            if (null != client)
            {
                CloseHelper.quietClose(client.publication());
            }
        }
    }

    /** Sends the gateway's output on its publications. */
    private final class Output implements GatewayOutput
    {
        @Override
        public void disconnect(final int transportSession)
        {
            if (null != door && FixDoor.isDoorTransport(transportSession))
            {
                door.disconnect(transportSession);
                return;
            }
            toDisconnect.addInt(transportSession); // closed after the poll that asked for it
        }

        @Override
        public boolean canReach(final int sessionIndex)
        {
            return null == toClients[sessionIndex] || toClients[sessionIndex].isConnected(); // the door keeps its own
        }

        @Override
        public boolean keepsRepliesWhileAway(final int sessionIndex)
        {
            return null != door && door.serves(sessionIndex);
        }

        @Override
        public boolean toEngine(final DirectBuffer buffer, final int offset, final int length)
        {
            return toEngine.send(buffer, offset, length);
        }

        @Override
        public boolean toSession(final int sessionIndex, final DirectBuffer buffer, final int offset, final int length)
        {
            if (null == toClients[sessionIndex])
            {
                return door.toSession(sessionIndex, buffer, offset, length); // a refusal marks it slow there
            }
            if (toClients[sessionIndex].send(buffer, offset, length))
            {
                unreachableReported[sessionIndex] = false;
                return true;
            }
            if (toClients[sessionIndex].isConnected())
            {
                pendingSlow[sessionIndex] = true; // its backlog is full: a slow consumer
            }
            else if (!unreachableReported[sessionIndex])
            {
                unreachableReported[sessionIndex] = true;
                pendingUnreachable[sessionIndex] = true; // told to the gateway from doWork, not from inside it
            }
            return false;
        }
    }
}
