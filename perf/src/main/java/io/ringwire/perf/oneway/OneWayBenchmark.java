package io.ringwire.perf.oneway;

import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.output.JsonText;
import io.ringwire.perf.output.RecordedHistogram;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code ringwire perf oneway}: one {@link OneWayRun} per transport, then a table, its JSON and the
 * histograms for the results directory.
 *
 * <p>Threading: the control thread.
 */
public final class OneWayBenchmark
{
    /**
     * One transport's result.
     *
     * @param provider     the transport.
     * @param api          the path.
     * @param size         bytes per message sent.
     * @param rate         offered rate, or 0 with one message in flight.
     * @param latency      receive minus send, ns.
     * @param dueLatency   receive minus due time, ns (empty without a rate).
     * @param achievedRate what arrived, per second.
     */
    public record Result(String provider, String api, int size, long rate, Histogram latency, Histogram dueLatency,
        double achievedRate)
    {
    }

    private OneWayBenchmark()
    {
    }

    /**
     * @param options what to run.
     * @param cpuPlan where the ends run.
     * @param err     where progress goes.
     * @return one result per transport, in the order asked.
     */
    public static List<Result> run(final OneWayOptions options, final CpuPlan cpuPlan, final PrintStream err)
    {
        final List<Result> results = new ArrayList<>();
        final OneWaySender.Pacing pacing = options.rate() > 0 ? OneWaySender.Pacing.OPEN_LOOP :
            OneWaySender.Pacing.ONE_IN_FLIGHT;
        for (final String provider : options.providers())
        {
            final String label = provider + " " + options.api();
            err.println("oneway: " + label + ", " + options.messages() + " messages after " + options.warmup() +
                " warm-up" + (options.rate() > 0 ? ", " + options.rate() + "/s" : ", one in flight"));
            final OneWayRun.Outcome outcome = OneWayRun.latency(label, provider, options.shmDirectory(),
                options.size(), cpuPlan, pacing, options.warmup(), options.messages(), options.rate(), err);
            results.add(new Result(provider, options.api(), LatencyProbeCodec.messageLength(options.size()),
                options.rate(), outcome.latency(), outcome.dueLatency(), outcome.achievedRate()));
        }
        return results;
    }

    /**
     * @param results the runs.
     * @return the table, microseconds.
     */
    public static String table(final List<Result> results)
    {
        final StringBuilder table = new StringBuilder(512);
        table.append(String.format(Locale.ROOT, "%-8s %-10s %6s %11s %12s %10s %9s %9s %9s %9s %9s%n", "provider",
            "api", "bytes", "rate/s", "achieved/s", "samples", "p50 us", "p99 us", "p99.9 us", "max us", "due p99"));
        for (final Result result : results)
        {
            final Histogram latency = result.latency();
            table.append(String.format(Locale.ROOT, "%-8s %-10s %6d %11s %12.0f %10d %9.3f %9.3f %9.3f %9.3f %9s%n",
                result.provider(), result.api(), result.size(),
                result.rate() > 0 ? Long.toString(result.rate()) : "1-in-flight", result.achievedRate(),
                latency.getTotalCount(),
                micros(latency.getValueAtPercentile(50)), micros(latency.getValueAtPercentile(99)),
                micros(latency.getValueAtPercentile(99.9)), micros(latency.getMaxValue()),
                result.dueLatency().getTotalCount() > 0 ?
                    String.format(Locale.ROOT, "%.3f", micros(result.dueLatency().getValueAtPercentile(99))) : "-"));
        }
        return table.toString();
    }

    /**
     * @param results the runs.
     * @return {"benchmark":"oneway","results":[...]} with latencies in ns.
     */
    public static String json(final List<Result> results)
    {
        final StringBuilder json = new StringBuilder(512).append("{\"benchmark\":\"oneway\",\"results\":[");
        for (int i = 0; i < results.size(); i++)
        {
            final Result result = results.get(i);
            json.append(i > 0 ? "," : "").append("{\"provider\":").append(JsonText.quote(result.provider()))
                .append(",\"api\":").append(JsonText.quote(result.api()))
                .append(",\"size\":").append(result.size())
                .append(",\"rate\":").append(result.rate())
                .append(",\"achieved_rate\":").append(String.format(Locale.ROOT, "%.1f", result.achievedRate()))
                .append(",\"latency_ns\":").append(percentiles(result.latency()));
            if (result.dueLatency().getTotalCount() > 0)
            {
                json.append(",\"due_latency_ns\":").append(percentiles(result.dueLatency()));
            }
            json.append('}');
        }
        return json.append("]}").toString();
    }

    /**
     * @param histogram latencies, ns.
     * @return its count and percentiles as a JSON object.
     */
    public static String percentiles(final Histogram histogram)
    {
        return "{\"count\":" + histogram.getTotalCount() +
            ",\"p50\":" + histogram.getValueAtPercentile(50) +
            ",\"p90\":" + histogram.getValueAtPercentile(90) +
            ",\"p99\":" + histogram.getValueAtPercentile(99) +
            ",\"p99_9\":" + histogram.getValueAtPercentile(99.9) +
            ",\"max\":" + histogram.getMaxValue() + "}";
    }

    /**
     * @param results the runs.
     * @return their histograms, a plot per transport.
     */
    public static List<RecordedHistogram> histograms(final List<Result> results)
    {
        final List<RecordedHistogram> histograms = new ArrayList<>();
        for (final Result result : results)
        {
            final String row = "oneway-" + result.provider() + "-" + result.api();
            histograms.add(new RecordedHistogram(row, row, result.provider() + " " + result.api() +
                ", receive - send", result.latency()));
            if (result.dueLatency().getTotalCount() > 0)
            {
                histograms.add(new RecordedHistogram(row + "-due", row, result.provider() + " " + result.api() +
                    ", receive - due at " + result.rate() + "/s", result.dueLatency()));
            }
        }
        return histograms;
    }

    private static double micros(final double nanos)
    {
        return nanos / 1000.0;
    }
}
