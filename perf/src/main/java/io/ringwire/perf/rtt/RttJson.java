package io.ringwire.perf.rtt;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.output.JsonText;

import java.util.Arrays;
import java.util.Locale;

/**
 * Formats an {@link RttReport} as one JSON object for tools, times in nanoseconds (integers, except
 * the mean and the ratios):
 *
 * <pre>
 * {"benchmark":"rtt","size":32,"messages":N,"warmup":W,"processes":1,"results":[
 *   {"provider":"shm","api":"channel","size":32,"p50":..,"p90":..,"p99":..,"p99_9":..,"p99_99":..,"max":..,
 *    "mean":..,"count":N,"pinger_cpu":0,"ponger_cpu":1},
 *   {"provider":"shm","api":"messaging","size":36,...,"channel_p50":..,"overhead_p50":1.071}, ...],
 *  "overhead":[{"provider":"shm","channel_p50":..,"messaging_p50":..,"overhead_p50":1.071,
 *    "overhead_p50_ns":..}, ...],
 *  "ratios":[{"label":"shm messaging / channel","ratio":1.071,"comparable":true}, ...,
 *    {"label":"roce / aeron-udp","ratio":..,"comparable":false,"reason":"aeron-udp's media driver ..."}]}
 * </pre>
 *
 * {@code api} is channel, messaging, or raw for the NIO baselines. A messaging row whose provider
 * also ran through the channel carries that channel's p50 and the ratio; {@code overhead} lists
 * every such provider (empty when none ran both ways). A CPU of -1 means the thread was not pinned.
 * An open-loop run ({@code --rate}) keeps those keys for the service time (from each message's
 * send) and adds to each row {@code "rate"} and the latencies from each message's due time:
 * {@code "due_p50"}, {@code "due_p90"}, {@code "due_p99"}, {@code "due_p99_9"}, {@code "due_p99_99"},
 * {@code "due_max"}, {@code "due_mean"}. {@code ratios} holds every ratio the table's footnotes give:
 * messaging over the channel and each path against its raw baseline; one whose two sides are no fair
 * pair on this host (aeron-udp where its media driver cannot have CPUs of its own) has
 * {@code "comparable":false} and a {@code "reason"}.
 *
 * <p>A run of several rounds is one object holding each round's object and every ratio's median:
 *
 * <pre>
 * {"benchmark":"rtt","rounds":[{...round 1 as above...}, ...],
 *  "ratios":[{"label":"roce / nio-udp","median":1.1302,"lowest":..,"highest":..,"values":[..],
 *    "comparable":true}, ...],
 *  "p50_medians":[{"provider":"roce","api":"channel","p50":..}, ...]}
 * </pre>
 */
public final class RttJson
{
    /** The keys of {@link RttPercentiles}' values but the mean, in their order. */
    private static final String[] PERCENTILE_KEYS = { "p50", "p90", "p99", "p99_9", "p99_99", "max" };

    private RttJson()
    {
    }

    /**
     * @param report what was measured.
     * @return one line of JSON, no trailing newline.
     */
    public static String format(final RttReport report)
    {
        final StringBuilder json = new StringBuilder(256);
        json.append("{\"benchmark\":\"rtt\"")
            .append(",\"size\":").append(report.size())
            .append(",\"messages\":").append(report.messages())
            .append(",\"warmup\":").append(report.warmup())
            .append(",\"processes\":").append(report.processes())
            .append(",\"results\":");
        JsonText.appendArray(json, report.results(), (out, result) -> appendResult(out, report, result));
        json.append(",\"overhead\":");
        JsonText.appendArray(json, report.overheads(), (out, overhead) -> out
            .append("{\"provider\":").append(JsonText.quote(overhead.provider()))
            .append(",\"channel_p50\":").append(overhead.channelP50())
            .append(",\"messaging_p50\":").append(overhead.messagingP50())
            .append(",\"overhead_p50\":").append(ratio(overhead.ratio()))
            .append(",\"overhead_p50_ns\":").append(overhead.differenceNs())
            .append('}'));
        json.append(",\"ratios\":");
        JsonText.appendArray(json, report.ratios(), (out, ratio) ->
        {
            out.append("{\"label\":").append(JsonText.quote(ratio.label()))
                .append(",\"ratio\":").append(ratio(ratio.ratio()));
            appendComparable(out, ratio.notComparableReason()).append('}');
        });
        return json.append('}').toString();
    }

    private static void appendResult(final StringBuilder json, final RttReport report, final RttResult result)
    {
        json.append("{\"provider\":").append(JsonText.quote(result.provider()))
            .append(",\"api\":").append(JsonText.quote(result.api()))
            .append(",\"size\":").append(result.size());
        appendPercentiles(json, "", result)
            .append(",\"count\":").append(result.count())
            .append(",\"pinger_cpu\":").append(result.pingerCpu())
            .append(",\"ponger_cpu\":").append(result.pongerCpu())
            .append(",\"gc_collections\":").append(result.gc().collections())
            .append(",\"gc_time_ms\":").append(result.gc().timeMs());
        final RttDueTime due = result.dueTime();
        if (null != due)
        {
            appendPercentiles(json.append(",\"rate\":").append(due.ratePerSecond()), "due_", due);
        }
        final RttOverhead overhead = overheadOf(report, result);
        if (null != overhead)
        {
            json.append(",\"channel_p50\":").append(overhead.channelP50())
                .append(",\"overhead_p50\":").append(ratio(overhead.ratio()));
        }
        json.append('}');
    }

    /**
     * Appends {@code ,"p50":..} to {@code ,"mean":..}, each key after {@code prefix}.
     */
    private static StringBuilder appendPercentiles(final StringBuilder json, final String prefix,
        final RttPercentiles latencies)
    {
        final long[] values = { latencies.p50(), latencies.p90(), latencies.p99(), latencies.p99_9(),
            latencies.p99_99(), latencies.max() };
        for (int i = 0; i < values.length; i++)
        {
            json.append(",\"").append(prefix).append(PERCENTILE_KEYS[i]).append("\":").append(values[i]);
        }
        return json.append(",\"").append(prefix).append("mean\":").append(number(latencies.mean()));
    }

    /**
     * @param rounds what each round measured.
     * @return one line of JSON, no trailing newline.
     */
    public static String format(final RttRounds rounds)
    {
        final StringBuilder json = new StringBuilder(1024).append("{\"benchmark\":\"rtt\",\"rounds\":");
        JsonText.appendArray(json, rounds.rounds(), (out, report) -> out.append(format(report)));
        json.append(",\"ratios\":");
        JsonText.appendArray(json, rounds.ratioSummaries(), (out, summary) ->
        {
            out.append("{\"label\":").append(JsonText.quote(summary.label()))
                .append(",\"median\":").append(ratio(summary.median()))
                .append(",\"lowest\":").append(ratio(summary.lowest()))
                .append(",\"highest\":").append(ratio(summary.highest()))
                .append(",\"values\":");
            JsonText.appendArray(out, Arrays.stream(summary.values()).boxed().toList(),
                (values, value) -> values.append(ratio(value)));
            appendComparable(out, summary.notComparableReason()).append('}');
        });
        json.append(",\"p50_medians\":");
        JsonText.appendArray(json, rounds.rowMedians(), (out, row) -> out
            .append("{\"provider\":").append(JsonText.quote(row.provider()))
            .append(",\"api\":").append(JsonText.quote(row.api()))
            .append(",\"p50\":").append(number(row.p50()))
            .append('}'));
        return json.append('}').toString();
    }

    /**
     * Appends {@code ,"comparable":true}, or {@code ,"comparable":false,"reason":"..."} for a pair that
     * is no fair one on this host, to a ratio's object.
     *
     * @param json                the object so far.
     * @param notComparableReason why the pair is no fair one here, or null.
     * @return {@code json}.
     */
    public static StringBuilder appendComparable(final StringBuilder json, final String notComparableReason)
    {
        json.append(",\"comparable\":").append(null == notComparableReason);
        if (null != notComparableReason)
        {
            json.append(",\"reason\":").append(JsonText.quote(notComparableReason));
        }
        return json;
    }

    private static RttOverhead overheadOf(final RttReport report, final RttResult result)
    {
        if (!Transports.API_MESSAGING.equals(result.api()))
        {
            return null;
        }
        for (final RttOverhead overhead : report.overheads())
        {
            if (overhead.provider().equals(result.provider()))
            {
                return overhead;
            }
        }
        return null;
    }

    private static String ratio(final double value)
    {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.4f", value) : "0";
    }

    private static String number(final double value)
    {
        // JSON has no NaN or infinity; a mean is finite whenever anything was recorded.
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.3f", value) : "0";
    }
}
