package io.ringwire.perf.throughput;

import io.ringwire.perf.baseline.aeron.AeronFlood;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.oneway.OneWayBenchmark;
import io.ringwire.perf.oneway.OneWayRun;
import io.ringwire.perf.oneway.OneWaySender;
import io.ringwire.perf.oneway.ThroughputArithmetic;
import io.ringwire.perf.output.JsonText;
import io.ringwire.perf.output.RecordedHistogram;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.rtt.RttRounds;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ringwire perf throughput}: (a) per message size, a {@link OneWayRun#flood} and the rate it
 * held, and beside it on shm Aeron IPC's, raw and carrying the same probe ({@link AeronFlood}), in
 * rounds that interleave the rows, reported as medians with the median of the per-round ratios; (b) the {@link RateSweep}: open-loop one-way runs at doubling offered rates until the rule
 * stops it. Each run connects afresh, so one size's backlog never reaches the next.
 *
 * <p>Threading: the control thread.
 */
public final class ThroughputBenchmark
{
    /** Unmeasured flooding before each measured window, so connection set-up and JIT stay out of it. */
    static final long FLOOD_WARMUP_NS = TimeUnit.MILLISECONDS.toNanos(500);

    /** The row of RingWire's own flood; the Aeron rows are {@link #AERON_RAW} and {@link #AERON_PROBE}. */
    static final String MESSAGING_ROW = "messaging";
    /** Aeron IPC offering a buffer as it is. */
    static final String AERON_RAW = "aeron-ipc raw";
    /** Aeron IPC carrying the same SBE probe as RingWire's flood. */
    static final String AERON_PROBE = "aeron-ipc probe";

    /**
     * The rate one row held at one size in one round.
     *
     * @param row      {@link #MESSAGING_ROW}, {@link #AERON_RAW} or {@link #AERON_PROBE}.
     * @param round    the round, from 0.
     * @param size     bytes per message.
     * @param messages received in the window.
     * @param bytes    payload bytes received in it.
     * @param windowNs the window, ns.
     */
    public record Flood(String row, int round, int size, long messages, long bytes, long windowNs)
    {
        public double messagesPerSecond()
        {
            return ThroughputArithmetic.perSecond(messages, windowNs);
        }

        public double megabytesPerSecond()
        {
            return ThroughputArithmetic.megabytesPerSecond(bytes, windowNs);
        }
    }

    /**
     * One sweep step.
     *
     * @param offeredRate  the target, per second.
     * @param achievedRate what arrived, per second.
     * @param latency      receive minus send, ns.
     * @param dueLatency   receive minus due time, ns.
     * @param last         whether the stop rule ended the sweep here.
     */
    record SweepStep(long offeredRate, double achievedRate, Histogram latency, Histogram dueLatency, boolean last)
    {
    }

    /**
     * One row at one size over the rounds: the median rate, its spread, and the median of the
     * per-round ratios of the messaging row to it (each ratio from one round's side-by-side floods).
     *
     * @param row                  the row.
     * @param size                 bytes per message.
     * @param messagesPerSecond    the median over the rounds.
     * @param lowest               the lowest round.
     * @param highest              the highest round.
     * @param megabytesPerSecond   the median over the rounds.
     * @param messagingRatio       median of messaging / this row, round by round (1 for messaging itself).
     */
    public record RowMedian(String row, int size, double messagesPerSecond, double lowest, double highest,
        double megabytesPerSecond, double messagingRatio)
    {
    }

    /**
     * Everything one run measured.
     *
     * @param floods every round's, in the order run.
     * @param sweep  its steps, in order.
     */
    public record Result(List<Flood> floods, List<SweepStep> sweep)
    {
        /**
         * @return per row and size, in the order first run: the median over the rounds.
         */
        public List<RowMedian> medians()
        {
            final Map<String, List<Flood>> byRow = new LinkedHashMap<>();
            for (final Flood flood : floods)
            {
                byRow.computeIfAbsent(flood.size() + " " + flood.row(), key -> new ArrayList<>()).add(flood);
            }
            final List<RowMedian> medians = new ArrayList<>();
            for (final List<Flood> row : byRow.values())
            {
                final Flood first = row.getFirst();
                final double[] rates = row.stream().mapToDouble(Flood::messagesPerSecond).toArray();
                final double[] ratios = row.stream().mapToDouble(flood -> messagingRate(flood.size(), flood.round()) /
                    flood.messagesPerSecond()).toArray();
                medians.add(new RowMedian(first.row(), first.size(), RttRounds.median(rates),
                    Arrays.stream(rates).min().orElse(0), Arrays.stream(rates).max().orElse(0),
                    RttRounds.median(row.stream().mapToDouble(Flood::megabytesPerSecond).toArray()),
                    RttRounds.median(ratios)));
            }
            return medians;
        }

        private double messagingRate(final int size, final int round)
        {
            for (final Flood flood : floods)
            {
                if (flood.size() == size && flood.round() == round && MESSAGING_ROW.equals(flood.row()))
                {
                    return flood.messagesPerSecond();
                }
            }
            return 0;
        }
    }

    private ThroughputBenchmark()
    {
    }

    /**
     * @param options what to run.
     * @param cpuPlan where the ends run.
     * @param err     where progress goes.
     * @return the floods and the sweep.
     */
    public static Result run(final ThroughputOptions options, final CpuPlan cpuPlan, final PrintStream err)
    {
        final String provider = options.provider();
        final long measureNs = TimeUnit.SECONDS.toNanos(options.seconds());
        final List<Flood> floods = new ArrayList<>();
        for (int round = 0; round < options.rounds(); round++)
        {
            for (final int size : options.sizes())
            {
                final int length = LatencyProbeCodec.messageLength(size);
                final String label = provider + " " + options.api() + " " + length + " B" +
                    (options.rounds() > 1 ? ", round " + (round + 1) + " of " + options.rounds() : "");
                err.println("throughput: " + label + ", flooding for " + options.seconds() + " s");
                final OneWayRun.Outcome outcome = OneWayRun.flood(label, provider, options.shmDirectory(), size,
                    cpuPlan, FLOOD_WARMUP_NS, measureNs, err);
                floods.add(new Flood(MESSAGING_ROW, round, length, outcome.windowCount(), outcome.windowBytes(),
                    outcome.windowNs()));
                if (options.aeronBaseline())
                {
                    for (final AeronFlood.Work work : AeronFlood.Work.values())
                    {
                        final String row = work == AeronFlood.Work.RAW ? AERON_RAW : AERON_PROBE;
                        err.println("throughput: " + row + " " + length + " B, flooding for " + options.seconds() + " s");
                        final AeronFlood.Window window = AeronFlood.run(work, length, options.shmDirectory(), cpuPlan,
                            FLOOD_WARMUP_NS, measureNs, err);
                        floods.add(new Flood(row, round, length, window.messages(), window.bytes(), window.windowNs()));
                    }
                }
            }
        }
        final List<SweepStep> sweep = new ArrayList<>();
        for (int step = 0; step < options.sweepSteps(); step++)
        {
            final long rate = RateSweep.offeredRate(options.sweepStartRate(), step);
            final long messages = Math.max(1, rate * options.seconds());
            final long warmup = Math.max(1, messages / 10);
            final String label = provider + " " + options.api() + " at " + rate + "/s";
            err.println("throughput sweep: " + label + ", " + messages + " messages");
            final OneWayRun.Outcome outcome = OneWayRun.latency(label, provider, options.shmDirectory(),
                options.sweepSize(), cpuPlan, OneWaySender.Pacing.OPEN_LOOP, warmup, messages, rate, err);
            final boolean last = RateSweep.stopsAfter(rate, outcome.achievedRate(),
                outcome.dueLatency().getValueAtPercentile(99));
            sweep.add(new SweepStep(rate, outcome.achievedRate(), outcome.latency(), outcome.dueLatency(), last));
            if (last)
            {
                break;
            }
        }
        return new Result(floods, sweep);
    }

    /**
     * @param result the run.
     * @return the floods' table and the sweep's.
     */
    public static String table(final Result result)
    {
        final StringBuilder table = new StringBuilder(1024);
        table.append(String.format(Locale.ROOT, "%-16s %6s %14s %14s %14s %10s %12s%n", "row", "bytes", "msgs/s",
            "lowest", "highest", "MB/s", "messaging/x"));
        for (final RowMedian median : result.medians())
        {
            table.append(String.format(Locale.ROOT, "%-16s %6d %14.0f %14.0f %14.0f %10.1f %12s%n", median.row(),
                median.size(), median.messagesPerSecond(), median.lowest(), median.highest(),
                median.megabytesPerSecond(), MESSAGING_ROW.equals(median.row()) ? "" :
                String.format(Locale.ROOT, "%.2fx", median.messagingRatio())));
        }
        if (!result.sweep().isEmpty())
        {
            table.append(String.format(Locale.ROOT, "%n%12s %12s %10s %10s %10s %12s %12s%n", "offered/s", "achieved/s",
                "samples", "p50 us", "p99 us", "due p50 us", "due p99 us"));
            for (final SweepStep step : result.sweep())
            {
                table.append(String.format(Locale.ROOT, "%12d %12.0f %10d %10.3f %10.3f %12.3f %12.3f%s%n",
                    step.offeredRate(), step.achievedRate(), step.latency().getTotalCount(),
                    step.latency().getValueAtPercentile(50) / 1000.0, step.latency().getValueAtPercentile(99) / 1000.0,
                    step.dueLatency().getValueAtPercentile(50) / 1000.0,
                    step.dueLatency().getValueAtPercentile(99) / 1000.0,
                    step.last() ? "  (stop: rate missed or p99 > " +
                        TimeUnit.NANOSECONDS.toMillis(RateSweep.P99_LIMIT_NS) + " ms)" : ""));
            }
        }
        return table.toString();
    }

    /**
     * @param options what ran.
     * @param result  the run.
     * @return {"benchmark":"throughput","provider":..,"floods":[..],"sweep":[..]}, latencies in ns.
     */
    public static String json(final ThroughputOptions options, final Result result)
    {
        final StringBuilder json = new StringBuilder(1024).append("{\"benchmark\":\"throughput\",\"provider\":")
            .append(JsonText.quote(options.provider())).append(",\"api\":").append(JsonText.quote(options.api()))
            .append(",\"floods\":[");
        for (int i = 0; i < result.floods().size(); i++)
        {
            final Flood flood = result.floods().get(i);
            json.append(i > 0 ? "," : "").append("{\"row\":").append(JsonText.quote(flood.row()))
                .append(",\"round\":").append(flood.round())
                .append(",\"size\":").append(flood.size())
                .append(",\"messages\":").append(flood.messages())
                .append(",\"bytes\":").append(flood.bytes())
                .append(",\"window_ns\":").append(flood.windowNs())
                .append(",\"messages_per_second\":")
                .append(String.format(Locale.ROOT, "%.1f", flood.messagesPerSecond()))
                .append(",\"megabytes_per_second\":")
                .append(String.format(Locale.ROOT, "%.3f", flood.megabytesPerSecond()))
                .append('}');
        }
        json.append("],\"medians\":[");
        final List<RowMedian> medians = result.medians();
        for (int i = 0; i < medians.size(); i++)
        {
            final RowMedian median = medians.get(i);
            json.append(i > 0 ? "," : "").append("{\"row\":").append(JsonText.quote(median.row()))
                .append(",\"size\":").append(median.size())
                .append(",\"messages_per_second\":")
                .append(String.format(Locale.ROOT, "%.1f", median.messagesPerSecond()))
                .append(",\"lowest\":").append(String.format(Locale.ROOT, "%.1f", median.lowest()))
                .append(",\"highest\":").append(String.format(Locale.ROOT, "%.1f", median.highest()))
                .append(",\"messaging_ratio\":").append(String.format(Locale.ROOT, "%.4f", median.messagingRatio()))
                .append('}');
        }
        json.append("],\"sweep\":[");
        for (int i = 0; i < result.sweep().size(); i++)
        {
            final SweepStep step = result.sweep().get(i);
            json.append(i > 0 ? "," : "").append("{\"offered_rate\":").append(step.offeredRate())
                .append(",\"achieved_rate\":").append(String.format(Locale.ROOT, "%.1f", step.achievedRate()))
                .append(",\"latency_ns\":").append(OneWayBenchmark.percentiles(step.latency()))
                .append(",\"due_latency_ns\":").append(OneWayBenchmark.percentiles(step.dueLatency()))
                .append(",\"stopped_here\":").append(step.last())
                .append('}');
        }
        return json.append("]}").toString();
    }

    /**
     * @param options what ran.
     * @param result  the run.
     * @return the sweep's due-time histograms, all in one plot.
     */
    public static List<RecordedHistogram> histograms(final ThroughputOptions options, final Result result)
    {
        final List<RecordedHistogram> histograms = new ArrayList<>();
        for (final SweepStep step : result.sweep())
        {
            histograms.add(new RecordedHistogram("sweep-" + options.provider() + "-" + step.offeredRate(),
                "sweep-" + options.provider(), options.provider() + " at " + step.offeredRate() +
                "/s, receive - due", step.dueLatency()));
        }
        return histograms;
    }
}
