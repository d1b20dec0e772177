package io.ringwire.rdma.roce;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.soft.CopyOnWriteIntMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

/**
 * A RoCEv2 device's receive path: reads the datagrams waiting on the device's UDP socket, verifies
 * each and hands it to the queue pair its BTH names.
 *
 * <p>What a received packet must pass, in order, before any queue pair sees it: it parses (every
 * header the opcode needs, pad and ICRC fit; RC opcodes only), its ICRC matches (see {@link Icrc}
 * for what is verifiable without the IP header), its P_Key matches, its destination queue pair
 * exists. Each failure is counted and the packet dropped: a corrupted packet is never applied.
 *
 * <p>Threading: the device's owning thread. Allocation-free: one buffer, parser and ICRC engine,
 * reused for every datagram.
 */
final class RoceReceiver
{
    /** Largest datagram received. */
    static final int MAX_DATAGRAM = 65_536;
    private static final int DATAGRAMS_PER_POLL = 64;

    private final DatagramChannel channel;
    private final CopyOnWriteIntMap<RoceQueuePair> queuePairs;
    private final DeviceCounters counters;
    /** Datagrams are received at {@link Icrc#HEADROOM}, the ICRC's prefix laid out in front. */
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(Icrc.HEADROOM + MAX_DATAGRAM);
    private final UnsafeBuffer receiveView = new UnsafeBuffer(receiveBuffer);
    private final RocePacket packet = new RocePacket();
    private final Icrc icrc = new Icrc();
    private long completionsProduced;
    private long completionsSeen;

    /**
     * @param channel    the device's bound UDP socket.
     * @param local      its IPv4 address.
     * @param localPort  its port.
     * @param queuePairs the device's queue pairs by number.
     * @param counters   the device's counters.
     */
    RoceReceiver(final DatagramChannel channel, final Inet4Address local, final int localPort,
        final CopyOnWriteIntMap<RoceQueuePair> queuePairs, final DeviceCounters counters)
    {
        this.channel = channel;
        this.queuePairs = queuePairs;
        this.counters = counters;
        Icrc.writePrefix(receiveView, 0, local.hashCode(), 0, localPort);
    }

    /**
     * Receives up to a batch of datagrams and applies each verified packet to its queue pair;
     * stops early after a packet that produced a completion.
     *
     * @param nowNs the progress round's time.
     * @return datagrams received.
     */
    int receive(final long nowNs)
    {
        int handled = 0;
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

    /** Called when a packet produced a completion the application will want to see at once. */
    void completionProduced()
    {
        completionsProduced++;
    }

    private void onDatagram(final InetSocketAddress from, final int length, final long nowNs)
    {
        if (packet.parse(receiveView, Icrc.HEADROOM, length) != RocePacket.VALID ||
            !(from.getAddress() instanceof Inet4Address source))
        {
            counters.increment(DeviceCounters.RESPONDER_MALFORMED);
            return;
        }
        final int received = receiveView.getInt(Icrc.HEADROOM + length - Icrc.LENGTH, ByteOrder.LITTLE_ENDIAN);
        Icrc.setSource(receiveView, source.hashCode(), from.getPort());
        final int computed = icrc.computeInPlace(receiveBuffer, receiveView, 0, length);
        final RoceQueuePair queuePair = queuePairs.get(packet.destinationQp());
        final int ipIdentification = ipIdentification(
            computed, received, length, null == queuePair ? 0 : queuePair.expectedIpIdentification);
        if (ipIdentification < 0)
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

    /**
     * Finds the IPv4 Identification under which the ICRC matches. One sender's datagrams reach one
     * queue pair, numbered one by one or all ID 0: the ID it should carry is checked first (no
     * second CRC pass), then ID 0, then one is solved for (its first packet, a loss, a re-learnt ID).
     *
     * @return the ID, or -1 when none makes the ICRC match.
     */
    private int ipIdentification(final int computed, final int received, final int length, final int expectedId)
    {
        if ((computed ^ received) == Icrc.identificationDifference(expectedId, length))
        {
            return expectedId;
        }
        if (computed == received)
        {
            return 0;
        }
        return icrc.solveIpIdentification(computed, received, length);
    }
}
