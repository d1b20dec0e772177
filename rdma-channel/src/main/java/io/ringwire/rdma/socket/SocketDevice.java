package io.ringwire.rdma.socket;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.soft.CopyOnWriteIntMap;
import io.ringwire.rdma.soft.SoftDevice;
import io.ringwire.rdma.soft.SoftProtectionDomain;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A socket device: one listening TCP socket where peers' queue pairs connect, plus the regions and
 * queue pairs created from it. Its address is the listener's "ip:port". What every software device
 * shares comes from {@link SoftDevice}; this class adds the listener, which accepts the passive
 * side's connections and hands each to the queue pair its hello names (see {@link SocketConnector}).
 *
 * <p>Threading: created and closed on the control thread. {@link #pollIncoming(long)} is called by
 * the owning threads of queue pairs waiting for their peer to connect, so it is synchronized; it
 * runs only during connection setup, never in steady state.
 */
final class SocketDevice extends SoftDevice
{
    private static final int SEND_STAGING_CAPACITY = 4 * 1024 * 1024;

    private final ServerSocketChannel listener;
    private final String address;
    private final CopyOnWriteIntMap<SocketQueuePair> queuePairs = new CopyOnWriteIntMap<>();
    private final List<PendingHello> pendingHellos = new ArrayList<>();
    private final AtomicInteger nextQueuePairNumber = new AtomicInteger(ThreadLocalRandom.current().nextInt(0x10, 0x1000));

    SocketDevice(final RdmaConfig config)
    {
        super(config, SocketProvider.NAME, new DeviceCounters());
        try
        {
            listener = ServerSocketChannel.open();
            listener.bind(new InetSocketAddress(config.bindHost(), config.bindPort()));
            listener.configureBlocking(false);
            final InetSocketAddress bound = (InetSocketAddress)listener.getLocalAddress();
            address = bound.getAddress().getHostAddress() + ":" + bound.getPort();
        }
        catch (final IOException ex)
        {
            throw new RdmaException("socket provider cannot listen on " + config.bindHost() + ":" + config.bindPort() +
                " (" + ex.getMessage() + "); set " + RdmaConfig.BIND_ADDRESS_PROP + " to a local address and free port", ex);
        }
    }

    @Override
    public String address()
    {
        return address;
    }

    /**
     * @return the staging buffer's capacity less a frame header: the largest message.
     */
    @Override
    public int maxMessageSize()
    {
        return SEND_STAGING_CAPACITY - SocketFrame.HEADER_LENGTH;
    }

    @Override
    protected ProtectionDomain newProtectionDomain()
    {
        return new SoftProtectionDomain(regions(), this::createQueuePair);
    }

    int sendStagingCapacity()
    {
        return SEND_STAGING_CAPACITY;
    }

    private QueuePair createQueuePair(final QueuePairConfig queuePairConfig)
    {
        checkOpen();
        final int queuePairNumber = nextQueuePairNumber.getAndIncrement() & 0xFF_FFFF;
        final SocketQueuePair queuePair = new SocketQueuePair(this, queuePairNumber, queuePairConfig);
        queuePairs.put(queuePairNumber, queuePair);
        return queuePair;
    }

    void removeQueuePair(final SocketQueuePair queuePair)
    {
        queuePairs.remove(queuePair.queuePairNumber(), queuePair);
    }

    /**
     * Accepts connections from peers and hands each, once its hello arrived, to the queue pair it
     * names. A hello for a queue pair that is not at RTR yet waits (up to the peer timeout) until it
     * is: any waiting queue pair of this device may read it first. Non-blocking; called only by queue
     * pairs still waiting for their connection.
     *
     * @param nowNs current time.
     */
    synchronized void pollIncoming(final long nowNs)
    {
        if (isClosed())
        {
            return;
        }
        try
        {
            SocketChannel channel;
            while (null != (channel = listener.accept()))
            {
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                pendingHellos.add(new PendingHello(channel, nowNs));
            }
        }
        catch (final IOException ex)
        {
            counters().increment(DeviceCounters.RESPONDER_MALFORMED);
        }

        for (final Iterator<PendingHello> it = pendingHellos.iterator(); it.hasNext(); )
        {
            final PendingHello pending = it.next();
            final int state = pending.read();
            if (state == PendingHello.INCOMPLETE && nowNs - pending.acceptedNs < config().peerTimeoutNs())
            {
                continue;
            }
            final SocketQueuePair target = state == PendingHello.COMPLETE ? queuePairs.get(pending.destinationQpn()) : null;
            final SocketConnector.Offer adopted = null == target ? SocketConnector.Offer.REFUSED :
                target.adoptIncoming(pending.channel, pending.sourceQpn());
            if (adopted == SocketConnector.Offer.NOT_YET && nowNs - pending.acceptedNs < config().peerTimeoutNs())
            {
                // The peer reached RTR first (the passive side connects before it sends REP) and its
                // hello is here before our queue pair's RTR: keep it for that queue pair.
                continue;
            }
            it.remove();
            if (adopted != SocketConnector.Offer.ADOPTED)
            {
                counters().increment(DeviceCounters.RESPONDER_MALFORMED);
                CloseHelper.quietClose(pending.channel);
            }
        }
    }

    @Override
    protected void closeQueuePairs()
    {
        for (final SocketQueuePair queuePair : queuePairs.values())
        {
            queuePair.close();
        }
    }

    @Override
    protected void closeTransport()
    {
        synchronized (this)
        {
            pendingHellos.forEach(p -> CloseHelper.quietClose(p.channel));
            pendingHellos.clear();
        }
        CloseHelper.quietClose(listener);
    }

    /** An accepted connection whose hello has not fully arrived. Setup path only. */
    private static final class PendingHello
    {
        static final int INCOMPLETE = 0;
        static final int COMPLETE = 1;
        static final int FAILED = 2;

        final SocketChannel channel;
        final long acceptedNs;
        final ByteBuffer hello = ByteBuffer.allocate(SocketFrame.HELLO_LENGTH).order(SocketFrame.ORDER);

        PendingHello(final SocketChannel channel, final long acceptedNs)
        {
            this.channel = channel;
            this.acceptedNs = acceptedNs;
        }

        int read()
        {
            try
            {
                if (channel.read(hello) < 0)
                {
                    return FAILED;
                }
            }
            catch (final IOException ex)
            {
                return FAILED;
            }
            if (hello.hasRemaining())
            {
                return INCOMPLETE;
            }
            return hello.getInt(SocketFrame.HELLO_MAGIC_OFFSET) == SocketFrame.HELLO_MAGIC ? COMPLETE : FAILED;
        }

        int destinationQpn()
        {
            return hello.getInt(SocketFrame.HELLO_DESTINATION_QPN_OFFSET);
        }

        int sourceQpn()
        {
            return hello.getInt(SocketFrame.HELLO_SOURCE_QPN_OFFSET);
        }
    }
}
