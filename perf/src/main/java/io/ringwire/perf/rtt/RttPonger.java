package io.ringwire.perf.rtt;

import io.aeron.driver.MediaDriver;
import io.ringwire.perf.baseline.aeron.AeronIpcSide;
import io.ringwire.perf.baseline.aeron.AeronUdpDriver;
import io.ringwire.perf.baseline.bare.BareLines;
import io.ringwire.perf.baseline.bare.BarePonger;
import io.ringwire.perf.baseline.nio.NioChannels;
import io.ringwire.perf.baseline.nio.NioPonger;
import io.ringwire.perf.baseline.nio.NioUdpChannels;
import io.ringwire.perf.baseline.nio.NioUdpLink;
import io.ringwire.perf.baseline.nio.NioUdpPonger;
import io.ringwire.perf.cli.CommonOptions;
import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.host.GcActivity;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.RttMessage;
import io.ringwire.rdma.config.Settings;
import io.ringwire.rdma.host.OnlineCpus;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * The ponger of {@code ringwire perf rtt --processes 2}, in a child JVM the parent starts
 * ({@link PongerProcess}). Talks to the parent with lines, stdout to the parent, stdin from it:
 *
 * <pre>
 * channel:   child: ENDPOINT ...    parent: ENDPOINT ...                         child: READY ... DONE cpu gc
 * messaging: parent: SECRET hex     child: LISTEN port    parent: PEER port      child: READY ... DONE cpu
 * nio-tcp:   child: LISTEN port     (parent connects)                            child: READY ... DONE cpu
 * nio-udp:   child: LISTEN port     parent: PEER port                            child: READY ... DONE cpu
 * bare(-notified): child: LISTEN file (parent maps the file)                     child: READY ... DONE cpu
 * aeron-ipc: child: LISTEN dir      (parent connects to the child's driver)      child: READY ... DONE cpu
 * aeron-udp: child: LISTEN dir ping:echo (and the streams' ports)               child: READY ... DONE cpu
 * any failure:                                                                   child: FAILED cpu message
 * </pre>
 *
 * nio-udp-unconnected talks as nio-udp does; each port is where that side receives. The channel
 * run ends when the pinger's {@link RttMessage#STOP_IMMEDIATE} is echoed, the messaging run when the
 * probe with {@link LatencyProbeCodec#STOP_SEQUENCE} is, the nio-tcp run at the pinger's end of
 * stream, the bare run when {@link BareLines#STOP_SEQUENCE} is echoed (the child created the mapped
 * file and deletes it), the UDP runs when the {@link RttMessage#STOP_SEQUENCE} datagram is echoed.
 * For messaging the child says READY once its publication is connected to the parent's
 * subscription and the parent's publication is an image of its own (it polls its subscription
 * meanwhile: see {@link MessagingPeer}); the shared secret comes on stdin, not the command line.
 * If the parent goes away (its stdin reaches end of file) before the run ends, the ponger is stopped
 * (and the child halted if it does not stop), so no spinning orphan is left behind.
 *
 * <p>Arguments: provider, api (channel, messaging or raw), message size, shm directory, CPU to pin
 * to (-1: none), yield when idle, warm-up round trips, and the aeron-udp driver's CPUs
 * ({@link AeronUdpDriver#toArgument()}).
 */
public final class RttPonger
{
    /** Line: ready to echo. */
    static final String READY = "READY";
    /** Line: {@code LISTEN port}, where the nio-tcp ponger accepts or the nio-udp ponger receives. */
    static final String LISTEN = "LISTEN";
    /**
     * Line from the parent: {@code PEER port}, the nio-udp pinger's port, or the port of the
     * messaging pinger's subscription, on 127.0.0.1.
     */
    static final String PEER = "PEER";
    /** First line from the parent in a messaging run: {@code SECRET hex}, the connection manager's secret. */
    static final String SECRET = "SECRET";
    /**
     * Line: {@code DONE cpu collections gcMs}, the run ended well; cpu is where the ponger ran (-1:
     * unpinned), then the garbage collections its JVM made in the pinger's measured window (the
     * whole run for a ponger that cannot tell the window) and their time.
     */
    static final String DONE = "DONE";
    /** Line: {@code FAILED cpu message}. */
    static final String FAILED = "FAILED";
    /** Largest TCP or UDP port. */
    static final int MAX_PORT = 65_535;

    private static final int EXIT_FAILED = 1;
    private static final int EXIT_BAD_ARGUMENTS = 2;
    private static final int EXIT_PARENT_GONE = 3;
    private static final long PARENT_GONE_GRACE_MS = 5_000;

    private static volatile boolean finished;

    private final String provider;
    private final String api;
    private final int size;
    private final String shmDirectory;
    private final ThreadPlan plan;
    private final long warmup;
    private final AeronUdpDriver udpDriver;
    private final BufferedReader fromParent;
    private final PrintStream toParent;

    private RttPonger(final String[] args, final BufferedReader fromParent, final PrintStream toParent)
    {
        this.provider = args[0];
        this.api = args[1];
        this.size = Settings.parseInt("size", args[2], RttMessage.MIN_LENGTH, RttMessage.MAX_LENGTH, "bytes");
        this.shmDirectory = args[3];
        this.plan = new ThreadPlan(Settings.parseInt("cpu", args[4], CpuPlan.UNPINNED, Integer.MAX_VALUE,
            "a CPU, or " + CpuPlan.UNPINNED + " for none"), Settings.parseBoolean("yield-when-idle", args[5]),
            System.err);
        this.warmup = Settings.parseLong("warmup", args[6], 0, CommonOptions.MAX_MESSAGES, "round trips");
        this.udpDriver = AeronUdpDriver.parse(args[7], OnlineCpus.count());
        this.fromParent = fromParent;
        this.toParent = toParent;
    }

    /**
     * @param args provider, api, size, shm directory, cpu, yield-when-idle, warm-up, aeron-udp driver.
     */
    public static void main(final String[] args)
    {
        final PrintStream toParent = System.out;
        if (args.length != 8)
        {
            System.err.println("usage: RttPonger <provider> <api> <size> <shm directory> <cpu> <yield-when-idle> " +
                "<warmup> <aeron-udp driver cpus>; started by ringwire perf rtt --processes 2, not by hand");
            System.exit(EXIT_BAD_ARGUMENTS);
        }
        final BufferedReader fromParent =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        int exitCode;
        try
        {
            exitCode = new RttPonger(args, fromParent, toParent).run();
        }
        catch (final RuntimeException | IOException ex)
        {
            finished = true;
            send(toParent, FAILED + " " + CpuPlan.UNPINNED + " " + oneLine(ex.toString()));
            exitCode = EXIT_FAILED;
        }
        System.exit(exitCode);
    }

    private int run() throws IOException
    {
        if (Transports.isAeron(provider))
        {
            return runAeron();
        }
        if (Transports.isBare(provider))
        {
            return runBare();
        }
        if (Transports.NIO_TCP.equals(provider))
        {
            return runNio();
        }
        if (Transports.NIO_UDP.equals(provider) || Transports.NIO_UDP_UNCONNECTED.equals(provider))
        {
            return runNioUdp();
        }
        return Transports.API_MESSAGING.equals(api) ? runMessaging() : runRdma();
    }

    private int runRdma() throws IOException
    {
        try (RdmaPeer peer = RdmaPeer.open(provider, shmDirectory, size))
        {
            send(toParent, peer.describe().toLine());
            final String line = fromParent.readLine();
            if (null == line)
            {
                return EXIT_PARENT_GONE;
            }
            final RemotePeer pinger = RemotePeer.parse(line);
            peer.connect(pinger);
            return echo(new RdmaPonger(peer, pinger, plan, warmup));
        }
    }

    private int runMessaging() throws IOException
    {
        final String secret = readFromParent(SECRET, "SECRET hex");
        if (null == secret)
        {
            return EXIT_PARENT_GONE;
        }
        try (MessagingPeer peer = MessagingPeer.open(provider, shmDirectory, secret, size))
        {
            send(toParent, LISTEN + " " + peer.port());
            final String peerPort = readFromParent(PEER, "PEER port");
            if (null == peerPort)
            {
                return EXIT_PARENT_GONE;
            }
            peer.connectTo(port(peerPort));
            MessagingPeer.driveUntil(peer::driveConnection, peer::isConnected, () ->
                "messaging not connected both ways within " + MessagingPeer.CONNECT_TIMEOUT_NS / 1_000_000_000 +
                " s: " + peer.connectionState());
            return echo(new MessagingPonger(peer, plan, warmup));
        }
    }

    private int runBare() throws IOException
    {
        try (BareLines lines = BareLines.create(Path.of(shmDirectory), size, Transports.BARE_NOTIFIED.equals(provider)))
        {
            send(toParent, LISTEN + " " + lines.file());
            return echo(new BarePonger(lines, plan));
        }
    }

    /**
     * Runs the media driver here (this process outlives the pinger's client by the whole run), says
     * where it is, and echoes once the pinger's client is connected both ways.
     */
    private int runAeron()
    {
        final boolean udp = Transports.AERON_UDP.equals(provider);
        final AeronIpcSide.UdpPorts ports = udp ? AeronIpcSide.UdpPorts.free() : null;
        final Path directory = AeronIpcSide.directory(shmDirectory);
        final int length = RttOptions.carriesProbe(provider, api) ? LatencyProbeCodec.messageLength(size) : size;
        try (MediaDriver driver = udp ? udpDriver.launch(directory, System.err) : AeronIpcSide.launchDriver(directory);
             AeronIpcSide side = AeronIpcSide.open(Path.of(driver.aeronDirectoryName()), false, length, ports))
        {
            send(toParent, LISTEN + " " + driver.aeronDirectoryName() + (udp ? " " + ports.toValue() : ""));
            side.awaitConnected();
            return echo(RttBenchmark.aeronPonger(provider, side, length, plan));
        }
    }

    private int runNio() throws IOException
    {
        final SocketChannel channel;
        try (ServerSocketChannel server = NioChannels.listen())
        {
            send(toParent, LISTEN + " " + NioChannels.port(server));
            channel = NioChannels.accept(server);
        }
        try (channel)
        {
            return echo(new NioPonger(channel, size, plan));
        }
    }

    private int runNioUdp() throws IOException
    {
        try (DatagramChannel channel = NioUdpChannels.open();
             DatagramChannel sendChannel =
                 Transports.NIO_UDP.equals(provider) ? null : NioUdpChannels.openDontFragment())
        {
            send(toParent, LISTEN + " " + NioUdpChannels.port(channel));
            final String peerPortValue = readFromParent(PEER, "PEER port");
            if (null == peerPortValue)
            {
                return EXIT_PARENT_GONE;
            }
            final int peerPort = port(peerPortValue);
            final NioUdpLink link = null == sendChannel ?
                NioUdpLink.connected(NioUdpChannels.connect(channel, peerPort)) :
                NioUdpLink.unconnected(sendChannel, channel, NioUdpChannels.loopbackAddress(peerPort));
            return echo(new NioUdpPonger(link, size, plan));
        }
    }

    /**
     * @param prefix   the line's first word.
     * @param expected the line's form, for the refusal of another one.
     * @return the rest of the parent's next line, or null when the parent went away.
     * @throws IllegalArgumentException when the line does not start with {@code prefix}; it is quoted
     *                                  unless a secret was expected.
     */
    private String readFromParent(final String prefix, final String expected) throws IOException
    {
        final String line = fromParent.readLine();
        if (null != line && !line.startsWith(prefix + " "))
        {
            throw new IllegalArgumentException("expected '" + expected + "' from the parent, got " +
                (SECRET.equals(prefix) ? "another line" : "'" + line + "'"));
        }
        return null == line ? null : line.substring(prefix.length() + 1);
    }

    /**
     * @param value a port as the other side sent it.
     * @return the port.
     */
    static int port(final String value)
    {
        return Settings.parseInt("port", value, 0, MAX_PORT, "0 to " + MAX_PORT);
    }

    private int echo(final SpinningTask ponger)
    {
        watchParent(fromParent, ponger);
        send(toParent, READY);
        final GcActivity gcBefore = GcActivity.now();
        ponger.run();
        // The pinger's measured window where this ponger can tell it (it counts the probes), else the
        // whole run, warm-up included.
        final GcActivity gc = null != ponger.measuredGc() ? ponger.measuredGc() : GcActivity.now().since(gcBefore);
        finished = true;
        final String failure = ponger.failure();
        if (null != failure)
        {
            send(toParent, FAILED + " " + ponger.pinnedCpu() + " " + oneLine(failure));
            return EXIT_FAILED;
        }
        send(toParent, DONE + " " + ponger.pinnedCpu() + " " + gc.collections() + " " + gc.timeMs());
        return 0;
    }

    /**
     * When the parent closes our stdin (or dies) before the run finished, stops the ponger so the
     * device is closed and its files removed, and halts if that takes longer than
     * {@link #PARENT_GONE_GRACE_MS}.
     */
    private static void watchParent(final BufferedReader fromParent, final SpinningTask ponger)
    {
        final Thread watchdog = new Thread(() ->
        {
            try
            {
                while (null != fromParent.readLine())
                {
                    // The parent sends nothing after its endpoint; ignore anything else.
                }
            }
            catch (final IOException ex)
            {
                // Treated as end of file.
            }
            if (finished)
            {
                return;
            }
            System.err.println("rtt ponger: the parent process went away; stopping");
            ponger.requestStop();
            try
            {
                Thread.sleep(PARENT_GONE_GRACE_MS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            Runtime.getRuntime().halt(EXIT_PARENT_GONE);
        }, "rtt-ponger-parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private static void send(final PrintStream toParent, final String line)
    {
        toParent.println(line);
        toParent.flush();
    }

    private static String oneLine(final String text)
    {
        return text.replace('\n', ' ').replace('\r', ' ');
    }

    /**
     * @param provider      transport.
     * @param api           channel, messaging or raw.
     * @param size          bytes per message (--size).
     * @param shmDirectory  shm directory.
     * @param cpu           CPU to pin the ponger to, or {@link CpuPlan#UNPINNED}.
     * @param yieldWhenIdle yield instead of spinning when idle.
     * @param warmup        the pinger's warm-up round trips.
     * @param udpDriver     how an aeron-udp ponger runs its media driver.
     * @return the arguments {@link #main} expects.
     */
    static List<String> arguments(final String provider, final String api, final int size, final String shmDirectory,
        final int cpu, final boolean yieldWhenIdle, final long warmup, final AeronUdpDriver udpDriver)
    {
        return List.of(provider, api, Integer.toString(size), shmDirectory, Integer.toString(cpu),
            Boolean.toString(yieldWhenIdle), Long.toString(warmup), udpDriver.toArgument());
    }
}
