package io.ringwire.perf.exchange;

import io.ringwire.perf.cli.OptionReader;
import io.ringwire.perf.cli.UsageException;

import java.util.List;

/**
 * Options of {@code ringwire perf matching}, parsed and checked; every refusal is a
 * {@link UsageException} naming the option and its allowed values.
 *
 * @param orders      measured requests per run, after the books are filled.
 * @param instruments instrument counts to run, each a case of its own, in order.
 * @param bookOrders  resting orders per book the flow keeps (about half bids, half asks).
 * @param rounds      measured rounds, after one unmeasured warm-up round.
 * @param rate        orders per second offered in the fixed-rate run.
 * @param seed        seed of the flow: the same seed gives the same requests.
 * @param json        print one JSON object instead of the table.
 * @param help        print the usage and nothing else.
 */
public record MatchingOptions(
    int orders,
    List<Integer> instruments,
    int bookOrders,
    int rounds,
    long rate,
    long seed,
    boolean json,
    boolean help,
    String out)
{
    static final int DEFAULT_ORDERS = 3_000_000;
    static final List<Integer> DEFAULT_INSTRUMENTS = List.of(1, 100);
    static final int DEFAULT_BOOK_ORDERS = 1_000;
    static final int DEFAULT_ROUNDS = 5;
    static final long DEFAULT_RATE = 1_000_000;
    static final long DEFAULT_SEED = 1;
    static final int MAX_ORDERS = 10_000_000;
    static final int MAX_INSTRUMENTS = 1_000;

    /**
     * Validates the values (the parser already did; this guards direct construction).
     */
    public MatchingOptions
    {
        if (instruments.isEmpty())
        {
            throw new UsageException("--instruments needs a count");
        }
        instruments = List.copyOf(instruments);
    }

    /**
     * @return the text {@code --help} prints.
     */
    public static String usage()
    {
        return """
            usage: ringwire perf matching [options]

            The matching engine alone (io.ringwire.exchange.engine.MatchingEngine) on one thread, pinned to
            the last online CPU, fed a recorded flow: a seeded flow in the shape of exchange-core's
            benchmark (about 9%% new GTC orders, 3%% IOC, 6%% cancels, 82%% moves and reductions, the books
            kept near --book resting orders each) is generated and SBE-encoded into memory first, then
            replayed with MatchingEngine.applyChecked (validation is the journaller's, measured apart),
            output discarded and not hashed (the digest agent's work, on its own thread in the exchange,
            measured apart). Each round replays it three times, on a fresh engine whose books were
            filled first (not measured):
              throughput   requests applied back to back: orders per second
              service      each apply timed on its own: percentiles of the service time
              fixed rate   requests offered at --rate a second, each timed from when it was due to when
                           its apply returned (a late request waits: coordinated omission corrected)
              floor        the same schedule applying nothing: what the thread and the machine
                           alone (interrupts, a hypervisor's pauses, the clock) put under the fixed rate
              late         the share of requests done over %d ns after their due time, at the rate
                           and in the floor (a p99 within that needs under 1%%)
            One round is run first and not reported (JIT warm-up); figures are the median of the rounds.

            options:
              --orders N        measured requests per run, 100 to %d (default %d)
              --instruments N   instruments (books), 1 to %d (default: two cases, 1 and 100)
              --book N          resting orders per book, 10 to 100000 (default %d)
              --rounds N        measured rounds, 1 to 100 (default %d)
              --rate N          orders per second offered in the fixed-rate run, 1000 to 100000000
                                (default %d)
              --seed N          seed of the flow (default %d)
              --json            print one JSON object (times in ns) instead of the table
              --out DIR         write the results directory there: each round's service time,
                                fixed-rate latency and floor as HdrHistogram logs (.hdr),
                                distributions (.hgrm) and plots (.png), summary.json and results.md
                                (default perf/results/<date-time>/)
              --help            this text

            exit codes: 0 done, 1 the benchmark failed, 2 bad command line
            """.formatted(MatchingResult.FixedRate.LATE_NS, MAX_ORDERS, DEFAULT_ORDERS, MAX_INSTRUMENTS, DEFAULT_BOOK_ORDERS, DEFAULT_ROUNDS,
            DEFAULT_RATE, DEFAULT_SEED);
    }

    /**
     * Parses {@code matching}'s arguments ({@code --name value} or {@code --name=value}).
     *
     * @param args the arguments after {@code matching}.
     * @return the options.
     * @throws UsageException naming the bad option and its allowed values.
     */
    public static MatchingOptions parse(final String... args)
    {
        int orders = DEFAULT_ORDERS;
        List<Integer> instruments = DEFAULT_INSTRUMENTS;
        int bookOrders = DEFAULT_BOOK_ORDERS;
        int rounds = DEFAULT_ROUNDS;
        long rate = DEFAULT_RATE;
        long seed = DEFAULT_SEED;
        boolean json = false;
        String out = null;
        final OptionReader option = new OptionReader(args);
        while (option.next())
        {
            switch (option.name())
            {
                case "--orders" -> orders = option.intNumber("a count", 100, MAX_ORDERS, "requests");
                case "--instruments" -> instruments =
                    List.of(option.intNumber("a count", 1, MAX_INSTRUMENTS, "instruments"));
                case "--book" -> bookOrders = option.intNumber("a count", 10, 100_000, "resting orders per book");
                case "--rounds" -> rounds = option.intNumber("a count", 1, 100, "rounds");
                case "--rate" -> rate = option.number("orders per second", 1_000, 100_000_000, "orders per second");
                case "--seed" -> seed = option.number("a number", 0, Long.MAX_VALUE, "(any seed)");
                case "--json" -> json = option.flag();
                case "--out" -> out = option.outputDirectory("perf/results");
                default -> throw option.unknown(
                    "--orders, --instruments, --book, --rounds, --rate, --seed, --json, --out, --help");
            }
        }
        return new MatchingOptions(orders, instruments, bookOrders, rounds, rate, seed, json, option.helpAsked(),
            out);
    }
}
