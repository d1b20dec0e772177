package io.ringwire.perf;

import java.util.List;
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
 *    "overhead_p50_ns":..}, ...]}
 * </pre>
 *
 * {@code api} is channel, messaging, or raw for the NIO baselines. A messaging row whose provider
 * also ran through the channel carries that channel's p50 and the ratio; {@code overhead} lists
 * every such provider (empty when none ran both ways). A CPU of -1 means the thread was not pinned.
 *
 * <p>A run of several rounds is one object holding each round's object and every ratio's median:
 *
 * <pre>
 * {"benchmark":"rtt","rounds":[{...round 1 as above...}, ...],
 *  "ratios":[{"label":"roce / nio-udp","median":1.1302,"lowest":..,"highest":..,"values":[..]}, ...],
 *  "p50_medians":[{"provider":"roce","api":"channel","p50":..}, ...]}
 * </pre>
 */
final class RttJson
{
    private RttJson()
    {
    }

    /**
     * @param report what was measured.
     * @return one line of JSON, no trailing newline.
     */
    static String format(final RttReport report)
    {
        final StringBuilder json = new StringBuilder(256);
        json.append("{\"benchmark\":\"rtt\"")
            .append(",\"size\":").append(report.size())
            .append(",\"messages\":").append(report.messages())
            .append(",\"warmup\":").append(report.warmup())
            .append(",\"processes\":").append(report.processes())
            .append(",\"results\":[");
        for (int i = 0; i < report.results().size(); i++)
        {
            final RttResult result = report.results().get(i);
            json.append(i == 0 ? "" : ",")
                .append("{\"provider\":").append(quote(result.provider()))
                .append(",\"api\":").append(quote(result.api()))
                .append(",\"size\":").append(result.size())
                .append(",\"p50\":").append(result.p50())
                .append(",\"p90\":").append(result.p90())
                .append(",\"p99\":").append(result.p99())
                .append(",\"p99_9\":").append(result.p99_9())
                .append(",\"p99_99\":").append(result.p99_99())
                .append(",\"max\":").append(result.max())
                .append(",\"mean\":").append(number(result.mean()))
                .append(",\"count\":").append(result.count())
                .append(",\"pinger_cpu\":").append(result.pingerCpu())
                .append(",\"ponger_cpu\":").append(result.pongerCpu());
            final RttOverhead overhead = overheadOf(report, result);
            if (null != overhead)
            {
                json.append(",\"channel_p50\":").append(overhead.channelP50())
                    .append(",\"overhead_p50\":").append(ratio(overhead.ratio()));
            }
            json.append('}');
        }
        json.append("],\"overhead\":[");
        final List<RttOverhead> overheads = report.overheads();
        for (int i = 0; i < overheads.size(); i++)
        {
            final RttOverhead overhead = overheads.get(i);
            json.append(i == 0 ? "" : ",")
                .append("{\"provider\":").append(quote(overhead.provider()))
                .append(",\"channel_p50\":").append(overhead.channelP50())
                .append(",\"messaging_p50\":").append(overhead.messagingP50())
                .append(",\"overhead_p50\":").append(ratio(overhead.ratio()))
                .append(",\"overhead_p50_ns\":").append(overhead.differenceNs())
                .append('}');
        }
        return json.append("]}").toString();
    }

    /**
     * @param rounds what each round measured.
     * @return one line of JSON, no trailing newline.
     */
    static String format(final RttRounds rounds)
    {
        final StringBuilder json = new StringBuilder(1024).append("{\"benchmark\":\"rtt\",\"rounds\":[");
        for (int i = 0; i < rounds.rounds().size(); i++)
        {
            json.append(i == 0 ? "" : ",").append(format(rounds.rounds().get(i)));
        }
        json.append("],\"ratios\":[");
        final List<RttRounds.Summary> summaries = rounds.ratioSummaries();
        for (int i = 0; i < summaries.size(); i++)
        {
            final RttRounds.Summary summary = summaries.get(i);
            json.append(i == 0 ? "" : ",")
                .append("{\"label\":").append(quote(summary.label()))
                .append(",\"median\":").append(ratio(summary.median()))
                .append(",\"lowest\":").append(ratio(summary.lowest()))
                .append(",\"highest\":").append(ratio(summary.highest()))
                .append(",\"values\":[");
            for (int v = 0; v < summary.values().length; v++)
            {
                json.append(v == 0 ? "" : ",").append(ratio(summary.values()[v]));
            }
            json.append("]}");
        }
        json.append("],\"p50_medians\":[");
        final List<RttRounds.RowMedian> medians = rounds.rowMedians();
        for (int i = 0; i < medians.size(); i++)
        {
            final RttRounds.RowMedian row = medians.get(i);
            json.append(i == 0 ? "" : ",")
                .append("{\"provider\":").append(quote(row.provider()))
                .append(",\"api\":").append(quote(row.api()))
                .append(",\"p50\":").append(number(row.p50()))
                .append('}');
        }
        return json.append("]}").toString();
    }

    private static RttOverhead overheadOf(final RttReport report, final RttResult result)
    {
        if (!RttOptions.API_MESSAGING.equals(result.api()))
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

    private static String quote(final String text)
    {
        final StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                default ->
                {
                    if (c < 0x20)
                    {
                        quoted.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
