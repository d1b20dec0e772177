package io.ringwire.perf.output;

import java.util.Collection;

/**
 * Writes a run's {@code results.md}: what ran, where, its table, its plots, and a link to every file
 * of the directory, so the directory reads on its own in a browser or a repository viewer.
 */
final class ResultsMarkdown
{
    private ResultsMarkdown()
    {
    }

    /**
     * @param run    what ran.
     * @param groups the percentile plots' groups, in order.
     * @param gate   whether the plots were drawn: where not, the page says why instead of linking them.
     * @return the Markdown text, lines ending in '\n'.
     */
    static String format(final BenchmarkRun run, final Collection<String> groups, final PlotGate gate)
    {
        final RunEnvironment environment = run.environment();
        final StringBuilder md = new StringBuilder(2048);
        md.append("# perf ").append(run.benchmark()).append("\n\n")
            .append("Command: `ringwire perf ").append(run.benchmark());
        for (final String argument : run.arguments())
        {
            md.append(' ').append(argument);
        }
        md.append("`\n\n")
            .append("- revision: `").append(environment.gitRevision()).append("`\n")
            .append("- JVM: ").append(environment.jvmVersion()).append('\n')
            .append("- JVM flags: `").append(String.join(" ", environment.jvmArguments())).append("`\n")
            .append("- CPU: ").append(environment.cpuModel()).append(", ").append(environment.onlineCores())
            .append(" online core(s)\n")
            .append("- kernel: ").append(environment.kernel()).append('\n')
            .append("- GC: ").append(environment.gcCount()).append(" collection(s), ").append(environment.gcTimeMs())
            .append(" ms in this JVM\n\n");
        if (null != run.resultText())
        {
            md.append("## Result\n\n```text\n").append(run.resultText().stripTrailing()).append("\n```\n\n");
        }
        if (!gate.canDraw() && run.hasPlots())
        {
            md.append("## Plots\n\nNot drawn: ").append(gate.explanation()).append(".\n\n");
        }
        else
        {
            appendPlots(md, run, groups);
        }
        if (!run.histograms().isEmpty())
        {
            md.append("## Histograms\n\n")
                .append("| histogram | count | interval log | percentile distribution (us) |\n")
                .append("|---|---|---|---|\n");
            for (final RecordedHistogram recorded : run.histograms())
            {
                md.append("| ").append(recorded.label()).append(" | ").append(recorded.histogram().getTotalCount())
                    .append(" | ").append(link(ResultsWriter.hdrFile(recorded)))
                    .append(" | ").append(link(ResultsWriter.hgrmFile(recorded))).append(" |\n");
            }
            md.append('\n');
        }
        md.append("Configuration, machine and the benchmark's JSON: ").append(link(ResultsWriter.SUMMARY_JSON))
            .append('\n');
        return md.toString();
    }

    private static void appendPlots(final StringBuilder md, final BenchmarkRun run, final Collection<String> groups)
    {
        if (!run.histograms().isEmpty())
        {
            md.append("## Plots\n\nLatency against percentile, log 1/(1-p) axis (90%, 99%, 99.9%, ...).\n\n")
                .append("![every histogram](").append(ResultsWriter.ALL_PLOT).append(")\n\n");
            for (final String group : groups)
            {
                md.append("- ").append(link(ResultsWriter.plotFile(group))).append('\n');
            }
            md.append('\n');
        }
        String heading = null;
        for (final ExtraPlot plot : run.plots())
        {
            if (!plot.heading().equals(heading))
            {
                heading = plot.heading();
                md.append("## ").append(heading).append("\n\n");
            }
            md.append("![").append(plot.file()).append("](").append(plot.file()).append(")\n\n");
        }
    }

    private static String link(final String file)
    {
        return "[" + file + "](" + file + ")";
    }
}
