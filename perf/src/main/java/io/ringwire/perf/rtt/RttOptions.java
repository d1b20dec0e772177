package io.ringwire.perf.rtt;

import io.ringwire.perf.baseline.nio.NioUdpChannels;
import io.ringwire.perf.cli.CommonOptions;
import io.ringwire.perf.cli.OptionReader;
import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.OpenLoopRecorder;
import io.ringwire.perf.pingpong.RttMessage;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProvider;
import io.ringwire.rdma.RdmaProviders;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Options of {@code ringwire perf rtt}, parsed and checked. Every refusal is a
 * {@link UsageException} whose message names the option and its allowed values.
 *
 * @param providers          transports to measure, in order: the RDMA providers {@code shm}, {@code socket},
 *                           {@code roce}, the raw NIO baselines {@code nio-tcp}, {@code nio-udp},
 *                           {@code nio-udp-unconnected}, the shared-memory floors {@code bare} and
 *                           {@code bare-notified}, and
 *                           Aeron's ping-pongs {@code aeron-ipc}, {@code aeron-ipc-sbe} and
 *                           {@code aeron-udp}.
 * @param api                which path the RDMA providers are measured through: messaging, channel
 *                           or both (each provider runs the bare channel, then messaging, side by
 *                           side in this run).
 * @param size               bytes per message, both ways.
 * @param messages           measured round trips per transport.
 * @param warmup             round trips before measuring, not recorded.
 * @param processes          1: pinger and ponger threads in this JVM; 2: the ponger in a child JVM.
 * @param rounds             times the whole list of transports runs, one round after the other, so
 *                           that each ratio is read once per round and summarised by its median.
 * @param json               print one JSON object instead of the table.
 * @param allowOversubscribe run even with fewer CPUs than spinning threads.
 * @param shmDirectory       directory of the shm provider's files.
 * @param help               print the usage and nothing else.
 * @param rate               messages due per second per stream: 0 for a closed loop (each ping sent
 *                           when the previous echo arrived), else an open loop timed from each
 *                           message's due time as well ({@link OpenLoopRecorder}).
 * @param out                the results directory (histograms, plots, summary), or null for
 *                           {@code perf/results/<date-time>/}.
 */
public record RttOptions(
    List<String> providers,
    String api,
    int size,
    long messages,
    long warmup,
    int processes,
    int rounds,
    boolean json,
    boolean allowOversubscribe,
    String shmDirectory,
    boolean help,
    long rate,
    String out)
{
    /** Transports {@code --provider} accepts. */
    public static final List<String> ALLOWED_PROVIDERS = Transports.ALL;

    /**
     * Validates the values (the parser already did; this guards direct construction).
     */
    public RttOptions
    {
        providers = OptionReader.atLeastOne("--provider", providers, ALLOWED_PROVIDERS);
        if (!Transports.ALLOWED_APIS.contains(api))
        {
            throw new UsageException("--api '" + api + "' is not allowed; allowed: " +
                String.join(", ", Transports.ALLOWED_APIS));
        }
    }

    /**
     * @param provider one of {@link #providers()}.
     * @return the paths it runs through, in order: raw for a raw baseline; for an RDMA provider the
     *         channel, messaging, or the channel then messaging.
     */
    public List<String> apisOf(final String provider)
    {
        if (Transports.isRawBaseline(provider))
        {
            return List.of(Transports.API_RAW);
        }
        return Transports.API_BOTH.equals(api) ? List.of(Transports.API_CHANNEL, Transports.API_MESSAGING) :
            List.of(api);
    }

    /**
     * @return the text {@code --help} prints.
     */
    public static String usage()
    {
        return """
            usage: ringwire perf rtt [options]

            Round-trip latency (ping-pong) per transport, all on 127.0.0.1, one after the other in one
            run and printed side by side. Each RDMA provider runs through one or both paths (--api):
              channel     the bare channel: WRITE WITH IMMEDIATE between two queue pairs, 16 bytes of
                          sequence and timestamp padded to --size
              messaging   end to end through Publication and Subscription: the pinger claims a frame
                          (tryClaim), encodes an SBE LatencyProbe into it and commits; the ponger's
                          handler validates and decodes it and echoes it through its own publication;
                          the pinger's handler decodes the echo. Timed from before the claim to after
                          the decode. The probe is at least 36 bytes (SBE header, three fields, the
                          padding's length), so a smaller --size sends 36
            With both, the table and the JSON ("overhead", and "overhead_p50" on each messaging row)
            give messaging's p50 overhead over the channel of the same run. Raw NIO TCP and UDP
            ping-pongs and Aeron IPC are the baselines users would pick instead.

            transports:
              shm                     RDMA provider over shared memory
              socket                  RDMA provider over TCP (baseline: nio-tcp)
              roce                    RDMA provider speaking RoCEv2 over UDP (baseline: nio-udp)
              ibverbs                 RDMA provider on a real device through libibverbs (a NIC or Soft-RoCE;
                                      -Dringwire.rdma.ibverbs.device / .gid.index pick it; its floor is
                                      perftest's ib_write_lat)
              nio-tcp                 busy-polled non-blocking NIO SocketChannel ping-pong, TCP_NODELAY
              nio-udp                 busy-polled non-blocking NIO DatagramChannel ping-pong, connected,
                                      one datagram per message
              nio-udp-unconnected     nio-udp over sockets used as roce uses them: sent from an unconnected
                                      socket with Don't-Fragment (send to an address), received on another
                                      (receive); what roce's sockets alone cost
              bare                    cache-line ping-pong through shared memory (a mapped file with
                                      --processes 2): the message's bytes, then its sequence with release
                                      order, spun on by the other side; the floor under shm
              bare-notified           bare with the bytes placed first and then a notification in another
                                      line (a ring of 64), spun on before the bytes are read: the shape of
                                      a WRITE WITH IMMEDIATE with nothing around it, the floor of shm's channel
              aeron-ipc               Aeron's ping-pong over aeron:ipc (exclusive publications, busy-polled
                                      subscriptions, an embedded media driver idling off the data path):
                                      the peer an application would pick instead of shm
              aeron-ipc-sbe           aeron-ipc carrying messaging's SBE LatencyProbe: claimed, encoded and
                                      committed; validated (MessageValidator) and decoded on receipt; the
                                      like-for-like peer of shm messaging (rows are the probe's size)
              aeron-udp               Aeron's ping-pong over aeron:udp on 127.0.0.1, one embedded media driver:
                                      with %d online CPUs or more DEDICATED, its conductor, sender and
                                      receiver busy-spinning on CPUs of their own; with fewer SHARED with a
                                      backoff idle (spin, yield, park up to 100 us), and its ratios with
                                      roce marked not comparable; the peer an application would pick
                                      instead of roce

            options:
              --provider LIST         comma list of shm, socket, roce, ibverbs, nio-tcp, nio-udp,
                                      nio-udp-unconnected, bare, bare-notified, aeron-ipc, aeron-ipc-sbe,
                                      aeron-udp
                                      (default: all of them; an RDMA provider only when it is on the class
                                      path and can open here: ibverbs needs a device)
              --size BYTES            message size, 16 to 1048576 (default 32; nio-udp and
                                      nio-udp-unconnected: at most 65507)
              --api messaging|channel|both
                                      the path the RDMA providers are measured through (default both:
                                      the channel, then messaging; the NIO baselines have only one)
              --messages N            measured round trips per transport and path, 1 to 1000000000
                                      (default 1000000)
              --warmup N              unrecorded round trips first, 0 to 1000000000 (default 100000)
              --processes 1|2         1: pinger and ponger threads in one JVM; 2: ponger in a child JVM (default 1)
              --rounds N              run the whole list N times, 1 to %d (default 1): every ratio is then
                                      read once per round, side by side with its baseline, and the summary
                                      gives each one's median over the rounds, which a host moving between
                                      fast and slow phases during a run does not sway the way it sways one
              --json                  print one JSON object (values in ns) instead of the table
              --allow-oversubscribe   run even with fewer online CPUs than the 2 spinning threads (they then
                                      yield when idle, and latency shows the scheduler, not the transport)
              --shm-dir DIR           directory of the shm provider's files (default %s)
              --rate R                open loop: R messages due per second per stream, 1 to 1000000000
                                      (default: closed loop). Each message is sent when due, or at once
                                      when the previous echo came late, and timed from its due time
                                      ("due" rows and due_* keys) as well as from its send (the usual
                                      rows and keys), so a stall is charged to every message behind it
              --out DIR               write the results directory there: HdrHistogram logs (.hdr),
                                      percentile distributions (.hgrm), plots (.png), summary.json and
                                      results.md (default perf/results/<date-time>/)
              --help                  this text

            exit codes: 0 done, 1 the benchmark failed, 2 bad command line or refused run
            """.formatted(CpuPlan.CPUS_FOR_DEDICATED_DRIVER, CommonOptions.MAX_ROUNDS,
            CommonOptions.defaultShmDirectory());
    }

    /**
     * @return every transport, leaving out RDMA providers that are not on the class path or cannot
     *         open here (ibverbs without an RDMA device, shm without sealed memory files). shm's
     *         directory is not what decides: it is {@code --shm-dir}'s, not yet read, and its run says
     *         so where it will not do; the check looks in a temporary directory of its own, removed after it.
     */
    static List<String> defaultProviders()
    {
        final List<String> present = new ArrayList<>();
        for (final RdmaProvider provider : RdmaProviders.all())
        {
            final RdmaConfig config = new RdmaConfig().provider(provider.name());
            Path probe = null;
            try
            {
                if (Transports.SHM.equals(provider.name()))
                {
                    // A directory of this process's own for the look (the shared temporary directory
                    // is everyone's, which an shm directory may not be), gone again after it.
                    probe = Files.createTempDirectory("ringwire-shm-probe");
                    config.shmDirectory(probe.toString());
                }
                if (null == provider.unavailableReason(config))
                {
                    present.add(provider.name());
                }
            }
            catch (final IOException ex)
            {
                // No directory to look in: shm is left out, as where it cannot open.
            }
            finally
            {
                deleteQuietly(probe);
            }
        }
        final List<String> providers = new ArrayList<>();
        for (final String provider : ALLOWED_PROVIDERS)
        {
            if (Transports.isRawBaseline(provider) || present.contains(provider))
            {
                providers.add(provider);
            }
        }
        return providers;
    }

    private static void deleteQuietly(final Path directory)
    {
        if (null != directory)
        {
            try
            {
                Files.deleteIfExists(directory);
            }
            catch (final IOException ex)
            {
                // An empty directory in the temporary directory: nothing depends on its going.
            }
        }
    }

    /**
     * @param provider a transport name.
     * @param api      its path.
     * @return whether it carries messaging's SBE LatencyProbe (messaging, and {@code aeron-ipc-sbe}),
     *         so its messages are at least {@link LatencyProbeCodec#MIN_LENGTH} bytes.
     */
    static boolean carriesProbe(final String provider, final String api)
    {
        return Transports.API_MESSAGING.equals(api) || Transports.AERON_IPC_SBE.equals(provider);
    }

    /**
     * Parses {@code rtt}'s arguments ({@code --name value} or {@code --name=value}).
     *
     * @param args the arguments after {@code rtt}.
     * @return the options.
     * @throws UsageException naming the bad option and its allowed values.
     */
    public static RttOptions parse(final String... args)
    {
        final CommonOptions.Values shared = new CommonOptions("round trips")
            .withProviders(defaultProviders(), ALLOWED_PROVIDERS, "is not a transport", "roce,nio-udp")
            .withApi(Transports.ALLOWED_APIS, Transports.API_BOTH)
            .withSize(RttMessage.MIN_LENGTH, RttMessage.MAX_LENGTH)
            .withCounts(CommonOptions.DEFAULT_MESSAGES, CommonOptions.DEFAULT_WARMUP)
            .with("--processes", "--allow-oversubscribe", "--rate")
            .withRounds(1)
            .withOut("perf/results/run-1")
            .parse(args, "--provider, --api, --size, --messages, --warmup, --processes, --rounds, --json, " +
                "--allow-oversubscribe, --shm-dir, --rate, --out, --help");
        for (final String udp : List.of(Transports.NIO_UDP, Transports.NIO_UDP_UNCONNECTED))
        {
            if (shared.size() > NioUdpChannels.MAX_DATAGRAM_PAYLOAD && shared.providers().contains(udp))
            {
                throw new UsageException("--size " + shared.size() + " is too large for " + udp + ", which sends " +
                    "each message as one datagram; allowed with " + udp + ": 16 to " +
                    NioUdpChannels.MAX_DATAGRAM_PAYLOAD + " bytes");
            }
        }
        return new RttOptions(shared.providers(), shared.api(), shared.size(), shared.messages(), shared.warmup(),
            shared.processes(), shared.rounds(), shared.json(), shared.allowOversubscribe(), shared.shmDirectory(),
            shared.help(), shared.rate(), shared.out());
    }
}
