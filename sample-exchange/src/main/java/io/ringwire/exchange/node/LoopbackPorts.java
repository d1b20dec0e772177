package io.ringwire.exchange.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports of the loopback address for roles started in one go (a demo, a test): picked
 * outside the kernel's ephemeral range. The roles bind their ports one after another while the ones
 * already up open connections, and an outgoing connection's local port comes from that range, so a
 * port picked inside it could be taken between the look and the bind. Ports are picked below the
 * range (from {@value #LOWEST_PORT}), or above it where there is no room below; only where neither
 * has a free one does the kernel choose (port 0), inside the range.
 *
 * <p>No port is handed out twice by one process, so ports picked by separate calls (a layout's,
 * then a FIX door's) never collide although each call releases its ports before the roles bind
 * them.
 */
public final class LoopbackPorts
{
    /** Where ports are picked from below the ephemeral range: above the well-known and most registered ports. */
    static final int LOWEST_PORT = 10_000;
    private static final int HIGHEST_PORT = 65_535;
    private static final int ATTEMPTS = 200;
    /** Linux's default range, where the kernel's cannot be read. */
    private static final int[] DEFAULT_EPHEMERAL_RANGE = { 32_768, 60_999 };
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private LoopbackPorts()
    {
    }

    /**
     * @param count ports wanted.
     * @return that many distinct ports, free when looked at, none handed out before by this process.
     * @throws UncheckedIOException when the loopback address has none.
     */
    public static int[] pick(final int count)
    {
        final int[] ephemeral = ephemeralRange();
        return pick(count, ephemeral[0], ephemeral[1]);
    }

    /** @return one free port, as {@link #pick(int)} picks them. */
    public static int pick()
    {
        return pick(1)[0];
    }

    /** {@link #pick(int)} for an ephemeral range of {@code [ephemeralStart, ephemeralEnd]}. */
    static int[] pick(final int count, final int ephemeralStart, final int ephemeralEnd)
    {
        final ServerSocket[] sockets = new ServerSocket[count];
        try
        {
            final int[] ports = new int[count];
            for (int i = 0; i < count; i++)
            {
                sockets[i] = bindOutside(ephemeralStart, ephemeralEnd);
                ports[i] = sockets[i].getLocalPort();
                HANDED_OUT.add(ports[i]);
            }
            return ports;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("could not find " + count + " free ports on the loopback address", ex);
        }
        finally
        {
            for (final ServerSocket socket : sockets)
            {
                if (null != socket)
                {
                    try
                    {
                        socket.close();
                    }
                    catch (final IOException ignored)
                    {
                        // a port we only looked at
                    }
                }
            }
        }
    }

    /** @return a socket bound to a free loopback port outside the range, or to any free port where none was found. */
    private static ServerSocket bindOutside(final int ephemeralStart, final int ephemeralEnd) throws IOException
    {
        final ServerSocket below = bindBetween(LOWEST_PORT, ephemeralStart);
        if (null != below)
        {
            return below;
        }
        final ServerSocket above = bindBetween(Math.max(LOWEST_PORT, ephemeralEnd + 1), HIGHEST_PORT + 1);
        return null != above ? above : bindAny();
    }

    /** @return a socket on a port the kernel chose: one not handed out before, where it gives one in some tries. */
    private static ServerSocket bindAny() throws IOException
    {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        for (int attempt = 0; attempt < ATTEMPTS && HANDED_OUT.contains(socket.getLocalPort()); attempt++)
        {
            socket.close();
            socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        }
        return socket;
    }

    /** @return a socket bound to a free port of {@code [from, to)} not handed out before, or null after some tries. */
    private static ServerSocket bindBetween(final int from, final int to)
    {
        for (int attempt = 0; attempt < ATTEMPTS && to > from; attempt++)
        {
            final int port = ThreadLocalRandom.current().nextInt(from, to);
            if (HANDED_OUT.contains(port))
            {
                continue;
            }
            try
            {
                return new ServerSocket(port, 1, InetAddress.getLoopbackAddress());
            }
            catch (final IOException taken)
            {
                // in use: try another
            }
        }
        return null;
    }

    /** @return the kernel's ephemeral range, first and last port, or Linux's default where it cannot be read. */
    private static int[] ephemeralRange()
    {
        try
        {
            // Through a buffered reader: a sysctl file answers only a read from its start, and
            // Files.readString, given a file that reports no size, reads one byte before the rest,
            // so it would get the first digit alone.
            final String[] range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0)
                .trim().split("\\s+");
            return new int[]{ Integer.parseInt(range[0]), Integer.parseInt(range[1]) };
        }
        catch (final IOException | RuntimeException unreadable)
        {
            return DEFAULT_EPHEMERAL_RANGE.clone();
        }
    }
}
