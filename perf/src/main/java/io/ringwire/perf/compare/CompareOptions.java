package io.ringwire.perf.compare;

import io.ringwire.perf.baseline.nio.NioUdpChannels;
import io.ringwire.perf.cli.CommonOptions;
import io.ringwire.perf.cli.OptionReader;
import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.pingpong.RttMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * Options of {@code ringwire perf compare}, parsed and checked: {@code rtt}'s options that make sense
 * for pairs, plus {@code --pairs} to run some of them. Every refusal is a {@link UsageException}
 * whose message names the option and its allowed values.
 *
 * @param comparisons        the pairs to run, in {@link Comparison#ALL}'s order.
 * @param size               bytes per message, both ways.
 * @param messages           measured round trips per row and round.
 * @param warmup             unrecorded round trips before each row.
 * @param processes          1 or 2, as {@code rtt --processes}.
 * @param rounds             times every pair runs, round after round.
 * @param budgetSeconds      a bound on the whole run: no round starts that would end past it, judged by
 *                           the longest round so far (round 1 always runs); 0 for none.
 * @param json               print one JSON object instead of the tables.
 * @param out                the results directory, or null for perf/results/<date-time>/.
 * @param allowOversubscribe run even with fewer CPUs than spinning threads.
 * @param shmDirectory       directory of the shm provider's files.
 * @param help               print the usage and nothing else.
 */
public record CompareOptions(
    List<Comparison> comparisons,
    int size,
    long messages,
    long warmup,
    int processes,
    int rounds,
    long budgetSeconds,
    boolean json,
    String out,
    boolean allowOversubscribe,
    String shmDirectory,
    boolean help)
{
    static final long DEFAULT_MESSAGES = 200_000;
    static final long DEFAULT_WARMUP = 50_000;
    static final int DEFAULT_ROUNDS = 3;
    /** A week: longer than any run, short enough that its nanoseconds stay far from overflow. */
    static final long MAX_BUDGET_SECONDS = 7L * 24 * 3600;

    /**
     * Copies the list.
     */
    public CompareOptions
    {
        comparisons = List.copyOf(comparisons);
    }

    /**
     * @return the text {@code --help} prints.
     */
    public static String usage()
    {
        return """
            usage: ringwire perf compare [options]

            Each RingWire transport beside what a user would pick instead, in interleaved rounds (round 1
            runs every pair once, round 2 again, ...), through perf rtt's ping-pongs:
              shm / aeron-ipc, shm messaging / aeron-ipc, shm messaging / aeron-ipc-sbe (like for like:
                  the same SBE LatencyProbe, validated and decoded)
              socket / nio-tcp
              roce / nio-udp, roce / aeron-udp
              ibverbs / ib_write_lat (only with an RDMA device: perftest's ib_write_lat, server and
                  client on this host, on the device -Dringwire.rdma.ibverbs.device names; its
                  half round trips doubled)
              shm, socket, roce and ibverbs messaging / their own channel (what messaging costs
                  over it)
            Prints each row's p50 and p99 (medians over the rounds) and each pair's p50 ratio: the median
            of its per-round ratios, with every reading. aeron-udp's media driver runs DEDICATED on CPUs
            of its own where the host has %d online CPUs or more; elsewhere it runs SHARED and
            roce / aeron-udp is marked not comparable here (table, JSON "comparable" and "reason",
            ratio plot).

            options:
              --pairs LIST            comma list of providers (shm, socket, roce, ibverbs: all their pairs)
                                      or provider/baseline (shm/aeron-ipc, roce/channel); default every pair whose
                                      provider can run here
              --size BYTES            message size (default 32; see rtt --help)
              --messages N            measured round trips per row and round (default %d)
              --warmup N              unrecorded round trips before each row (default %d)
              --rounds N              rounds, 1 to %d (default %d)
              --budget SECONDS        stop before a round that would end past SECONDS from the start,
                                      judged by the longest round so far; round 1 always runs, the
                                      report gives the rounds that ran and a note says why the rest
                                      did not (default: no bound)
              --processes 1|2         as rtt (default 1)
              --json                  print one JSON object (values in ns): "rows" and "ratios"
              --out DIR               write the results directory there: per row, its round trips over
                                      all rounds as an HdrHistogram log (.hdr, one interval a second)
                                      and distribution (.hgrm); per provider, a percentile plot of it
                                      beside its alternatives; compare-ratios.png; summary.json (with
                                      the JSON) and results.md (default perf/results/<date-time>/)
              --allow-oversubscribe   as rtt
              --shm-dir DIR           as rtt
              --help                  this text

            exit codes: 0 done, 1 the benchmark failed, 2 bad command line or refused run
            """.formatted(CpuPlan.CPUS_FOR_DEDICATED_DRIVER, DEFAULT_MESSAGES, DEFAULT_WARMUP, CommonOptions.MAX_ROUNDS,
            DEFAULT_ROUNDS);
    }

    /**
     * Parses {@code compare}'s arguments.
     *
     * @param args the arguments after {@code compare}.
     * @return the options.
     * @throws UsageException naming the bad option and its allowed values.
     */
    public static CompareOptions parse(final String... args)
    {
        final CommonOptions common = new CommonOptions("round trips")
            .withSize(RttMessage.MIN_LENGTH, RttMessage.MAX_LENGTH)
            .withCounts(DEFAULT_MESSAGES, DEFAULT_WARMUP)
            .with("--processes", "--allow-oversubscribe")
            .withRounds(DEFAULT_ROUNDS)
            .withOut("perf/results/compare-1");
        List<Comparison> comparisons = Comparison.ALL;
        long budgetSeconds = 0;
        final OptionReader option = new OptionReader(args);
        while (option.next())
        {
            if (common.take(option))
            {
                continue;
            }
            switch (option.name())
            {
                case "--pairs" -> comparisons = parsePairs(option.value("provider or provider/baseline list"));
                case "--budget" -> budgetSeconds = option.number("seconds", 1, MAX_BUDGET_SECONDS, "seconds");
                default -> throw option.unknown("--pairs, --size, --messages, --warmup, --rounds, --budget, " +
                    "--processes, --json, --out, --allow-oversubscribe, --shm-dir, --help");
            }
        }
        final CommonOptions.Values shared = common.values(option);
        final boolean udpBaseline = comparisons.stream().anyMatch(pair -> Transports.NIO_UDP.equals(pair.baseline()));
        if (udpBaseline && shared.size() > NioUdpChannels.MAX_DATAGRAM_PAYLOAD)
        {
            throw new UsageException("--size " + shared.size() + " is too large for roce / nio-udp, which sends " +
                "each message as one datagram; allowed with it: 16 to " + NioUdpChannels.MAX_DATAGRAM_PAYLOAD +
                " bytes (or leave it out with --pairs)");
        }
        return new CompareOptions(comparisons, shared.size(), shared.messages(), shared.warmup(),
            shared.processes(), shared.rounds(), budgetSeconds, shared.json(), shared.out(),
            shared.allowOversubscribe(), shared.shmDirectory(), shared.help());
    }

    /**
     * @param value {@code shm,roce/aeron-udp}.
     * @return the pairs named, in {@link Comparison#ALL}'s order.
     * @throws UsageException for a name that is no provider or pair.
     */
    static List<Comparison> parsePairs(final String value)
    {
        final List<String> names = new ArrayList<>();
        for (final String raw : value.split(",", -1))
        {
            final String name = raw.trim();
            final boolean known = Comparison.ALL.stream().anyMatch(pair -> pair.provider().equals(name) ||
                (pair.provider() + '/' + pair.baseline()).equals(name));
            if (!known)
            {
                throw new UsageException("--pairs '" + name + "' is not a pair; allowed: shm, socket, roce, ibverbs " +
                    "or provider/baseline, e.g. shm/aeron-ipc-sbe, roce/aeron-udp");
            }
            names.add(name);
        }
        final List<Comparison> comparisons = new ArrayList<>();
        for (final Comparison pair : Comparison.ALL)
        {
            if (names.contains(pair.provider()) || names.contains(pair.provider() + '/' + pair.baseline()))
            {
                comparisons.add(pair);
            }
        }
        return comparisons;
    }
}
