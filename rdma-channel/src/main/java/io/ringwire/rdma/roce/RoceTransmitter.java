package io.ringwire.rdma.roce;

import io.ringwire.rdma.RdmaException;
import jdk.net.ExtendedSocketOptions;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;

/**
 * Sends one queue pair's packets: builds them in a direct buffer, stamps the ICRC and sends the
 * datagram from a UDP socket bound to the flow-entropy source port, with Don't-Fragment set.
 *
 * <p>The ICRC covers the IPv4 Identification, which the kernel picks. Two ways to know it:
 * <ul>
 *   <li>connected (the default where it works): a {@link ConnectedUdpSocket}, whose IDs count up
 *       from a start learnt from the kernel once; a send skips the route lookup an unconnected
 *       one pays on every datagram;</li>
 *   <li>unconnected ({@link RoceProvider#CONNECTED_SEND_PROP}{@code =false}, or where the
 *       connected socket cannot learn its IDs: not Linux, a sockets shim): Linux sends ID 0.</li>
 * </ul>
 *
 * <p>Threading: the queue pair's owning thread.
 */
final class RoceTransmitter implements AutoCloseable
{
    /** How long the kernel gets to loop the identification probe back. */
    private static final long PROBE_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final System.Logger LOG = System.getLogger(RoceTransmitter.class.getName());

    /** The unconnected socket, or null when {@link #connected} sends. */
    private final DatagramChannel channel;
    /** The connected socket, or null. */
    private final ConnectedUdpSocket connected;
    /** Where the connected socket's identification probes go (bound, never read), or null. */
    private final DatagramChannel probeSink;
    private final int probeSinkPort;
    private final MemorySegment packetSegment;
    /** The IPv4 Identification of the next datagram (always 0 unconnected). */
    private int nextIpIdentification;
    /** A send failed in a way that may have used an ID: learn it again before the next send. */
    private boolean relearnIpIdentification;
    private final InetSocketAddress peer;
    private final int localAddress;
    private final int sourcePort;
    /** The datagram at {@link Icrc#HEADROOM}, the ICRC's prefix in front of it. */
    private final ByteBuffer frame;
    private final UnsafeBuffer frameView;
    /** The datagram's part of {@link #frame}, from its BTH. */
    private final UnsafeBuffer packet;
    private final Icrc icrc = new Icrc();

    /**
     * @param local          the device's IPv4 address.
     * @param peer           the peer device's address and UDP port.
     * @param sourcePort     the flow-entropy port to send from (falls back to any port if taken).
     * @param maxPacket      largest packet, BTH through ICRC.
     * @param tryConnected   send from a connected socket if its IP IDs can be learnt here.
     */
    RoceTransmitter(
        final Inet4Address local,
        final InetSocketAddress peer,
        final int sourcePort,
        final int maxPacket,
        final boolean tryConnected)
    {
        if (!(peer.getAddress() instanceof Inet4Address peerIpv4))
        {
            throw new RdmaException("roce supports IPv4 peers only; got " + peer);
        }
        this.peer = peer;
        this.localAddress = local.hashCode(); // Inet4Address.hashCode() is the address as an int
        final int peerAddress = peerIpv4.hashCode();
        final int destinationPort = peer.getPort();
        this.frame = ByteBuffer.allocateDirect(Icrc.HEADROOM + maxPacket);
        this.frameView = new UnsafeBuffer(frame);
        this.packet = new UnsafeBuffer(frame, Icrc.HEADROOM, maxPacket);
        this.packetSegment = MemorySegment.ofBuffer(frame).asSlice(Icrc.HEADROOM);
        final ConnectedSending opened = tryConnected ? openConnected(local, sourcePort, peerAddress, destinationPort) : null;
        if (null != opened)
        {
            this.connected = opened.socket();
            this.probeSink = opened.sink();
            this.probeSinkPort = opened.sinkPort();
            this.nextIpIdentification = opened.firstIpIdentification();
            this.sourcePort = opened.socket().localPort();
            this.channel = null;
        }
        else
        {
            this.connected = null;
            this.probeSink = null;
            this.probeSinkPort = 0;
            this.channel = openUnconnected(local, sourcePort);
            this.sourcePort = localPort(channel);
        }
        Icrc.writePrefix(frameView, localAddress, peerAddress, this.sourcePort, destinationPort);
    }

    /** A connected socket, its probe sink and its first learnt ID. */
    private record ConnectedSending(ConnectedUdpSocket socket, DatagramChannel sink, int sinkPort, int firstIpIdentification)
    {
    }

    private ConnectedSending openConnected(
        final Inet4Address local, final int sourcePort, final int peerAddress, final int destinationPort)
    {
        ConnectedUdpSocket socket = null;
        DatagramChannel sink = null;
        try
        {
            socket = ConnectedUdpSocket.open(localAddress, sourcePort, peerAddress, destinationPort);
            sink = DatagramChannel.open(StandardProtocolFamily.INET);
            sink.setOption(StandardSocketOptions.SO_RCVBUF, 4096); // probes pile up and are dropped
            sink.bind(new InetSocketAddress(local, 0));
            final int sinkPort = localPort(sink);
            final int first = socket.learnIpIdentification(localAddress, sinkPort, PROBE_TIMEOUT_NS);
            if (first == ConnectedUdpSocket.PROBE_NOT_SENT)
            {
                throw new LibcSockets.Unavailable("the identification probe was not sent");
            }
            return new ConnectedSending(socket, sink, sinkPort, first);
        }
        catch (final LibcSockets.Unavailable | IOException | RuntimeException ex)
        {
            CloseHelper.quietCloseAll(socket, sink);
            LOG.log(System.Logger.Level.INFO, "roce sends from an unconnected socket (IP ID 0), slower: a connected " +
                "socket's IP IDs cannot be learnt here: " + ex.getMessage());
            return null;
        }
    }

    /**
     * @param channel a bound UDP socket.
     * @return its port.
     * @throws RdmaException when the socket cannot say (it is closed).
     */
    static int localPort(final DatagramChannel channel)
    {
        try
        {
            return ((InetSocketAddress)channel.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            throw new RdmaException("roce cannot read a UDP socket's port: " + ex.getMessage(), ex);
        }
    }

    private static DatagramChannel openUnconnected(final Inet4Address local, final int sourcePort)
    {
        DatagramChannel opened = null;
        try
        {
            opened = DatagramChannel.open(StandardProtocolFamily.INET); // IPv4 only: no v4-mapped IPv6 layer
            opened.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            opened.setOption(StandardSocketOptions.SO_SNDBUF, 4 * 1024 * 1024);
            try
            {
                opened.bind(new InetSocketAddress(local, sourcePort));
            }
            catch (final IOException portTaken)
            {
                opened.bind(new InetSocketAddress(local, 0)); // entropy is a hint for ECMP, not a requirement
            }
            opened.configureBlocking(false);
            return opened;
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(opened);
            throw new RdmaException("roce cannot open a UDP socket on " + local.getHostAddress() + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * @return the buffer to build the next packet in, at index 0.
     */
    UnsafeBuffer packet()
    {
        return packet;
    }

    /**
     * Stamps the ICRC on the packet built in {@link #packet()} and sends it. Allocation-free.
     *
     * @param length bytes from the BTH through the ICRC.
     * @return true when the kernel took the datagram; false when its buffer was full or the send
     *         failed (the packet counts as lost: retransmission recovers it).
     */
    boolean send(final int length)
    {
        if (null != connected)
        {
            return sendConnected(length);
        }
        packet.putInt(length - Icrc.LENGTH, icrc.computeInPlace(frame, frameView, 0, length), ByteOrder.LITTLE_ENDIAN);
        frame.limit(Icrc.HEADROOM + length).position(Icrc.HEADROOM);
        try
        {
            return channel.send(frame, peer) > 0;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private boolean sendConnected(final int length)
    {
        if (relearnIpIdentification && !relearn())
        {
            return false;
        }
        final int id = nextIpIdentification;
        packet.putInt(length - Icrc.LENGTH, icrc.computeInPlace(frame, frameView, id, length), ByteOrder.LITTLE_ENDIAN);
        final long sent = connected.send(packetSegment, length);
        if (sent >= 0)
        {
            nextIpIdentification = (id + 1) & 0xFFFF;
            return true;
        }
        // The packet counts as lost; it may have used an ID, so learn the next one again.
        relearnIpIdentification = true;
        return false;
    }

    private boolean relearn()
    {
        try
        {
            final int next = connected.learnIpIdentification(localAddress, probeSinkPort, PROBE_TIMEOUT_NS);
            if (next == ConnectedUdpSocket.PROBE_NOT_SENT)
            {
                return false; // the send buffer is still full: the packet counts as lost, the next send tries again
            }
            nextIpIdentification = next;
            relearnIpIdentification = false;
            return true;
        }
        catch (final LibcSockets.Unavailable ex)
        {
            return false; // the packet counts as lost; the next send tries again
        }
    }

    /**
     * @return true when packets leave from a connected socket with learnt IP IDs.
     */
    boolean isConnected()
    {
        return null != connected;
    }

    /**
     * @return the IPv4 Identification the next packet will carry (0 on an unconnected socket).
     */
    int nextIpIdentification()
    {
        return nextIpIdentification;
    }

    /**
     * Asks the kernel which IP ID the connected socket's next datagram gets: sends a probe and
     * returns the ID the kernel gave it, which a test compares with {@link #nextIpIdentification()}
     * read before. The probe uses that ID; the transmitter moves on past it.
     *
     * @return the ID the kernel gave the probe, or -1 unconnected.
     * @throws LibcSockets.Unavailable when the probe is not looped back.
     */
    int probeKernelIpIdentification() throws LibcSockets.Unavailable
    {
        if (null == connected)
        {
            return -1;
        }
        final int next = connected.learnIpIdentification(localAddress, probeSinkPort, PROBE_TIMEOUT_NS);
        if (next == ConnectedUdpSocket.PROBE_NOT_SENT)
        {
            throw new LibcSockets.Unavailable("the identification probe was not sent");
        }
        nextIpIdentification = next;
        return (nextIpIdentification - 1) & 0xFFFF;
    }

    /**
     * @return the UDP source port packets leave from.
     */
    int sourcePort()
    {
        return sourcePort;
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(channel, connected, probeSink);
    }
}
