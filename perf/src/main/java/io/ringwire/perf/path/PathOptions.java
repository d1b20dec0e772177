package io.ringwire.perf.path;

import io.ringwire.perf.cli.CommonOptions;
import io.ringwire.perf.cli.OptionReader;
import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.RttMessage;

import java.util.List;

/**
 * Options of {@code ringwire perf path}, parsed and checked; every refusal is a
 * {@link UsageException} naming the option and its allowed values.
 *
 * @param providers    RDMA providers to measure, in order ({@code shm}, {@code socket}, {@code roce}).
 * @param api          {@link Transports#API_CHANNEL}, {@link Transports#API_MESSAGING} or
 *                     {@link Transports#API_BOTH}.
 * @param size         bytes per message (a messaging probe is at least {@link LatencyProbeCodec#MIN_LENGTH}).
 * @param hops         hops per repetition.
 * @param repetitions  measured repetitions (after one unmeasured warm-up repetition).
 * @param json         print one JSON object instead of the table.
 * @param shmDirectory directory of the shm provider's files.
 * @param help         print the usage and nothing else.
 */
public record PathOptions(
    List<String> providers,
    String api,
    int size,
    long hops,
    int repetitions,
    boolean json,
    String shmDirectory,
    boolean help)
{
    /** Providers {@code --provider} accepts. */
    public static final List<String> ALLOWED_PROVIDERS = List.of(Transports.SHM, Transports.SOCKET, Transports.ROCE);
    /** Largest {@code --size}: one hop's message stays within a page. */
    static final int MAX_SIZE = 4096;
    static final long DEFAULT_HOPS = 2_000_000;
    static final int DEFAULT_REPETITIONS = 7;

    /**
     * Validates the values (the parser already did; this guards direct construction).
     */
    public PathOptions
    {
        providers = OptionReader.atLeastOne("--provider", providers, ALLOWED_PROVIDERS);
    }

    /**
     * @return the paths each provider runs through, in order.
     */
    public List<String> apis()
    {
        return Transports.API_BOTH.equals(api) ? List.of(Transports.API_CHANNEL, Transports.API_MESSAGING) :
            List.of(api);
    }

    /**
     * @return the text {@code --help} prints.
     */
    public static String usage()
    {
        return """
            usage: ringwire perf path [options]

            The CPU a hop costs, with no cross-core traffic in the number: one thread drives both ends of
            a ping-pong (both queue pairs, or both publications and subscriptions), so each hop is the
            sender's post and the receiver's poll, handler and answer, with every line in this core's
            cache. A reproducible measure of instruction-path changes on a host whose two-process
            round trips move with its virtual CPUs' placement; it is not a latency (perf rtt is).
              channel     WRITE WITH IMMEDIATE of --size bytes each way, the receive reposted in the handler
              messaging   an SBE LatencyProbe claimed, encoded and committed each way, validated and
                          decoded in the fragment handler
            Reports the median and the lowest of the repetitions' nanoseconds per hop.

            options:
              --provider LIST         comma list of shm, socket, roce (default shm)
              --api messaging|channel|both
                                      the path (default both)
              --size BYTES            message size, 16 to 4096 (default 32)
              --hops N                hops per repetition, 1000 to 1000000000 (default 2000000; the
                                      network providers take some microseconds a hop: try 200000)
              --repetitions N         measured repetitions, 1 to 100, after one warm-up (default 7)
              --json                  print one JSON object (values in ns) instead of the table
              --shm-dir DIR           directory of the shm provider's files (default %s)
              --help                  this text

            exit codes: 0 done, 1 the benchmark failed, 2 bad command line
            """.formatted(CommonOptions.defaultShmDirectory());
    }

    /**
     * Parses {@code path}'s arguments ({@code --name value} or {@code --name=value}).
     *
     * @param args the arguments after {@code path}.
     * @return the options.
     * @throws UsageException naming the bad option and its allowed values.
     */
    public static PathOptions parse(final String... args)
    {
        final CommonOptions common = new CommonOptions("messages")
            .withProviders(List.of(Transports.SHM), ALLOWED_PROVIDERS, "is not allowed", "shm,roce")
            .withApi(Transports.ALLOWED_APIS, Transports.API_BOTH)
            .withSize(RttMessage.MIN_LENGTH, MAX_SIZE);
        long hops = DEFAULT_HOPS;
        int repetitions = DEFAULT_REPETITIONS;
        final OptionReader option = new OptionReader(args);
        while (option.next())
        {
            if (common.take(option))
            {
                continue;
            }
            switch (option.name())
            {
                case "--hops" -> hops = option.number("a count", 1_000, 1_000_000_000L, "hops");
                case "--repetitions" -> repetitions = option.intNumber("a count", 1, 100, "repetitions");
                default -> throw option.unknown(
                    "--provider, --api, --size, --hops, --repetitions, --json, --shm-dir, --help");
            }
        }
        final CommonOptions.Values shared = common.values(option);
        return new PathOptions(shared.providers(), shared.api(), shared.size(), hops, repetitions, shared.json(),
            shared.shmDirectory(), shared.help());
    }
}
