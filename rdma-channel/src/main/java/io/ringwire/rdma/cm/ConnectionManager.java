package io.ringwire.rdma.cm;

import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Objects;

/**
 * The active side of the connection manager, and its limits. {@link #connect} runs the RDMA-CM
 * exchange against a {@link ConnectionListener}:
 *
 * <pre>
 *   active                                   passive
 *                                  &lt;-------  CHALLENGE (a fresh nonce)
 *   QP in INIT
 *   REQ (echoes the challenge,     -------&gt;  verify, and that it answers this connection's
 *        endpoint, regions, data)            challenge; queue for accept(); application looks
 *                                            QP INIT -&gt; RTR with the active endpoint
 *   verify                         &lt;-------  REP (endpoint, regions, data)     or REJ (reason)
 *   QP INIT -&gt; RTR -&gt; RTS
 *   RTU                            -------&gt;  verify; QP RTR -&gt; RTS
 * </pre>
 *
 * Every message is signed with its sender's {@link Identity} (Ed25519); the REQ and the REP name
 * the identity, and the receiver verifies each under the key it trusts for that name and refuses
 * any other (the passive side verifies REQ and RTU, the active side REP). Every step is bounded by
 * the configured timeout. The wire layout is described in {@code WireFormat}.
 *
 * <p>Threading: {@link #connect} may be called from any thread, for different queue pairs
 * concurrently; it blocks its caller for at most one step timeout per step (TCP connect, REP).
 */
public final class ConnectionManager
{
    /** The protocol version this implementation speaks. */
    public static final int PROTOCOL_VERSION = 4;
    /** Most regions one side may advertise. */
    public static final int MAX_REGIONS = 64;
    /** Largest application payload in bytes. */
    public static final int MAX_APPLICATION_DATA_LENGTH = 1024;
    /** Largest endpoint address in UTF-8 bytes. */
    public static final int MAX_ADDRESS_LENGTH = 1024;

    private ConnectionManager()
    {
    }

    /**
     * Connects {@code queuePair} to the queue pair the remote application offers through the listener
     * at {@code listener}: sends REQ with {@link QueuePair#localEndpoint()}, the regions and the
     * payload; waits for REP (or REJ); verifies it; moves the queue pair INIT to RTR to RTS; sends RTU.
     *
     * <p>Queue pair state on failure: until a REP has been verified the queue pair is left in INIT
     * (it was bound to nothing and may be used for another attempt); any failure after that moves it
     * to ERROR.
     *
     * <p>Threading: blocks the calling thread, at most one step timeout for the TCP connect and one
     * for the REP. The queue pair must not be used by another thread meanwhile.
     *
     * @param listener        the passive side's {@link ConnectionListener#localAddress()}.
     * @param queuePair       a queue pair in INIT.
     * @param localRegions    regions to advertise to the peer, at most {@link #MAX_REGIONS}; may be empty.
     * @param applicationData opaque payload for the peer's application, at most
     *                        {@link #MAX_APPLICATION_DATA_LENGTH} bytes; may be empty.
     * @param config          concluded configuration: this side's identity and the identities it accepts.
     * @return the connection: the queue pair, now in RTS, and what the peer advertised.
     * @throws ConnectionRejectedException when the listener answers REJ (bad authentication,
     *                                     unsupported version, malformed, refused by its
     *                                     application, timed out); the queue pair stays in INIT.
     * @throws RdmaException               when a step times out (the message names the step), the
     *                                     connection fails, the CHALLENGE names an identity this side
     *                                     does not accept there, fails authentication or is of another
     *                                     protocol version (nothing is revealed: no REQ goes out), or
     *                                     the REP is invalid or fails authentication (the queue pair
     *                                     stays in INIT), or the queue
     *                                     pair cannot be connected or RTU cannot be sent (the queue
     *                                     pair is moved to ERROR).
     * @throws IllegalStateException       when the queue pair is not in INIT or the configuration is
     *                                     not concluded.
     * @throws IllegalArgumentException    when regions, payload or endpoint address exceed the limits.
     */
    public static Connection connect(final InetSocketAddress listener, final QueuePair queuePair,
        final List<RegionAdvertisement> localRegions, final byte[] applicationData,
        final ConnectionManagerConfig config)
    {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(queuePair, "queuePair");
        Objects.requireNonNull(config, "config");
        config.checkConcluded();
        final QueuePairEndpoint localEndpoint = queuePair.localEndpoint();
        WireFormat.checkOutgoing(localEndpoint, localRegions, applicationData);
        requireInit(queuePair, "ConnectionManager.connect");
        if (listener.isUnresolved())
        {
            throw new RdmaException("cannot resolve the connection listener's host '" + listener.getHostString() +
                "'; check the name, or give an IP address");
        }

        final Socket socket = connectSocket(listener, config);
        final ManagementChannel channel;
        try
        {
            channel = new ManagementChannel(socket, config, closed -> { });
        }
        catch (final IOException ex)
        {
            closeQuietly(socket);
            throw new RdmaException("management connection to " + listener + " failed right after connecting: " +
                ex.getMessage() + "; " + describe(queuePair) + " left in INIT", ex);
        }
        try (channel)
        {
            return handshake(channel, queuePair, localEndpoint, localRegions, applicationData, config);
        }
    }

    private static Socket connectSocket(final InetSocketAddress listener, final ConnectionManagerConfig config)
    {
        final Socket socket = new Socket();
        try
        {
            socket.connect(listener, (int)config.timeoutMs());
            return socket;
        }
        catch (final SocketTimeoutException ex)
        {
            closeQuietly(socket);
            throw new RdmaException("timed out after " + config.timeoutMs() + " ms connecting to the connection " +
                "listener at " + listener + " (step connect): check the address, firewalls, and " +
                ConnectionManagerConfig.TIMEOUT_PROP, ex);
        }
        catch (final IOException ex)
        {
            closeQuietly(socket);
            throw new RdmaException("cannot connect to the connection listener at " + listener + " (step connect): " +
                ex.getMessage() + "; check that a ConnectionListener is bound there", ex);
        }
    }

    private static Connection handshake(final ManagementChannel channel, final QueuePair queuePair,
        final QueuePairEndpoint localEndpoint, final List<RegionAdvertisement> localRegions,
        final byte[] applicationData, final ConnectionManagerConfig config)
    {
        final WireFormat.Challenge challenge = readChallenge(channel, queuePair, config);
        final byte[] requestNonce = Nonces.newNonce();
        try
        {
            channel.write(MessageType.REQ,
                WireFormat.encodeConnect(requestNonce, challenge.nonce(), localEndpoint, localRegions, applicationData,
                    config.identity().name(), challenge.identity()));
        }
        catch (final IOException ex)
        {
            throw new RdmaException("sending REQ to " + channel.remoteAddress() + " failed (step REQ): " +
                ex.getMessage() + "; the listener may be at its limit of pending handshakes (" +
                ConnectionManagerConfig.MAX_PENDING_PROP + ") or shutting down; " + describe(queuePair) +
                " left in INIT", ex);
        }

        final ConnectMessage reply = readReply(channel, requestNonce, challenge.identity(), queuePair);

        // The REP is authentic and answers our REQ: from here on a failure leaves the queue pair in ERROR.
        try
        {
            queuePair.modifyToReadyToReceive(reply.endpoint());
            queuePair.modifyToReadyToSend();
        }
        catch (final RuntimeException ex)
        {
            moveToError(queuePair, ex);
            channel.rejectAndClose(reply.nonce(), RejectReason.QUEUE_PAIR_FAILED, "the active side could not " +
                "connect its queue pair to " + reply.endpoint() + ": " + ex.getMessage());
            throw new RdmaException("connecting " + describe(queuePair) + " to " + reply.endpoint() + " from the REP " +
                "of " + channel.remoteAddress() + " failed: " + ex.getMessage() + "; queue pair moved to ERROR", ex);
        }
        try
        {
            channel.write(MessageType.RTU, WireFormat.encodeReadyToUse(Nonces.newNonce(), reply.nonce()));
        }
        catch (final IOException ex)
        {
            moveToError(queuePair, ex);
            throw new RdmaException("sending RTU to " + channel.remoteAddress() + " failed (step RTU): " +
                ex.getMessage() + "; " + describe(queuePair) + " moved to ERROR (the passive side times out " +
                "waiting for RTU)", ex);
        }
        return new Connection(queuePair, reply, channel.remoteAddress(), channel.peer());
    }

    /**
     * Waits for the listener's CHALLENGE (or a REJ) and verifies it: a listener whose name this side
     * does not accept, or whose signature does not verify, is refused before the REQ reveals
     * anything. Leaves the queue pair alone.
     *
     * @return the nonce the REQ must echo and the listener's identity. A CHALLENGE of another
     *         protocol version is refused (UNSUPPORTED_VERSION), with a REJ that tells the listener.
     */
    private static WireFormat.Challenge readChallenge(final ManagementChannel channel, final QueuePair queuePair,
        final ConnectionManagerConfig config)
    {
        final String peer = String.valueOf(channel.remoteAddress());
        final String leftInInit = "; " + describe(queuePair) + " left in INIT";
        try
        {
            final Frame frame = channel.readFrame(MessageType.CHALLENGE, true, channel.stepDeadline());
            final ConnectionRejectedException rejected = channel.rejection(frame, "connect");
            if (null != rejected)
            {
                throw rejected;
            }
            if (frame.version() != channel.version())
            {
                // Answered with a REJ, not a REQ: a REQ would reveal this side's endpoint and regions
                // to a listener whose name and key were never checked.
                throw new ProtocolViolationException(RejectReason.UNSUPPORTED_VERSION, "the CHALLENGE carries " +
                    "protocol version " + frame.version() + " but this side speaks version " + channel.version());
            }
            final WireFormat.Challenge challenge = WireFormat.decodeChallenge(frame.body());
            final PeerKey key = config.trusted().get(challenge.identity());
            if (null == key)
            {
                throw new ProtocolViolationException(RejectReason.UNKNOWN_IDENTITY, "the listener names itself '" +
                    challenge.identity() + "', which this side does not accept there (it accepts " +
                    config.trusted().keySet() + ")");
            }
            channel.authenticate(frame, key);
            return challenge;
        }
        catch (final SocketTimeoutException ex)
        {
            throw new RdmaException("timed out after " + channel.stepTimeoutMs() + " ms waiting for the CHALLENGE " +
                "from " + peer + " (step CHALLENGE): is that a RingWire connection listener of this protocol version " +
                "(" + PROTOCOL_VERSION + ")? check " + ConnectionManagerConfig.TIMEOUT_PROP + leftInInit, ex);
        }
        catch (final IOException ex)
        {
            final String what = ex instanceof EOFException ? "closed the management connection" :
                "reset the management connection (" + ex.getMessage() + ")";
            throw new RdmaException(peer + " " + what + " before sending its CHALLENGE (step CHALLENGE): the " +
                "listener may be at its limit of pending handshakes (" + ConnectionManagerConfig.MAX_PENDING_PROP +
                ", " + ConnectionManagerConfig.MAX_PENDING_PER_SOURCE_PROP + ") or of connections a second from " +
                "this address (" + ConnectionManagerConfig.CHALLENGES_PER_SOURCE_PROP + "), or shutting down" +
                leftInInit, ex);
        }
        catch (final ProtocolViolationException ex)
        {
            channel.rejectAndClose(WireFormat.noNonce(), ex.reason(), ex.getMessage());
            throw new RdmaException("refused the CHALLENGE from " + peer + " (step CHALLENGE): " + ex.reason() + ": " +
                ex.getMessage() + "; " + ex.reason().advice() + leftInInit, ex);
        }
    }

    /**
     * Waits for REP or REJ and verifies it. Leaves the queue pair alone.
     */
    private static ConnectMessage readReply(final ManagementChannel channel, final byte[] requestNonce,
        final String challengedBy, final QueuePair queuePair)
    {
        final String peer = String.valueOf(channel.remoteAddress());
        final String leftInInit = "; " + describe(queuePair) + " left in INIT";
        final Frame frame;
        try
        {
            frame = channel.readFrame(MessageType.REP, true, channel.stepDeadline());
        }
        catch (final SocketTimeoutException ex)
        {
            throw new RdmaException("timed out after " + channel.stepTimeoutMs() + " ms waiting for REP from " + peer +
                " (step REP): the passive side did not answer the REQ; check that its application calls accept and " +
                "complete promptly, and " + ConnectionManagerConfig.TIMEOUT_PROP + leftInInit, ex);
        }
        catch (final IOException ex)
        {
            final String what = ex instanceof EOFException ? "closed the management connection" :
                "reset the management connection (" + ex.getMessage() + ")";
            throw new RdmaException(peer + " " + what + " before answering the REQ (step REP): the listener may be " +
                "at its limit of pending handshakes (" + ConnectionManagerConfig.MAX_PENDING_PROP + ") or shutting " +
                "down" + leftInInit, ex);
        }
        catch (final ProtocolViolationException ex)
        {
            throw refuseReply(channel, WireFormat.noNonce(), ex, leftInInit);
        }

        try
        {
            final ConnectionRejectedException rejected = channel.rejection(frame, "REQ");
            if (null != rejected)
            {
                throw rejected;
            }
            final ConnectMessage reply = WireFormat.decodeConnect(MessageType.REP, frame.body());
            // The frame verified, as it was read, under the key of the listener the CHALLENGE named
            // (accepted and verified there): the REP must name that listener too.
            if (!challengedBy.equals(reply.identity()))
            {
                throw new ProtocolViolationException(RejectReason.BAD_AUTHENTICATION, "the REP signs as '" +
                    reply.identity() + "' but the CHALLENGE of this connection came from '" + challengedBy + "'");
            }
            WireFormat.requireAnswer(MessageType.REP, reply.echoedNonce(), MessageType.REQ, requestNonce);
            return reply;
        }
        catch (final ProtocolViolationException ex)
        {
            throw refuseReply(channel, WireFormat.nonce(frame.body()), ex, leftInInit);
        }
    }

    private static RdmaException refuseReply(final ManagementChannel channel, final byte[] echoedNonce,
        final ProtocolViolationException violation, final String queuePairNote)
    {
        channel.rejectAndClose(echoedNonce, violation.reason(), violation.getMessage());
        return new RdmaException("refused the REP from " + channel.remoteAddress() + " (step REP): " +
            violation.reason() + ": " + violation.getMessage() + "; " + violation.reason().advice() + queuePairNote,
            violation);
    }

    /**
     * @throws IllegalStateException unless the queue pair is in INIT.
     */
    static void requireInit(final QueuePair queuePair, final String caller)
    {
        final QueuePairState state = queuePair.state();
        if (state != QueuePairState.INIT)
        {
            throw new IllegalStateException(caller + " needs " + describe(queuePair) + " in INIT but it is in " +
                state + ": call modifyToInit() first, and use a fresh queue pair for each connection");
        }
    }

    /**
     * Moves the queue pair to ERROR; a failure to do so is attached to {@code cause}.
     */
    static void moveToError(final QueuePair queuePair, final Throwable cause)
    {
        try
        {
            queuePair.modifyToError();
        }
        catch (final RuntimeException ex)
        {
            cause.addSuppressed(ex);
        }
    }

    static String describe(final QueuePair queuePair)
    {
        return "queue pair 0x" + Integer.toHexString(queuePair.queuePairNumber());
    }

    static void closeQuietly(final Socket socket)
    {
        try
        {
            socket.close();
        }
        catch (final IOException ex)
        {
            // Closing is best effort: the socket is discarded either way.
        }
    }
}
