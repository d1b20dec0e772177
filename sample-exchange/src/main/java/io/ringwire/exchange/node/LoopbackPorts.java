package io.ringwire.exchange.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports of the loopback address for roles started in one go (a demo, a test): picked below
 * the kernel's ephemeral range. The roles bind their ports one after another while the ones already
 * up open connections, and an outgoing connection's local port comes from that range, so a port
 * picked inside it could be taken between the look and the bind. Each is held open until all are
 * picked, so no two are the same.
 */
public final class LoopbackPorts
{
    /** Where ports are picked from: above the well-known and most registered ports. */
    private static final int LOWEST_PORT = 10_000;
    private static final int LOW_PORT_ATTEMPTS = 200;
    private static final int DEFAULT_EPHEMERAL_START = 32_768;

    private LoopbackPorts()
    {
    }

    /**
     * @param count ports wanted.
     * @return that many distinct ports, free when looked at.
     * @throws UncheckedIOException when the loopback address has none.
     */
    public static int[] pick(final int count)
    {
        final int below = ephemeralRangeStart();
        final ServerSocket[] sockets = new ServerSocket[count];
        try
        {
            final int[] ports = new int[count];
            for (int i = 0; i < count; i++)
            {
                sockets[i] = portBelow(below);
                ports[i] = sockets[i].getLocalPort();
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

    /** @return one free port, as {@link #pick} picks them. */
    public static int pick()
    {
        return pick(1)[0];
    }

    /** @return a socket bound to a free loopback port below {@code below}, or to any free port where none was found. */
    private static ServerSocket portBelow(final int below) throws IOException
    {
        for (int attempt = 0; attempt < LOW_PORT_ATTEMPTS && below > LOWEST_PORT; attempt++)
        {
            final int port = ThreadLocalRandom.current().nextInt(LOWEST_PORT, below);
            try
            {
                return new ServerSocket(port, 1, InetAddress.getLoopbackAddress());
            }
            catch (final IOException taken)
            {
                // in use: try another
            }
        }
        return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    }

    /** @return the first port of the kernel's ephemeral range, or Linux's default where it cannot be read. */
    private static int ephemeralRangeStart()
    {
        try
        {
            // Through a buffered reader: a sysctl file answers only a read from its start, and
            // Files.readString, given a file that reports no size, reads one byte before the rest,
            // so it would get the first digit alone.
            final String[] range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0)
                .trim().split("\\s+");
            return Integer.parseInt(range[0]);
        }
        catch (final IOException | RuntimeException unreadable)
        {
            return DEFAULT_EPHEMERAL_START;
        }
    }
}
