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
 */
public record BenchmarkRun(
    String benchmark,
    List<String> arguments,
    Record options,
    String resultText,
    String resultJson,
    List<RecordedHistogram> histograms,
    RunEnvironment environment)
{
    /**
     * Copies the lists.
     */
    public BenchmarkRun
    {
        arguments = List.copyOf(arguments);
        histograms = List.copyOf(histograms);
    }
}
