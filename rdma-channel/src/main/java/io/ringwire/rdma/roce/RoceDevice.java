package io.ringwire.rdma.roce;

import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.soft.RegionRegistry;
import io.ringwire.rdma.soft.SoftCompletionQueue;
import io.ringwire.rdma.soft.SoftDeviceProgress;
import io.ringwire.rdma.soft.SoftProtectionDomain;
import org.agrona.CloseHelper;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A RoCEv2 device: one UDP socket (port 4791 by default, any port for tests) that receives every
 * packet for this device's queue pairs, verifies it and hands it to the queue pair its BTH names.
 *
 * <p>What a received packet must pass, in order, before any queue pair sees it: it parses (every
 * header the opcode needs, pad and ICRC fit; RC opcodes only), its ICRC matches (see {@link Icrc}
 * for what is verifiable without the IP header), its P_Key matches, its destination queue pair
 * exists. Each failure is counted and the packet dropped: a corrupted packet is never applied.
 *
 * <p>Threading: single-threaded. All queue pairs and completion queues of one device are driven by
 * one thread at a time (use one device per thread for independent threads). Creating and closing
 * objects happens on the control thread before and after.
 */
final class RoceDevice implements Device
{
    static final int MAX_DATAGRAM = 65_536;
    private static final int DATAGRAMS_PER_POLL = 64;

    private final RdmaConfig config;
    private final RoceSettings settings;
    private final DeviceCounters counters = new DeviceCounters();
    private final SoftDeviceProgress progress = new SoftDeviceProgress();
    private final RegionRegistry regions = new RegionRegistry(counters);
    private final DatagramChannel channel;
    private final Inet4Address localAddress;
    private final int localAddressBits;
    private final int localPort;
    private final String address;
    /** Datagrams are received at {@link Icrc#HEADROOM}, the ICRC's prefix laid out in front. */
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(Icrc.HEADROOM + MAX_DATAGRAM);
    private final UnsafeBuffer receiveView = new UnsafeBuffer(receiveBuffer);
    private final RocePacket packet = new RocePacket();
    private final Icrc icrc = new Icrc();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private volatile Int2ObjectHashMap<RoceQueuePair> queuePairs = new Int2ObjectHashMap<>();
    private int nextQueuePairNumber = ThreadLocalRandom.current().nextInt(0x11, 0x1000);
    private long lastReceivePollNs = Long.MIN_VALUE;
    private long completionsProduced;
    private long completionsSeen;
    private RoceQueuePair[] acknowledgementsOwed = new RoceQueuePair[8];
    private int acknowledgementsOwedCount;
    private boolean closed;

    RoceDevice(final RdmaConfig config, final RoceSettings settings)
    {
        this.config = config;
        this.settings = settings;
        final InetAddress bind;
        try
        {
            bind = InetAddress.getByName(config.bindHost());
        }
        catch (final IOException ex)
        {
            throw new RdmaException("roce cannot resolve " + RdmaConfig.BIND_ADDRESS_PROP + " host '" +
                config.bindHost() + "'", ex);
        }
        if (!(bind instanceof Inet4Address ipv4) || bind.isAnyLocalAddress())
        {
            throw new RdmaException("roce needs one local IPv4 address in " + RdmaConfig.BIND_ADDRESS_PROP +
                " (got '" + config.bindHost() + "'): the ICRC covers the source address, so the wildcard address will not do");
        }
        localAddress = ipv4;
        localAddressBits = ipv4.hashCode();
        DatagramChannel opened = null;
        try
        {
            opened = DatagramChannel.open(StandardProtocolFamily.INET); // IPv4 only: no v4-mapped IPv6 layer
            opened.setOption(StandardSocketOptions.SO_RCVBUF, 8 * 1024 * 1024);
            opened.bind(new InetSocketAddress(ipv4, config.bindPort()));
            opened.configureBlocking(false);
            localPort = ((InetSocketAddress)opened.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(opened);
            throw new RdmaException("roce cannot bind UDP " + ipv4.getHostAddress() + ":" + config.bindPort() + " (" +
                ex.getMessage() + "); is another RoCE stack (e.g. the kernel's rxe) using that address and port?", ex);
        }
        channel = opened;
        address = ipv4.getHostAddress() + ":" + localPort;
        Icrc.writePrefix(receiveView, 0, localAddressBits, 0, localPort);
    }

    @Override
    public String name()
    {
        return "roce0";
    }

    @Override
    public String providerName()
    {
        return RoceProvider.NAME;
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
        return Integer.MAX_VALUE;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain()
    {
        checkOpen();
        final SoftProtectionDomain domain = new SoftProtectionDomain(regions, this::createQueuePair);
        resources.add(domain);
        return domain;
    }

    @Override
    public CompletionQueue createCompletionQueue(final int depth)
    {
        checkOpen();
        final SoftCompletionQueue queue = progress.newCompletionQueue(depth, counters);
        resources.add(queue);
        return queue;
    }

    @Override
    public org.agrona.concurrent.Agent progressAgent()
    {
        return progress.newAgent("ringwire-roce-progress-" + address());
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

    RoceSettings settings()
    {
        return settings;
    }

    Inet4Address localAddress()
    {
        return localAddress;
    }

    private synchronized QueuePair createQueuePair(final QueuePairConfig queuePairConfig)
    {
        checkOpen();
        int queuePairNumber;
        do
        {
            queuePairNumber = nextQueuePairNumber;
            nextQueuePairNumber = (nextQueuePairNumber + 1) & QueuePairEndpoint.MASK_24;
        }
        while (queuePairNumber < 2 || queuePairs.containsKey(queuePairNumber));
        final RoceQueuePair queuePair = new RoceQueuePair(this, queuePairNumber, queuePairConfig);
        final Int2ObjectHashMap<RoceQueuePair> updated = new Int2ObjectHashMap<>(queuePairs);
        updated.put(queuePairNumber, queuePair);
        queuePairs = updated;
        return queuePair;
    }

    synchronized void removeQueuePair(final RoceQueuePair queuePair)
    {
        final Int2ObjectHashMap<RoceQueuePair> updated = new Int2ObjectHashMap<>(queuePairs);
        updated.remove(queuePair.queuePairNumber());
        queuePairs = updated;
    }

    /**
     * Sends the acknowledgements that are due, then receives what is waiting (once per progress
     * round, however many queue pairs ask) and hands each verified packet to its queue pair.
     *
     * @param nowNs the progress round's time.
     * @return packets handled.
     */
    int pollReceive(final long nowNs)
    {
        if (nowNs == lastReceivePollNs || closed)
        {
            return 0;
        }
        lastReceivePollNs = nowNs;
        // ACKs due go out now, after the application has handled the previous batch's completions
        // and perhaps posted its answer: acknowledgements stay off the request-to-response path.
        int handled = releaseAcknowledgements(nowNs);
        for (int i = 0; i < DATAGRAMS_PER_POLL; i++)
        {
            receiveBuffer.clear().position(Icrc.HEADROOM);
            final SocketAddress from;
            try
            {
                from = channel.receive(receiveBuffer);
            }
            catch (final IOException ex)
            {
                counters.increment(DeviceCounters.RESPONDER_MALFORMED);
                continue;
            }
            if (null == from)
            {
                break;
            }
            handled++;
            onDatagram((InetSocketAddress)from, receiveBuffer.position() - Icrc.HEADROOM, nowNs);
            if (completionsProduced != completionsSeen)
            {
                // Hand the completion to the application now rather than after one more (usually
                // empty) receive system call; the next poll picks up what else is waiting.
                completionsSeen = completionsProduced;
                break;
            }
        }
        return handled;
    }

    private int releaseAcknowledgements(final long nowNs)
    {
        int sent = 0;
        int held = 0;
        final int count = acknowledgementsOwedCount;
        for (int i = 0; i < count; i++)
        {
            final RoceQueuePair queuePair = acknowledgementsOwed[i];
            acknowledgementsOwed[i] = null;
            final int result = queuePair.releaseAcknowledgement(nowNs);
            if (result == RoceResponder.ACKNOWLEDGEMENT_HELD)
            {
                acknowledgementsOwed[held++] = queuePair;
            }
            else
            {
                queuePair.acknowledgementListed = false;
                if (result == RoceResponder.ACKNOWLEDGEMENT_SENT)
                {
                    sent++;
                }
            }
        }
        acknowledgementsOwedCount = held;
        return sent;
    }

    private void onDatagram(final InetSocketAddress from, final int length, final long nowNs)
    {
        if (packet.parse(receiveView, Icrc.HEADROOM, length) != RocePacket.VALID)
        {
            counters.increment(DeviceCounters.RESPONDER_MALFORMED);
            return;
        }
        if (!(from.getAddress() instanceof Inet4Address source))
        {
            counters.increment(DeviceCounters.RESPONDER_MALFORMED);
            return;
        }
        final int received = receiveView.getInt(Icrc.HEADROOM + length - Icrc.LENGTH, ByteOrder.LITTLE_ENDIAN);
        Icrc.setSource(receiveView, source.hashCode(), from.getPort());
        final int computed = icrc.computeInPlace(receiveBuffer, receiveView, 0, length);
        final RoceQueuePair queuePair = queuePairs.get(packet.destinationQp());
        // One sender's datagrams reach one queue pair, numbered one by one or all ID 0: check the ID
        // it should carry (no second CRC pass), then ID 0, then solve for one (its first packet, a
        // loss, a re-learnt ID).
        final int expectedId = null == queuePair ? 0 : queuePair.expectedIpIdentification;
        final int ipIdentification;
        if ((computed ^ received) == Icrc.identificationDifference(expectedId, length))
        {
            ipIdentification = expectedId;
        }
        else if (computed == received)
        {
            ipIdentification = 0;
        }
        else if ((ipIdentification = icrc.solveIpIdentification(computed, received, length)) < 0)
        {
            counters.increment(DeviceCounters.ICRC_ERRORS);
            return;
        }
        if (null == queuePair)
        {
            counters.increment(DeviceCounters.UNKNOWN_QUEUE_PAIR);
            return;
        }
        if ((packet.partitionKey() & 0x7FFF) != (queuePair.partitionKey() & 0x7FFF))
        {
            counters.increment(DeviceCounters.BAD_PARTITION_KEY);
            return;
        }
        queuePair.expectedIpIdentification = 0 == ipIdentification ? 0 : (ipIdentification + 1) & 0xFFFF;
        queuePair.onPacket(packet, receiveView, nowNs);
    }

    /** Called when a packet produced a completion the application will want to see at once. */
    void completionProduced()
    {
        completionsProduced++;
    }

    /**
     * Asks for {@link RoceQueuePair#releaseAcknowledgement} at the start of every progress round
     * until the queue pair owes no ACK, so one ACK covers every packet that asked for one meanwhile.
     */
    void acknowledgeLater(final RoceQueuePair queuePair)
    {
        if (queuePair.acknowledgementListed)
        {
            return;
        }
        queuePair.acknowledgementListed = true;
        if (acknowledgementsOwedCount == acknowledgementsOwed.length)
        {
            acknowledgementsOwed = java.util.Arrays.copyOf(acknowledgementsOwed, acknowledgementsOwed.length * 2);
        }
        acknowledgementsOwed[acknowledgementsOwedCount++] = queuePair;
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("device roce0 at " + address + " is closed");
        }
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        for (final RoceQueuePair queuePair : queuePairs.values())
        {
            queuePair.close();
        }
        closed = true;
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(resources.get(i));
        }
        resources.clear();
        CloseHelper.quietClose(channel);
    }

    @Override
    public String toString()
    {
        return "RoceDevice{" + address + '}';
    }
}
