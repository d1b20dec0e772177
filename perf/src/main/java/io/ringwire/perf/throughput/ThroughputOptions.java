package io.ringwire.perf.throughput;

import io.ringwire.perf.cli.CommonOptions;
import io.ringwire.perf.cli.OptionReader;
import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.RttMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * The options of {@code ringwire perf throughput}.
 *
 * @param provider           the transport: shm, socket, roce or ibverbs.
 * @param api                the path measured: only messaging so far.
 * @param sizes              message sizes of the flood, bytes, in order.
 * @param seconds            measured seconds per size and per sweep step.
 * @param sweepStartRate     the sweep's first offered rate, per second.
 * @param sweepSteps         at most this many sweep steps (0: no sweep).
 * @param sweepSize          bytes per message in the sweep.
 * @param rounds             rounds of the floods, each running every row at every size.
 * @param aeronBaseline      whether Aeron IPC's rows (raw and with the probe) stand beside shm's.
 * @param json               print JSON instead of the table.
 * @param allowOversubscribe run with fewer CPUs than the two ends.
 * @param shmDirectory       directory of the shm provider's files.
 * @param help               {@code --help} was given.
 * @param out                the results directory, or null for perf/results/&lt;date-time&gt;.
 */
public record ThroughputOptions(
    String provider,
    String api,
    List<Integer> sizes,
    int seconds,
    long sweepStartRate,
    int sweepSteps,
    int sweepSize,
    int rounds,
    boolean aeronBaseline,
    boolean json,
    boolean allowOversubscribe,
    String shmDirectory,
    boolean help,
    String out)
{
    static final List<Integer> DEFAULT_SIZES = List.of(32, 256, 1024, 4096);
    static final int DEFAULT_SECONDS = 5;
    static final int MAX_SECONDS = 3600;
    /** 10k/s doubled 20 times passes 10^10/s: more steps than any transport here sustains. */
    static final int MAX_SWEEP_STEPS = 20;
    static final int MAX_ROUNDS = 99;
    /** The rows that stand beside messaging's: Aeron IPC's, on shm. */
    static final String BASELINE_AERON_IPC = "aeron-ipc";
    static final String BASELINE_NONE = "none";

    /**
     * @return the text {@code throughput --help} prints.
     */
    public static String usage()
    {
        return """
            usage: ringwire perf throughput [--provider P] [--api messaging] [--sizes B,B...] [--seconds N]
                                            [--sweep-start R] [--sweep-steps N] [--sweep-size B]
                                            [--rounds N] [--baseline aeron-ipc|none] [--out DIR] [--json] [--allow-oversubscribe] [--shm-dir DIR]

            (a) Per message size, the highest rate held: the sender claims and encodes the SBE probe as fast
            as back pressure allows, the receiver decodes, validates and counts it (neither end reads a
            clock a message); the rate over the measured seconds (after an unmeasured half second), in
            msgs/s and MB/s (10^6 bytes). (b) One-way latency against offered rate, open loop: rates double
            from --sweep-start until the achieved rate misses the target by more than 5% or the p99 from
            due time exceeds 10 ms (that step is the last reported). Plots of both in the results directory.
            On shm, Aeron IPC floods beside each size (an exclusive publication, one thread offering, one
            polling, on the same CPUs): raw (a buffer offered as it is) and carrying the same SBE probe,
            encoded in place, decoded and validated, with no clock read either. Rounds interleave the rows;
            each row reports its median, its spread, and messaging/x, the median of the per-round ratios of
            messaging's rate to the row's.

              --provider     shm, socket, roce or ibverbs (default shm)
              --api          messaging; channel is not measured yet
              --sizes        message sizes, comma list (default 32,256,1024,4096)
              --seconds      measured seconds per size and per sweep step (default 5)
              --sweep-start  first offered rate of the sweep, per second (default 10000)
              --sweep-steps  at most this many sweep steps, 0 for none (default 20)
              --sweep-size   bytes per message in the sweep (default 32)
              --rounds       rounds of the floods (default 1; 5 for figures to quote)
              --baseline     aeron-ipc (the default on shm) or none; aeron-ipc only beside shm
              --out          results directory (default perf/results/<date-time>)
              --json         JSON on stdout instead of the table
            """;
    }

    /**
     * @param args the arguments after {@code throughput}.
     * @return the options.
     * @throws UsageException naming the bad option and what it allows.
     */
    public static ThroughputOptions parse(final String... args)
    {
        final CommonOptions common = new CommonOptions("messages")
            .withOneProvider(Transports.SHM, Transports.RDMA_PROVIDERS)
            .withApi(List.of(Transports.API_MESSAGING), Transports.API_MESSAGING)
            .withOut("perf/results/run-1")
            .with("--allow-oversubscribe");
        List<Integer> sizes = DEFAULT_SIZES;
        int seconds = DEFAULT_SECONDS;
        long sweepStartRate = RateSweep.DEFAULT_START_RATE;
        int sweepSteps = MAX_SWEEP_STEPS;
        int sweepSize = CommonOptions.DEFAULT_SIZE;
        int rounds = 1;
        String baseline = null;
        final OptionReader option = new OptionReader(args);
        while (option.next())
        {
            if (common.take(option))
            {
                continue;
            }
            switch (option.name())
            {
                case "--sizes" -> sizes = sizes(option.value("a comma list of bytes, e.g. 32,1024"));
                case "--seconds" -> seconds = option.intNumber("seconds", 1, MAX_SECONDS, "seconds");
                case "--sweep-start" -> sweepStartRate = option.number("messages per second", 1,
                    CommonOptions.MAX_RATE, "messages per second");
                case "--sweep-steps" -> sweepSteps = option.intNumber("a count", 0, MAX_SWEEP_STEPS, "steps");
                case "--sweep-size" -> sweepSize = option.intNumber("bytes", 1, RttMessage.MAX_LENGTH, "bytes");
                case "--rounds" -> rounds = option.intNumber("a count", 1, MAX_ROUNDS, "rounds");
                case "--baseline" -> baseline = option.value(BASELINE_AERON_IPC + " or " + BASELINE_NONE);
                default -> throw option.unknown("--provider, --api, --sizes, --seconds, --sweep-start, " +
                    "--sweep-steps, --sweep-size, --rounds, --baseline, --out, --json, --allow-oversubscribe, " +
                    "--shm-dir, --help");
            }
        }
        final CommonOptions.Values shared = common.values(option);
        final boolean shm = Transports.SHM.equals(shared.provider());
        if (null != baseline && !BASELINE_AERON_IPC.equals(baseline) && !BASELINE_NONE.equals(baseline))
        {
            throw new UsageException("--baseline '" + baseline + "' is not a baseline; allowed: " + BASELINE_AERON_IPC +
                ", " + BASELINE_NONE);
        }
        if (BASELINE_AERON_IPC.equals(baseline) && !shm)
        {
            throw new UsageException("--baseline " + BASELINE_AERON_IPC + " stands beside --provider shm only (it is " +
                "same-host memory, as shm is), not beside " + shared.provider());
        }
        final boolean aeronBaseline = null == baseline ? shm : BASELINE_AERON_IPC.equals(baseline);
        return new ThroughputOptions(shared.provider(), shared.api(), sizes, seconds, sweepStartRate, sweepSteps,
            sweepSize, rounds, aeronBaseline, shared.json(), shared.allowOversubscribe(), shared.shmDirectory(), shared.help(),
            shared.out());
    }

    private static List<Integer> sizes(final String value)
    {
        final List<Integer> sizes = new ArrayList<>();
        for (final String raw : value.split(",", -1))
        {
            try
            {
                final int size = Integer.parseInt(raw.trim());
                if (size < 1 || size > RttMessage.MAX_LENGTH)
                {
                    throw new NumberFormatException();
                }
                final int length = LatencyProbeCodec.messageLength(size);
                for (final int earlier : sizes)
                {
                    if (LatencyProbeCodec.messageLength(earlier) == length)
                    {
                        // One row per length: two floods of one length would be mixed in one median.
                        throw new UsageException("--sizes " + earlier + " and " + size + " are both floods of " +
                            length + "-byte messages (the probe takes " + LatencyProbeCodec.messageLength(1) +
                            " at least); give each length once");
                    }
                }
                sizes.add(size);
            }
            catch (final NumberFormatException ex)
            {
                throw new UsageException("--sizes '" + raw.trim() + "' is not a size; allowed: 1 to " +
                    RttMessage.MAX_LENGTH + " bytes, as a comma list, e.g. 32,1024");
            }
        }
        return List.copyOf(sizes);
    }
}
