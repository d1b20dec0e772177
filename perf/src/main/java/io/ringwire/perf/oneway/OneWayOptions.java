package io.ringwire.perf.oneway;

import io.ringwire.perf.cli.CommonOptions;
import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.RttMessage;

import java.util.List;

/**
 * The options of {@code ringwire perf oneway}.
 *
 * @param providers          transports, in order: shm, socket, roce, ibverbs.
 * @param api                the path measured: only messaging so far.
 * @param size               bytes per message (a probe is at least {@link LatencyProbeCodec#MIN_LENGTH}).
 * @param messages           recorded messages per transport.
 * @param warmup             unrecorded messages first.
 * @param rate               messages per second, open loop; 0: one message in flight.
 * @param json               print JSON instead of the table.
 * @param allowOversubscribe run with fewer CPUs than the two ends.
 * @param shmDirectory       directory of the shm provider's files.
 * @param help               {@code --help} was given.
 * @param out                the results directory, or null for perf/results/&lt;date-time&gt;.
 */
public record OneWayOptions(
    List<String> providers,
    String api,
    int size,
    long messages,
    long warmup,
    long rate,
    boolean json,
    boolean allowOversubscribe,
    String shmDirectory,
    boolean help,
    String out)
{
    /** The transports messaging runs over. */
    public static final List<String> ALLOWED_PROVIDERS = Transports.RDMA_PROVIDERS;

    /**
     * @return the text {@code oneway --help} prints.
     */
    public static String usage()
    {
        return """
            usage: ringwire perf oneway [--provider P[,P...]] [--api messaging] [--size B] [--messages N]
                                        [--warmup N] [--rate R] [--out DIR] [--json] [--allow-oversubscribe]
                                        [--shm-dir DIR]

            One-way latency on one host: a sender thread stamps each message with System.nanoTime, a
            receiver thread on another CPU records receive minus send (one clock, no synchronisation).
            Without --rate one message is in flight (the next is sent once the previous arrived); with
            --rate R message i is due at start + i/R and sent then whatever is in flight (open loop),
            and receive minus due time is recorded too.

              --provider  shm, socket, roce, ibverbs (comma list; default shm,socket,roce)
              --api       messaging (Publication/Subscription, SBE LatencyProbe); channel is not measured yet
              --size      bytes per message (default 32; at least a probe)
              --messages  recorded messages per transport (default 1000000)
              --warmup    unrecorded messages first (default 100000)
              --rate      offered messages per second, open loop
              --out       results directory (default perf/results/<date-time>)
              --json      JSON on stdout instead of the table
            """;
    }

    /**
     * @param args the arguments after {@code oneway}.
     * @return the options.
     * @throws UsageException naming the bad option and what it allows.
     */
    public static OneWayOptions parse(final String... args)
    {
        final CommonOptions.Values shared = new CommonOptions("messages")
            .withProviders(List.of(Transports.SHM, Transports.SOCKET, Transports.ROCE), ALLOWED_PROVIDERS,
                "is not a transport", "shm,socket")
            .withApi(List.of(Transports.API_MESSAGING), Transports.API_MESSAGING)
            .withSize(1, RttMessage.MAX_LENGTH)
            .withCounts(CommonOptions.DEFAULT_MESSAGES, CommonOptions.DEFAULT_WARMUP)
            .with("--allow-oversubscribe", "--rate")
            .withOut("perf/results/run-1")
            .parse(args, "--provider, --api, --size, --messages, --warmup, --rate, --out, --json, " +
                "--allow-oversubscribe, --shm-dir, --help");
        return new OneWayOptions(shared.providers(), shared.api(), shared.size(), shared.messages(),
            shared.warmup(), shared.rate(), shared.json(), shared.allowOversubscribe(), shared.shmDirectory(),
            shared.help(), shared.out());
    }
}
