package io.ringwire.rdma.socket;

import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.config.EndpointAddress;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Sets up a socket queue pair's connection. Of the two queue pairs, the one whose (device address,
 * queue pair number) sorts lower connects to the other's device listener and sends a hello naming
 * both queue pair numbers; the other adopts that connection, which its device accepts, during
 * progress. Until then, posts are staged.
 *
 * <p>Threading: {@link #connect} on the control thread; {@link #offer} on whichever owning thread
 * polls the device's listener; {@link #adopt} and {@link #close} on the owning thread. An offer
 * and a close lock this connector against each other, so a channel is never taken after the
 * close has looked for it.
 */
final class SocketConnector
{
    /** What became of a connection offered to the queue pair. */
    enum Offer
    {
        /** The connection is this queue pair's now. */
        ADOPTED,
        /** Not at RTR yet: the device keeps the connection and offers it again. */
        NOT_YET,
        /** Not for this queue pair: the device closes it. */
        REFUSED
    }

    private static final Runnable NO_STEP = () ->
    {
    };

    private final SocketDevice device;
    private final SocketQueuePair queuePair;
    private final SocketConnection connection;
    private final long peerTimeoutNs;
    private boolean awaitingIncoming;
    private int expectedSourceQpn;
    private int expectedSourcePsn;
    private long connectStartNs;
    private volatile SocketChannel adoptedChannel;

    /**
     * @param device        whose listener accepts the passive side's connection.
     * @param queuePair     the queue pair it connects, and whose connection it opens.
     * @param peerTimeoutNs how long connecting may take.
     */
    SocketConnector(final SocketDevice device, final SocketQueuePair queuePair, final long peerTimeoutNs)
    {
        this.device = device;
        this.queuePair = queuePair;
        this.connection = queuePair.connection();
        this.peerTimeoutNs = peerTimeoutNs;
    }

    /**
     * Connects to the peer's device (blocking, up to the peer timeout) when this side sorts lower,
     * else starts waiting for the peer's connection.
     *
     * @param localAddress this device's address.
     * @param remote       the peer.
     * @return true when this side connected, false when it waits for the peer.
     * @throws RdmaException when the peer's device cannot be reached.
     */
    boolean connect(final String localAddress, final QueuePairEndpoint remote)
    {
        int order = localAddress.compareTo(remote.address());
        if (order == 0)
        {
            order = Integer.compare(queuePair.queuePairNumber(), remote.queuePairNumber());
        }
        connectStartNs = System.nanoTime();
        if (order < 0)
        {
            connection.open(connectTo(remote));
            return true;
        }
        expectedSourceQpn = remote.queuePairNumber();
        expectedSourcePsn = remote.startPsn();
        awaitingIncoming = true;
        return false;
    }

    private SocketChannel connectTo(final QueuePairEndpoint remote)
    {
        final InetSocketAddress peer;
        try
        {
            peer = EndpointAddress.resolve("socket device address", remote.address());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RdmaException(ex.getMessage(), ex);
        }
        SocketChannel connecting = null;
        try
        {
            connecting = SocketChannel.open();
            connecting.setOption(StandardSocketOptions.TCP_NODELAY, true);
            connecting.socket().connect(peer, (int)Math.max(1, peerTimeoutNs / 1_000_000));
            final ByteBuffer hello = SocketFrame.hello(remote.queuePairNumber(), queuePair.queuePairNumber(),
                remote.startPsn(), queuePair.startPsn());
            while (hello.hasRemaining())
            {
                connecting.write(hello);
            }
            connecting.configureBlocking(false);
            return connecting;
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(connecting);
            throw new RdmaException("queue pair 0x" + Integer.toHexString(queuePair.queuePairNumber()) +
                " cannot connect to its peer's socket device at " + remote.address() + " (" + ex.getMessage() +
                "): is the peer process running and reachable?", ex);
        }
    }

    /**
     * Offered a connection the device accepted. Any thread. Adopted only when its hello names the
     * peer this queue pair was connected to and both start PSNs of that negotiation.
     *
     * @param incoming       the accepted channel, hello consumed.
     * @param sourceQpn      the queue pair number its hello names as sender.
     * @param destinationPsn the start PSN its hello gives for this queue pair.
     * @param sourcePsn      the start PSN its hello gives for the sender.
     * @return what became of it.
     */
    Offer offer(final SocketChannel incoming, final int sourceQpn, final int destinationPsn, final int sourcePsn)
    {
        return offer(incoming, sourceQpn, destinationPsn, sourcePsn, NO_STEP);
    }

    /**
     * {@link #offer(SocketChannel, int, int, int)}, locked against {@link #close}, which runs on
     * another thread: a channel taken here is closed by a close that follows, and an offer after a
     * close finds nothing awaited and is refused (the device closes the channel).
     *
     * @param beforeAdopting runs just before the channel is taken (tests).
     */
    synchronized Offer offer(final SocketChannel incoming, final int sourceQpn, final int destinationPsn,
        final int sourcePsn, final Runnable beforeAdopting)
    {
        // This side's PSN is known from the start: a hello without it is a stranger's, refused
        // before it could wait for RTR.
        if (destinationPsn != queuePair.startPsn())
        {
            return Offer.REFUSED;
        }
        final QueuePairState current = queuePair.state();
        if (current == QueuePairState.RESET || current == QueuePairState.INIT)
        {
            return Offer.NOT_YET;
        }
        if (!awaitingIncoming || sourceQpn != expectedSourceQpn || sourcePsn != expectedSourcePsn ||
            null != adoptedChannel || current == QueuePairState.ERROR)
        {
            return Offer.REFUSED;
        }
        beforeAdopting.run();
        adoptedChannel = incoming;
        return Offer.ADOPTED;
    }

    /**
     * Opens the connection once the device has handed it over, polling the device's listener while
     * it has not. With requests outstanding, a peer that does not connect within the peer timeout
     * is lost.
     *
     * @param nowNs the progress round's time.
     * @return true when the connection is open now.
     */
    boolean adopt(final long nowNs)
    {
        if (!awaitingIncoming)
        {
            return false;
        }
        SocketChannel incoming = adoptedChannel;
        if (null == incoming)
        {
            device.pollIncoming(nowNs);
            incoming = adoptedChannel;
        }
        if (null == incoming)
        {
            if (nowNs - connectStartNs > peerTimeoutNs && queuePair.outstandingRequests() > 0)
            {
                queuePair.peerLost();
            }
            return false;
        }
        connection.open(incoming);
        return true;
    }

    /**
     * Stops waiting for the peer and closes the connection (see {@link SocketConnection#close}).
     */
    void close()
    {
        final SocketChannel adopted;
        synchronized (this)
        {
            awaitingIncoming = false;
            adopted = adoptedChannel;
        }
        connection.close(adopted);
    }
}
