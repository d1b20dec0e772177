package io.ringwire.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Formats an {@link RttReport} as a text table for people: one row per transport and path, latencies
 * in microseconds with 3 decimals, the median relative to the first row, and footnotes comparing each
 * RDMA provider's messaging path with its bare channel, and its channel with its raw NIO baseline.
 */
final class RttTable
{
    private static final String[] HEADER = {
        "provider", "api", "processes", "size", "messages", "p50", "p90", "p99", "p99.9", "p99.99", "max", "mean",
        "ratio", "cpus" };
    private static final String COLUMN_GAP = "  ";
    /**
     * Each RDMA provider's channel and the raw ping-pong over the same medium it is judged against;
     * then what roce's way of using sockets costs, roce against a ping-pong using them that way, and
     * shm's messaging against Aeron's IPC messaging (an optional third element names the provider's
     * path; the channel when absent).
     */
    private static final List<String[]> BASELINES = List.of(
        new String[] { RttOptions.ROCE, RttOptions.NIO_UDP }, new String[] { RttOptions.SOCKET, RttOptions.NIO_TCP },
        new String[] { RttOptions.NIO_UDP_UNCONNECTED, RttOptions.NIO_UDP },
        new String[] { RttOptions.ROCE, RttOptions.NIO_UDP_UNCONNECTED },
        new String[] { RttOptions.SHM, RttOptions.BARE }, new String[] { RttOptions.SHM, RttOptions.BARE_NOTIFIED },
        new String[] { RttOptions.SHM, RttOptions.AERON_IPC, RttOptions.API_MESSAGING });

    private RttTable()
    {
    }

    /**
     * @param report what was measured.
     * @return the table, its title and footnotes, lines ending in '\n'.
     */
    static String format(final RttReport report)
    {
        final List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        final double firstP50 = report.results().isEmpty() ? 0 : report.results().getFirst().p50();
        for (final RttResult result : report.results())
        {
            rows.add(new String[] {
                result.provider(),
                result.api(),
                Integer.toString(result.processes()),
                Integer.toString(result.size()),
                Long.toString(result.count()),
                micros(result.p50()),
                micros(result.p90()),
                micros(result.p99()),
                micros(result.p99_9()),
                micros(result.p99_99()),
                micros(result.max()),
                micros(result.mean()),
                firstP50 > 0 ? String.format(Locale.ROOT, "%.2fx", result.p50() / firstP50) : "-",
                cpus(result) });
        }

        final StringBuilder out = new StringBuilder();
        out.append("rtt: ").append(report.size()).append("-byte messages, ").append(report.messages())
            .append(" round trips measured after ").append(report.warmup()).append(" warm-up, ")
            .append(report.processes() == 1 ? "1 process (pinger and ponger threads)" :
                "2 processes (ponger in a child JVM)")
            .append("; latencies in microseconds (us)\n\n");
        appendAligned(out, rows);
        out.append('\n');
        if (!report.results().isEmpty())
        {
            final RttResult first = report.results().getFirst();
            out.append("ratio: p50 relative to the first row (").append(first.provider()).append(' ')
                .append(first.api()).append("); cpus: pinger/ponger CPU, '-' when unpinned; size: bytes per message ")
                .append("(a messaging LatencyProbe is at least ").append(LatencyProbeCodec.MIN_LENGTH).append(")\n");
            appendMessagingOverheads(out, report);
            appendBaselineRatios(out, report);
        }
        return out.toString();
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

    /** "p50 against its baseline: roce 1.07x nio-udp, ..." for each provider measured with its baseline. */
    private static void appendBaselineRatios(final StringBuilder out, final RttReport report)
    {
        final StringBuilder ratios = new StringBuilder();
        for (final String[] pair : BASELINES)
        {
            final String api = pair.length > 2 ? pair[2] :
                RttOptions.isRawBaseline(pair[0]) ? RttOptions.API_RAW : RttOptions.API_CHANNEL;
            final RttResult provider = report.find(pair[0], api);
            final RttResult baseline = report.find(pair[1], RttOptions.API_RAW);
            if (null != provider && null != baseline && baseline.p50() > 0)
            {
                ratios.append(ratios.isEmpty() ? "" : ", ").append(pair[0])
                    .append(RttOptions.API_MESSAGING.equals(api) ? " messaging " : " ")
                    .append(String.format(Locale.ROOT, "%.2fx", (double)provider.p50() / baseline.p50())).append(' ')
                    .append(pair[1]);
            }
        }
        if (!ratios.isEmpty())
        {
            out.append("p50 against its raw baseline (RDMA providers over the channel unless named), same run: ")
                .append(ratios)
                .append('\n');
        }
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
    static String micros(final double nanos)
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
