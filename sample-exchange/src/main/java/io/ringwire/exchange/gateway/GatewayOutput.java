package io.ringwire.exchange.gateway;

import org.agrona.DirectBuffer;

/**
 * Where the gateway's messages go: stamped requests to the matching engine, replies to one
 * configured session's client. Each call hands one complete SBE message (header included) in a
 * buffer the gateway reuses: copy it before returning if it must outlive the call.
 */
public interface GatewayOutput
{
    /**
     * @param buffer holds a stamped NewOrder, CancelOrder, ReplaceOrder or MassCancel from {@code offset}.
     * @param offset where it starts.
     * @param length its length.
     * @return false when the engine's stream cannot take it now (back pressure): nothing was sent.
     */
    boolean toEngine(DirectBuffer buffer, int offset, int length);

    /**
     * @param sessionIndex the configured session's index in {@link GatewayConfig#sessions()}.
     * @param buffer       holds an ExecutionReport, LogonResponse, Logout or Heartbeat from {@code offset}.
     * @param offset       where it starts.
     * @param length       its length.
     * @return false when the message could not be sent to the client.
     */
    boolean toSession(int sessionIndex, DirectBuffer buffer, int offset, int length);

    /**
     * Asks for a client's connection to be closed: it keeps sending what it must not, never logged
     * on, or proved an identity that is no member. Called from inside the gateway's calls, so the
     * transport closes it after the current poll; the gateway hears of it as a transport loss.
     *
     * @param transportSession the connection's messaging image session id.
     */
    void disconnect(int transportSession);

    /**
     * Whether a reply to the session can go now. A Logon of a session it cannot reach is left
     * unanswered, and binds nothing, until the client's next attempt: its answer would be lost,
     * and with it the session (a client may log on as soon as its own request link is up, before
     * the gateway's reply link to it).
     *
     * @param sessionIndex the configured session's index.
     * @return true unless the session's reply link is down; the default.
     */
    default boolean canReach(final int sessionIndex)
    {
        return true;
    }

    /**
     * Whether the session's transport keeps what is sent to it while the session is not logged on,
     * and delivers it when the session is back (a FIX door's message store, which a member's
     * ResendRequest reads): the gateway then routes a report of a session that is away (its
     * cancel-on-disconnect cancels among them) instead of dropping it.
     *
     * @param sessionIndex the configured session's index.
     * @return false unless the transport keeps replies; the default.
     */
    default boolean keepsRepliesWhileAway(final int sessionIndex)
    {
        return false;
    }
}
