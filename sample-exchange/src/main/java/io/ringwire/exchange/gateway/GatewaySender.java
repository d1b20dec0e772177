package io.ringwire.exchange.gateway;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.EpochNanoClock;

/**
 * The gateway's two ways out, shared by the parts that build messages: requests built in
 * {@link EngineRequests} go to the engine, replies built in {@link ClientReplies} (or an engine's
 * report) go to a session's client. It counts what the engine's stream refused and what a client
 * could not be sent, notes when the gateway last wrote to a session (its heartbeat is due after a
 * silence), and reads the send clock.
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction.
 */
final class GatewaySender
{
    private final GatewayOutput output;
    private final EpochNanoClock sendClock;
    private final GatewaySessions sessions;
    private final GatewayCounters counters;
    private final EngineRequests requests = new EngineRequests();
    private final ClientReplies replies = new ClientReplies();

    /**
     * @param sendClock stamps {@code gatewaySendTime} and {@code gatewayReplyTime}; null to use the
     *                  call's {@code nowNs}.
     */
    GatewaySender(final GatewayOutput output, final EpochNanoClock sendClock, final GatewaySessions sessions,
        final GatewayCounters counters)
    {
        this.output = output;
        this.sendClock = sendClock;
        this.sessions = sessions;
        this.counters = counters;
    }

    /** @return where requests for the engine are built. */
    EngineRequests requests()
    {
        return requests;
    }

    /** @return where the gateway's own replies are built. */
    ClientReplies replies()
    {
        return replies;
    }

    /** @return the time to stamp on a message sent now: the send clock's, or {@code nowNs} without one. */
    long sendTime(final long nowNs)
    {
        return null == sendClock ? nowNs : sendClock.nanoTime();
    }

    /** @return whether the session's transport keeps replies while the session is away. */
    boolean keepsRepliesWhileAway(final int session)
    {
        return output.keepsRepliesWhileAway(session);
    }

    /**
     * Sends the request last built in {@link #requests()}.
     *
     * @return false when the engine's stream refused it (back pressure): nothing was sent.
     */
    boolean toEngine(final int length)
    {
        if (output.toEngine(requests.buffer(), 0, length))
        {
            counters.forwarded++;
            return true;
        }
        counters.engineBackPressured++;
        return false;
    }

    /** Sends the reply last built in {@link #replies()} to the session's client. */
    void reply(final int session, final int length, final long nowNs)
    {
        toSession(session, replies.buffer(), length, nowNs);
    }

    /**
     * Sends one message from offset 0 of the buffer to the session's client.
     *
     * @return false when it could not be sent.
     */
    boolean toSession(final int session, final DirectBuffer buffer, final int length, final long nowNs)
    {
        if (output.toSession(session, buffer, 0, length))
        {
            sessions.sent(session, nowNs);
            return true;
        }
        counters.sessionSendFailures++;
        return false;
    }
}
