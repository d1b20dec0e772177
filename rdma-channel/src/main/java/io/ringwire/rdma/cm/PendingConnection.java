package io.ringwire.rdma.cm;

import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.RdmaException;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An authenticated connection request (REQ) waiting for the passive application's answer: look at
 * what the active side offers, then call exactly one of {@link #complete} or {@link #reject}.
 * Answer promptly: a request not answered within the step timeout of its arrival expires (the active
 * side, configured alike, has stopped waiting for REP by then); the listener refuses it as TIMEOUT and
 * a later answer fails.
 *
 * <p>Threading: the accessors are safe from any thread; {@link #complete} and {@link #reject} may
 * be called from any thread, once in total (a second call fails).
 */
public final class PendingConnection
{
    private final ConnectionListener listener;
    private final ManagementChannel channel;
    private final ConnectMessage request;
    private final long expiresAtNanos;
    private static final int OPEN = 0;
    private static final int ANSWERED = 1;
    private static final int EXPIRED = 2;

    private final AtomicInteger state = new AtomicInteger(OPEN);

    PendingConnection(final ConnectionListener listener, final ManagementChannel channel,
        final ConnectMessage request, final long expiresAtNanos)
    {
        this.listener = listener;
        this.channel = channel;
        this.request = request;
        this.expiresAtNanos = expiresAtNanos;
    }

    /**
     * @return the active side's queue pair endpoint.
     */
    public QueuePairEndpoint remoteEndpoint()
    {
        return request.endpoint();
    }

    /**
     * @return the regions the active side advertises, possibly empty; unmodifiable.
     */
    public List<RegionAdvertisement> remoteRegions()
    {
        return request.regions();
    }

    /**
     * @return a copy of the active side's application payload, possibly empty.
     */
    public byte[] remoteApplicationData()
    {
        return request.applicationData().clone();
    }

    /**
     * @return the identity the active side proved: its REQ verified under this key, one the listener
     *         trusts.
     */
    public PeerKey peerIdentity()
    {
        return channel.peer();
    }

    /**
     * @return the active side's address on the management (TCP) connection.
     */
    public InetSocketAddress remoteManagementAddress()
    {
        return channel.remoteAddress();
    }

    /**
     * Accepts the request: moves {@code queuePair} INIT to RTR with the active side's endpoint, sends
     * REP with this side's endpoint, regions and payload, waits for the RTU, verifies it and moves the
     * queue pair to RTS.
     *
     * <p>Queue pair state on failure: ERROR, whatever failed after the argument checks (no RTU in
     * time, REJ from the active side, invalid RTU, connection lost, modify failed).
     *
     * <p>Threading: blocks the calling thread for at most one step timeout (the RTU).
     *
     * @param queuePair       a queue pair in INIT.
     * @param localRegions    regions to advertise, at most {@link ConnectionManager#MAX_REGIONS}; may be empty.
     * @param applicationData payload for the active side's application, at most
     *                        {@link ConnectionManager#MAX_APPLICATION_DATA_LENGTH} bytes; may be empty.
     * @return the connection: the queue pair, now in RTS, and what the active side advertised.
     * @throws ConnectionRejectedException when the active side answers the REP with REJ (for example
     *                                     it could not verify the REP, or connect its queue pair).
     * @throws RdmaException               when the RTU does not arrive within the step timeout (the
     *                                     message names the step), fails verification, or the
     *                                     connection fails or was closed by {@link ConnectionListener#close()}.
     * @throws IllegalStateException       when the queue pair is not in INIT (the request stays
     *                                     unanswered), or the request was already answered or has
     *                                     expired (the queue pair stays in INIT).
     * @throws IllegalArgumentException    when regions, payload or endpoint address exceed the limits
     *                                     (the request stays unanswered).
     */
    public Connection complete(final QueuePair queuePair, final List<RegionAdvertisement> localRegions,
        final byte[] applicationData)
    {
        Objects.requireNonNull(queuePair, "queuePair");
        final QueuePairEndpoint localEndpoint = queuePair.localEndpoint();
        WireFormat.checkOutgoing(localEndpoint, localRegions, applicationData);
        ConnectionManager.requireInit(queuePair, "PendingConnection.complete");
        claim();
        if (channel.isClosed())
        {
            throw new RdmaException("the management connection from " + channel.remoteAddress() + " was closed " +
                "before complete (the connection listener was closed); " + ConnectionManager.describe(queuePair) +
                " left in INIT");
        }
        try
        {
            try
            {
                queuePair.modifyToReadyToReceive(request.endpoint());
            }
            catch (final RuntimeException ex)
            {
                ConnectionManager.moveToError(queuePair, ex);
                listener.refuse(channel, request.nonce(), RejectReason.QUEUE_PAIR_FAILED, "the passive side could " +
                    "not connect its queue pair to " + request.endpoint() + ": " + ex.getMessage());
                throw new RdmaException("connecting " + ConnectionManager.describe(queuePair) + " to " +
                    request.endpoint() + " from the REQ of " + channel.remoteAddress() + " failed: " + ex.getMessage() +
                    "; queue pair moved to ERROR", ex);
            }
            exchangeReplyAndReadyToUse(queuePair, localEndpoint, localRegions, applicationData);
            try
            {
                queuePair.modifyToReadyToSend();
            }
            catch (final RuntimeException ex)
            {
                ConnectionManager.moveToError(queuePair, ex);
                throw new RdmaException("moving " + ConnectionManager.describe(queuePair) + " to RTS after the RTU " +
                    "from " + channel.remoteAddress() + " failed: " + ex.getMessage() + "; queue pair moved to ERROR",
                    ex);
            }
            listener.counters().incrementCompleted();
            return new Connection(queuePair, request, channel.remoteAddress(), channel.peer());
        }
        finally
        {
            channel.close();
        }
    }

    /**
     * Sends REP and waits for a verified RTU; on any failure moves the queue pair to ERROR and throws.
     */
    private void exchangeReplyAndReadyToUse(final QueuePair queuePair, final QueuePairEndpoint localEndpoint,
        final List<RegionAdvertisement> localRegions, final byte[] applicationData)
    {
        final String movedToError = "; " + ConnectionManager.describe(queuePair) + " moved to ERROR";
        final byte[] replyNonce = Nonces.newNonce();
        final Frame frame;
        try
        {
            channel.write(MessageType.REP,
                WireFormat.encodeConnect(replyNonce, request.nonce(), localEndpoint, localRegions, applicationData,
                    listener.identityName(), null));
            frame = channel.readFrame(MessageType.RTU, true, channel.stepDeadline());
            final ConnectionRejectedException rejected = channel.rejection(frame, "REP");
            if (null != rejected)
            {
                ConnectionManager.moveToError(queuePair, rejected);
                throw rejected;
            }
            WireFormat.requireAnswer(MessageType.RTU, WireFormat.decodeReadyToUse(frame.body()), MessageType.REP,
                replyNonce);
        }
        catch (final SocketTimeoutException ex)
        {
            ConnectionManager.moveToError(queuePair, ex);
            listener.refuse(channel, replyNonce, RejectReason.TIMEOUT, "no RTU within " + channel.stepTimeoutMs() +
                " ms after the REP");
            throw new RdmaException("timed out after " + channel.stepTimeoutMs() + " ms waiting for RTU from " +
                channel.remoteAddress() + " (step RTU): the active side did not confirm the REP; check its logs and " +
                ConnectionManagerConfig.TIMEOUT_PROP + movedToError, ex);
        }
        catch (final ProtocolViolationException ex)
        {
            ConnectionManager.moveToError(queuePair, ex);
            listener.refuse(channel, replyNonce, ex.reason(), ex.getMessage());
            throw new RdmaException("refused the RTU from " + channel.remoteAddress() + " (step RTU): " + ex.reason() +
                ": " + ex.getMessage() + "; " + ex.reason().advice() + movedToError, ex);
        }
        catch (final IOException ex)
        {
            ConnectionManager.moveToError(queuePair, ex);
            final String what = channel.isClosed() ? "the connection listener was closed" :
                ex instanceof EOFException ? channel.remoteAddress() + " closed the management connection" :
                "the management connection to " + channel.remoteAddress() + " failed (" + ex.getMessage() + ")";
            throw new RdmaException(what + " before the RTU arrived (step RTU); the active side may have given up " +
                "waiting for the REP (" + ConnectionManagerConfig.TIMEOUT_PROP + ")" + movedToError, ex);
        }
    }

    /**
     * Refuses the request: the active side gets a REJ with {@link RejectReason#REJECTED_BY_APPLICATION}
     * and this text, and its {@link ConnectionManager#connect} throws {@link ConnectionRejectedException}.
     * No queue pair is involved.
     *
     * <p>Threading: returns without waiting on the peer: the REJ is sent, and the connection drained
     * and closed, on a virtual thread (a peer that keeps its end open holds that thread for the
     * drain's bound, never the caller). A listener closed right after may close the connection
     * before the REJ went out: the active side then sees the connection end instead of the reason.
     *
     * @param reason why, for the active side's exception and the logs; at most 512 UTF-8 bytes are
     *               sent.
     * @throws IllegalStateException when the request was already answered or has expired.
     */
    public void reject(final String reason)
    {
        Objects.requireNonNull(reason, "reason");
        claim();
        listener.refuseWithoutWaiting(channel, request.nonce(), RejectReason.REJECTED_BY_APPLICATION, reason);
    }

    boolean isExpired(final long nowNanos)
    {
        return nowNanos - expiresAtNanos > 0;
    }

    /**
     * Waits until the management connection closes or the request's answer time is up.
     *
     * @return whether the connection closed first (then there is nothing left to expire).
     */
    boolean awaitClosedUntilExpiry() throws InterruptedException
    {
        return channel.awaitClosed(Math.max(0, expiresAtNanos - System.nanoTime()));
    }

    /**
     * Refuses the request as TIMEOUT unless the application has answered it. Blocks briefly while the
     * REJ is delivered; called on the listener's per-request virtual thread.
     */
    void expire()
    {
        if (state.compareAndSet(OPEN, EXPIRED))
        {
            listener.refuse(channel, request.nonce(), RejectReason.TIMEOUT, "the application did not answer the " +
                "request within " + channel.stepTimeoutMs() + " ms");
        }
    }

    private void claim()
    {
        if (!state.compareAndSet(OPEN, ANSWERED))
        {
            throw new IllegalStateException("the connection request from " + channel.remoteAddress() +
                (state.get() == EXPIRED ?
                " expired: it was not answered within " + channel.stepTimeoutMs() + " ms of arriving, and the " +
                "active side has stopped waiting for REP by then (" + ConnectionManagerConfig.TIMEOUT_PROP + ")" :
                " was already answered: call complete or reject once"));
        }
    }

    @Override
    public String toString()
    {
        return "PendingConnection{from=" + channel.remoteAddress() + ", endpoint=" + request.endpoint() +
            ", regions=" + request.regions().size() + ", applicationData=" + request.applicationData().length +
            " bytes}";
    }
}
