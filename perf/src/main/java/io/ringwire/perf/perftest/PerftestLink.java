package io.ringwire.perf.perftest;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * One perftest TCP connection and its exchanges ({@link PerftestMessages}), in the role of the
 * client (writes first in each exchange) or the server (reads first). The socket is non-blocking:
 * while it waits for the peer it calls a progress action, because a software RDMA provider executes
 * the peer's incoming WRITEs and sends their ACKs only while its completion queue is polled, and the
 * peer may be waiting for those ACKs before it answers on the socket.
 *
 * <p>Threading: one thread, the one that owns the queue pair the progress action polls.
 */
public final class PerftestLink implements AutoCloseable
{
    private static final long IDLE_PARK_NS = 50_000;

    private final SocketChannel channel;
    private final boolean client;
    private final Runnable progress;
    private final long timeoutNs;
    private final ByteBuffer mine = ByteBuffer.allocateDirect(PerftestMessages.KEY_LENGTH);
    private final ByteBuffer theirs = ByteBuffer.allocateDirect(PerftestMessages.KEY_LENGTH);
    private final ByteBuffer probe = ByteBuffer.allocateDirect(64);

    private PerftestLink(final SocketChannel channel, final boolean client, final Runnable progress,
        final long timeoutNs) throws IOException
    {
        this.channel = channel;
        this.client = client;
        this.progress = progress;
        this.timeoutNs = timeoutNs;
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.configureBlocking(false);
    }

    /**
     * Waits for perftest's client to connect, as its server does (one connection, then the listening
     * socket is done with).
     *
     * @param listener  a bound listening channel; closed by the caller.
     * @param progress  called while waiting for the peer.
     * @param timeoutNs how long any one wait may take.
     * @return the server side of the connection.
     * @throws IOException               when the socket fails.
     * @throws PerftestProtocolException when nobody connects in time.
     */
    public static PerftestLink accept(final ServerSocketChannel listener, final Runnable progress,
        final long timeoutNs) throws IOException
    {
        listener.configureBlocking(false);
        final long deadline = System.nanoTime() + timeoutNs;
        while (true)
        {
            final SocketChannel accepted = listener.accept();
            if (null != accepted)
            {
                return new PerftestLink(accepted, false, progress, timeoutNs);
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new PerftestProtocolException("no perftest client connected to " + listener.getLocalAddress() +
                    " within " + timeoutNs / 1_000_000 + " ms");
            }
            progress.run();
            LockSupport.parkNanos(IDLE_PARK_NS);
        }
    }

    /**
     * Connects to a perftest server, as its client does.
     *
     * @param server    the server's address.
     * @param progress  called while waiting for the peer.
     * @param timeoutNs how long any one wait may take.
     * @return the client side of the connection.
     * @throws IOException when the connection fails.
     */
    public static PerftestLink connect(final InetSocketAddress server, final Runnable progress, final long timeoutNs)
        throws IOException
    {
        final SocketChannel channel = SocketChannel.open(server);
        return new PerftestLink(channel, true, progress, timeoutNs);
    }

    /**
     * @return whether this side writes first in each exchange.
     */
    public boolean isClient()
    {
        return client;
    }

    /**
     * @return the buffer to fill with this side's message before {@link #exchange}, cleared.
     */
    public ByteBuffer mine()
    {
        return mine.clear();
    }

    /**
     * One exchange: this side's message (what {@link #mine()} holds up to its position) one way,
     * {@code length} bytes of the peer's the other, in this side's role's order.
     *
     * @param step   the step, for a refusal ("keys").
     * @param length the length of the peer's message.
     * @return the peer's message, from position 0 to {@code length}.
     * @throws IOException               when the socket fails.
     * @throws PerftestProtocolException when the peer closes or stays silent past the timeout.
     */
    public ByteBuffer exchange(final String step, final int length) throws IOException
    {
        mine.flip();
        if (client)
        {
            writeAll(step);
            readFully(step, length);
        }
        else
        {
            readFully(step, length);
            writeAll(step);
        }
        return theirs.flip();
    }

    /**
     * Sends this side's message (what {@link #mine()} holds) without reading anything back: the
     * closing {@code "done"}, which neither side reads.
     *
     * @param step the step, for a refusal.
     * @throws IOException when the socket fails.
     */
    public void send(final String step) throws IOException
    {
        mine.flip();
        writeAll(step);
    }

    /**
     * Keeps calling the progress action until the peer closes the connection, whatever it still
     * sends, or the timeout passes: ib_write_lat ends with no sync, and its last WRITE completes
     * only when this side has acknowledged it.
     *
     * @return true when the peer closed, false when the timeout passed first.
     * @throws IOException when the socket fails other than by the peer closing it.
     */
    public boolean drainUntilClosed() throws IOException
    {
        final long deadline = System.nanoTime() + timeoutNs;
        while (System.nanoTime() - deadline < 0)
        {
            probe.clear();
            final int n;
            try
            {
                n = channel.read(probe);
            }
            catch (final IOException ex)
            {
                return true;
            }
            if (n < 0)
            {
                return true;
            }
            progress.run();
        }
        return false;
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }

    private void writeAll(final String step) throws IOException
    {
        final long deadline = System.nanoTime() + timeoutNs;
        while (mine.hasRemaining())
        {
            if (0 == channel.write(mine))
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new PerftestProtocolException("perftest " + step + ": the peer took no bytes for " +
                        timeoutNs / 1_000_000 + " ms");
                }
                progress.run();
            }
        }
    }

    private void readFully(final String step, final int length) throws IOException
    {
        theirs.clear().limit(length);
        final long deadline = System.nanoTime() + timeoutNs;
        while (theirs.hasRemaining())
        {
            final int n = channel.read(theirs);
            if (n < 0)
            {
                throw new PerftestProtocolException("perftest " + step + ": the peer closed the connection after " +
                    theirs.position() + " of " + length + " bytes");
            }
            if (0 == n)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new PerftestProtocolException("perftest " + step + ": no message from the peer within " +
                        timeoutNs / 1_000_000 + " ms (" + theirs.position() + " of " + length + " bytes)");
                }
                progress.run();
            }
        }
    }
}
