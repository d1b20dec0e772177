package io.ringwire.rdma.socket;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.config.EndpointAddress;
import io.ringwire.rdma.soft.CopyOnWriteIntMap;
import io.ringwire.rdma.soft.SoftDevice;
import io.ringwire.rdma.soft.SoftProtectionDomain;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

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
    /**
     * Hellos that may wait from one source (an IPv4 address, an IPv6 /64). A hello waits only until
     * its queue pair is at RTR, so even a host setting up many queue pairs at once has few waiting.
     */
    static final int MAX_PENDING_HELLOS_PER_SOURCE = 64;
    /** Hellos that may wait in all, each an open socket until the peer timeout. */
    static final int MAX_PENDING_HELLOS = 1024;
    /** Connections accepted in one poll, so that a flood does not hold the polling thread. */
    private static final int ACCEPTS_PER_POLL = 64;

    private final ServerSocketChannel listener;
    private final String address;
    private final CopyOnWriteIntMap<SocketQueuePair> queuePairs = new CopyOnWriteIntMap<>();
    private final List<PendingHello> pendingHellos = new ArrayList<>();
    /** Held while a queue pair takes its number: the number is free when chosen and taken when this is let go. */
    private final Object queuePairNumbering = new Object();
    /** The next queue pair number to try; guarded by {@link #queuePairNumbering}. */
    private int nextQueuePairNumber = ThreadLocalRandom.current().nextInt(0x10, 0x1000);

    SocketDevice(final RdmaConfig config)
    {
        super(config, SocketProvider.NAME, new DeviceCounters());
        final InetAddress bind;
        try
        {
            bind = InetAddress.getByName(config.bindHost());
        }
        catch (final IOException ex)
        {
            throw new RdmaException("socket provider cannot resolve " + RdmaConfig.BIND_ADDRESS_PROP + " host '" +
                config.bindHost() + "'", ex);
        }
        if (bind.isAnyLocalAddress())
        {
            // The device's address is what its peers connect to: it must name this host for them.
            throw new RdmaException("socket provider: " + RdmaConfig.BIND_ADDRESS_PROP + " must name a local " +
                "address (got '" + config.bindHost() + "'): peers connect to the address the device advertises, " +
                "so the wildcard address will not do");
        }
        ServerSocketChannel opened = null;
        try
        {
            opened = ServerSocketChannel.open();
            opened.bind(new InetSocketAddress(bind, config.bindPort()));
            opened.configureBlocking(false);
            final InetSocketAddress bound = (InetSocketAddress)opened.getLocalAddress();
            address = new EndpointAddress(bound.getAddress().getHostAddress(), bound.getPort()).toString();
            listener = opened;
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(opened); // a port in use, an address not on this host: the socket goes
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

    /**
     * Numbers are 24 bits, as on the wire: once they come round (a process that connects and closes
     * for long enough) the next one skips those of open queue pairs, which a peer's hello names and
     * the map holds, and 0 and 1, as InfiniBand reserves them.
     */
    private QueuePair createQueuePair(final QueuePairConfig queuePairConfig)
    {
        checkOpen();
        synchronized (queuePairNumbering)
        {
            int queuePairNumber;
            int tried = 0;
            do
            {
                if (++tried > QueuePairEndpoint.MASK_24)
                {
                    throw new IllegalStateException("every queue pair number of " + address + " is in use");
                }
                queuePairNumber = nextQueuePairNumber++ & QueuePairEndpoint.MASK_24;
            }
            while (queuePairNumber < 2 || queuePairs.containsKey(queuePairNumber));
            final SocketQueuePair queuePair = new SocketQueuePair(this, queuePairNumber, queuePairConfig);
            queuePairs.put(queuePairNumber, queuePair);
            return queuePair;
        }
    }

    /** Sets the next queue pair number to try (tests: numbers coming round). */
    void nextQueuePairNumber(final int number)
    {
        synchronized (queuePairNumbering)
        {
            nextQueuePairNumber = number;
        }
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
     * <p>Waiting hellos are bounded per source and in all, so that one peer's idle connections cannot
     * keep another's out ({@link #makeRoomFor}); a hello that does not name this side's start PSN is
     * refused at once, so only a hello from the negotiating peer waits for its queue pair's RTR.
     *
     * @param nowNs current time.
     */
    synchronized void pollIncoming(final long nowNs)
    {
        if (isClosed())
        {
            return;
        }
        for (final Iterator<PendingHello> it = pendingHellos.iterator(); it.hasNext(); )
        {
            if (!keep(it.next(), nowNs))
            {
                it.remove();
            }
        }
        for (int accepted = 0; accepted < ACCEPTS_PER_POLL; accepted++)
        {
            SocketChannel channel = null;
            try
            {
                if (null == (channel = listener.accept()))
                {
                    break;
                }
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                final PendingHello pending =
                    new PendingHello(channel, ((InetSocketAddress)channel.getRemoteAddress()).getAddress(), nowNs);
                if (keep(pending, nowNs))
                {
                    if (makeRoomFor(pending.from))
                    {
                        pendingHellos.add(pending);
                    }
                    else
                    {
                        refuse(channel);
                    }
                }
            }
            catch (final IOException ex)
            {
                if (null == channel)
                {
                    // accept() itself failed (out of descriptors, say): nothing more to take this round.
                    counters().increment(DeviceCounters.CONNECTIONS_REFUSED);
                    break;
                }
                refuse(channel);
            }
        }
    }

    /**
     * Reads what has arrived of a hello and offers a whole one to the queue pair it names.
     *
     * @return true when the connection waits on, false when it is adopted or refused (and closed).
     */
    private boolean keep(final PendingHello pending, final long nowNs)
    {
        final int state = pending.read();
        if (state == PendingHello.INCOMPLETE && nowNs - pending.acceptedNs < config().peerTimeoutNs())
        {
            return true;
        }
        final SocketQueuePair target = state == PendingHello.COMPLETE ? queuePairs.get(pending.destinationQpn()) : null;
        final SocketConnector.Offer adopted = null == target ? SocketConnector.Offer.REFUSED :
            target.adoptIncoming(pending.channel, pending.sourceQpn(), pending.destinationPsn(), pending.sourcePsn());
        if (adopted == SocketConnector.Offer.NOT_YET && nowNs - pending.acceptedNs < config().peerTimeoutNs())
        {
            // The peer reached RTR first (the passive side connects before it sends REP) and its
            // hello is here before our queue pair's RTR: keep it for that queue pair.
            return true;
        }
        if (adopted != SocketConnector.Offer.ADOPTED)
        {
            refuse(pending.channel);
        }
        return false;
    }

    /**
     * Makes room for one more hello from {@code from}: past its source's bound, the oldest of that
     * source's connections that has not sent a whole hello goes; past the bound in all, the oldest
     * such connection of the source holding the most goes. So a source can crowd out only itself.
     *
     * @return false when there is no room: the new connection is refused.
     */
    private boolean makeRoomFor(final InetAddress from)
    {
        final int fromThere = pendingFrom(from);
        if (fromThere >= MAX_PENDING_HELLOS_PER_SOURCE)
        {
            return evictOldestIncompleteFrom(from);
        }
        if (pendingHellos.size() < MAX_PENDING_HELLOS)
        {
            return true;
        }
        // Full: one pass counts every source (setup path; only a crowd gets here).
        final Map<String, int[]> counts = new HashMap<>();
        InetAddress crowding = null;
        int most = fromThere;
        for (int i = 0, size = pendingHellos.size(); i < size; i++)
        {
            final InetAddress source = pendingHellos.get(i).from;
            final int count = ++counts.computeIfAbsent(sourceKey(source), key -> new int[1])[0];
            if (count > most)
            {
                most = count;
                crowding = source;
            }
        }
        return null != crowding && evictOldestIncompleteFrom(crowding);
    }

    private static String sourceKey(final InetAddress address)
    {
        final byte[] bytes = address.getAddress();
        return HexFormat.of().formatHex(bytes, 0, address instanceof Inet6Address ? 8 : bytes.length);
    }

    private int pendingFrom(final InetAddress source)
    {
        int count = 0;
        for (int i = 0, size = pendingHellos.size(); i < size; i++)
        {
            count += sameSource(pendingHellos.get(i).from, source) ? 1 : 0;
        }
        return count;
    }

    private boolean evictOldestIncompleteFrom(final InetAddress source)
    {
        for (int i = 0, size = pendingHellos.size(); i < size; i++)
        {
            final PendingHello pending = pendingHellos.get(i);
            if (sameSource(pending.from, source) && pending.incomplete())
            {
                refuse(pendingHellos.remove(i).channel);
                return true;
            }
        }
        return false;
    }

    /** @return whether two addresses are one source: the same IPv4 address, or the same IPv6 /64. */
    static boolean sameSource(final InetAddress a, final InetAddress b)
    {
        if (!(a instanceof Inet6Address) || !(b instanceof Inet6Address))
        {
            return a.equals(b);
        }
        return Arrays.equals(a.getAddress(), 0, 8, b.getAddress(), 0, 8);
    }

    private void refuse(final SocketChannel channel)
    {
        counters().increment(DeviceCounters.CONNECTIONS_REFUSED);
        CloseHelper.quietClose(channel);
    }

    /**
     * @return accepted connections whose hello has not been handed to a queue pair yet.
     */
    synchronized int pendingHellos()
    {
        return pendingHellos.size();
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
        final InetAddress from;
        final long acceptedNs;
        final ByteBuffer hello = ByteBuffer.allocate(SocketFrame.HELLO_LENGTH).order(SocketFrame.ORDER);

        PendingHello(final SocketChannel channel, final InetAddress from, final long acceptedNs)
        {
            this.channel = channel;
            this.from = from;
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

        boolean incomplete()
        {
            return hello.hasRemaining();
        }

        int destinationQpn()
        {
            return hello.getInt(SocketFrame.HELLO_DESTINATION_QPN_OFFSET);
        }

        int sourceQpn()
        {
            return hello.getInt(SocketFrame.HELLO_SOURCE_QPN_OFFSET);
        }

        int destinationPsn()
        {
            return hello.getInt(SocketFrame.HELLO_DESTINATION_PSN_OFFSET);
        }

        int sourcePsn()
        {
            return hello.getInt(SocketFrame.HELLO_SOURCE_PSN_OFFSET);
        }
    }
}
