package io.ringwire.perf.baseline.nio;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * Sets up the {@code nio-tcp} baseline's loopback connection the way a latency-minded user would:
 * TCP_NODELAY, non-blocking, busy-polled with no selector. Setup only, off the hot path.
 */
public final class NioChannels
{
    /** How long a connect or an accept may take. */
    static final long SETUP_TIMEOUT_MS = 30_000;

    private NioChannels()
    {
    }

    /**
     * @return a server channel on an ephemeral loopback port (see {@link #port}).
     * @throws IOException when it cannot bind.
     */
    public static ServerSocketChannel listen() throws IOException
    {
        final ServerSocketChannel server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
        server.configureBlocking(false);
        return server;
    }

    /**
     * @param server a bound server channel.
     * @return its port.
     * @throws IOException when it is closed.
     */
    public static int port(final ServerSocketChannel server) throws IOException
    {
        return ((InetSocketAddress)server.getLocalAddress()).getPort();
    }

    /**
     * Waits for one connection, at most {@link #SETUP_TIMEOUT_MS}.
     *
     * @param server a non-blocking server channel.
     * @return the connection, configured for latency.
     * @throws IOException when nobody connects in time or the accept fails.
     */
    public static SocketChannel accept(final ServerSocketChannel server) throws IOException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETUP_TIMEOUT_MS);
        while (true)
        {
            final SocketChannel channel = server.accept();
            if (null != channel)
            {
                return configure(channel);
            }
            if (System.nanoTime() > deadlineNs)
            {
                throw new IOException("nio-tcp: nobody connected to port " + port(server) + " within " +
                    SETUP_TIMEOUT_MS + " ms");
            }
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while accepting", ex);
            }
        }
    }

    /**
     * @param port a loopback port that listens.
     * @return the connection, configured for latency.
     * @throws IOException when the connection fails.
     */
    public static SocketChannel connect(final int port) throws IOException
    {
        final SocketChannel channel = SocketChannel.open();
        try
        {
            channel.socket().connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                (int)SETUP_TIMEOUT_MS);
            return configure(channel);
        }
        catch (final IOException ex)
        {
            channel.close();
            throw new IOException("nio-tcp: cannot connect to loopback port " + port + ": " + ex.getMessage(), ex);
        }
    }

    private static SocketChannel configure(final SocketChannel channel) throws IOException
    {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.configureBlocking(false);
        return channel;
    }
}
