package io.ringwire.perf.output;

import java.util.List;

/**
 * What a benchmark run leaves for its results directory.
 *
 * @param benchmark   its name ("rtt").
 * @param arguments   its command-line arguments, as given.
 * @param options     its parsed options: a record, whose components become summary.json's
 *                    "options".
 * @param resultText  the table it printed, for results.md.
 * @param resultJson  the JSON it prints with --json, embedded in summary.json as "results"; null
 *                    when it has none.
 * @param histograms  its histograms, one set of files each.
 * @param environment where it ran.
 * @param plots       the plots it adds beside the percentile plots, in order.
 */
public record BenchmarkRun(
    String benchmark,
    List<String> arguments,
    Record options,
    String resultText,
    String resultJson,
    List<RecordedHistogram> histograms,
    RunEnvironment environment,
    List<ExtraPlot> plots)
{
    /**
     * Copies the lists.
     */
    public BenchmarkRun
    {
        arguments = List.copyOf(arguments);
        histograms = List.copyOf(histograms);
        plots = List.copyOf(plots);
    }

    /**
     * @return whether it has anything to plot: histograms, or plots of its own.
     */
    public boolean hasPlots()
    {
        return !histograms.isEmpty() || !plots.isEmpty();
    }

    /**
     * A run with its percentile plots only.
     *
     * @param benchmark   its name.
     * @param arguments   its command-line arguments.
     * @param options     its parsed options.
     * @param resultText  the table it printed.
     * @param resultJson  its JSON, or null.
     * @param histograms  its histograms.
     * @param environment where it ran.
     */
    public BenchmarkRun(final String benchmark, final List<String> arguments, final Record options,
        final String resultText, final String resultJson, final List<RecordedHistogram> histograms,
        final RunEnvironment environment)
    {
        this(benchmark, arguments, options, resultText, resultJson, histograms, environment, List.of());
    }
}
