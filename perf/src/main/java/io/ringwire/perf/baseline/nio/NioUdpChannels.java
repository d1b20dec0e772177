package io.ringwire.perf.baseline.nio;

import jdk.net.ExtendedSocketOptions;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;

/**
 * Sets up the {@code nio-udp} baseline's sockets the way a latency-minded user would: one IPv4
 * {@link DatagramChannel} per side on 127.0.0.1, connected to the other side (so {@code read} and
 * {@code write} need no address and the kernel filters strangers), non-blocking, busy-polled with no
 * selector; and those of {@code nio-udp-unconnected}, the way the roce provider uses them (see
 * {@link NioUdpLink}). Setup only, off the hot path.
 */
public final class NioUdpChannels
{
    /** Largest UDP payload over IPv4: one message must fit one datagram. */
    public static final int MAX_DATAGRAM_PAYLOAD = 65_507;

    private static final InetAddress LOOPBACK = loopback();

    private NioUdpChannels()
    {
    }

    private static InetAddress loopback()
    {
        try
        {
            return InetAddress.getByAddress(new byte[] { 127, 0, 0, 1 });
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @return a non-blocking channel bound to an ephemeral port of 127.0.0.1 (see {@link #port}).
     * @throws IOException when it cannot bind.
     */
    public static DatagramChannel open() throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        try
        {
            channel.bind(new InetSocketAddress(LOOPBACK, 0));
            channel.configureBlocking(false);
            return channel;
        }
        catch (final IOException ex)
        {
            channel.close();
            throw new IOException("nio-udp: cannot bind a UDP socket on 127.0.0.1: " + ex.getMessage(), ex);
        }
    }

    /**
     * @return a non-blocking channel bound to an ephemeral port of 127.0.0.1 with Don't-Fragment set,
     *         as the roce provider sends from (Linux then sends IP ID 0 from an unconnected socket).
     * @throws IOException when it cannot bind.
     */
    public static DatagramChannel openDontFragment() throws IOException
    {
        final DatagramChannel channel = open();
        try
        {
            channel.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            return channel;
        }
        catch (final IOException ex)
        {
            channel.close();
            throw ex;
        }
    }

    /**
     * @param port a port of 127.0.0.1.
     * @return its socket address.
     */
    public static InetSocketAddress loopbackAddress(final int port)
    {
        return new InetSocketAddress(LOOPBACK, port);
    }

    /**
     * @param channel a bound channel.
     * @return its local port.
     * @throws IOException when it is closed.
     */
    public static int port(final DatagramChannel channel) throws IOException
    {
        return ((InetSocketAddress)channel.getLocalAddress()).getPort();
    }

    /**
     * Connects the channel to the peer's port on 127.0.0.1.
     *
     * @param channel a bound channel.
     * @param port    the peer's port.
     * @return the channel.
     * @throws IOException when the connect fails.
     */
    public static DatagramChannel connect(final DatagramChannel channel, final int port) throws IOException
    {
        try
        {
            channel.connect(new InetSocketAddress(LOOPBACK, port));
            return channel;
        }
        catch (final IOException ex)
        {
            throw new IOException("nio-udp: cannot connect to 127.0.0.1:" + port + ": " + ex.getMessage(), ex);
        }
    }
}
