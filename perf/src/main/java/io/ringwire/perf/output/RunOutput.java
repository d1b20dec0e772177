package io.ringwire.perf.output;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;

/**
 * Hands a finished benchmark to {@link ResultsWriter}: the glue between a subcommand's options and
 * the results directory, the same for every subcommand.
 */
public final class RunOutput
{
    private RunOutput()
    {
    }

    /**
     * Writes the results directory and says where it is on {@code err}.
     *
     * @param benchmark  the subcommand ("rtt").
     * @param args       its arguments, as given.
     * @param options    its parsed options.
     * @param out        the directory {@code --out} named, or null for the default.
     * @param text       the table it printed.
     * @param json       its JSON.
     * @param histograms its histograms.
     * @param err        where the directory is named.
     * @return the directory written.
     * @throws IOException when a file cannot be written.
     */
    public static Path write(final String benchmark, final String[] args, final Record options, final String out,
        final String text, final String json, final List<RecordedHistogram> histograms, final PrintStream err)
        throws IOException
    {
        final Path directory = null != out ? Path.of(out) :
            ResultsWriter.defaultDirectory(Path.of("").toAbsolutePath(), LocalDateTime.now());
        ResultsWriter.write(directory, new BenchmarkRun(benchmark, Arrays.asList(args), options, text, json,
            histograms, RunEnvironment.capture()));
        err.println(benchmark + ": results in " + directory.resolve(ResultsWriter.RESULTS_MD));
        return directory;
    }
}
