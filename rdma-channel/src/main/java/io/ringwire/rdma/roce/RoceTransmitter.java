package io.ringwire.rdma.roce;

import io.ringwire.rdma.RdmaException;
import jdk.net.ExtendedSocketOptions;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

/**
 * Sends one queue pair's packets: builds them in a direct buffer, stamps the ICRC and sends the
 * datagram from a UDP socket bound to the flow-entropy source port.
 *
 * <p>The socket is unconnected with Don't-Fragment set: Linux then sends IP ID 0, which makes the
 * ICRC (it covers the IP ID) computable here and verifiable by a receiver that cannot see the IP
 * header. A connected socket would number its datagrams.
 *
 * <p>Threading: the queue pair's owning thread.
 */
final class RoceTransmitter implements AutoCloseable
{
    private final DatagramChannel channel;
    private final InetSocketAddress peer;
    private final int localAddress;
    private final int peerAddress;
    private final int sourcePort;
    private final int destinationPort;
    private final ByteBuffer packetBuffer;
    private final UnsafeBuffer packet;
    private final Icrc icrc = new Icrc();

    /**
     * @param local          the device's IPv4 address.
     * @param peer           the peer device's address and UDP port.
     * @param sourcePort     the flow-entropy port to send from (falls back to any port if taken).
     * @param maxPacket      largest packet, BTH through ICRC.
     */
    RoceTransmitter(final Inet4Address local, final InetSocketAddress peer, final int sourcePort, final int maxPacket)
    {
        if (!(peer.getAddress() instanceof Inet4Address peerIpv4))
        {
            throw new RdmaException("roce supports IPv4 peers only; got " + peer);
        }
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
            this.sourcePort = ((InetSocketAddress)opened.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            CloseHelper.quietClose(opened);
            throw new RdmaException("roce cannot open a UDP socket on " + local.getHostAddress() + ": " + ex.getMessage(), ex);
        }
        this.channel = opened;
        this.peer = peer;
        this.localAddress = local.hashCode(); // Inet4Address.hashCode() is the address as an int
        this.peerAddress = peerIpv4.hashCode();
        this.destinationPort = peer.getPort();
        this.packetBuffer = ByteBuffer.allocateDirect(maxPacket);
        this.packet = new UnsafeBuffer(packetBuffer);
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
        final int crc = icrc.compute(localAddress, peerAddress, 0, sourcePort, destinationPort, packetBuffer, 0, length);
        packet.putInt(length - Icrc.LENGTH, crc, ByteOrder.LITTLE_ENDIAN);
        packetBuffer.limit(length).position(0);
        try
        {
            return channel.send(packetBuffer, peer) > 0;
        }
        catch (final IOException ex)
        {
            return false;
        }
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
        CloseHelper.quietClose(channel);
    }
}
