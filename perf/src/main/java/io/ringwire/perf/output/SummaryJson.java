package io.ringwire.perf.output;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Locale;

/**
 * Writes a run's {@code summary.json}: what ran (options), where (revision, JVM, CPU, kernel), what
 * the garbage collector did, which files hold the histograms, and the benchmark's own JSON.
 *
 * <pre>
 * {"benchmark":"rtt","arguments":[...],"options":{"providers":["shm"],"messages":20000,...},
 *  "git_revision":"...","jvm_version":"...","jvm_arguments":[...],"cpu_model":"...","online_cores":2,
 *  "kernel":"...","gc_count":3,"gc_time_ms":12,
 *  "histograms":[{"name":"shm-channel","label":"...","count":20000,"hdr":"shm-channel.hdr",
 *    "hgrm":"shm-channel.hgrm","plot":"shm-channel.png" (null where no plot could be drawn)}, ...],
 *  "results":{...the benchmark's --json output...}}
 * </pre>
 */
final class SummaryJson
{
    private SummaryJson()
    {
    }

    /**
     * @param run         what ran.
     * @param plotsDrawn  whether its plots were drawn; each histogram's "plot" is null when not.
     * @return the JSON text, one object.
     */
    static String format(final BenchmarkRun run, final boolean plotsDrawn)
    {
        final RunEnvironment environment = run.environment();
        final StringBuilder json = new StringBuilder(1024);
        json.append("{\"benchmark\":").append(quote(run.benchmark()))
            .append(",\"arguments\":");
        appendValue(json, run.arguments());
        json.append(",\"options\":");
        appendRecord(json, run.options());
        json.append(",\"git_revision\":").append(quote(environment.gitRevision()))
            .append(",\"jvm_version\":").append(quote(environment.jvmVersion()))
            .append(",\"jvm_arguments\":");
        appendValue(json, environment.jvmArguments());
        json.append(",\"cpu_model\":").append(quote(environment.cpuModel()))
            .append(",\"online_cores\":").append(environment.onlineCores())
            .append(",\"kernel\":").append(quote(environment.kernel()))
            .append(",\"gc_count\":").append(environment.gcCount())
            .append(",\"gc_time_ms\":").append(environment.gcTimeMs())
            .append(",\"histograms\":[");
        for (int i = 0; i < run.histograms().size(); i++)
        {
            final RecordedHistogram recorded = run.histograms().get(i);
            json.append(i == 0 ? "" : ",")
                .append("{\"name\":").append(quote(recorded.name()))
                .append(",\"label\":").append(quote(recorded.label()))
                .append(",\"count\":").append(recorded.histogram().getTotalCount())
                .append(",\"hdr\":").append(quote(ResultsWriter.hdrFile(recorded)))
                .append(",\"hgrm\":").append(quote(ResultsWriter.hgrmFile(recorded)))
                .append(",\"plot\":").append(plotsDrawn ? quote(ResultsWriter.plotFile(recorded.group())) : "null")
                .append('}');
        }
        json.append("],\"results\":").append(null == run.resultJson() ? "null" : run.resultJson().strip());
        return json.append('}').toString();
    }

    private static void appendRecord(final StringBuilder json, final Record record)
    {
        json.append('{');
        final RecordComponent[] components = record.getClass().getRecordComponents();
        for (int i = 0; i < components.length; i++)
        {
            json.append(i == 0 ? "" : ",").append(quote(components[i].getName())).append(':');
            try
            {
                components[i].getAccessor().setAccessible(true);
                appendValue(json, components[i].getAccessor().invoke(record));
            }
            catch (final IllegalAccessException | InvocationTargetException ex)
            {
                json.append("null");
            }
        }
        json.append('}');
    }

    private static void appendValue(final StringBuilder json, final Object value)
    {
        switch (value)
        {
            case null -> json.append("null");
            case Boolean flag -> json.append(flag);
            case Integer number -> json.append(number);
            case Long number -> json.append(number);
            case Double number -> json.append(Double.isFinite(number) ?
                String.format(Locale.ROOT, "%.6g", number) : "null");
            case Record nested -> appendRecord(json, nested);
            case List<?> list ->
            {
                json.append('[');
                for (int i = 0; i < list.size(); i++)
                {
                    if (i > 0)
                    {
                        json.append(',');
                    }
                    appendValue(json, list.get(i));
                }
                json.append(']');
            }
            default -> json.append(quote(value.toString()));
        }
    }

    /**
     * @param text any text.
     * @return it as a JSON string, quoted and escaped.
     */
    static String quote(final String text)
    {
        return JsonText.quote(text);
    }
}
