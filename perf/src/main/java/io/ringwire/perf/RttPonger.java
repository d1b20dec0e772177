package io.ringwire.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The ponger of {@code ringwire perf rtt --processes 2}, in a child JVM the parent starts
 * ({@link PongerProcess}). Talks to the parent with lines, stdout to the parent, stdin from it:
 *
 * <pre>
 * RDMA:    child: ENDPOINT ...      parent: ENDPOINT ...      child: READY     ... child: DONE cpu
 * nio-tcp: child: LISTEN port       (parent connects)         child: READY     ... child: DONE cpu
 * nio-udp: child: LISTEN port       parent: PEER port         child: READY     ... child: DONE cpu
 * any failure:                                                child: FAILED cpu message
 * </pre>
 *
 * nio-udp-unconnected talks as nio-udp does; each port is where that side receives. The RDMA run
 * ends when the pinger's {@link RttMessage#STOP_IMMEDIATE} is echoed, the nio-tcp run at the
 * pinger's end of stream, the UDP runs when the {@link RttMessage#STOP_SEQUENCE} datagram is
 * echoed. If the parent goes away (its stdin reaches end of file) before
 * that, the ponger is stopped (and the child halted if it does not stop), so no spinning orphan is
 * left behind.
 *
 * <p>Arguments: provider, message size, shm directory, CPU to pin to (-1: none), yield when idle.
 */
public final class RttPonger
{
    /** Line: ready to echo. */
    static final String READY = "READY";
    /** Line: {@code LISTEN port}, where the nio-tcp ponger accepts or the nio-udp ponger receives. */
    static final String LISTEN = "LISTEN";
    /** Line from the parent: {@code PEER port}, the nio-udp pinger's port on 127.0.0.1. */
    static final String PEER = "PEER";
    /** Line: {@code DONE cpu}, the run ended well; cpu is where the ponger ran (-1: unpinned). */
    static final String DONE = "DONE";
    /** Line: {@code FAILED cpu message}. */
    static final String FAILED = "FAILED";

    private static final int EXIT_FAILED = 1;
    private static final int EXIT_BAD_ARGUMENTS = 2;
    private static final int EXIT_PARENT_GONE = 3;
    private static final long PARENT_GONE_GRACE_MS = 5_000;

    private static volatile boolean finished;

    private RttPonger()
    {
    }

    /**
     * @param args provider, size, shm directory, cpu, yield-when-idle.
     */
    public static void main(final String[] args)
    {
        final PrintStream toParent = System.out;
        if (args.length != 5)
        {
            System.err.println("usage: RttPonger <provider> <size> <shm directory> <cpu> <yield-when-idle>; " +
                "started by ringwire perf rtt --processes 2, not by hand");
            System.exit(EXIT_BAD_ARGUMENTS);
        }
        final BufferedReader fromParent =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        int exitCode;
        try
        {
            final String provider = args[0];
            final int size = Integer.parseInt(args[1]);
            final int cpu = Integer.parseInt(args[3]);
            final boolean yieldWhenIdle = Boolean.parseBoolean(args[4]);
            exitCode = RttOptions.NIO_TCP.equals(provider) ?
                runNio(size, cpu, yieldWhenIdle, fromParent, toParent) :
                RttOptions.NIO_UDP.equals(provider) || RttOptions.NIO_UDP_UNCONNECTED.equals(provider) ?
                    runNioUdp(provider, size, cpu, yieldWhenIdle, fromParent, toParent) :
                    runRdma(provider, size, args[2], cpu, yieldWhenIdle, fromParent, toParent);
        }
        catch (final RuntimeException | IOException ex)
        {
            finished = true;
            send(toParent, FAILED + " " + CpuPlan.UNPINNED + " " + oneLine(ex.toString()));
            exitCode = EXIT_FAILED;
        }
        System.exit(exitCode);
    }

    private static int runRdma(final String provider, final int size, final String shmDirectory, final int cpu,
        final boolean yieldWhenIdle, final BufferedReader fromParent, final PrintStream toParent) throws IOException
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
            return echo(new RdmaPonger(peer, pinger, cpu, yieldWhenIdle, System.err), fromParent, toParent);
        }
    }

    private static int runNio(final int size, final int cpu, final boolean yieldWhenIdle,
        final BufferedReader fromParent, final PrintStream toParent) throws IOException
    {
        final SocketChannel channel;
        try (ServerSocketChannel server = NioChannels.listen())
        {
            send(toParent, LISTEN + " " + NioChannels.port(server));
            channel = NioChannels.accept(server);
        }
        try (channel)
        {
            return echo(new NioPonger(channel, size, cpu, yieldWhenIdle, System.err), fromParent, toParent);
        }
    }

    private static int runNioUdp(final String provider, final int size, final int cpu, final boolean yieldWhenIdle,
        final BufferedReader fromParent, final PrintStream toParent) throws IOException
    {
        try (DatagramChannel channel = NioUdpChannels.open();
             DatagramChannel sendChannel =
                 RttOptions.NIO_UDP.equals(provider) ? null : NioUdpChannels.openDontFragment())
        {
            send(toParent, LISTEN + " " + NioUdpChannels.port(channel));
            final String line = fromParent.readLine();
            if (null == line)
            {
                return EXIT_PARENT_GONE;
            }
            if (!line.startsWith(PEER + " "))
            {
                throw new IllegalArgumentException("expected 'PEER port' from the parent, got '" + line + "'");
            }
            final int peerPort = Integer.parseInt(line.substring(PEER.length() + 1).trim());
            final NioUdpLink link = null == sendChannel ?
                NioUdpLink.connected(NioUdpChannels.connect(channel, peerPort)) :
                NioUdpLink.unconnected(sendChannel, channel, NioUdpChannels.loopbackAddress(peerPort));
            return echo(new NioUdpPonger(link, size, cpu, yieldWhenIdle, System.err), fromParent, toParent);
        }
    }

    private static int echo(final SpinningTask ponger, final BufferedReader fromParent, final PrintStream toParent)
    {
        watchParent(fromParent, ponger);
        send(toParent, READY);
        ponger.run();
        finished = true;
        final String failure = ponger.failure();
        if (null != failure)
        {
            send(toParent, FAILED + " " + ponger.pinnedCpu() + " " + oneLine(failure));
            return EXIT_FAILED;
        }
        send(toParent, DONE + " " + ponger.pinnedCpu());
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
     * @param size          bytes per message.
     * @param shmDirectory  shm directory.
     * @param cpu           CPU to pin the ponger to, or {@link CpuPlan#UNPINNED}.
     * @param yieldWhenIdle yield instead of spinning when idle.
     * @return the arguments {@link #main} expects.
     */
    static List<String> arguments(final String provider, final int size, final String shmDirectory, final int cpu,
        final boolean yieldWhenIdle)
    {
        return List.of(provider, Integer.toString(size), shmDirectory, Integer.toString(cpu),
            Boolean.toString(yieldWhenIdle));
    }
}
