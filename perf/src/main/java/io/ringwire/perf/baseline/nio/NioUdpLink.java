package io.ringwire.perf.baseline.nio;

import org.agrona.CloseHelper;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * One side of a UDP ping-pong, in one of the two ways a Java program can use UDP sockets:
 * <ul>
 *   <li>{@code nio-udp}: one channel, connected to the peer; {@code write} and {@code read}.</li>
 *   <li>{@code nio-udp-unconnected}: the socket use of the roce provider, for judging what its
 *       sockets alone cost: datagrams leave from one unconnected channel with Don't-Fragment set
 *       ({@code send(buffer, peer)}, a route lookup per datagram in the kernel) and arrive on
 *       another unconnected one ({@code receive(buffer)}, which returns the sender's address).</li>
 * </ul>
 *
 * <p>Threading: setup on the control thread, then the one spinning thread; allocation-free there.
 */
public final class NioUdpLink implements AutoCloseable
{
    private final DatagramChannel sendChannel;
    private final DatagramChannel receiveChannel;
    private final InetSocketAddress peer;

    private NioUdpLink(final DatagramChannel sendChannel, final DatagramChannel receiveChannel,
        final InetSocketAddress peer)
    {
        this.sendChannel = sendChannel;
        this.receiveChannel = receiveChannel;
        this.peer = peer;
    }

    /**
     * @param channel non-blocking, connected to the peer.
     * @return a link that writes and reads the connected channel.
     */
    public static NioUdpLink connected(final DatagramChannel channel)
    {
        return new NioUdpLink(channel, channel, null);
    }

    /**
     * @param sendChannel    non-blocking, unconnected, Don't-Fragment set.
     * @param receiveChannel non-blocking, unconnected: where the peer sends to.
     * @param peer           the peer's receiving address.
     * @return a link that sends to the peer's address and receives from anyone.
     */
    public static NioUdpLink unconnected(final DatagramChannel sendChannel, final DatagramChannel receiveChannel,
        final InetSocketAddress peer)
    {
        return new NioUdpLink(sendChannel, receiveChannel, peer);
    }

    /**
     * @param datagram from position to limit.
     * @return bytes sent: the whole datagram, or 0 when the socket buffer is full for now.
     * @throws IOException when the send fails.
     */
    int write(final ByteBuffer datagram) throws IOException
    {
        return null == peer ? sendChannel.write(datagram) : sendChannel.send(datagram, peer);
    }

    /**
     * @param buffer receives one datagram at its position.
     * @return bytes received, 0 when none is waiting.
     * @throws IOException when the receive fails.
     */
    int read(final ByteBuffer buffer) throws IOException
    {
        if (null == peer)
        {
            return receiveChannel.read(buffer);
        }
        final int start = buffer.position();
        return null == receiveChannel.receive(buffer) ? 0 : buffer.position() - start;
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(sendChannel, receiveChannel);
    }
}
