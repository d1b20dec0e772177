package io.ringwire.perf;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.compare.CompareBenchmark;
import io.ringwire.perf.compare.CompareOptions;
import io.ringwire.perf.compare.ComparePlot;
import io.ringwire.perf.compare.CompareReport;
import io.ringwire.perf.exchange.ExchangeBenchmark;
import io.ringwire.perf.exchange.ExchangeOptions;
import io.ringwire.perf.exchange.MatchingBenchmark;
import io.ringwire.perf.exchange.MatchingOptions;
import io.ringwire.perf.exchange.MatchingReport;
import io.ringwire.perf.exchange.MatchingResult;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.oneway.OneWayBenchmark;
import io.ringwire.perf.oneway.OneWayOptions;
import io.ringwire.perf.output.ExtraPlot;
import io.ringwire.perf.output.RecordedHistogram;
import io.ringwire.perf.output.RunOutput;
import io.ringwire.perf.path.PathBenchmark;
import io.ringwire.perf.path.PathOptions;
import io.ringwire.perf.perftest.PerftestPeer;
import io.ringwire.perf.rtt.RttBenchmark;
import io.ringwire.perf.rtt.RttJson;
import io.ringwire.perf.rtt.RttOptions;
import io.ringwire.perf.rtt.RttReport;
import io.ringwire.perf.rtt.RttRounds;
import io.ringwire.perf.rtt.RttTable;
import io.ringwire.perf.throughput.RatePlots;
import io.ringwire.perf.throughput.ThroughputBenchmark;
import io.ringwire.perf.throughput.ThroughputOptions;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.RdmaProvider;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.host.OnlineCpus;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Entry point of {@code ringwire perf}: dispatches to the benchmarks. Results go to stdout, progress
 * and warnings to stderr.
 *
 * <p>Exit codes: 0 done, 1 a benchmark failed, 2 bad command line or a run this machine refuses
 * ({@link UsageException}).
 */
public final class PerfMain
{
    /** Exit code of a failed benchmark. */
    static final int EXIT_FAILED = 1;

    private PerfMain()
    {
    }

    /**
     * @param args subcommand and its options.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * @return the text {@code ringwire perf --help} prints.
     */
    static String usage()
    {
        return """
            usage: ringwire perf <benchmark> [options]

            benchmarks:
              rtt       round-trip latency (ping-pong) per transport, side by side; rtt --help for its options
              oneway    one-way latency on one host (one clock), one in flight or open loop at --rate; oneway --help
              throughput  the rate held per message size (msgs/s, MB/s), latency against offered rate; throughput --help
              compare   each transport beside what a user would pick instead (Aeron, NIO), interleaved
                        rounds, median per-round p50 ratios; compare --help
              jmh       JMH microbenchmarks (SBE codecs, framing, shm publication, order books); takes JMH's
                        own arguments, e.g. jmh -f 1 -wi 3 -w 1s -i 5 -r 1s SbeCodec; jmh -h lists them; a
                        benchmark that throws fails the run (exit 1) unless -foe false is given
              path      the CPU a hop costs, both ends on one thread (no cross-core traffic); path --help
              matching  the matching engine alone on one thread: orders/s, service time and latency at a
                        fixed offered rate, replaying a recorded flow in exchange-core's mix; matching --help
              exchange  order-to-ack through clients, gateway, journaled engine and market data at a fixed
                        offered rate, per hop, coordinated omission corrected; exchange --help
              perftest-peer  the roce side of perftest's ib_write_lat or ib_write_bw; perftest-peer --help
            """;
    }

    /**
     * Runs a subcommand.
     *
     * @param args subcommand and its options.
     * @param out  where results go.
     * @param err  where progress, warnings and errors go.
     * @return the exit code.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (args.length == 0)
        {
            err.print(usage());
            return UsageException.EXIT_CODE;
        }
        final String[] rest = Arrays.copyOfRange(args, 1, args.length);
        return switch (args[0])
        {
            case "rtt" -> rtt(rest, out, err, OnlineCpus.asList());
            case "oneway" -> oneway(rest, out, err, OnlineCpus.asList());
            case "throughput" -> throughput(rest, out, err, OnlineCpus.asList());
            case "compare" -> compare(rest, out, err, OnlineCpus.asList());
            case "jmh" -> jmh(rest, err);
            case "path" -> path(rest, out, err);
            case "matching" -> matching(rest, out, err, OnlineCpus.asList());
            case "exchange" -> exchange(rest, out, err);
            case "perftest-peer" -> exitCodeOf("perftest-peer", err, () -> PerftestPeer.command(rest, out, err));
            case "help", "--help", "-h" ->
            {
                out.print(usage());
                yield 0;
            }
            default ->
            {
                err.println("ringwire perf: unknown benchmark '" + args[0] + "'; allowed: rtt, oneway, throughput, compare, jmh, path, matching, exchange, perftest-peer");
                err.print(usage());
                yield UsageException.EXIT_CODE;
            }
        };
    }

    /**
     * Runs {@code rtt}.
     *
     * @param args       its options.
     * @param out        where the table or JSON goes.
     * @param err        where progress, warnings and errors go.
     * @param onlineCpus the machine's online CPUs (a parameter so tests can pose as a small machine).
     * @return the exit code.
     */
    public static int rtt(final String[] args, final PrintStream out, final PrintStream err, final List<Integer> onlineCpus)
    {
        return command("rtt", args, out, err, RttOptions::parse, RttOptions::help, RttOptions::usage, options ->
        {
            final CpuPlan cpuPlan = CpuPlan.decide(onlineCpus, options.allowOversubscribe());
            checkProvidersAvailable(options);
            announce("rtt", "pinger", "ponger", cpuPlan, err);
            final RttBenchmark benchmark = new RttBenchmark(options, cpuPlan, err);
            final RttRounds rounds = benchmark.run();
            final String table;
            final String json;
            if (rounds.rounds().size() == 1)
            {
                final RttReport report = rounds.rounds().getFirst();
                table = RttTable.format(report);
                json = RttJson.format(report);
            }
            else
            {
                table = RttTable.format(rounds);
                json = RttJson.format(rounds);
            }
            finish("rtt", args, options, options.json(), options.out(), new RunResult(table, json,
                benchmark.histograms(), List.of()), out, err);
        });
    }

    /**
     * Runs {@code oneway}.
     *
     * @param args       its options.
     * @param out        where the table or JSON goes.
     * @param err        where progress, warnings and errors go.
     * @param onlineCpus the machine's online CPUs.
     * @return the exit code.
     */
    public static int oneway(final String[] args, final PrintStream out, final PrintStream err,
        final List<Integer> onlineCpus)
    {
        return command("oneway", args, out, err, OneWayOptions::parse, OneWayOptions::help, OneWayOptions::usage, options ->
        {
            final CpuPlan cpuPlan = CpuPlan.decide(onlineCpus, options.allowOversubscribe());
            for (final String provider : options.providers())
            {
                checkProviderAvailable(provider, options.shmDirectory());
            }
            announce("oneway", "sender", "receiver", cpuPlan, err);
            final List<OneWayBenchmark.Result> results = OneWayBenchmark.run(options, cpuPlan, err);
            finish("oneway", args, options, options.json(), options.out(), new RunResult(
                OneWayBenchmark.table(results), OneWayBenchmark.json(results), OneWayBenchmark.histograms(results),
                List.of()), out, err);
        });
    }

    /**
     * Runs {@code throughput}; its rate plots go beside the results directory's percentile plots.
     *
     * @param args       its options.
     * @param out        where the tables or JSON go.
     * @param err        where progress, warnings and errors go.
     * @param onlineCpus the machine's online CPUs.
     * @return the exit code.
     */
    public static int throughput(final String[] args, final PrintStream out, final PrintStream err,
        final List<Integer> onlineCpus)
    {
        return command("throughput", args, out, err, ThroughputOptions::parse, ThroughputOptions::help, ThroughputOptions::usage, options ->
        {
            final CpuPlan cpuPlan = CpuPlan.decide(onlineCpus, options.allowOversubscribe());
            checkProviderAvailable(options.provider(), options.shmDirectory());
            announce("throughput", "sender", "receiver", cpuPlan, err);
            final ThroughputBenchmark.Result result = ThroughputBenchmark.run(options, cpuPlan, err);
            finish("throughput", args, options, options.json(), options.out(), new RunResult(
                ThroughputBenchmark.table(result), ThroughputBenchmark.json(options, result),
                ThroughputBenchmark.histograms(options, result), RatePlots.of(options.provider(), result)), out, err);
        });
    }

    /**
     * Says on {@code err} where the two spinning threads run, or warns that they share CPUs.
     */
    private static void announce(final String name, final String first, final String second, final CpuPlan cpuPlan,
        final PrintStream err)
    {
        if (cpuPlan.oversubscribed())
        {
            err.println("warning: " + CpuPlan.SPINNING_THREADS + " spinning threads on " +
                cpuPlan.onlineCpuCount() + " online CPU(s) (--allow-oversubscribe): threads are not pinned and " +
                "yield when idle, so the numbers show the scheduler more than the transport");
        }
        else
        {
            err.println(name + ": " + first + " on cpu " + cpuPlan.pingerCpu() + ", " + second + " on cpu " +
                cpuPlan.pongerCpu() + " (" + cpuPlan.onlineCpuCount() + " online)");
        }
    }

    /**
     * Runs {@code compare}: the table or JSON on {@code out}, the results directory in {@code --out}.
     *
     * @param args       its options.
     * @param out        where the tables or JSON go.
     * @param err        where progress, notes and errors go.
     * @param onlineCpus the machine's online CPUs.
     * @return the exit code.
     */
    public static int compare(final String[] args, final PrintStream out, final PrintStream err,
        final List<Integer> onlineCpus)
    {
        return command("compare", args, out, err, CompareOptions::parse, CompareOptions::help, CompareOptions::usage, options ->
        {
            final CpuPlan cpuPlan = CpuPlan.decide(onlineCpus, options.allowOversubscribe());
            final CompareBenchmark benchmark = new CompareBenchmark(options, cpuPlan, err);
            final CompareReport report = benchmark.run();
            finish("compare", args, options, options.json(), options.out(), new RunResult(report.table(),
                report.json(), benchmark.histograms(), List.of(ComparePlot.of(report))), out, err);
        });
    }

    /**
     * Runs JMH's own command line over the benchmarks of {@code io.ringwire.perf.jmh}, whose list the
     * annotation processor wrote into this module's classes; JMH prints its results itself. A
     * benchmark that throws fails the run (JMH exits 1) unless the arguments give {@code -foe}
     * themselves: JMH's own default goes on to the next benchmark and exits 0, which a scripted run
     * would take for a result.
     *
     * @param args JMH's arguments.
     * @param err  where a failure goes.
     * @return the exit code.
     */
    static int jmh(final String[] args, final PrintStream err)
    {
        try
        {
            org.openjdk.jmh.Main.main(failingOnError(args));
            return 0;
        }
        catch (final Exception ex)
        {
            err.println("ringwire perf jmh: failed: " + ex.getMessage());
            return EXIT_FAILED;
        }
    }

    /**
     * @return JMH's arguments with {@code -foe true} first, unless they give {@code -foe} already.
     */
    static String[] failingOnError(final String[] args)
    {
        for (final String arg : args)
        {
            if ("-foe".equals(arg))
            {
                return args;
            }
        }
        final String[] withFoe = new String[args.length + 2];
        withFoe[0] = "-foe";
        withFoe[1] = "true";
        System.arraycopy(args, 0, withFoe, 2, args.length);
        return withFoe;
    }

    /**
     * Runs {@code path}.
     *
     * @param args its options.
     * @param out  where the table or JSON goes.
     * @param err  where progress and errors go.
     * @return the exit code.
     */
    static int path(final String[] args, final PrintStream out, final PrintStream err)
    {
        return command("path", args, out, err, PathOptions::parse, PathOptions::help, PathOptions::usage, options ->
        {
            final List<PathBenchmark.Result> results = new PathBenchmark(options, err).run();
            out.print(options.json() ? PathBenchmark.json(results) + System.lineSeparator() :
                PathBenchmark.table(results));
            out.flush();
        });
    }

    /**
     * Runs {@code matching}.
     *
     * @param args       its options.
     * @param out        where the table or JSON goes.
     * @param err        where progress and errors go.
     * @param onlineCpus the machine's online CPUs (the engine's thread takes the last).
     * @return the exit code.
     */
    public static int matching(final String[] args, final PrintStream out, final PrintStream err,
        final List<Integer> onlineCpus)
    {
        return command("matching", args, out, err, MatchingOptions::parse, MatchingOptions::help, MatchingOptions::usage, options ->
        {
            final MatchingBenchmark benchmark = new MatchingBenchmark(options, err, onlineCpus);
            final List<MatchingResult> results = benchmark.run();
            finish("matching", args, options, options.json(), options.out(), new RunResult(
                MatchingReport.table(results, benchmark.threadLayout()),
                MatchingReport.json(results, benchmark.threadLayout(), options.rounds()), benchmark.histograms(),
                List.of()), out, err);
        });
    }

    /**
     * Runs {@code exchange}.
     *
     * @return the exit code.
     */
    public static int exchange(final String[] args, final PrintStream out, final PrintStream err)
    {
        return command("exchange", args, out, err, ExchangeOptions::parse, ExchangeOptions::help, ExchangeOptions::usage, options ->
        {
            final List<ExchangeBenchmark.Result> results;
            try
            {
                results = new ExchangeBenchmark(options, err).run();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", ex);
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex.getMessage(), ex);
            }
            finish("exchange", args, options, options.json(), options.out(), new RunResult(
                ExchangeBenchmark.table(results), ExchangeBenchmark.json(results), ExchangeBenchmark.histograms(results),
                List.of()), out, err);
            final String rejects = ExchangeBenchmark.mostlyRejected(results);
            if (!rejects.isEmpty())
            {
                // Printed and kept, but not a measurement of orders through the exchange: fail the run.
                throw new IllegalStateException("no acknowledgements, or most were rejects, so the latency is not " +
                    "that of orders through the engine: " + rejects);
            }
        });
    }

    /**
     * What a measuring subcommand leaves once it ran.
     *
     * @param table      its table, for people.
     * @param json       its JSON, for tools.
     * @param histograms its histograms.
     * @param plots      the plots it adds beside the percentile plots.
     */
    private record RunResult(String table, String json, List<RecordedHistogram> histograms, List<ExtraPlot> plots)
    {
    }

    /**
     * Prints a subcommand's result on {@code out}, its JSON with {@code --json}, else its table, and
     * then writes its results directory.
     */
    private static void finish(final String name, final String[] args, final Record options, final boolean json,
        final String directory, final RunResult result, final PrintStream out, final PrintStream err)
        throws IOException
    {
        out.print(json ? result.json() + System.lineSeparator() : result.table());
        out.flush();
        RunOutput.write(name, args, options, directory, result.table(), result.json(), result.histograms(),
            result.plots(), err);
    }

    /** A subcommand's run once its options are read, to its printed result. */
    @FunctionalInterface
    private interface Command<O>
    {
        void run(O options) throws IOException;
    }

    /**
     * Reads a subcommand's options and runs it, or prints its usage when it was asked for; ends as
     * {@link #exitCodeOf} says.
     *
     * @param name    the subcommand, for messages.
     * @param args    its arguments.
     * @param out     where the usage goes.
     * @param err     where refusals and failures go.
     * @param parse   reads its options.
     * @param help    whether they ask for the usage.
     * @param usage   the usage.
     * @param command the run.
     * @param <O>     its options.
     * @return the exit code.
     */
    private static <O> int command(final String name, final String[] args, final PrintStream out,
        final PrintStream err, final Function<String[], O> parse, final Predicate<O> help, final Supplier<String> usage,
        final Command<O> command)
    {
        return exitCodeOf(name, err, () ->
        {
            final O options = parse.apply(args);
            if (help.test(options))
            {
                out.print(usage.get());
                return;
            }
            command.run(options);
        });
    }

    /** A benchmark's run, from its options to its printed result. */
    @FunctionalInterface
    private interface Benchmark
    {
        void run() throws IOException;
    }

    /**
     * Runs a benchmark and reports how it ended, the same way for each: a refused command line on
     * {@code err} with a pointer to the usage, exit code {@link UsageException#EXIT_CODE}; a failure
     * on {@code err}, exit code {@link #EXIT_FAILED}.
     *
     * @param name      the benchmark, for messages.
     * @param err       where refusals and failures go.
     * @param benchmark the run.
     * @return the exit code: 0 when it ran.
     */
    private static int exitCodeOf(final String name, final PrintStream err, final Benchmark benchmark)
    {
        try
        {
            benchmark.run();
            return 0;
        }
        catch (final UsageException ex)
        {
            err.println("ringwire perf " + name + ": " + ex.getMessage());
            err.println("(ringwire perf " + name + " --help lists the options)");
            return UsageException.EXIT_CODE;
        }
        catch (final IOException | RuntimeException ex)
        {
            err.println("ringwire perf " + name + ": failed: " +
                (null == ex.getMessage() ? ex.toString() : ex.getMessage()));
            return EXIT_FAILED;
        }
    }

    /**
     * Refuses, before anything runs, transports that cannot run here, so a long run does not fail
     * at its last transport.
     */
    private static void checkProvidersAvailable(final RttOptions options)
    {
        for (final String provider : options.providers())
        {
            if (!Transports.isRawBaseline(provider))
            {
                checkProviderAvailable(provider, options.shmDirectory());
            }
        }
    }

    /**
     * Refuses a transport that cannot run here, before anything runs.
     *
     * @param provider     the transport.
     * @param shmDirectory the shm provider's directory.
     * @throws UsageException naming why it cannot run.
     */
    private static void checkProviderAvailable(final String provider, final String shmDirectory)
    {
        final RdmaProvider rdmaProvider;
        try
        {
            rdmaProvider = RdmaProviders.byName(provider);
        }
        catch (final RdmaException ex)
        {
            throw new UsageException("--provider " + provider + " cannot run: " + ex.getMessage());
        }
        final String reason = rdmaProvider.unavailableReason(
            new RdmaConfig().provider(provider).shmDirectory(shmDirectory));
        if (null != reason)
        {
            throw new UsageException("--provider " + provider + " is unavailable here: " + reason);
        }
    }
}
