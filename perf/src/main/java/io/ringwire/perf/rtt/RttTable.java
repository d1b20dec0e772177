package io.ringwire.perf.rtt;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Formats an {@link RttReport} as a text table for people: one row per transport and path, latencies
 * in microseconds with 3 decimals, the median relative to the first row, and footnotes comparing each
 * RDMA provider's messaging path with its bare channel, and its channel with its raw NIO baseline.
 */
public final class RttTable
{
    /** How a ratio of a pair that is no fair one on this host is marked. */
    public static final String NOT_COMPARABLE = "not comparable here";
    private static final String[] HEADER = {
        "provider", "api", "processes", "size", "messages", "p50", "p90", "p99", "p99.9", "p99.99", "max", "mean",
        "ratio", "cpus", "gc" };
    private static final String COLUMN_GAP = "  ";
    private RttTable()
    {
    }

    /**
     * @param report what was measured.
     * @return the table, its title and footnotes, lines ending in '\n'.
     */
    public static String format(final RttReport report)
    {
        final List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        final double firstP50 = report.results().isEmpty() ? 0 : report.results().getFirst().p50();
        for (final RttResult result : report.results())
        {
            rows.add(row(new String[] { result.provider(), result.api(), Integer.toString(result.processes()),
                Integer.toString(result.size()), Long.toString(result.count()) }, result,
                firstP50 > 0 ? String.format(Locale.ROOT, "%.2fx", result.p50() / firstP50) : "-", cpus(result),
                Long.toString(result.gc().collections())));
        }

        final StringBuilder out = new StringBuilder();
        out.append("rtt: ").append(report.size()).append("-byte messages, ").append(report.messages())
            .append(" round trips measured after ").append(report.warmup()).append(" warm-up, ")
            .append(report.processes() == 1 ? "1 process (pinger and ponger threads)" :
                "2 processes (ponger in a child JVM)")
            .append("; latencies in microseconds (us)\n\n");
        appendAligned(out, rows);
        appendDueTimes(out, report);
        out.append('\n');
        if (!report.results().isEmpty())
        {
            final RttResult first = report.results().getFirst();
            out.append("ratio: p50 relative to the first row (").append(first.provider()).append(' ')
                .append(first.api()).append("); cpus: pinger/ponger CPU, '-' when unpinned; gc: garbage collections while the row ")
                .append("measured (after its warm-up), in every process; size: bytes per message ")
                .append("(a messaging LatencyProbe is at least ").append(LatencyProbeCodec.MIN_LENGTH).append(")\n");
            appendMessagingOverheads(out, report);
            appendBaselineRatios(out, report);
        }
        return out.toString();
    }

    /**
     * In an open loop ({@code --rate}), the rows above are the service time; this adds each row's
     * latencies from its messages' due times, which a stall charges to every message behind it.
     */
    private static void appendDueTimes(final StringBuilder out, final RttReport report)
    {
        final List<String[]> rows = new ArrayList<>();
        rows.add(new String[] { "provider", "api", "rate/s", "due p50", "p90", "p99", "p99.9", "p99.99", "max",
            "mean" });
        for (final RttResult result : report.results())
        {
            final RttDueTime due = result.dueTime();
            if (null != due)
            {
                rows.add(row(new String[] { result.provider(), result.api(), Long.toString(due.ratePerSecond()) },
                    due));
            }
        }
        if (rows.size() > 1)
        {
            out.append("\nopen loop: the rows above time each message from its send (service time); from its due " +
                "time (start + i / rate), us:\n\n");
            appendAligned(out, rows);
        }
    }

    /**
     * @return a row: {@code before}, the latencies in microseconds from p50 to the mean, then
     *         {@code after}.
     */
    private static String[] row(final String[] before, final RttPercentiles latencies, final String... after)
    {
        final double[] values = { latencies.p50(), latencies.p90(), latencies.p99(), latencies.p99_9(),
            latencies.p99_99(), latencies.max(), latencies.mean() };
        final String[] row = Arrays.copyOf(before, before.length + values.length + after.length);
        for (int i = 0; i < values.length; i++)
        {
            row[before.length + i] = micros(values[i]);
        }
        System.arraycopy(after, 0, row, before.length + values.length, after.length);
        return row;
    }

    /** "messaging over the channel at p50: shm 1.07x (+20 ns), ..." for each provider measured both ways. */
    private static void appendMessagingOverheads(final StringBuilder out, final RttReport report)
    {
        final StringBuilder overheads = new StringBuilder();
        for (final RttOverhead overhead : report.overheads())
        {
            overheads.append(overheads.isEmpty() ? "" : ", ").append(overhead.provider()).append(' ')
                .append(String.format(Locale.ROOT, "%.2fx (%+d ns)", overhead.ratio(), overhead.differenceNs()));
        }
        if (!overheads.isEmpty())
        {
            out.append("messaging over the channel at p50, same run: ").append(overheads).append('\n');
        }
    }

    /**
     * "p50 against its baseline: roce 1.07x nio-udp, ..." for each provider measured with its baseline,
     * a pair that is no fair one on this host marked with why.
     */
    private static void appendBaselineRatios(final StringBuilder out, final RttReport report)
    {
        final StringBuilder ratios = new StringBuilder();
        for (final RttRatio ratio : report.baselineRatios())
        {
            ratios.append(ratios.isEmpty() ? "" : ", ").append(ratio.provider())
                .append(Transports.API_MESSAGING.equals(ratio.api()) ? " messaging " : " ")
                .append(String.format(Locale.ROOT, "%.2fx", ratio.ratio())).append(' ')
                .append(ratio.baseline()).append(notComparable(ratio.notComparableReason()));
        }
        if (!ratios.isEmpty())
        {
            out.append("p50 against its raw baseline (RDMA providers over the channel unless named), same run: ")
                .append(ratios)
                .append('\n');
        }
    }

    /**
     * Formats a run of several rounds: each round's table under its number, then every ratio's
     * median over the rounds with its range and each round's reading, and each row's median p50.
     *
     * @param rounds what each round measured.
     * @return the text, lines ending in '\n'.
     */
    public static String format(final RttRounds rounds)
    {
        final StringBuilder out = new StringBuilder();
        final List<RttReport> reports = rounds.rounds();
        for (int round = 0; round < reports.size(); round++)
        {
            out.append("round ").append(round + 1).append(" of ").append(reports.size()).append(": ")
                .append(format(reports.get(round))).append('\n');
        }
        final List<RttRounds.Summary> summaries = rounds.ratioSummaries();
        if (!summaries.isEmpty())
        {
            out.append("p50 ratios over ").append(reports.size())
                .append(" rounds, each read within its round: median (lowest-highest: every round)\n");
            int width = 0;
            for (final RttRounds.Summary summary : summaries)
            {
                width = Math.max(width, summary.label().length());
            }
            for (final RttRounds.Summary summary : summaries)
            {
                out.append("  ").append(summary.label()).append(" ".repeat(width - summary.label().length()))
                    .append(String.format(Locale.ROOT, "  %.2fx (%.2f-%.2f:", summary.median(), summary.lowest(),
                        summary.highest()));
                for (final double value : summary.values())
                {
                    out.append(String.format(Locale.ROOT, " %.2f", value));
                }
                out.append(')').append(notComparable(summary.notComparableReason())).append('\n');
            }
        }
        final StringBuilder medians = new StringBuilder();
        for (final RttRounds.RowMedian row : rounds.rowMedians())
        {
            medians.append(medians.isEmpty() ? "" : ", ").append(row.provider()).append(' ').append(row.api())
                .append(' ').append(micros(row.p50()));
        }
        if (!medians.isEmpty())
        {
            out.append("p50 median over the rounds, us: ").append(medians).append('\n');
        }
        return out.toString();
    }

    /**
     * @param reason why a pair is no fair one here, or null.
     * @return " (not comparable here: reason)", or nothing for a fair pair.
     */
    public static String notComparable(final String reason)
    {
        return null == reason ? "" : " (" + NOT_COMPARABLE + ": " + reason + ")";
    }

    private static void appendAligned(final StringBuilder out, final List<String[]> rows)
    {
        final int[] widths = new int[HEADER.length];
        for (final String[] row : rows)
        {
            for (int column = 0; column < row.length; column++)
            {
                widths[column] = Math.max(widths[column], row[column].length());
            }
        }
        for (final String[] row : rows)
        {
            final StringBuilder line = new StringBuilder();
            for (int column = 0; column < row.length; column++)
            {
                if (column > 0)
                {
                    line.append(COLUMN_GAP);
                }
                final String padding = " ".repeat(widths[column] - row[column].length());
                // The provider and api names read best left-aligned, the numbers right-aligned.
                line.append(column <= 1 ? row[column] + padding : padding + row[column]);
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }

    /**
     * @param nanos a duration in ns.
     * @return it in microseconds with 3 decimals.
     */
    public static String micros(final double nanos)
    {
        return String.format(Locale.ROOT, "%.3f", nanos / 1000.0);
    }

    private static String cpus(final RttResult result)
    {
        return cpu(result.pingerCpu()) + "/" + cpu(result.pongerCpu());
    }

    private static String cpu(final int cpu)
    {
        return cpu == CpuPlan.UNPINNED ? "-" : Integer.toString(cpu);
    }
}
