package io.ringwire.exchange.demo;

import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.Outbound;
import io.ringwire.messaging.Subscription;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * One of {@link SimulatedClients}: its session, its flow, its connection, the orders it waits on,
 * its place in its replies and the state of its logon. Read and written by the clients' one thread.
 */
final class SimulatedClient
{
    static final long NOT_RESUMING = Long.MIN_VALUE;
    final SessionConfig session;
    final OrderFlow flow;
    final Outbound out;
    final Subscription replies;
    final ClientOrders orders = new ClientOrders();
    final ReplySequence replySequence = new ReplySequence();
    /** A request the gateway was too far behind to take, offered again before the next one. */
    final UnsafeBuffer held = new UnsafeBuffer(ByteBuffer.allocateDirect(512));
    int heldLength;
    long heldOrderId;
    long heldDue;
    boolean logonSent;
    boolean loggedOn;
    /**
     * A Logout that could not go (the gateway behind): it goes before the next Logon, which the
     * gateway would refuse while it still holds the session.
     */
    boolean logoutOwed;
    long nextDueNs;
    /** The first due time its last session loss left unsent; {@link #NOT_RESUMING} when its schedule runs unbroken. */
    long lostAtDueNs = NOT_RESUMING;
    long lastSentNs;
    /** When the gateway was last heard from (any reply), or the logon was sent. */
    long lastHeardNs;

    SimulatedClient(final SessionConfig session, final OrderFlow flow, final Outbound out, final Subscription replies)
    {
        this.session = session;
        this.flow = flow;
        this.out = out;
        this.replies = replies;
    }

    /**
     * The gateway no longer holds the session (it said so, the connection went, or the client logged
     * out after a hold of its thread or a silence of the gateway past their heartbeats): the client logs
     * on again, asking for the replies it missed. Requests it sent into the lost session before it
     * knew may go unanswered (the gateway answers a connection before logon only within a rate);
     * those it has not sent wait for the logon.
     *
     * @return whether it was logged on (a session lost now, to be counted).
     */
    boolean loseSession()
    {
        if (!loggedOn)
        {
            return false;
        }
        loggedOn = false;
        logonSent = false;
        lostAtDueNs = nextDueNs;
        return true;
    }

    /**
     * The session is back: its schedule starts again at {@code nowNs}.
     *
     * @return orders that fell due, every {@code intervalNs}, from the first its session loss left
     *         unsent up to {@code nowNs}: never sent (0 at the first logon).
     */
    long resume(final long nowNs, final long intervalNs)
    {
        final long fromNs = lostAtDueNs;
        lostAtDueNs = NOT_RESUMING;
        nextDueNs = nowNs;
        if (fromNs == NOT_RESUMING || nowNs - fromNs <= 0)
        {
            return 0;
        }
        return (nowNs - fromNs + intervalNs - 1) / intervalNs;
    }
}
