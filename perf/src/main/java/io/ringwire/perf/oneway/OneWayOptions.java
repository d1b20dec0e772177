package io.ringwire.perf.oneway;

import io.ringwire.perf.cli.OptionReader;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.RttMessage;
import io.ringwire.perf.rtt.RttOptions;

import java.util.List;
import java.util.Locale;

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
    public static final List<String> ALLOWED_PROVIDERS =
        List.of(RttOptions.SHM, RttOptions.SOCKET, RttOptions.ROCE, RttOptions.IBVERBS);
    static final long DEFAULT_MESSAGES = 1_000_000;
    static final long DEFAULT_WARMUP = 100_000;

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
        List<String> providers = List.of(RttOptions.SHM, RttOptions.SOCKET, RttOptions.ROCE);
        String api = RttOptions.API_MESSAGING;
        int size = RttOptions.DEFAULT_SIZE;
        long messages = DEFAULT_MESSAGES;
        long warmup = DEFAULT_WARMUP;
        long rate = 0;
        boolean json = false;
        boolean allowOversubscribe = false;
        String shmDirectory = RttOptions.defaultShmDirectory();
        String out = null;
        final OptionReader option = new OptionReader(args);
        while (option.next())
        {
            switch (option.name())
            {
                case "--json" -> json = option.flag();
                case "--allow-oversubscribe" -> allowOversubscribe = option.flag();
                case "--provider", "--providers" -> providers = option.names(ALLOWED_PROVIDERS, "is not a transport",
                    "shm,socket");
                case "--api" -> api = readApi(option);
                case "--size" -> size = option.intNumber("bytes", 1, RttMessage.MAX_LENGTH, "bytes");
                case "--messages" -> messages = option.number("a count", 1, RttOptions.MAX_MESSAGES, "messages");
                case "--warmup" -> warmup = option.number("a count", 0, RttOptions.MAX_MESSAGES, "messages");
                case "--rate" -> rate = option.number("messages per second", 1, RttOptions.MAX_RATE,
                    "messages per second");
                case "--shm-dir" -> shmDirectory = directory(option, "/dev/shm/ringwire");
                case "--out" -> out = directory(option, "perf/results/run-1");
                default -> throw option.unknown("--provider, --api, --size, --messages, --warmup, --rate, --out, " +
                    "--json, --allow-oversubscribe, --shm-dir, --help");
            }
        }
        return new OneWayOptions(providers, api, size, messages, warmup, rate, json, allowOversubscribe,
            shmDirectory, option.helpAsked(), out);
    }

    /**
     * Reads {@code --api}, for oneway and throughput: the channel path is refused by name until it
     * is measured, so a user learns that rather than getting messaging's numbers.
     *
     * @param option at {@code --api}.
     * @return {@link RttOptions#API_MESSAGING}.
     */
    public static String readApi(final OptionReader option)
    {
        final String value = option.value("messaging").trim().toLowerCase(Locale.ROOT);
        if (RttOptions.API_MESSAGING.equals(value))
        {
            return value;
        }
        if (RttOptions.API_CHANNEL.equals(value))
        {
            throw new UsageException("--api channel is not measured one-way yet; allowed: messaging");
        }
        throw new UsageException("--api '" + value + "' is not allowed; allowed: messaging");
    }

    /**
     * @param option  at an option that names a directory.
     * @param example a directory, for the refusal.
     * @return the directory.
     */
    public static String directory(final OptionReader option, final String example)
    {
        final String value = option.value("a directory");
        if (value.isBlank())
        {
            throw new UsageException(option.name() + " needs a directory, e.g. " + example);
        }
        return value;
    }
}
