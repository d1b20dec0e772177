package io.ringwire.perf.rtt;

import io.aeron.driver.MediaDriver;
import io.ringwire.perf.baseline.aeron.AeronIpcPinger;
import io.ringwire.perf.baseline.aeron.AeronIpcPonger;
import io.ringwire.perf.baseline.aeron.AeronIpcSide;
import io.ringwire.perf.baseline.aeron.AeronSbePinger;
import io.ringwire.perf.baseline.aeron.AeronUdpDriver;
import io.ringwire.perf.baseline.aeron.AeronSbePonger;
import io.ringwire.perf.baseline.bare.BareLines;
import io.ringwire.perf.baseline.bare.BarePinger;
import io.ringwire.perf.baseline.bare.BarePonger;
import io.ringwire.perf.baseline.nio.NioChannels;
import io.ringwire.perf.baseline.nio.NioPinger;
import io.ringwire.perf.baseline.nio.NioPonger;
import io.ringwire.perf.baseline.nio.NioUdpChannels;
import io.ringwire.perf.baseline.nio.NioUdpLink;
import io.ringwire.perf.baseline.nio.NioUdpPinger;
import io.ringwire.perf.baseline.nio.NioUdpPonger;
import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.host.GcActivity;
import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.output.RecordedHistogram;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.Pinger;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the round-trip benchmark for each transport of the options, and for an RDMA provider through
 * each path the options ask for (the bare channel, then messaging), one after the other in this run,
 * with the pinger and the ponger as threads of this JVM or the ponger in a child JVM. Sets up
 * connections on the control thread, hands them to the spinning threads, and turns the pinger's
 * histogram into an {@link RttResult}.
 *
 * <p>Threading: the control thread; the spinning threads are started and joined here.
 */
public final class RttBenchmark
{
    /** How long the ponger may take to end after the pinger did (both loops bound their own waits). */
    private static final long PONGER_END_TIMEOUT_MS =
        TimeUnit.NANOSECONDS.toMillis(SpinningTask.PEER_SILENCE_TIMEOUT_NS) + 5_000;
    private static final long JOIN_SLICE_MS = 100;

    private final RttOptions options;
    private final CpuPlan cpuPlan;
    private final PrintStream log;
    private final ThreadPlan pingerPlan;
    private final ThreadPlan pongerPlan;
    /** How the aeron-udp rows' media driver runs on this host. */
    private final AeronUdpDriver udpDriver;
    /** Every pinger's histograms, in the order they ran, for the results directory. */
    private final List<RecordedHistogram> histograms = new ArrayList<>();
    private int round = 1;

    /**
     * @param options what to run.
     * @param cpuPlan where the spinning threads run.
     * @param log     progress and warnings (stderr, so stdout holds only the result).
     */
    public RttBenchmark(final RttOptions options, final CpuPlan cpuPlan, final PrintStream log)
    {
        this.options = options;
        this.cpuPlan = cpuPlan;
        this.log = log;
        this.pingerPlan = cpuPlan.pinger(log);
        this.pongerPlan = cpuPlan.ponger(log);
        this.udpDriver = AeronUdpDriver.of(cpuPlan);
    }

    /**
     * @return one report per round ({@code --rounds}), each with one result per transport and path in
     *         the order of the options.
     * @throws IOException           when a nio-tcp/nio-udp socket or the child process cannot be set up.
     * @throws IllegalStateException when a run fails; the message says which side and why.
     */
    public RttRounds run() throws IOException
    {
        final List<RttReport> rounds = new ArrayList<>();
        for (round = 1; round <= options.rounds(); round++)
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
                    sizeOf(provider, api) + " bytes" + of);
                if (Transports.AERON_UDP.equals(provider))
                {
                    log.println(udpDriver.layout() + (yieldWhenIdle(provider) ?
                        "; no CPU left for the driver, so the pinger and ponger yield when idle" : ""));
                }
                results.add(options.processes() == 1 ? runInOneProcess(provider, api) :
                    runInTwoProcesses(provider, api));
            }
        }
        return new RttReport(options.size(), options.messages(), options.warmup(), options.processes(), results);
    }

    private int sizeOf(final String provider, final String api)
    {
        return RttOptions.carriesProbe(provider, api) ? LatencyProbeCodec.messageLength(options.size()) :
            options.size();
    }

    private RttResult runInOneProcess(final String provider, final String api) throws IOException
    {
        if (Transports.isBare(provider))
        {
            return runBareInOneProcess(provider, api);
        }
        if (Transports.isAeron(provider))
        {
            return runAeronInOneProcess(provider, api);
        }
        if (Transports.NIO_TCP.equals(provider))
        {
            return runNioTcpInOneProcess(provider, api);
        }
        if (Transports.NIO_UDP.equals(provider))
        {
            return runNioUdpInOneProcess(provider);
        }
        if (Transports.NIO_UDP_UNCONNECTED.equals(provider))
        {
            return runNioUdpUnconnectedInOneProcess(provider);
        }
        return Transports.API_MESSAGING.equals(api) ? runMessagingInOneProcess(provider, api) :
            runChannelInOneProcess(provider, api);
    }

    private RttResult runBareInOneProcess(final String provider, final String api)
    {
        try (BareLines lines = BareLines.inProcess(options.size(), Transports.BARE_NOTIFIED.equals(provider)))
        {
            return runThreads(provider, api, new BarePinger(lines, pingerPlan, options.warmup(), options.messages()),
                new BarePonger(lines, pongerPlan));
        }
    }

    private RttResult runAeronInOneProcess(final String provider, final String api)
    {
        final boolean udp = Transports.AERON_UDP.equals(provider);
        final AeronIpcSide.UdpPorts ports = udp ? AeronIpcSide.UdpPorts.free() : null;
        final Path directory = AeronIpcSide.directory(options.shmDirectory());
        final int length = sizeOf(provider, api);
        try (MediaDriver driver = udp ? udpDriver.launch(directory, log) : AeronIpcSide.launchDriver(directory);
             AeronIpcSide pingSide = AeronIpcSide.open(Path.of(driver.aeronDirectoryName()), true, length, ports);
             AeronIpcSide pongSide = AeronIpcSide.open(Path.of(driver.aeronDirectoryName()), false, length, ports))
        {
            pingSide.awaitConnected();
            pongSide.awaitConnected();
            return runThreads(provider, api, aeronPinger(provider, pingSide, length),
                aeronPonger(provider, pongSide, length, planOf(pongerPlan, provider)));
        }
    }

    private Pinger aeronPinger(final String provider, final AeronIpcSide side, final int length)
    {
        final ThreadPlan plan = planOf(pingerPlan, provider);
        return Transports.AERON_IPC_SBE.equals(provider) ?
            new AeronSbePinger(side, length, plan, options.warmup(), options.messages()) :
            new AeronIpcPinger(side, length, plan, options.warmup(), options.messages());
    }

    /**
     * @return whether the pinger and ponger of {@code provider} yield when idle: as the CPU plan says,
     *         and for aeron-udp also when no CPU is left for its media driver beside the two
     *         spinners, which would otherwise get one only when the scheduler preempts a spinner
     *         (milliseconds per message).
     */
    private boolean yieldWhenIdle(final String provider)
    {
        return cpuPlan.yieldWhenIdle() || (Transports.AERON_UDP.equals(provider) &&
            cpuPlan.onlineCpuCount() <= CpuPlan.SPINNING_THREADS);
    }

    private ThreadPlan planOf(final ThreadPlan plan, final String provider)
    {
        return yieldWhenIdle(provider) == plan.yieldWhenIdle() ? plan :
            new ThreadPlan(plan.cpu(), true, plan.warnings());
    }

    /**
     * @return the ponger of an Aeron baseline: the SBE probe's for {@code aeron-ipc-sbe}, the raw echo
     *         otherwise (also for the ponger process).
     */
    static SpinningTask aeronPonger(final String provider, final AeronIpcSide side, final int length,
        final ThreadPlan plan)
    {
        return Transports.AERON_IPC_SBE.equals(provider) ? new AeronSbePonger(side, length, plan) :
            new AeronIpcPonger(side, length, plan);
    }

    private RttResult runNioTcpInOneProcess(final String provider, final String api) throws IOException
    {
        try (ServerSocketChannel server = NioChannels.listen();
             SocketChannel pingerChannel = NioChannels.connect(NioChannels.port(server));
             SocketChannel pongerChannel = NioChannels.accept(server))
        {
            return runThreads(provider, api,
                new NioPinger(pingerChannel, options.size(), pingerPlan, options.warmup(), options.messages()),
                new NioPonger(pongerChannel, options.size(), pongerPlan));
        }
    }

    private RttResult runNioUdpInOneProcess(final String provider) throws IOException
    {
        try (DatagramChannel pingerChannel = NioUdpChannels.open();
             DatagramChannel pongerChannel = NioUdpChannels.open())
        {
            NioUdpChannels.connect(pingerChannel, NioUdpChannels.port(pongerChannel));
            NioUdpChannels.connect(pongerChannel, NioUdpChannels.port(pingerChannel));
            return runNioUdpThreads(provider, NioUdpLink.connected(pingerChannel), NioUdpLink.connected(pongerChannel));
        }
    }

    private RttResult runNioUdpUnconnectedInOneProcess(final String provider) throws IOException
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

    private RttResult runNioUdpThreads(final String provider, final NioUdpLink pingerLink, final NioUdpLink pongerLink)
    {
        return runThreads(provider, Transports.API_RAW,
            new NioUdpPinger(pingerLink, options.size(), pingerPlan, options.warmup(), options.messages()),
            new NioUdpPonger(pongerLink, options.size(), pongerPlan));
    }

    private RttResult runMessagingInOneProcess(final String provider, final String api)
    {
        final String secret = MessagingPeer.newSecret();
        try (MessagingPeer pingSide = MessagingPeer.open(provider, options.shmDirectory(), secret, options.size());
             MessagingPeer pongSide = MessagingPeer.open(provider, options.shmDirectory(), secret, options.size()))
        {
            pingSide.connectTo(pongSide.port());
            pongSide.connectTo(pingSide.port());
            MessagingPeer.connect(pingSide, pongSide);
            return runThreads(provider, api,
                new MessagingPinger(pingSide, pingerPlan, options.warmup(), options.messages()),
                new MessagingPonger(pongSide, pongerPlan, options.warmup()));
        }
    }

    private RttResult runChannelInOneProcess(final String provider, final String api)
    {
        try (RdmaPeer pingSide = RdmaPeer.open(provider, options.shmDirectory(), options.size());
             RdmaPeer pongSide = RdmaPeer.open(provider, options.shmDirectory(), options.size()))
        {
            final RemotePeer pingRemote = pingSide.describe();
            final RemotePeer pongRemote = pongSide.describe();
            pingSide.connect(pongRemote);
            pongSide.connect(pingRemote);
            return runThreads(provider, api,
                new RdmaPinger(pingSide, pongRemote, pingerPlan, options.warmup(), options.messages()),
                new RdmaPonger(pongSide, pingRemote, pongerPlan, options.warmup()));
        }
    }

    private RttResult runThreads(final String provider, final String api, final Pinger pinger,
        final SpinningTask ponger)
    {
        pinger.openLoopAt(options.rate());
        final GcActivity gcBefore = GcActivity.now();
        final Thread pongerThread = start(ponger);
        final Thread pingerThread = start(pinger);
        final PingerWatch watch = new PingerWatch(provider + " " + api, pinger, log);
        // If the ponger fails the pinger is told at once rather than after its echo timeout.
        while (!join(pingerThread, JOIN_SLICE_MS))
        {
            watch.tick();
            if (!pongerThread.isAlive() && null != ponger.failure())
            {
                pinger.requestStop();
            }
        }
        watch.finish();
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
        return resultOf(provider, api, pinger, ponger.pinnedCpu(), measuredGc(pinger, gcBefore));
    }

    private RttResult runInTwoProcesses(final String provider, final String api) throws IOException
    {
        try (PongerProcess child = PongerProcess.start(RttPonger.arguments(provider, api, options.size(),
            options.shmDirectory(), cpuPlan.pongerCpu(), yieldWhenIdle(provider), options.warmup(), udpDriver)))
        {
            if (Transports.isBare(provider))
            {
                return runBareAgainstChild(provider, api, child);
            }
            if (Transports.isAeron(provider))
            {
                return runAeronAgainstChild(provider, api, child);
            }
            if (Transports.NIO_TCP.equals(provider))
            {
                return runNioTcpAgainstChild(provider, api, child);
            }
            if (Transports.NIO_UDP.equals(provider))
            {
                return runNioUdpAgainstChild(provider, api, child);
            }
            if (Transports.NIO_UDP_UNCONNECTED.equals(provider))
            {
                return runNioUdpUnconnectedAgainstChild(provider, api, child);
            }
            return Transports.API_MESSAGING.equals(api) ? runMessagingAgainstChild(provider, api, child) :
                runChannelAgainstChild(provider, api, child);
        }
    }

    private RttResult runBareAgainstChild(final String provider, final String api, final PongerProcess child)
        throws IOException
    {
        try (BareLines lines = BareLines.map(Path.of(child.awaitValue(RttPonger.LISTEN, "the shared file")),
            options.size(), Transports.BARE_NOTIFIED.equals(provider)))
        {
            child.awaitReady();
            return runAgainstChild(provider, api, child,
                new BarePinger(lines, pingerPlan, options.warmup(), options.messages()));
        }
    }

    /**
     * Connects to the media driver the child runs (for {@code aeron-udp} the child also says the
     * streams' ports, after the directory).
     */
    private RttResult runAeronAgainstChild(final String provider, final String api, final PongerProcess child)
    {
        final String listen = child.awaitValue(RttPonger.LISTEN, "the Aeron directory").trim();
        final int space = listen.lastIndexOf(' ');
        final boolean udp = Transports.AERON_UDP.equals(provider);
        final Path directory = Path.of(udp ? listen.substring(0, space) : listen);
        final AeronIpcSide.UdpPorts ports = udp ? AeronIpcSide.UdpPorts.parse(listen.substring(space + 1)) : null;
        final int length = sizeOf(provider, api);
        try (AeronIpcSide pingSide = AeronIpcSide.open(directory, true, length, ports))
        {
            pingSide.awaitConnected();
            child.awaitReady();
            return runAgainstChild(provider, api, child, aeronPinger(provider, pingSide, length));
        }
    }

    private RttResult runNioTcpAgainstChild(final String provider, final String api, final PongerProcess child)
        throws IOException
    {
        try (SocketChannel channel = NioChannels.connect(child.awaitListeningPort()))
        {
            child.awaitReady();
            return runAgainstChild(provider, api, child,
                new NioPinger(channel, options.size(), pingerPlan, options.warmup(), options.messages()));
        }
    }

    private RttResult runNioUdpAgainstChild(final String provider, final String api, final PongerProcess child)
        throws IOException
    {
        final int port = child.awaitListeningPort();
        try (DatagramChannel channel = NioUdpChannels.open())
        {
            child.sendLine(RttPonger.PEER + " " + NioUdpChannels.port(channel));
            NioUdpChannels.connect(channel, port);
            child.awaitReady();
            return runAgainstChild(provider, api, child, new NioUdpPinger(NioUdpLink.connected(channel),
                options.size(), pingerPlan, options.warmup(), options.messages()));
        }
    }

    private RttResult runNioUdpUnconnectedAgainstChild(final String provider, final String api,
        final PongerProcess child) throws IOException
    {
        final int port = child.awaitListeningPort();
        try (DatagramChannel receive = NioUdpChannels.open();
             DatagramChannel send = NioUdpChannels.openDontFragment())
        {
            child.sendLine(RttPonger.PEER + " " + NioUdpChannels.port(receive));
            child.awaitReady();
            return runAgainstChild(provider, api, child, new NioUdpPinger(
                NioUdpLink.unconnected(send, receive, NioUdpChannels.loopbackAddress(port)), options.size(),
                pingerPlan, options.warmup(), options.messages()));
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
        final int childPort = child.awaitListeningPort();
        try (MessagingPeer pingSide = MessagingPeer.open(provider, options.shmDirectory(), secret, options.size()))
        {
            child.sendLine(RttPonger.PEER + " " + pingSide.port());
            pingSide.connectTo(childPort);
            MessagingPeer.driveUntil(pingSide::driveConnection, () -> child.pollReady() && pingSide.isConnected(),
                () -> provider + " messaging: not connected both ways with the ponger process within " +
                    TimeUnit.NANOSECONDS.toSeconds(MessagingPeer.CONNECT_TIMEOUT_NS) + " s (" +
                    pingSide.connectionState() + (child.pollReady() ? "" : "; the ponger process is not ready") + ")");
            return runAgainstChild(provider, api, child,
                new MessagingPinger(pingSide, pingerPlan, options.warmup(), options.messages()));
        }
    }

    private RttResult runChannelAgainstChild(final String provider, final String api, final PongerProcess child)
        throws IOException
    {
        final RemotePeer pongRemote = RemotePeer.parse(child.awaitLine(RemotePeer.PREFIX, "endpoint"));
        try (RdmaPeer pingSide = RdmaPeer.open(provider, options.shmDirectory(), options.size()))
        {
            child.sendLine(pingSide.describe().toLine());
            pingSide.connect(pongRemote);
            child.awaitReady();
            return runAgainstChild(provider, api, child,
                new RdmaPinger(pingSide, pongRemote, pingerPlan, options.warmup(), options.messages()));
        }
    }

    private RttResult runAgainstChild(final String provider, final String api, final PongerProcess child,
        final Pinger pinger)
    {
        pinger.openLoopAt(options.rate());
        final GcActivity gcBefore = GcActivity.now();
        final Thread pingerThread = start(pinger);
        final PingerWatch watch = new PingerWatch(provider + " " + api, pinger, log);
        while (!join(pingerThread, JOIN_SLICE_MS))
        {
            watch.tick();
            if (!child.isAlive())
            {
                pinger.requestStop();
            }
        }
        watch.finish();
        final GcActivity gc = measuredGc(pinger, gcBefore);
        final String pongerFailure;
        PongerProcess.Done done = null;
        if (null == pinger.failure())
        {
            String failure = null;
            try
            {
                done = child.awaitDone();
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
        return resultOf(provider, api, pinger, done.cpu(), gc.plus(done.gc()));
    }

    /**
     * Summarises a pinger that completed and keeps its histograms for the results directory.
     */
    private RttResult resultOf(final String provider, final String api, final Pinger pinger, final int pongerCpu,
        final GcActivity gc)
    {
        final String row = provider + "-" + api + (options.rounds() > 1 ? "-round" + round : "");
        final String title = provider + " " + api + (options.rounds() > 1 ? ", round " + round : "");
        final boolean openLoop = null != pinger.dueTimeHistogram();
        histograms.add(new RecordedHistogram(row, row,
            title + (openLoop ? ", service time (from send)" : ", round trip"), pinger.histogram(), pinger.intervals()));
        if (openLoop)
        {
            histograms.add(new RecordedHistogram(row + "-due", row,
                title + ", from due time at " + options.rate() + "/s", pinger.dueTimeHistogram(),
                pinger.dueTimeIntervals()));
        }
        return RttResult.of(provider, api, options.processes(), sizeOf(provider, api), pinger.histogram(),
            pinger.pinnedCpu(), pongerCpu, pinger.measuredAllocatedBytes(), pinger.jitCompiledWhileMeasuring(), gc,
            RttDueTime.of(options.rate(), pinger.dueTimeHistogram()))
            .notComparableBecause(Transports.AERON_UDP.equals(provider) ? udpDriver.notComparableReason() : null);
    }

    /**
     * @return every measured histogram of the run so far, in the order the rows ran: each row's
     *         round trips (the service time in an open loop) and, in an open loop, its latencies from
     *         the due time.
     */
    public List<RecordedHistogram> histograms()
    {
        return List.copyOf(histograms);
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

    /**
     * @return this JVM's collections in the pinger's measured window, or from {@code gcBefore} to now
     *         when the pinger ended before it opened one.
     */
    private static GcActivity measuredGc(final Pinger pinger, final GcActivity gcBefore)
    {
        return null != pinger.measuredGc() ? pinger.measuredGc() : GcActivity.now().since(gcBefore);
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
