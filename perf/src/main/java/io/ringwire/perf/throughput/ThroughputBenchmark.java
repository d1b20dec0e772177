package io.ringwire.perf.throughput;

import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.oneway.OneWayBenchmark;
import io.ringwire.perf.oneway.OneWayRun;
import io.ringwire.perf.oneway.OneWaySender;
import io.ringwire.perf.oneway.ThroughputArithmetic;
import io.ringwire.perf.output.JsonText;
import io.ringwire.perf.output.RecordedHistogram;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@code ringwire perf throughput}: (a) per message size, a {@link OneWayRun#flood} and the rate it
 * held; (b) the {@link RateSweep}: open-loop one-way runs at doubling offered rates until the rule
 * stops it. Each run connects afresh, so one size's backlog never reaches the next.
 *
 * <p>Threading: the control thread.
 */
public final class ThroughputBenchmark
{
    /** Unmeasured flooding before each measured window, so connection set-up and JIT stay out of it. */
    static final long FLOOD_WARMUP_NS = TimeUnit.MILLISECONDS.toNanos(500);

    /**
     * The rate one size held.
     *
     * @param size     bytes per message.
     * @param messages received in the window.
     * @param bytes    payload bytes received in it.
     * @param windowNs the window, ns.
     */
    public record Flood(int size, long messages, long bytes, long windowNs)
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
     * Everything one run measured.
     *
     * @param floods one per size.
     * @param sweep  its steps, in order.
     */
    public record Result(List<Flood> floods, List<SweepStep> sweep)
    {
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
        for (final int size : options.sizes())
        {
            final int length = LatencyProbeCodec.messageLength(size);
            final String label = provider + " " + options.api() + " " + length + " B";
            err.println("throughput: " + label + ", flooding for " + options.seconds() + " s");
            final OneWayRun.Outcome outcome = OneWayRun.flood(label, provider, options.shmDirectory(), size, cpuPlan,
                FLOOD_WARMUP_NS, measureNs, err);
            floods.add(new Flood(length, outcome.windowCount(), outcome.windowBytes(), outcome.windowNs()));
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
        table.append(String.format(Locale.ROOT, "%8s %14s %10s%n", "bytes", "msgs/s", "MB/s"));
        for (final Flood flood : result.floods())
        {
            table.append(String.format(Locale.ROOT, "%8d %14.0f %10.1f%n", flood.size(), flood.messagesPerSecond(),
                flood.megabytesPerSecond()));
        }
        if (!result.sweep().isEmpty())
        {
            table.append(String.format(Locale.ROOT, "%n%12s %12s %10s %10s %12s %12s%n", "offered/s", "achieved/s",
                "p50 us", "p99 us", "due p50 us", "due p99 us"));
            for (final SweepStep step : result.sweep())
            {
                table.append(String.format(Locale.ROOT, "%12d %12.0f %10.3f %10.3f %12.3f %12.3f%s%n",
                    step.offeredRate(), step.achievedRate(),
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
            json.append(i > 0 ? "," : "").append("{\"size\":").append(flood.size())
                .append(",\"messages\":").append(flood.messages())
                .append(",\"bytes\":").append(flood.bytes())
                .append(",\"window_ns\":").append(flood.windowNs())
                .append(",\"messages_per_second\":")
                .append(String.format(Locale.ROOT, "%.1f", flood.messagesPerSecond()))
                .append(",\"megabytes_per_second\":")
                .append(String.format(Locale.ROOT, "%.3f", flood.megabytesPerSecond()))
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
