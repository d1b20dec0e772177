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
     * Writes the results directory and says where it is on {@code err}; where this JVM cannot draw
     * plots, says so first, once, and writes everything else.
     *
     * @param benchmark  the subcommand ("rtt").
     * @param args       its arguments, as given.
     * @param options    its parsed options.
     * @param out        the directory {@code --out} named, or null for the default.
     * @param text       the table it printed.
     * @param json       its JSON.
     * @param histograms its histograms.
     * @param plots      the plots it adds beside the percentile plots.
     * @param err        where the directory is named.
     * @return the directory written.
     * @throws IOException when a file cannot be written.
     */
    public static Path write(final String benchmark, final String[] args, final Record options, final String out,
        final String text, final String json, final List<RecordedHistogram> histograms, final List<ExtraPlot> plots,
        final PrintStream err) throws IOException
    {
        return write(new BenchmarkRun(benchmark, Arrays.asList(args), options, text, json, histograms,
            RunEnvironment.capture(), plots), out, err, PlotGate.jvm());
    }

    /**
     * @param run  what ran.
     * @param out  the directory {@code --out} named, or null for the default.
     * @param err  where the directory is named, and where the plots are said to be skipped.
     * @param gate whether plots can be drawn.
     * @return the directory written.
     * @throws IOException when a file cannot be written.
     */
    static Path write(final BenchmarkRun run, final String out, final PrintStream err, final PlotGate gate)
        throws IOException
    {
        final Path directory = null != out ? Path.of(out) :
            ResultsWriter.defaultDirectory(RunEnvironment.repository(), LocalDateTime.now());
        if (!gate.canDraw() && run.hasPlots())
        {
            err.println(gate.skippedLine(run.benchmark()));
        }
        ResultsWriter.write(directory, run, gate);
        err.println(run.benchmark() + ": results in " + directory.resolve(ResultsWriter.RESULTS_MD));
        return directory;
    }
}
