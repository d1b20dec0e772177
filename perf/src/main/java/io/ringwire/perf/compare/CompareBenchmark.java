package io.ringwire.perf.compare;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.output.RecordedHistogram;
import io.ringwire.perf.pingpong.Pinger;
import io.ringwire.perf.rtt.RttBenchmark;
import io.ringwire.perf.rtt.RttOptions;
import io.ringwire.perf.rtt.RttResult;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.RdmaProvider;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.ibverbs.IbverbsProvider;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Runs {@code ringwire perf compare}: per round, each provider's pairs through {@link RttBenchmark}
 * (the provider's paths, then its alternatives, as one {@code rtt} run of one round), so every pair
 * is read once per round with both sides moments apart; {@code ib_write_lat} runs after ibverbs's
 * rows ({@link IbWriteLat}). Pairs whose provider cannot run here, and ib_write_lat where perftest or
 * the device's name is missing, are left out with a note. With {@code --budget}, no round starts that
 * would end past the budget, judged by the longest round so far: a slow host (the lab's emulated
 * guest) reports fewer rounds instead of being killed mid-row and reporting none.
 *
 * <p>Threading: the control thread; {@link RttBenchmark} starts and joins the spinning threads.
 */
public final class CompareBenchmark
{
    private final CompareOptions options;
    private final CpuPlan cpuPlan;
    private final PrintStream log;
    private final LongSupplier nanoClock;
    /** Per row, its histograms over the rounds merged, grouped by the provider it is compared with. */
    private final Map<String, RowHistogram> rowHistograms = new LinkedHashMap<>();

    /**
     * @param options what to run.
     * @param cpuPlan where the spinning threads run.
     * @param log     progress, warnings and the notes (stderr).
     */
    public CompareBenchmark(final CompareOptions options, final CpuPlan cpuPlan, final PrintStream log)
    {
        this(options, cpuPlan, log, System::nanoTime);
    }

    /**
     * @param nanoClock read at the start and at the end of each round, for {@code --budget}.
     */
    CompareBenchmark(final CompareOptions options, final CpuPlan cpuPlan, final PrintStream log,
        final LongSupplier nanoClock)
    {
        this.options = options;
        this.cpuPlan = cpuPlan;
        this.log = log;
        this.nanoClock = nanoClock;
    }

    /**
     * @return every row of every round and the notes on what was left out.
     * @throws IOException           when a socket or child process cannot be set up.
     * @throws IllegalStateException when a run fails.
     */
    public CompareReport run() throws IOException
    {
        final List<String> notes = new ArrayList<>();
        final Map<String, List<Comparison>> byProvider = runnableByProvider(notes);
        notes.forEach(note -> log.println("compare: " + note));
        if (byProvider.isEmpty())
        {
            // A run that measured nothing is refused, as rtt refuses a provider it cannot run.
            throw new UsageException("no pair can run here: " + String.join("; ", notes));
        }
        final List<Comparison> compared = new ArrayList<>();
        byProvider.values().forEach(compared::addAll);
        final List<List<RttResult>> rounds = new ArrayList<>();
        final long startNs = nanoClock.getAsLong();
        long longestRoundNs = 0;
        for (int round = 1; round <= options.rounds(); round++)
        {
            final long roundStartNs = nanoClock.getAsLong();
            final String stop = budgetStop(round, roundStartNs - startNs, longestRoundNs);
            if (null != stop)
            {
                log.println("compare: " + stop);
                notes.add(stop);
                break;
            }
            log.println("compare: round " + round + " of " + options.rounds());
            final List<RttResult> results = new ArrayList<>();
            for (final Map.Entry<String, List<Comparison>> provider : byProvider.entrySet())
            {
                final RttOptions rtt = rttOptions(provider.getKey(), provider.getValue());
                final RttBenchmark benchmark = new RttBenchmark(rtt, cpuPlan, log);
                results.addAll(benchmark.run().rounds().getFirst().results());
                if (runsIbWriteLat(provider.getValue()))
                {
                    log.println("compare: ib_write_lat on " + System.getProperty(IbverbsProvider.DEVICE_PROP));
                    results.add(IbWriteLat.run(options.size(), options.messages(), round, cpuPlan, log));
                }
                for (final RecordedHistogram row : benchmark.histograms())
                {
                    rowHistograms.computeIfAbsent(provider.getKey() + "/" + row.name(),
                        key -> new RowHistogram(provider.getKey(), row.name())).add(row);
                }
            }
            rounds.add(results);
            longestRoundNs = Math.max(longestRoundNs, nanoClock.getAsLong() - roundStartNs);
        }
        return new CompareReport(options.size(), options.messages(), options.warmup(), options.processes(), compared,
            rounds, notes);
    }

    /**
     * @param round          the round about to start.
     * @param elapsedNs      since the run started.
     * @param longestRoundNs the longest round so far, 0 before the first.
     * @return why {@code round} and the rest do not run ({@code --budget}), or null when it runs.
     */
    private String budgetStop(final int round, final long elapsedNs, final long longestRoundNs)
    {
        final long budgetNs = TimeUnit.SECONDS.toNanos(options.budgetSeconds());
        if (1 == round || 0 == budgetNs || elapsedNs + longestRoundNs <= budgetNs)
        {
            return null;
        }
        return "stopped after " + (round - 1) + " of " + options.rounds() + " rounds: round " + round +
            " would end past the --budget of " + options.budgetSeconds() + " s (" +
            TimeUnit.NANOSECONDS.toSeconds(elapsedNs) + " s gone, the longest round took " +
            TimeUnit.NANOSECONDS.toSeconds(longestRoundNs) + " s)";
    }

    /**
     * @return per row, its round trips over every round (intervals kept), grouped in one plot per
     *         provider with the rows it is compared with; read after {@link #run()}.
     */
    public List<RecordedHistogram> histograms()
    {
        final List<RecordedHistogram> histograms = new ArrayList<>();
        rowHistograms.values().forEach(row -> histograms.add(row.recorded()));
        return histograms;
    }

    /**
     * One row's histograms of every round, merged.
     */
    private static final class RowHistogram
    {
        private final String group;
        private final String name;
        private final Histogram merged = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
        /** Each round's intervals as its pinger keeps them (decoded when read). */
        private final List<List<Histogram>> intervalsByRound = new ArrayList<>();
        private String label;

        RowHistogram(final String group, final String name)
        {
            this.group = group;
            this.name = name;
            merged.setStartTimeStamp(Long.MAX_VALUE);
        }

        void add(final RecordedHistogram round)
        {
            final Histogram histogram = round.histogram();
            merged.add(histogram);
            merged.setStartTimeStamp(Math.min(merged.getStartTimeStamp(), histogram.getStartTimeStamp()));
            merged.setEndTimeStamp(Math.max(merged.getEndTimeStamp(), histogram.getEndTimeStamp()));
            intervalsByRound.add(round.intervals());
            label = round.label();
        }

        RecordedHistogram recorded()
        {
            final List<List<Histogram>> byRound = List.copyOf(intervalsByRound);
            final int rounds = byRound.size();
            final int size = byRound.stream().mapToInt(List::size).sum();
            return new RecordedHistogram(group + "-" + name, group, label + ", " + rounds + " round(s)", merged,
                new AbstractList<>()
                {
                    @Override
                    public Histogram get(final int index)
                    {
                        int rest = index;
                        for (final List<Histogram> round : byRound)
                        {
                            if (rest < round.size())
                            {
                                return round.get(rest);
                            }
                            rest -= round.size();
                        }
                        throw new IndexOutOfBoundsException(index);
                    }

                    @Override
                    public int size()
                    {
                        return size;
                    }
                });
        }
    }

    /**
     * @return the pairs to run, grouped by provider in {@link Comparison#ALL}'s order, without those
     *         whose provider cannot run here (each named in {@code notes}).
     */
    private Map<String, List<Comparison>> runnableByProvider(final List<String> notes)
    {
        final Map<String, List<Comparison>> byProvider = new LinkedHashMap<>();
        final String ibWriteLatReason = IbWriteLat.unavailableReason();
        for (final Comparison pair : options.comparisons())
        {
            final String reason = unavailableReason(pair.provider());
            if (null != reason)
            {
                notes.add(pair.label() + ": skipped, " + pair.provider() + " cannot run here: " + reason);
                continue;
            }
            if (Comparison.IB_WRITE_LAT.equals(pair.baseline()) && null != ibWriteLatReason)
            {
                notes.add(pair.label() + ": ib_write_lat cannot run here: " + ibWriteLatReason +
                    "; only ibverbs's row runs");
            }
            byProvider.computeIfAbsent(pair.provider(), provider -> new ArrayList<>()).add(pair);
        }
        return byProvider;
    }

    private static boolean runsIbWriteLat(final List<Comparison> pairs)
    {
        return pairs.stream().anyMatch(pair -> Comparison.IB_WRITE_LAT.equals(pair.baseline())) &&
            null == IbWriteLat.unavailableReason();
    }

    private String unavailableReason(final String provider)
    {
        try
        {
            final RdmaProvider rdmaProvider = RdmaProviders.byName(provider);
            return rdmaProvider.unavailableReason(
                new RdmaConfig().provider(provider).shmDirectory(options.shmDirectory()));
        }
        catch (final RdmaException ex)
        {
            return ex.getMessage();
        }
    }

    /**
     * @return one round of {@code rtt} over the provider's paths its pairs name, then their
     *         alternatives (without ib_write_lat).
     */
    private RttOptions rttOptions(final String provider, final List<Comparison> pairs)
    {
        final List<String> providers = new ArrayList<>(List.of(provider));
        boolean channel = false;
        boolean messaging = false;
        for (final Comparison pair : pairs)
        {
            channel |= Transports.API_CHANNEL.equals(pair.api()) || Comparison.CHANNEL.equals(pair.baseline());
            messaging |= Transports.API_MESSAGING.equals(pair.api());
            if (!Comparison.IB_WRITE_LAT.equals(pair.baseline()) && !Comparison.CHANNEL.equals(pair.baseline()) &&
                !providers.contains(pair.baseline()))
            {
                providers.add(pair.baseline());
            }
        }
        final String api = channel && messaging ? Transports.API_BOTH :
            messaging ? Transports.API_MESSAGING : Transports.API_CHANNEL;
        return new RttOptions(providers, api, options.size(), options.messages(), options.warmup(),
            options.processes(), 1, false, options.allowOversubscribe(), options.shmDirectory(), false, 0, null);
    }
}
