package io.ringwire.rdma.socket;

import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.soft.RegionRegistry;
import io.ringwire.rdma.soft.SoftCompletionQueue;
import io.ringwire.rdma.soft.SoftDeviceProgress;
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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A socket device: one listening TCP socket where peers' queue pairs connect, plus the regions and
 * queue pairs created from it. Its address is the listener's "ip:port".
 *
 * <p>Threading: created and closed on the control thread. {@link #pollIncoming(long)} is called by
 * the owning threads of queue pairs waiting for their peer to connect, so it is synchronized; it
 * runs only during connection setup, never in steady state.
 */
final class SocketDevice implements Device
{
    private static final int SEND_STAGING_CAPACITY = 4 * 1024 * 1024;

    private final RdmaConfig config;
    private final DeviceCounters counters = new DeviceCounters();
    private final SoftDeviceProgress progress = new SoftDeviceProgress();
    private final RegionRegistry regions = new RegionRegistry(counters);
    private final ServerSocketChannel listener;
    private final String address;
    private final Map<Integer, SocketQueuePair> queuePairs = new ConcurrentHashMap<>();
    private final List<PendingHello> pendingHellos = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final AtomicInteger nextQueuePairNumber = new AtomicInteger(ThreadLocalRandom.current().nextInt(0x10, 0x1000));
    private volatile boolean closed;

    SocketDevice(final RdmaConfig config)
    {
        this.config = config;
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
    public String name()
    {
        return "socket0";
    }

    @Override
    public String providerName()
    {
        return SocketProvider.NAME;
    }

    @Override
    public String address()
    {
        return address;
    }

    @Override
    public int maxInlineData()
    {
        return config.maxInlineData();
    }

    @Override
    public int mtu()
    {
        return config.mtu();
    }

    @Override
    public int maxCompletionQueueDepth()
    {
        return SoftCompletionQueue.MAX_DEPTH;
    }

    @Override
    public int maxMessageSize()
    {
        return SEND_STAGING_CAPACITY - SocketFrame.HEADER_LENGTH;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain()
    {
        checkOpen();
        final SoftProtectionDomain domain = new SoftProtectionDomain(regions, this::createQueuePair);
        synchronized (resources)
        {
            resources.add(domain);
        }
        return domain;
    }

    @Override
    public CompletionQueue createCompletionQueue(final int depth)
    {
        checkOpen();
        final SoftCompletionQueue queue = progress.newCompletionQueue(depth, counters);
        synchronized (resources)
        {
            resources.add(queue);
        }
        return queue;
    }

    @Override
    public org.agrona.concurrent.Agent progressAgent()
    {
        return progress.newAgent("ringwire-socket-progress-" + address());
    }

    /**
     * @return the guard shared by this device's queue pairs and completion queues.
     */
    io.ringwire.rdma.soft.ProgressGuard progressGuard()
    {
        return progress.guard();
    }

    @Override
    public DeviceCounters counters()
    {
        return counters;
    }

    RegionRegistry regions()
    {
        return regions;
    }

    RdmaConfig config()
    {
        return config;
    }

    int sendStagingCapacity()
    {
        return SEND_STAGING_CAPACITY;
    }

    QueuePair createQueuePair(final QueuePairConfig queuePairConfig)
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
        if (closed)
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
            counters.increment(DeviceCounters.RESPONDER_MALFORMED);
        }

        for (final Iterator<PendingHello> it = pendingHellos.iterator(); it.hasNext(); )
        {
            final PendingHello pending = it.next();
            final int state = pending.read();
            if (state == PendingHello.INCOMPLETE && nowNs - pending.acceptedNs < config.peerTimeoutNs())
            {
                continue;
            }
            final SocketQueuePair target = state == PendingHello.COMPLETE ? queuePairs.get(pending.destinationQpn()) : null;
            final int adopted = null == target ? SocketQueuePair.REFUSED :
                target.adoptIncoming(pending.channel, pending.sourceQpn());
            if (adopted == SocketQueuePair.NOT_YET && nowNs - pending.acceptedNs < config.peerTimeoutNs())
            {
                // The peer reached RTR first (the passive side connects before it sends REP) and its
                // hello is here before our queue pair's RTR: keep it for that queue pair.
                continue;
            }
            it.remove();
            if (adopted != SocketQueuePair.ADOPTED)
            {
                counters.increment(DeviceCounters.RESPONDER_MALFORMED);
                CloseHelper.quietClose(pending.channel);
            }
        }
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("device " + name() + " at " + address + " is closed");
        }
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final SocketQueuePair queuePair : queuePairs.values())
        {
            queuePair.close();
        }
        synchronized (resources)
        {
            for (int i = resources.size() - 1; i >= 0; i--)
            {
                CloseHelper.quietClose(resources.get(i));
            }
            resources.clear();
        }
        synchronized (this)
        {
            pendingHellos.forEach(p -> CloseHelper.quietClose(p.channel));
            pendingHellos.clear();
        }
        CloseHelper.quietClose(listener);
    }

    @Override
    public String toString()
    {
        return "SocketDevice{" + address + '}';
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
