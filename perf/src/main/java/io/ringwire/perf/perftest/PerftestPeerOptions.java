package io.ringwire.perf.perftest;

import io.ringwire.perf.cli.UsageException;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The options of {@code ringwire perf perftest-peer}. perftest does not exchange the message size or
 * the iteration count: both sides must be given the same ones.
 *
 * @param test           the perftest program on the other side.
 * @param size           message size, bytes (perftest's {@code -s}).
 * @param iterations     iterations (perftest's {@code -n}).
 * @param bind           the IPv4 address the roce device and the TCP listener bind: this side's GID.
 * @param port           perftest's TCP port ({@code -p}).
 * @param rocePort       the UDP port this side's roce device binds.
 * @param peerRocePort   the UDP port of the peer's RoCE stack (4791 for a kernel's).
 * @param mtu            this side's path MTU, bytes; the smaller of both sides' is used.
 * @param timeoutSeconds how long any one wait for the peer may take.
 * @param ackDelayUs     the roce responder's ACK delay, -1 for the default of the test (0 for lat,
 *                       whose requester waits for each ACK; the provider's own for bw).
 * @param help           {@code --help} was given.
 */
public record PerftestPeerOptions(PerftestTest test, int size, int iterations, String bind, int port, int rocePort,
    int peerRocePort, int mtu, int timeoutSeconds, long ackDelayUs, boolean help)
{
    /** perftest's default TCP port. */
    public static final int DEFAULT_PORT = 18515;
    /** The RoCEv2 UDP port. */
    public static final int ROCE_PORT = 4791;
    /**
     * The largest {@code --size}: the peer registers two halves of at least this, one region, and
     * a region holds less than 2 GiB.
     */
    public static final int MAX_SIZE = 1 << 29;

    /**
     * @return the text {@code perftest-peer --help} prints.
     */
    public static String usage()
    {
        return """
            usage: ringwire perf perftest-peer --mode lat|bw --bind IPV4 [options]

            The passive side of perftest's ib_write_lat or ib_write_bw (unmodified, without -R) on RingWire's
            roce provider: listens for perftest's client on TCP, speaks its exchange, and answers its WRITEs.
            Run the client as e.g. ib_write_lat -d rxe0 -x 1 -s SIZE -n ITERS -p PORT IPV4; SIZE and ITERS must
            match on both sides (perftest does not exchange them).

              --mode lat|bw          the perftest program on the other side
              --bind IPV4            address of the roce device and the TCP listener (this side's GID)
              --size BYTES           message size (default 2 for lat, 65536 for bw, as perftest's)
              --iters N              iterations (default 1000 for lat, 5000 for bw, as perftest's)
              --port N               perftest's TCP port (default 18515)
              --roce-port N          UDP port of this side's roce device (default 4791)
              --peer-roce-port N     UDP port of the peer's RoCE stack (default 4791)
              --mtu BYTES            path MTU: 256, 512, 1024, 2048 or 4096 (default 1024)
              --timeout SECONDS      longest wait for the peer at any step (default 300)
              --ack-delay-us US      roce's ACK delay (default 0 for lat, the provider's for bw)
            """;
    }

    /**
     * @param args the arguments after {@code perftest-peer}.
     * @return the options.
     * @throws UsageException naming the option at fault and what it allows.
     */
    public static PerftestPeerOptions parse(final String... args)
    {
        PerftestTest test = null;
        int size = -1;
        int iterations = -1;
        String bind = null;
        int port = DEFAULT_PORT;
        int rocePort = ROCE_PORT;
        int peerRocePort = ROCE_PORT;
        int mtu = 1024;
        int timeoutSeconds = 300;
        long ackDelayUs = -1;
        boolean help = false;
        final Set<String> seen = new HashSet<>();
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            final int equals = arg.indexOf('=');
            final String name = arg.startsWith("--") && equals > 0 ? arg.substring(0, equals) : arg;
            final String inline = arg.startsWith("--") && equals > 0 ? arg.substring(equals + 1) : null;
            if ("--help".equals(name) || "-h".equals(name))
            {
                help = true;
                continue;
            }
            if (!name.startsWith("--"))
            {
                throw new UsageException("unexpected argument '" + arg + "'; options: " + OPTIONS);
            }
            if (!seen.add(name))
            {
                throw new UsageException(name + " is given twice");
            }
            final String value;
            if (null != inline)
            {
                value = inline;
            }
            else if (i + 1 < args.length && !args[i + 1].startsWith("--"))
            {
                value = args[++i];
            }
            else
            {
                throw new UsageException(name + " needs a value");
            }
            switch (name)
            {
                case "--mode" -> test = test(value);
                case "--size" -> size = (int)number(name, value, 1, MAX_SIZE);
                case "--iters" -> iterations = (int)number(name, value, 2, 100_000_000);
                case "--bind" -> bind = ipv4(value);
                case "--port" -> port = (int)number(name, value, 0, 65535);
                case "--roce-port" -> rocePort = (int)number(name, value, 0, 65535);
                case "--peer-roce-port" -> peerRocePort = (int)number(name, value, 1, 65535);
                case "--mtu" -> mtu = mtu(value);
                case "--timeout" -> timeoutSeconds = (int)number(name, value, 1, 86_400);
                case "--ack-delay-us" -> ackDelayUs = number(name, value, 0, 100_000);
                default -> throw new UsageException("unknown option '" + arg + "'; allowed: " + OPTIONS);
            }
        }
        if (help)
        {
            return new PerftestPeerOptions(PerftestTest.LAT, 1, 2, "127.0.0.1", port, rocePort, peerRocePort, mtu,
                timeoutSeconds, ackDelayUs, true);
        }
        if (null == test)
        {
            throw new UsageException("--mode is required: lat or bw");
        }
        if (null == bind)
        {
            throw new UsageException("--bind is required: the IPv4 address of the roce device (its GID)");
        }
        return new PerftestPeerOptions(test, size < 0 ? test.defaultSize() : size,
            iterations < 0 ? test.defaultIterations() : iterations, bind, port, rocePort, peerRocePort, mtu,
            timeoutSeconds, ackDelayUs, false);
    }

    private static final String OPTIONS = "--mode, --bind, --size, --iters, --port, --roce-port, --peer-roce-port, " +
        "--mtu, --timeout, --ack-delay-us, --help";

    /**
     * @return how long any one wait for the peer may take, nanoseconds.
     */
    public long timeoutNs()
    {
        return timeoutSeconds * 1_000_000_000L;
    }

    private static PerftestTest test(final String value)
    {
        for (final PerftestTest t : PerftestTest.values())
        {
            if (t.optionName().equals(value.toLowerCase(Locale.ROOT)))
            {
                return t;
            }
        }
        throw new UsageException("--mode '" + value + "' is not a perftest program here; allowed: lat, bw");
    }

    private static long number(final String name, final String value, final long min, final long max)
    {
        final long parsed;
        try
        {
            parsed = Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(name + " needs a whole number from " + min + " to " + max + " (got '" + value + "')");
        }
        if (parsed < min || parsed > max)
        {
            throw new UsageException(name + " must be " + min + " to " + max + " (got " + parsed + ")");
        }
        return parsed;
    }

    private static int mtu(final String value)
    {
        final int mtu = (int)number("--mtu", value, 256, 4096);
        if (PerftestMessages.mtuCode(mtu) < 0)
        {
            throw new UsageException("--mtu must be 256, 512, 1024, 2048 or 4096 (got " + mtu + ")");
        }
        return mtu;
    }

    private static String ipv4(final String value)
    {
        if (!value.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}"))
        {
            throw new UsageException("--bind needs an IPv4 address such as 10.201.0.2 (got '" + value + "')");
        }
        try
        {
            return ((Inet4Address)InetAddress.getByName(value)).getHostAddress();
        }
        catch (final UnknownHostException | ClassCastException ex)
        {
            throw new UsageException("--bind needs an IPv4 address such as 10.201.0.2 (got '" + value + "')");
        }
    }
}
