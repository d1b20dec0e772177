package io.ringwire.perf.exchange;

import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.MatchingEngine;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.host.ThreadAllocation;
import io.ringwire.perf.host.ThreadPinning;
import io.ringwire.perf.output.RecordedHistogram;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * {@code ringwire perf matching}: for each instrument count, generates the flow, replays it once
 * for reference (its books and output counts, and a check that nothing was refused), runs one
 * unreported round (the JIT compiles), then the measured rounds, then replays it once more to take
 * the volume of its output, and measures on their own what the digest agent and the journaller's
 * validation cost for the same requests and output (neither runs on the engine's thread).
 *
 * <p>A round is three replays, each on a fresh engine filled by the prefill, after a full GC: back
 * to back (throughput), each apply timed (service time), and at a fixed offered rate (latency from
 * the due time). Every replay is checked against the reference: same books and output counts,
 * nothing refused.
 *
 * <p>Threading: everything runs on one thread of its own, pinned to the last online CPU; the
 * caller waits for it.
 */
public final class MatchingBenchmark
{
    private static final int COST_REPETITIONS = 5;
    private static final int TIMER_SAMPLES = 1_000_000;

    private final MatchingOptions options;
    private final PrintStream log;
    private final int cpu;
    private final int onlineCpuCount;
    private volatile int pinnedCpu = CpuPlan.UNPINNED;

    /** One round's figures. */
    private record Round(double ordersPerSecond, MatchingResult.Percentiles service, double serviceMeanNs,
        double achievedPerSecond, MatchingResult.Percentiles fixedRate, MatchingResult.Percentiles floor,
        long allocatedBytes, long jitMs, Histogram serviceHistogram, Histogram fixedRateHistogram,
        Histogram floorHistogram)
    {
    }

    /** Each measured round's histograms, for the results directory: written by the engine thread before the join. */
    private final List<RecordedHistogram> histograms = new ArrayList<>();

    /**
     * @param options    what to run.
     * @param log        progress (stderr).
     * @param onlineCpus the machine's online CPUs; the benchmark's thread takes the last.
     */
    public MatchingBenchmark(final MatchingOptions options, final PrintStream log, final List<Integer> onlineCpus)
    {
        this.options = options;
        this.log = log;
        this.cpu = onlineCpus.isEmpty() ? CpuPlan.UNPINNED : onlineCpus.getLast();
        this.onlineCpuCount = onlineCpus.size();
    }

    /**
     * @return one result per instrument count, in order.
     */
    public List<MatchingResult> run()
    {
        final List<MatchingResult> results = new ArrayList<>();
        final Throwable[] failure = new Throwable[1];
        final Thread thread = new Thread(() ->
        {
            pin();
            try
            {
                for (final int instruments : options.instruments())
                {
                    results.add(runCase(instruments));
                }
            }
            catch (final RuntimeException | Error ex)
            {
                failure[0] = ex;
            }
        }, "matching-engine");
        thread.start();
        boolean interrupted = false;
        while (thread.isAlive())
        {
            try
            {
                thread.join();
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
        if (failure[0] instanceof RuntimeException ex)
        {
            throw ex;
        }
        if (failure[0] instanceof Error error)
        {
            throw error;
        }
        return results;
    }

    /**
     * @return each measured round's service-time and fixed-rate histograms (read after {@link #run()}).
     */
    public List<RecordedHistogram> histograms()
    {
        return List.copyOf(histograms);
    }

    /**
     * @return how the benchmark's threads ran, in words, for the report.
     */
    public String threadLayout()
    {
        final String where = pinnedCpu == CpuPlan.UNPINNED ? "unpinned" : "pinned to cpu " + pinnedCpu;
        return "one thread (matching-engine), " + where + " of " + onlineCpuCount + " online, generates the flow " +
            "and then replays it; no other application thread runs meanwhile (the caller waits); the JVM's JIT and " +
            "GC threads are not pinned";
    }

    private void pin()
    {
        if (cpu == CpuPlan.UNPINNED)
        {
            return;
        }
        final String reason = ThreadPinning.pinCurrentThread(cpu);
        if (null == reason)
        {
            pinnedCpu = cpu;
        }
        else
        {
            log.println("warning: could not pin the matching thread to cpu " + cpu + " (" + reason +
                "); continuing unpinned");
        }
    }

    private MatchingResult runCase(final int instruments)
    {
        log.println("matching: " + instruments + " instrument(s): generating " + options.orders() +
            " requests, books of " + options.bookOrders() + " resting orders, seed " + options.seed());
        final long generatingNs = System.nanoTime();
        final RecordedFlow flow = FlowGenerator.generate(instruments, options.bookOrders(), options.orders(),
            options.seed());
        log.println(String.format(Locale.ROOT, "matching: generated in %.1f s: %d requests fill the books, %d are " +
            "measured (%.1f MB of SBE)", (System.nanoTime() - generatingNs) / 1e9, flow.prefill(), flow.measured(),
            flow.measuredBytes() / 1e6));
        final EngineReplay replay = new EngineReplay(flow);

        final MatchingEngine reference = prepared(replay);
        replay.backToBack(reference);
        final String outcome = replay.verify(reference, null);

        final Histogram[] byKind = new Histogram[RequestKind.ALL.length];
        final Histogram[] warmupByKind = new Histogram[RequestKind.ALL.length];
        for (int i = 0; i < byKind.length; i++)
        {
            byKind[i] = EngineReplay.histogram();
            warmupByKind[i] = EngineReplay.histogram();
        }
        final long[] nsByKind = new long[RequestKind.ALL.length];
        log.println("matching: warm-up round");
        round(replay, outcome, warmupByKind, new long[RequestKind.ALL.length]);
        final List<Round> rounds = new ArrayList<>();
        for (int r = 1; r <= options.rounds(); r++)
        {
            final Round round = round(replay, outcome, byKind, nsByKind);
            rounds.add(round);
            final String name = instruments + "-instruments-round" + r;
            histograms.add(new RecordedHistogram(name + "-service", name, instruments + " instrument(s), round " + r +
                ": service time, back to back", round.serviceHistogram()));
            histograms.add(new RecordedHistogram(name + "-at-rate", name, instruments + " instrument(s), round " + r +
                ": latency from due time at " + options.rate() + "/s", round.fixedRateHistogram()));
            histograms.add(new RecordedHistogram(name + "-floor", name, instruments + " instrument(s), round " + r +
                ": the same schedule applying nothing", round.floorHistogram()));
            log.println(String.format(Locale.ROOT, "matching: round %d: %.2f M orders/s; service p50 %d p99 %d ns; " +
                "at %d/s p99 %d ns", r, round.ordersPerSecond() / 1e6, round.service().p50(), round.service().p99(),
                options.rate(), round.fixedRate().p99()));
        }

        // The output's volume, from a replay after the measured ones: an engine that sends to an
        // output of another type than EngineOutput.NONE would have made its calls to the output
        // bimorphic for the JIT while it was measured.
        final OutputVolume volume = new OutputVolume();
        System.gc();
        final MatchingEngine counted = replay.freshEngine(volume);
        volume.record();
        replay.backToBack(counted);
        volume.stop();
        replay.verify(counted, outcome);
        final double measured = flow.measured();
        final double digestNs = volume.digestNs(COST_REPETITIONS) / measured;
        final double checkNs = checkNs(flow) / measured;
        final long timerNs = timerNs();
        long allocated = 0;
        long jitMs = 0;
        for (final Round round : rounds)
        {
            allocated = allocated == ThreadAllocation.UNKNOWN || round.allocatedBytes() == ThreadAllocation.UNKNOWN ?
                ThreadAllocation.UNKNOWN : allocated + round.allocatedBytes();
            jitMs = jitMs == ThreadAllocation.UNKNOWN || round.jitMs() == ThreadAllocation.UNKNOWN ?
                ThreadAllocation.UNKNOWN : jitMs + round.jitMs();
        }
        return new MatchingResult(instruments, MatchingResult.FlowSummary.of(flow, options.bookOrders(), options.seed()),
            rounds.size(), spread(rounds, Round::ordersPerSecond),
            percentiles(rounds.stream().map(Round::service).toList()), spread(rounds, Round::serviceMeanNs).median(),
            timerNs, kindTimes(byKind, nsByKind),
            new MatchingResult.FixedRate(options.rate(), spread(rounds, Round::achievedPerSecond).median(),
                percentiles(rounds.stream().map(Round::fixedRate).toList()),
                percentiles(rounds.stream().map(Round::floor).toList()),
                spread(rounds, round -> MatchingResult.FixedRate.lateShare(round.fixedRateHistogram())).median(),
                spread(rounds, round -> MatchingResult.FixedRate.lateShare(round.floorHistogram())).median()),
            digestNs, volume.messages() / measured, volume.bytes() / measured, checkNs, allocated, jitMs);
    }

    private Round round(final EngineReplay replay, final String outcome, final Histogram[] byKind, final long[] nsByKind)
    {
        final int measured = replay.measured();
        final long[] allocated = new long[1];
        final long[] jitMs = new long[1];

        MatchingEngine engine = prepared(replay);
        Mark mark = new Mark();
        final long backToBackNs = replay.backToBack(engine);
        mark.addTo(allocated, jitMs);
        replay.verify(engine, outcome);

        engine = prepared(replay);
        final Histogram service = EngineReplay.histogram();
        mark = new Mark();
        replay.timedEach(engine, service, byKind, nsByKind);
        mark.addTo(allocated, jitMs);
        replay.verify(engine, outcome);

        engine = prepared(replay);
        final Histogram latency = EngineReplay.histogram();
        mark = new Mark();
        final long atRateNs = replay.atRate(engine, options.rate(), latency);
        mark.addTo(allocated, jitMs);
        replay.verify(engine, outcome);

        final Histogram floor = EngineReplay.histogram();
        replay.scheduleAlone(options.rate(), floor);

        return new Round(measured * 1e9 / backToBackNs, MatchingResult.Percentiles.of(service), service.getMean(),
            measured * 1e9 / atRateNs, MatchingResult.Percentiles.of(latency), MatchingResult.Percentiles.of(floor),
            allocated[0], jitMs[0], service, latency, floor);
    }

    /** @return a fresh engine, filled, after a full GC (so the last engine's garbage is not collected in a pass). */
    private static MatchingEngine prepared(final EngineReplay replay)
    {
        System.gc();
        return replay.freshEngine(EngineOutput.NONE);
    }

    /** What the thread allocated and the JIT compiled from its making to {@link #addTo}. */
    private static final class Mark
    {
        private final long allocatedBytes = ThreadAllocation.currentThreadAllocatedBytes();
        private final long jitMs = ThreadAllocation.compilationTimeMs();

        void addTo(final long[] allocatedTotal, final long[] jitTotal)
        {
            final long allocatedNow = ThreadAllocation.currentThreadAllocatedBytes();
            final long jitNow = ThreadAllocation.compilationTimeMs();
            allocatedTotal[0] = allocatedNow == ThreadAllocation.UNKNOWN || allocatedTotal[0] == ThreadAllocation.UNKNOWN ?
                ThreadAllocation.UNKNOWN : allocatedTotal[0] + allocatedNow - allocatedBytes;
            jitTotal[0] = jitNow == ThreadAllocation.UNKNOWN || jitTotal[0] == ThreadAllocation.UNKNOWN ?
                ThreadAllocation.UNKNOWN : jitTotal[0] + jitNow - jitMs;
        }
    }

    /** @return nanoseconds {@link MatchingEngine#check} takes over the measured requests (median of passes). */
    private static long checkNs(final RecordedFlow flow)
    {
        final UnsafeBuffer requests = flow.requests();
        final int[] offsets = flow.offsets();
        final long[] passes = new long[COST_REPETITIONS];
        for (int r = -1; r < passes.length; r++)
        {
            long refused = 0;
            final long startNs = System.nanoTime();
            for (int i = flow.prefill(), end = flow.count(); i < end; i++)
            {
                refused += MatchingEngine.check(requests, offsets[i], offsets[i + 1] - offsets[i]);
            }
            final long tookNs = System.nanoTime() - startNs;
            if (refused != 0)
            {
                throw new IllegalStateException("MatchingEngine.check refused requests of the flow");
            }
            if (r >= 0)
            {
                passes[r] = tookNs;
            }
        }
        Arrays.sort(passes);
        return passes[passes.length / 2];
    }

    /** @return the p50 of two clock reads with nothing between them. */
    private static long timerNs()
    {
        final Histogram timer = EngineReplay.histogram();
        for (int pass = 0; pass < 2; pass++)
        {
            timer.reset();
            for (int i = 0; i < TIMER_SAMPLES; i++)
            {
                final long startNs = System.nanoTime();
                timer.recordValue(System.nanoTime() - startNs);
            }
        }
        return timer.getValueAtPercentile(50);
    }

    private static List<MatchingResult.KindTimes> kindTimes(final Histogram[] byKind, final long[] nsByKind)
    {
        long totalNs = 0;
        for (final long ns : nsByKind)
        {
            totalNs += ns;
        }
        final List<MatchingResult.KindTimes> times = new ArrayList<>();
        for (final RequestKind kind : RequestKind.ALL)
        {
            final Histogram histogram = byKind[kind.ordinal()];
            final long count = histogram.getTotalCount();
            times.add(new MatchingResult.KindTimes(kind, count, count == 0 ? 0 : histogram.getValueAtPercentile(50),
                count == 0 ? 0 : histogram.getValueAtPercentile(99), count == 0 ? 0 : histogram.getMean(),
                totalNs == 0 ? 0 : nsByKind[kind.ordinal()] / (double)totalNs));
        }
        return times;
    }

    private static MatchingResult.Spread spread(final List<Round> rounds, final ToDoubleFunction<Round> figure)
    {
        final double[] values = rounds.stream().mapToDouble(figure).sorted().toArray();
        return new MatchingResult.Spread(median(values), values[0], values[values.length - 1]);
    }

    private static MatchingResult.Percentiles percentiles(final List<MatchingResult.Percentiles> rounds)
    {
        return new MatchingResult.Percentiles(
            (long)median(rounds.stream().mapToDouble(MatchingResult.Percentiles::p50).sorted().toArray()),
            (long)median(rounds.stream().mapToDouble(MatchingResult.Percentiles::p99).sorted().toArray()),
            (long)median(rounds.stream().mapToDouble(MatchingResult.Percentiles::p99_9).sorted().toArray()),
            (long)median(rounds.stream().mapToDouble(MatchingResult.Percentiles::max).sorted().toArray()));
    }

    /** @return the middle value, or the mean of the two middle ones. */
    static double median(final double[] sorted)
    {
        final int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
