package io.ringwire.perf.exchange;

import io.ringwire.exchange.node.EngineThreads;
import io.ringwire.perf.cli.OptionReader;
import io.ringwire.perf.cli.UsageException;

import java.util.List;

/**
 * Options of {@code ringwire perf exchange}, parsed and checked; every refusal is a
 * {@link UsageException} naming the option and its allowed values.
 *
 * @param providers   transports to measure, one run each.
 * @param rate        orders a second offered over all clients.
 * @param seconds     measured seconds per run.
 * @param warmup      seconds run first and not measured (the JIT compiles).
 * @param clients     simulated clients sharing the rate.
 * @param instruments instruments traded.
 * @param json        one JSON object instead of the table.
 * @param help        print the usage.
 * @param out         the results directory, or null for the default.
 * @param door        "sbe" (the clients only) or "fix" (FIX members beside them, through the FIX door).
 * @param fixClients  FIX members, with {@code --door fix}.
 * @param fixRate     requests a second over the FIX members.
 * @param engineThreads which of the engine's work runs on threads of its own.
 */
public record ExchangeOptions(List<String> providers, long rate, int seconds, int warmup, int clients,
    int instruments, boolean json, boolean help, String out, String door, int fixClients, long fixRate,
    EngineThreads engineThreads)
{
    private static final List<String> PROVIDERS = List.of("shm", "socket", "roce", "ibverbs");

    /**
     * @return the text {@code --help} prints.
     */
    public static String usage()
    {
        return """
            usage: ringwire perf exchange [options]

            Order-to-ack latency through the whole sample exchange in this process (simulated clients,
            gateway, journaled matching engine, market data; every hop over RingWire messaging) at a fixed
            offered rate. Each order is timed from the moment it was due on the rate's schedule, so a stall
            counts against every order behind it (coordinated omission corrected), and also from its send;
            every acknowledgement's ledger gives the time of each hop. The report says when the clients
            sent under 99% of the rate (RATE NOT HELD), where a queue ends (QUEUE ENDS AT: the last hop
            whose p50 is past 100 us, and what reads it, the first stage that does not keep up), sessions
            the clients lost while it measured (SESSIONS LOST), and when the first measured second still
            drained a backlog from before it (BACKLOG FROM THE WARM-UP); a run of mostly rejects fails.

            options:
              --provider P[,P...]  shm, socket, roce, ibverbs (default shm)
              --rate R             orders a second offered, 1000 to 10000000 (default 100000)
              --seconds N          measured seconds, 1 to 3600 (default 10)
              --warmup N           seconds run first, not measured, 0 to 600 (default 5)
              --clients N          clients sharing the rate, 1 to 64 (default 1)
              --instruments N      instruments, 1 to 10000 (default 10)
              --door sbe|fix       sbe: the SBE clients only (default); fix: also QuickFIX/J members
                                   trading through the gateway's FIX 4.4 door in the same run, their
                                   order-to-ack timed from their send, and where the door's time goes
              --fix-clients N      FIX members with --door fix, 1 to 16 (default 1)
              --fix-rate R         requests a second over the FIX members, 1 to 20000 (default 1000)
              --engine-threads T   the engine's work on threads of its own: auto (what the CPUs allow:
                                   journaller from 8, digest and replica from 4; the default),
                                   none, or any of journaller,digest,replica (digest only with
                                   replica; to compare on one host)
              --json               print one JSON object (times in ns) instead of the table
              --out DIR            write the results directory there: each hop's HdrHistogram log (.hdr),
                                   percentile distribution (.hgrm) and plot (.png), summary.json and
                                   results.md (default perf/results/<date-time>/)
              --help               this text

            exit codes: 0 done, 1 the run failed, 2 bad command line
            """;
    }

    /**
     * @param args the command line after {@code exchange} ({@code --name value} or {@code --name=value}).
     * @return the options.
     * @throws UsageException naming a bad option.
     */
    public static ExchangeOptions parse(final String... args)
    {
        List<String> providers = List.of("shm");
        long rate = 100_000;
        int seconds = 10;
        int warmup = 5;
        int clients = 1;
        int instruments = 10;
        boolean json = false;
        String out = null;
        String door = "sbe";
        int fixClients = 1;
        long fixRate = 1_000;
        String fixOption = null;
        EngineThreads engineThreads = EngineThreads.parse("auto");
        final OptionReader option = new OptionReader(args);
        while (option.next())
        {
            switch (option.name())
            {
                case "--json" -> json = option.flag();
                case "--out" -> out = option.outputDirectory("perf/results");
                // Each run writes its histograms under its provider's name: none twice.
                case "--provider" -> providers = option.names(PROVIDERS, "is not a provider", "shm,socket");
                case "--rate" -> rate = option.number("orders per second", 1_000, 10_000_000, "orders per second");
                case "--seconds" -> seconds = option.intNumber("a count", 1, 3_600, "seconds");
                case "--warmup" -> warmup = option.intNumber("a count", 0, 600, "seconds");
                case "--clients" -> clients = option.intNumber("a count", 1, 64, "clients");
                case "--instruments" -> instruments = option.intNumber("a count", 1, 10_000, "instruments");
                case "--door" ->
                {
                    door = option.value("sbe or fix");
                    if (!"sbe".equals(door) && !"fix".equals(door))
                    {
                        throw new UsageException("--door takes sbe or fix, not '" + door + "'");
                    }
                }
                case "--fix-clients" ->
                {
                    fixClients = option.intNumber("a count", 1, 16, "FIX members");
                    fixOption = option.name();
                }
                case "--fix-rate" ->
                {
                    fixRate = option.number("requests per second", 1, 20_000, "requests per second");
                    fixOption = option.name();
                }
                case "--engine-threads" ->
                {
                    final String threads = option.value("auto, none, or any of journaller,digest,replica");
                    try
                    {
                        engineThreads = EngineThreads.parse(threads);
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw new UsageException("--engine-threads " + ex.getMessage());
                    }
                }
                default -> throw option.unknown("--provider, --rate, --seconds, --warmup, --clients, --instruments, " +
                    "--door, --fix-clients, --fix-rate, --engine-threads, --json, --out, --help");
            }
        }
        if (null != fixOption && !"fix".equals(door))
        {
            // Without the door no FIX member runs: the option would be dropped unsaid.
            throw new UsageException(fixOption + " needs --door fix");
        }
        return new ExchangeOptions(providers, rate, seconds, warmup, clients, instruments, json, option.helpAsked(),
            out, door, fixClients, fixRate, engineThreads);
    }
}
