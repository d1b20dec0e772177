package io.ringwire.perf;

import io.aeron.driver.MediaDriver;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs the round-trip benchmark for each transport of the options, and for an RDMA provider through
 * each path the options ask for (the bare channel, then messaging), one after the other in this run,
 * with the pinger and the ponger as threads of this JVM or the ponger in a child JVM. Sets up
 * connections on the control thread, hands them to the spinning threads, and turns the pinger's
 * histogram into an {@link RttResult}.
 *
 * <p>Threading: the control thread; the spinning threads are started and joined here.
 */
final class RttBenchmark
{
    /** How long the ponger may take to end after the pinger did (both loops bound their own waits). */
    private static final long PONGER_END_TIMEOUT_MS =
        TimeUnit.NANOSECONDS.toMillis(SpinningTask.PEER_SILENCE_TIMEOUT_NS) + 5_000;
    private static final long JOIN_SLICE_MS = 100;
    private static final long CONNECT_IDLE_PAUSE_NS = TimeUnit.MICROSECONDS.toNanos(50);

    private final RttOptions options;
    private final CpuPlan cpuPlan;
    private final PrintStream log;

    /**
     * @param options what to run.
     * @param cpuPlan where the spinning threads run.
     * @param log     progress and warnings (stderr, so stdout holds only the result).
     */
    RttBenchmark(final RttOptions options, final CpuPlan cpuPlan, final PrintStream log)
    {
        this.options = options;
        this.cpuPlan = cpuPlan;
        this.log = log;
    }

    /**
     * @return one report per round ({@code --rounds}), each with one result per transport and path in
     *         the order of the options.
     * @throws IOException           when a nio-tcp/nio-udp socket or the child process cannot be set up.
     * @throws IllegalStateException when a run fails; the message says which side and why.
     */
    RttRounds run() throws IOException
    {
        final List<RttReport> rounds = new ArrayList<>();
        for (int round = 1; round <= options.rounds(); round++)
        {
            rounds.add(runRound(round));
        }
        return new RttRounds(rounds);
    }

    private RttReport runRound(final int round) throws IOException
    {
        final List<RttResult> results = new ArrayList<>();
        final String of = options.rounds() > 1 ? " [round " + round + " of " + options.rounds() + "]" : "";
        for (final String provider : options.providers())
        {
            for (final String api : options.apisOf(provider))
            {
                log.println("rtt: " + provider + " (" + api + "), " + options.processes() + " process(es): " +
                    options.warmup() + " warm-up + " + options.messages() + " measured round trips of " +
                    sizeOf(api) + " bytes" + of);
                results.add(options.processes() == 1 ? runInOneProcess(provider, api) :
                    runInTwoProcesses(provider, api));
            }
        }
        return new RttReport(options.size(), options.messages(), options.warmup(), options.processes(), results);
    }

    /**
     * @return the bytes per message on a path: a messaging probe is at least
     *         {@link LatencyProbeCodec#MIN_LENGTH}.
     */
    private int sizeOf(final String api)
    {
        return RttOptions.API_MESSAGING.equals(api) ? LatencyProbeCodec.messageLength(options.size()) : options.size();
    }

    private RttResult runInOneProcess(final String provider, final String api) throws IOException
    {
        if (RttOptions.isBare(provider))
        {
            try (BareLines lines = BareLines.inProcess(options.size(), RttOptions.BARE_NOTIFIED.equals(provider)))
            {
                return runThreads(provider, api,
                    new BarePinger(lines, cpuPlan.pingerCpu(), cpuPlan.yieldWhenIdle(), log, options.warmup(),
                        options.messages()),
                    new BarePonger(lines, cpuPlan.pongerCpu(), cpuPlan.yieldWhenIdle(), log));
            }
        }
        if (RttOptions.AERON_IPC.equals(provider))
        {
            try (MediaDriver driver = AeronIpcSide.launchDriver(AeronIpcSide.directory(options.shmDirectory()));
                 AeronIpcSide pingSide = AeronIpcSide.open(driver, true, options.size());
                 AeronIpcSide pongSide = AeronIpcSide.open(driver, false, options.size()))
            {
                pingSide.awaitConnected();
                pongSide.awaitConnected();
                return runThreads(provider, api,
                    new AeronIpcPinger(pingSide, options.size(), cpuPlan.pingerCpu(), cpuPlan.yieldWhenIdle(), log,
                        options.warmup(), options.messages()),
                    new AeronIpcPonger(pongSide, options.size(), cpuPlan.pongerCpu(), cpuPlan.yieldWhenIdle(), log));
            }
        }
        if (RttOptions.NIO_TCP.equals(provider))
        {
            try (ServerSocketChannel server = NioChannels.listen();
                 SocketChannel pingerChannel = NioChannels.connect(NioChannels.port(server));
                 SocketChannel pongerChannel = NioChannels.accept(server))
            {
                return runThreads(provider, api,
                    new NioPinger(pingerChannel, options.size(), cpuPlan.pingerCpu(), cpuPlan.yieldWhenIdle(), log,
                        options.warmup(), options.messages()),
                    new NioPonger(pongerChannel, options.size(), cpuPlan.pongerCpu(), cpuPlan.yieldWhenIdle(), log));
            }
        }
        if (RttOptions.NIO_UDP.equals(provider))
        {
            try (DatagramChannel pingerChannel = NioUdpChannels.open();
                 DatagramChannel pongerChannel = NioUdpChannels.open())
            {
                NioUdpChannels.connect(pingerChannel, NioUdpChannels.port(pongerChannel));
                NioUdpChannels.connect(pongerChannel, NioUdpChannels.port(pingerChannel));
                return runNioUdpThreads(provider, NioUdpLink.connected(pingerChannel),
                    NioUdpLink.connected(pongerChannel));
            }
        }
        if (RttOptions.NIO_UDP_UNCONNECTED.equals(provider))
        {
            try (DatagramChannel pingerReceive = NioUdpChannels.open();
                 DatagramChannel pingerSend = NioUdpChannels.openDontFragment();
                 DatagramChannel pongerReceive = NioUdpChannels.open();
                 DatagramChannel pongerSend = NioUdpChannels.openDontFragment())
            {
                return runNioUdpThreads(provider,
                    NioUdpLink.unconnected(pingerSend, pingerReceive,
                        NioUdpChannels.loopbackAddress(NioUdpChannels.port(pongerReceive))),
                    NioUdpLink.unconnected(pongerSend, pongerReceive,
                        NioUdpChannels.loopbackAddress(NioUdpChannels.port(pingerReceive))));
            }
        }
        if (RttOptions.API_MESSAGING.equals(api))
        {
            final String secret = MessagingPeer.newSecret();
            try (MessagingPeer pingSide = MessagingPeer.open(provider, options.shmDirectory(), secret, options.size());
                 MessagingPeer pongSide = MessagingPeer.open(provider, options.shmDirectory(), secret, options.size()))
            {
                pingSide.connectTo(pongSide.port());
                pongSide.connectTo(pingSide.port());
                MessagingPeer.connect(pingSide, pongSide);
                return runThreads(provider, api,
                    new MessagingPinger(pingSide, cpuPlan.pingerCpu(), cpuPlan.yieldWhenIdle(), log, options.warmup(),
                        options.messages()),
                    new MessagingPonger(pongSide, cpuPlan.pongerCpu(), cpuPlan.yieldWhenIdle(), log, options.warmup()));
            }
        }
        try (RdmaPeer pingSide = RdmaPeer.open(provider, options.shmDirectory(), options.size());
             RdmaPeer pongSide = RdmaPeer.open(provider, options.shmDirectory(), options.size()))
        {
            final RemotePeer pingRemote = pingSide.describe();
            final RemotePeer pongRemote = pongSide.describe();
            pingSide.connect(pongRemote);
            pongSide.connect(pingRemote);
            return runThreads(provider, api,
                new RdmaPinger(pingSide, pongRemote, cpuPlan.pingerCpu(), cpuPlan.yieldWhenIdle(), log,
                    options.warmup(), options.messages()),
                new RdmaPonger(pongSide, pingRemote, cpuPlan.pongerCpu(), cpuPlan.yieldWhenIdle(), log));
        }
    }

    private RttResult runNioUdpThreads(final String provider, final NioUdpLink pingerLink, final NioUdpLink pongerLink)
    {
        return runThreads(provider, RttOptions.API_RAW,
            new NioUdpPinger(pingerLink, options.size(), cpuPlan.pingerCpu(), cpuPlan.yieldWhenIdle(), log,
                options.warmup(), options.messages()),
            new NioUdpPonger(pongerLink, options.size(), cpuPlan.pongerCpu(), cpuPlan.yieldWhenIdle(), log));
    }

    private RttResult runThreads(final String provider, final String api, final Pinger pinger,
        final SpinningTask ponger)
    {
        final Thread pongerThread = start(ponger);
        final Thread pingerThread = start(pinger);
        // If the ponger fails the pinger is told at once rather than after its echo timeout.
        while (!join(pingerThread, JOIN_SLICE_MS))
        {
            if (!pongerThread.isAlive() && null != ponger.failure())
            {
                pinger.requestStop();
            }
        }
        if (null != pinger.failure())
        {
            ponger.requestStop();
        }
        if (!join(pongerThread, PONGER_END_TIMEOUT_MS))
        {
            ponger.requestStop();
            throw new IllegalStateException(provider + ": the ponger did not end within " + PONGER_END_TIMEOUT_MS +
                " ms of the pinger" + (null == pinger.failure() ? "" : " (" + pinger.failure() + ")"));
        }
        failIfEitherFailed(provider, api, pinger, ponger.failure());
        return RttResult.of(provider, api, 1, sizeOf(api), pinger.histogram(), pinger.pinnedCpu(), ponger.pinnedCpu(),
            pinger.measuredAllocatedBytes(), pinger.jitCompiledWhileMeasuring());
    }

    private RttResult runInTwoProcesses(final String provider, final String api) throws IOException
    {
        try (PongerProcess child = PongerProcess.start(RttPonger.arguments(provider, api, options.size(),
            options.shmDirectory(), cpuPlan.pongerCpu(), cpuPlan.yieldWhenIdle(), options.warmup())))
        {
            if (RttOptions.isBare(provider))
            {
                final String line = child.awaitLine(RttPonger.LISTEN, "the shared file");
                try (BareLines lines = BareLines.map(Path.of(line.substring(RttPonger.LISTEN.length() + 1)),
                    options.size(), RttOptions.BARE_NOTIFIED.equals(provider)))
                {
                    child.awaitLine(RttPonger.READY, "READY");
                    return runAgainstChild(provider, api, child, new BarePinger(lines, cpuPlan.pingerCpu(),
                        cpuPlan.yieldWhenIdle(), log, options.warmup(), options.messages()));
                }
            }
            if (RttOptions.AERON_IPC.equals(provider))
            {
                final String line = child.awaitLine(RttPonger.LISTEN, "the Aeron directory");
                try (AeronIpcSide pingSide = AeronIpcSide.open(Path.of(line.substring(RttPonger.LISTEN.length() + 1)),
                    true, options.size()))
                {
                    pingSide.awaitConnected();
                    child.awaitLine(RttPonger.READY, "READY");
                    return runAgainstChild(provider, api, child, new AeronIpcPinger(pingSide, options.size(),
                        cpuPlan.pingerCpu(), cpuPlan.yieldWhenIdle(), log, options.warmup(), options.messages()));
                }
            }
            if (RttOptions.NIO_TCP.equals(provider))
            {
                final int port = Integer.parseInt(child.awaitLine(RttPonger.LISTEN, "listening port").split(" ")[1]);
                try (SocketChannel channel = NioChannels.connect(port))
                {
                    child.awaitLine(RttPonger.READY, "READY");
                    return runAgainstChild(provider, api, child, new NioPinger(channel, options.size(),
                        cpuPlan.pingerCpu(), cpuPlan.yieldWhenIdle(), log, options.warmup(), options.messages()));
                }
            }
            if (RttOptions.NIO_UDP.equals(provider))
            {
                final int port = Integer.parseInt(child.awaitLine(RttPonger.LISTEN, "listening port").split(" ")[1]);
                try (DatagramChannel channel = NioUdpChannels.open())
                {
                    child.sendLine(RttPonger.PEER + " " + NioUdpChannels.port(channel));
                    NioUdpChannels.connect(channel, port);
                    child.awaitLine(RttPonger.READY, "READY");
                    return runAgainstChild(provider, api, child, new NioUdpPinger(NioUdpLink.connected(channel),
                        options.size(), cpuPlan.pingerCpu(), cpuPlan.yieldWhenIdle(), log, options.warmup(),
                        options.messages()));
                }
            }
            if (RttOptions.NIO_UDP_UNCONNECTED.equals(provider))
            {
                final int port = Integer.parseInt(child.awaitLine(RttPonger.LISTEN, "listening port").split(" ")[1]);
                try (DatagramChannel receive = NioUdpChannels.open();
                     DatagramChannel send = NioUdpChannels.openDontFragment())
                {
                    child.sendLine(RttPonger.PEER + " " + NioUdpChannels.port(receive));
                    child.awaitLine(RttPonger.READY, "READY");
                    return runAgainstChild(provider, api, child, new NioUdpPinger(
                        NioUdpLink.unconnected(send, receive, NioUdpChannels.loopbackAddress(port)), options.size(),
                        cpuPlan.pingerCpu(), cpuPlan.yieldWhenIdle(), log, options.warmup(), options.messages()));
                }
            }
            if (RttOptions.API_MESSAGING.equals(api))
            {
                return runMessagingAgainstChild(provider, api, child);
            }
            final RemotePeer pongRemote = RemotePeer.parse(child.awaitLine(RemotePeer.PREFIX, "endpoint"));
            try (RdmaPeer pingSide = RdmaPeer.open(provider, options.shmDirectory(), options.size()))
            {
                child.sendLine(pingSide.describe().toLine());
                pingSide.connect(pongRemote);
                child.awaitLine(RttPonger.READY, "READY");
                return runAgainstChild(provider, api, child, new RdmaPinger(pingSide, pongRemote, cpuPlan.pingerCpu(),
                    cpuPlan.yieldWhenIdle(), log, options.warmup(), options.messages()));
            }
        }
    }

    /**
     * Connects both ways with the child's messaging ponger: this side's subscription is polled while
     * its publication connects and while the child gets ready, since the child's publication is
     * accepted only by that polling.
     */
    private RttResult runMessagingAgainstChild(final String provider, final String api, final PongerProcess child)
        throws IOException
    {
        final String secret = MessagingPeer.newSecret();
        child.sendLine(RttPonger.SECRET + " " + secret);
        final int childPort = Integer.parseInt(child.awaitLine(RttPonger.LISTEN, "listening port").split(" ")[1]);
        try (MessagingPeer pingSide = MessagingPeer.open(provider, options.shmDirectory(), secret, options.size()))
        {
            child.sendLine(RttPonger.PEER + " " + pingSide.port());
            pingSide.connectTo(childPort);
            final long deadlineNs = System.nanoTime() + MessagingPeer.CONNECT_TIMEOUT_NS;
            boolean childReady = false;
            while (!childReady || !pingSide.isConnected())
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw new IllegalStateException(provider + " messaging: not connected both ways with the ponger " +
                        "process within " + TimeUnit.NANOSECONDS.toSeconds(MessagingPeer.CONNECT_TIMEOUT_NS) + " s (" +
                        pingSide.connectionState() + (childReady ? "" : "; the ponger process is not ready") + ")");
                }
                childReady = childReady || null != child.pollLine(RttPonger.READY, "READY");
                if (pingSide.driveConnection() == 0)
                {
                    LockSupport.parkNanos(CONNECT_IDLE_PAUSE_NS);
                }
            }
            return runAgainstChild(provider, api, child, new MessagingPinger(pingSide, cpuPlan.pingerCpu(),
                cpuPlan.yieldWhenIdle(), log, options.warmup(), options.messages()));
        }
    }

    private RttResult runAgainstChild(final String provider, final String api, final PongerProcess child,
        final Pinger pinger)
    {
        final Thread pingerThread = start(pinger);
        while (!join(pingerThread, JOIN_SLICE_MS))
        {
            if (!child.isAlive())
            {
                pinger.requestStop();
            }
        }
        final String pongerFailure;
        int pongerCpu = CpuPlan.UNPINNED;
        if (null == pinger.failure())
        {
            String failure = null;
            try
            {
                pongerCpu = Integer.parseInt(child.awaitLine(RttPonger.DONE, "DONE").split(" ")[1]);
            }
            catch (final IllegalStateException ex)
            {
                failure = ex.getMessage();
            }
            pongerFailure = failure;
        }
        else
        {
            // The child is killed on close; if it saw what went wrong first, say so too.
            pongerFailure = child.reportedFailure(1_000);
        }
        failIfEitherFailed(provider, api, pinger, pongerFailure);
        return RttResult.of(provider, api, 2, sizeOf(api), pinger.histogram(), pinger.pinnedCpu(), pongerCpu,
            pinger.measuredAllocatedBytes(), pinger.jitCompiledWhileMeasuring());
    }

    private void failIfEitherFailed(final String provider, final String api, final Pinger pinger,
        final String pongerFailure)
    {
        if (null != pinger.failure() || null != pongerFailure)
        {
            final StringBuilder message = new StringBuilder(provider).append(" (").append(api).append(") in ")
                .append(options.processes())
                .append(" process(es) failed");
            if (null != pinger.failure())
            {
                message.append("; ").append(pinger.failure());
            }
            if (null != pongerFailure)
            {
                message.append("; ").append(pongerFailure);
            }
            throw new IllegalStateException(message.toString());
        }
    }

    private static Thread start(final SpinningTask task)
    {
        final Thread thread = new Thread(task, "rtt-" + task.role());
        thread.setDaemon(true); // a loop stuck in a provider must not keep the JVM alive
        thread.start();
        return thread;
    }

    private static boolean join(final Thread thread, final long timeoutMs)
    {
        try
        {
            thread.join(timeoutMs);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the " + thread.getName() + " thread", ex);
        }
        return !thread.isAlive();
    }
}
