package io.ringwire.rdma.roce;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.soft.CopyOnWriteIntMap;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

import static io.ringwire.rdma.roce.RawUdpReceiver.IPV4_HEADER_LENGTH;
import static io.ringwire.rdma.roce.RawUdpReceiver.UDP_HEADER_LENGTH;

/**
 * A RoCEv2 device's receive path: reads the datagrams waiting for the device, verifies each and
 * hands it to the queue pair its BTH names.
 *
 * <p>What a received packet must pass, in order, before any queue pair sees it: it parses (every
 * header the opcode needs, pad and ICRC fit; RC opcodes only), its ICRC matches, its destination
 * queue pair exists, its P_Key matches, and it comes from that queue pair's peer (its address and,
 * once learnt, its UDP source port). Each failure is counted and the packet dropped: a corrupted or
 * foreign packet is never applied.
 *
 * <p>The ICRC covers the IPv4 Identification, which a UDP socket never sees. Two ways to check it:
 * <ul>
 *   <li>With a {@link RawUdpReceiver} (CAP_NET_RAW), every datagram arrives with its IPv4 header,
 *       and the ICRC is checked against the ID the packet really carried: the whole ICRC, as a
 *       RoCE NIC checks it.</li>
 *   <li>Without one, the receiver accepts a packet only when its ICRC matches an ID predicted
 *       before it arrived: one of the next {@value #ID_WINDOW} IDs of its queue pair's peer
 *       (RingWire's connected sockets and rxe number their datagrams one by one, and a lost datagram
 *       skips one), or one of the next IDs from its source address (rxe numbers all of a host pair's
 *       queue pairs together). RingWire's unconnected sockets send ID 0 throughout, which a queue
 *       pair expects until it has learnt another sequence. ID 0, too, is accepted only where it lies
 *       in the window: otherwise a corruption that the ICRC takes for ID 0 in a numbering peer's
 *       packet would pass. A packet whose ICRC matches only an ID solved out of the packet itself
 *       (its sender's first packet, one after a long outage) is dropped, as unverified, and the
 *       reliable connection resends it; only after {@value #RESYNC_RUN} such packets in a row whose
 *       solved IDs follow one another (or are all 0) does the
 *       receiver take up their sequence. An error the ICRC, being affine in the ID bits, would
 *       take for another ID is thus accepted only if that ID lies in the predicted window, or if
 *       the same error strikes {@value #RESYNC_RUN} consecutive packets while the sequence is
 *       lost: the ICRC alone no longer proves integrity. The device says so
 *       ({@link RoceDevice#verifiesIntegrity()}), and messaging then checksums its frames end to
 *       end, the independent check.</li>
 * </ul>
 *
 * <p>Threading: the device's owning thread. Allocation-free in steady state: one buffer, parser and
 * ICRC engine, reused for every datagram (a new source address takes one map entry).
 */
final class RoceReceiver
{
    /** Largest datagram received. */
    static final int MAX_DATAGRAM = 65_536;
    private static final int DATAGRAMS_PER_POLL = 64;
    /** Where a raw datagram's IPv4 header goes: its IPv4 and UDP headers fill the ICRC prefix's place. */
    private static final int RAW_OFFSET = Icrc.HEADROOM - IPV4_HEADER_LENGTH - UDP_HEADER_LENGTH;
    private static final int NOTHING = -1;
    private static final int SKIPPED = -2;
    /** {@link #matchIdentification}: no ID makes the ICRC match. */
    private static final int ICRC_MISMATCH = -1;
    /** {@link #matchIdentification}: only an ID solved out of the packet does ({@link #solvedIdentification}). */
    private static final int UNVERIFIED = -2;
    private static final int NO_ID = -1;
    /** IDs predicted after a verified packet: its successor's and the next ones, which lost datagrams skip to. */
    static final int ID_WINDOW = 16;
    /** Consecutive unverified packets with successive solved IDs before the receiver takes up their sequence. */
    static final int RESYNC_RUN = 3;

    private final DatagramChannel channel;
    private final RawUdpReceiver raw;
    private final CopyOnWriteIntMap<RoceQueuePair> queuePairs;
    private final DeviceCounters counters;
    /** Datagrams are received at {@link Icrc#HEADROOM}, the ICRC's prefix laid out in front. */
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(Icrc.HEADROOM + MAX_DATAGRAM);
    private final UnsafeBuffer receiveView = new UnsafeBuffer(receiveBuffer);
    private final MemorySegment rawTarget = MemorySegment.ofBuffer(receiveBuffer).asSlice(RAW_OFFSET);
    private final RocePacket packet = new RocePacket();
    private final Icrc icrc = new Icrc();
    /** The next IP ID expected from each source address, for senders that number per host pair. */
    private final Int2IntHashMap expectedIdBySource = new Int2IntHashMap(NO_ID);
    private long completionsProduced;
    private long completionsSeen;
    /** Of the datagram being handled. */
    private int sourceAddress;
    private int sourcePort;
    private int carriedIdentification;
    private int solvedIdentification;

    /**
     * @param channel    the device's bound UDP socket; read unless {@code raw} is given.
     * @param raw        the raw receiver that sees each datagram's headers, or null to predict IDs.
     * @param local      the device's IPv4 address.
     * @param localPort  its port.
     * @param queuePairs the device's queue pairs by number.
     * @param counters   the device's counters.
     */
    RoceReceiver(final DatagramChannel channel, final RawUdpReceiver raw, final Inet4Address local,
        final int localPort, final CopyOnWriteIntMap<RoceQueuePair> queuePairs, final DeviceCounters counters)
    {
        this.channel = channel;
        this.raw = raw;
        this.queuePairs = queuePairs;
        this.counters = counters;
        Icrc.writePrefix(receiveView, 0, local.hashCode(), 0, localPort);
    }

    /**
     * @return true when the ICRC is checked against the IP ID each packet carried.
     */
    boolean verifiesCarriedIdentification()
    {
        return null != raw;
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
            final int length = null == raw ? receiveDatagram() : receiveWithHeaders();
            if (NOTHING == length)
            {
                break;
            }
            handled++;
            if (SKIPPED == length)
            {
                continue;
            }
            onDatagram(length, nowNs);
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

    /** @return the UDP payload's length at {@link Icrc#HEADROOM}, or {@link #NOTHING} or {@link #SKIPPED}. */
    private int receiveDatagram()
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
            return SKIPPED;
        }
        if (null == from)
        {
            return NOTHING;
        }
        final InetSocketAddress sender = (InetSocketAddress)from;
        if (!(sender.getAddress() instanceof Inet4Address source))
        {
            counters.increment(DeviceCounters.RESPONDER_MALFORMED);
            return SKIPPED;
        }
        sourceAddress = source.hashCode();
        sourcePort = sender.getPort();
        carriedIdentification = NO_ID;
        Icrc.setSource(receiveView, sourceAddress, sourcePort);
        return receiveBuffer.position() - Icrc.HEADROOM;
    }

    /**
     * Receives a datagram with its IPv4 and UDP headers in the ICRC prefix's place, reads what they
     * say and masks them as the ICRC does.
     *
     * @return the UDP payload's length at {@link Icrc#HEADROOM}, or {@link #NOTHING} or {@link #SKIPPED}.
     */
    private int receiveWithHeaders()
    {
        final long received = raw.receive(rawTarget, MAX_DATAGRAM + IPV4_HEADER_LENGTH + UDP_HEADER_LENGTH);
        if (received < 0)
        {
            return NOTHING; // empty (EAGAIN), or any other failure: nothing to read this round
        }
        final int ip = RAW_OFFSET;
        final int udp = ip + IPV4_HEADER_LENGTH;
        final int udpLength = receiveView.getShort(udp + 4, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        if ((receiveView.getByte(ip) & 0xFF) != 0x45 || udpLength < UDP_HEADER_LENGTH ||
            IPV4_HEADER_LENGTH + udpLength > received)
        {
            counters.increment(DeviceCounters.RESPONDER_MALFORMED); // IP options, or a truncated datagram
            return SKIPPED;
        }
        sourceAddress = receiveView.getInt(ip + 12, ByteOrder.BIG_ENDIAN);
        sourcePort = receiveView.getShort(udp, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        carriedIdentification = receiveView.getShort(ip + 4, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        Icrc.maskVariantFields(receiveView);
        return udpLength - UDP_HEADER_LENGTH;
    }

    private void onDatagram(final int length, final long nowNs)
    {
        if (packet.parse(receiveView, Icrc.HEADROOM, length) != RocePacket.VALID)
        {
            counters.increment(DeviceCounters.RESPONDER_MALFORMED);
            return;
        }
        final int received = receiveView.getInt(Icrc.HEADROOM + length - Icrc.LENGTH, ByteOrder.LITTLE_ENDIAN);
        final RoceQueuePair queuePair = queuePairs.get(packet.destinationQp());
        final int identification = matchIdentification(received, length, queuePair);
        if (ICRC_MISMATCH == identification)
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
        if (!queuePair.isFromPeer(sourceAddress, sourcePort))
        {
            counters.increment(DeviceCounters.FOREIGN_PACKETS);
            return;
        }
        if (UNVERIFIED == identification)
        {
            // Dropped; a run of such packets whose IDs follow one another becomes the expected sequence.
            queuePair.resyncRun = solvedIdentification == queuePair.candidateIpIdentification ? queuePair.resyncRun + 1 : 1;
            queuePair.candidateIpIdentification = 0 == solvedIdentification ? 0 : (solvedIdentification + 1) & 0xFFFF;
            if (queuePair.resyncRun >= RESYNC_RUN)
            {
                queuePair.expectedIpIdentification = queuePair.candidateIpIdentification;
                queuePair.candidateIpIdentification = NO_ID;
                queuePair.resyncRun = 0;
            }
            counters.increment(DeviceCounters.ICRC_UNVERIFIED);
            return;
        }
        if (null == raw)
        {
            final int next = 0 == identification ? 0 : (identification + 1) & 0xFFFF;
            queuePair.expectedIpIdentification = next;
            queuePair.candidateIpIdentification = NO_ID;
            queuePair.resyncRun = 0;
            expectedIdBySource.put(sourceAddress, next);
        }
        queuePair.onPacket(packet, receiveView, sourcePort, nowNs);
    }

    /**
     * The IPv4 Identification under which the packet's ICRC matches: the one it carried, where the
     * headers are seen; otherwise one predicted before it arrived (see the class comment).
     *
     * @return the ID; {@link #ICRC_MISMATCH}; or {@link #UNVERIFIED}, with the solved ID in
     *         {@link #solvedIdentification}.
     */
    private int matchIdentification(final int received, final int length, final RoceQueuePair queuePair)
    {
        if (NO_ID != carriedIdentification)
        {
            return icrc.computeInPlace(receiveBuffer, receiveView, carriedIdentification, length) == received ?
                carriedIdentification : ICRC_MISMATCH;
        }
        final int computed = icrc.computeInPlace(receiveBuffer, receiveView, 0, length);
        final int difference = computed ^ received;
        if (0 == difference)
        {
            // Only where predicted: a numbering peer's packet whose corruption the ICRC takes for ID 0
            // must not pass as an unconnected peer's.
            if (null == queuePair || inWindow(0, queuePair.expectedIpIdentification))
            {
                return 0;
            }
            final int fromSource = expectedIdBySource.get(sourceAddress);
            if (NO_ID != fromSource && inWindow(0, fromSource))
            {
                return 0;
            }
        }
        else
        {
            if (null != queuePair)
            {
                final int predicted = matchWindow(difference, queuePair.expectedIpIdentification, length);
                if (NO_ID != predicted)
                {
                    return predicted;
                }
            }
            final int fromSource = expectedIdBySource.get(sourceAddress);
            if (NO_ID != fromSource)
            {
                final int predicted = matchWindow(difference, fromSource, length);
                if (NO_ID != predicted)
                {
                    return predicted;
                }
            }
        }
        solvedIdentification = icrc.solveIpIdentification(computed, received, length);
        return solvedIdentification < 0 ? ICRC_MISMATCH : UNVERIFIED;
    }

    /** @return true when {@code identification} is one of the {@link #ID_WINDOW} IDs from {@code first} on. */
    private static boolean inWindow(final int identification, final int first)
    {
        return ((identification - first) & 0xFFFF) < ID_WINDOW;
    }

    /** @return the ID among the {@link #ID_WINDOW} from {@code first} on whose difference matches; {@link #NO_ID} for none. */
    private static int matchWindow(final int difference, final int first, final int length)
    {
        for (int i = 0; i < ID_WINDOW; i++)
        {
            final int identification = (first + i) & 0xFFFF;
            if (matches(difference, identification, length))
            {
                return identification;
            }
        }
        return NO_ID;
    }

    private static boolean matches(final int difference, final int identification, final int length)
    {
        return identification > 0 && difference == Icrc.identificationDifference(identification, length);
    }
}
