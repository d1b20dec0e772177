package io.ringwire.perf.exchange;

import io.ringwire.perf.host.ThreadAllocation;
import io.ringwire.perf.output.JsonText;

import java.util.List;
import java.util.Locale;

/**
 * Formats what {@code ringwire perf matching} measured: a table for people, or one JSON object for
 * tools, times in nanoseconds:
 *
 * <pre>
 * {"benchmark":"matching","threads":"...","rounds":5,"results":[
 *   {"instruments":1,"orders":N,"prefill":P,"book_orders":1000,"seed":1,
 *    "orders_per_second":..,"orders_per_second_lowest":..,"orders_per_second_highest":..,
 *    "p50_ns":..,"p99_ns":..,"p99_9_ns":..,"max_ns":..,"mean_ns":..,"timer_ns":..,
 *    "fixed_rate":{"offered_per_second":1000000,"achieved_per_second":..,"p50_ns":..,"p99_ns":..,
 *      "p99_9_ns":..,"max_ns":..},
 *    "mix":{"new GTC":0.09,...},"trading_share":..,"trading_share_by_kind":{"new GTC":..,...},
 *    "resting_per_book":..,"levels_per_book":..,
 *    "by_kind":[{"kind":"move","count":..,"p50_ns":..,"p99_ns":..,"mean_ns":..,"time_share":..},...],
 *    "digest_ns_per_order":..,"output_messages_per_order":..,"output_bytes_per_order":..,
 *    "check_ns_per_order":..,"allocated_bytes":0,"jit_ms":0}, ...]}
 * </pre>
 *
 * {@code orders_per_second} and the {@code p*_ns} of a result are its headline figures: the median
 * over the rounds of the back-to-back throughput and of the per-apply service time percentiles.
 */
public final class MatchingReport
{
    private MatchingReport()
    {
    }

    /**
     * @param results what was measured.
     * @param threads the thread layout, in words.
     * @return a table for people, lines ending in '\n'.
     */
    public static String table(final List<MatchingResult> results, final String threads)
    {
        final StringBuilder out = new StringBuilder(2048);
        out.append("matching: MatchingEngine.applyChecked alone on a recorded flow (exchange-core's benchmark mix), output ")
            .append("discarded, not hashed (the digest agent's work, shown apart)\n")
            .append("threads: ").append(threads).append('\n');
        for (final MatchingResult result : results)
        {
            appendCase(out, result);
        }
        return out.toString();
    }

    private static void appendCase(final StringBuilder out, final MatchingResult result)
    {
        final MatchingResult.FlowSummary flow = result.flow();
        final double nsPerOrder = 1e9 / result.ordersPerSecond().median();
        out.append(String.format(Locale.ROOT, "%n%d instrument%s: %,d requests measured per run, median of %d round%s%n",
            result.instruments(), result.instruments() == 1 ? "" : "s", flow.measured(), result.rounds(),
            result.rounds() == 1 ? "" : "s"));
        out.append("  flow        ");
        for (final RequestKind kind : RequestKind.ALL)
        {
            out.append(kind == RequestKind.NEW_GTC ? "" : ", ").append(kind.label()).append(' ')
                .append(percent(flow.shares()[kind.ordinal()]));
        }
        out.append("; ").append(percent(flow.tradingShare())).append(" of requests trade (");
        for (final RequestKind kind : RequestKind.ALL)
        {
            out.append(kind == RequestKind.NEW_GTC ? "" : ", ").append(kind.label()).append(' ')
                .append(percent(flow.tradingShares()[kind.ordinal()]));
        }
        out.append(" of each)\n");
        out.append(String.format(Locale.ROOT, "              books of %.0f resting orders (target %d) on %.0f price " +
            "levels; %.1f bytes of SBE a request; %,d requests filled them first (seed %d)%n", flow.restingPerBook(),
            flow.bookOrders(), flow.levelsPerBook(), flow.bytesPerRequest(), flow.prefill(), flow.seed()));
        out.append(String.format(Locale.ROOT, "  throughput  %.2f M orders/s (rounds %.2f-%.2f): %.1f ns a request, " +
            "back to back%n", result.ordersPerSecond().median() / 1e6, result.ordersPerSecond().lowest() / 1e6,
            result.ordersPerSecond().highest() / 1e6, nsPerOrder));
        final MatchingResult.Percentiles service = result.service();
        out.append(String.format(Locale.ROOT, "  service     p50 %,d  p99 %,d  p99.9 %,d  max %,d ns (mean %.1f ns; each " +
            "apply between two clock reads, which alone read %d ns)%n", service.p50(), service.p99(), service.p99_9(),
            service.max(), result.serviceMeanNs(), result.timerNs()));
        out.append(String.format(Locale.ROOT, "  by request  %-12s %7s %8s %8s %8s %12s%n", "kind", "share", "p50",
            "p99", "mean", "of the time"));
        for (final MatchingResult.KindTimes times : result.byKind())
        {
            out.append(String.format(Locale.ROOT, "              %-12s %7s %8d %8d %8.1f %12s%n", times.kind().label(),
                percent(flow.shares()[times.kind().ordinal()]), times.p50(), times.p99(), times.meanNs(),
                percent(times.timeShare())));
        }
        final MatchingResult.FixedRate fixed = result.fixedRate();
        out.append(String.format(Locale.ROOT, "  fixed rate  %,d/s offered (%,.0f/s done), from due time to done: " +
            "p50 %,d  p99 %,d  p99.9 %,d  max %,d ns%n", fixed.offeredPerSecond(), fixed.achievedPerSecond(),
            fixed.latency().p50(), fixed.latency().p99(), fixed.latency().p99_9(), fixed.latency().max()));
        out.append(String.format(Locale.ROOT, "  floor       the same schedule applying nothing (this thread and machine " +
            "alone): p50 %,d  p99 %,d  p99.9 %,d  max %,d ns%n", fixed.floor().p50(), fixed.floor().p99(),
            fixed.floor().p99_9(), fixed.floor().max()));
        out.append(String.format(Locale.ROOT, "  late        over %,d ns from due time: %s of requests at the rate, %s in " +
            "the floor (a p99 within it needs under 1%%)%n", MatchingResult.FixedRate.LATE_NS,
            precisePercent(fixed.lateShare()), precisePercent(fixed.floorLateShare())));
        out.append(String.format(Locale.ROOT, "  digest      on the digest agent's thread, not the engine's: SHA-256 of " +
            "%.2f messages, %.0f bytes a request: %.1f ns a request%n", result.outputMessagesPerOrder(),
            result.outputBytesPerOrder(), result.digestNsPerOrder()));
        out.append(String.format(Locale.ROOT, "  validation  MatchingEngine.check on its own: %.1f ns a request%n",
            result.checkNsPerOrder()));
        out.append(String.format(Locale.ROOT, "  checks      %s allocated and %s of JIT compilation in the measured " +
            "passes; every replay left the same books and sent as many messages%n", bytes(result.allocatedBytes()),
            result.jitMs() == ThreadAllocation.UNKNOWN ? "unknown" : result.jitMs() + " ms"));
    }

    /**
     * @param results what was measured.
     * @param threads the thread layout, in words.
     * @param rounds  measured rounds.
     * @return one line of JSON, no trailing newline.
     */
    public static String json(final List<MatchingResult> results, final String threads, final int rounds)
    {
        final StringBuilder json = new StringBuilder(1024);
        json.append("{\"benchmark\":\"matching\",\"threads\":").append(JsonText.quote(threads))
            .append(",\"rounds\":").append(rounds)
            .append(",\"results\":");
        JsonText.appendArray(json, results, MatchingReport::appendResult);
        return json.append('}').toString();
    }

    private static void appendResult(final StringBuilder json, final MatchingResult result)
    {
        final MatchingResult.FlowSummary flow = result.flow();
        json.append("{\"instruments\":").append(result.instruments())
            .append(",\"orders\":").append(flow.measured())
            .append(",\"prefill\":").append(flow.prefill())
            .append(",\"book_orders\":").append(flow.bookOrders())
            .append(",\"seed\":").append(flow.seed())
            .append(",\"orders_per_second\":").append(Math.round(result.ordersPerSecond().median()))
            .append(",\"orders_per_second_lowest\":").append(Math.round(result.ordersPerSecond().lowest()))
            .append(",\"orders_per_second_highest\":").append(Math.round(result.ordersPerSecond().highest()));
        appendPercentiles(json, result.service());
        json.append(",\"mean_ns\":").append(decimal(result.serviceMeanNs()))
            .append(",\"timer_ns\":").append(result.timerNs());
        final MatchingResult.FixedRate fixed = result.fixedRate();
        json.append(",\"fixed_rate\":{\"offered_per_second\":").append(fixed.offeredPerSecond())
            .append(",\"achieved_per_second\":").append(Math.round(fixed.achievedPerSecond()));
        appendPercentiles(json, fixed.latency());
        json.append(",\"floor\":{\"offered_per_second\":").append(fixed.offeredPerSecond());
        appendPercentiles(json, fixed.floor());
        json.append("},\"late_ns\":").append(MatchingResult.FixedRate.LATE_NS)
            .append(",\"late_share\":").append(String.format(Locale.ROOT, "%.5f", fixed.lateShare()))
            .append(",\"floor_late_share\":").append(String.format(Locale.ROOT, "%.5f", fixed.floorLateShare()));
        json.append("},\"mix\":");
        appendByKind(json, flow.shares());
        json.append(",\"trading_share\":").append(String.format(Locale.ROOT, "%.4f", flow.tradingShare()))
            .append(",\"trading_share_by_kind\":");
        appendByKind(json, flow.tradingShares());
        json
            .append(",\"resting_per_book\":").append(decimal(flow.restingPerBook()))
            .append(",\"levels_per_book\":").append(decimal(flow.levelsPerBook()))
            .append(",\"by_kind\":");
        JsonText.appendArray(json, result.byKind(), (out, times) -> out
            .append("{\"kind\":").append(JsonText.quote(times.kind().label()))
            .append(",\"count\":").append(times.count())
            .append(",\"p50_ns\":").append(times.p50())
            .append(",\"p99_ns\":").append(times.p99())
            .append(",\"mean_ns\":").append(decimal(times.meanNs()))
            .append(",\"time_share\":").append(String.format(Locale.ROOT, "%.4f", times.timeShare()))
            .append('}'));
        json.append(",\"digest_ns_per_order\":").append(decimal(result.digestNsPerOrder()))
            .append(",\"output_messages_per_order\":").append(String.format(Locale.ROOT, "%.3f",
                result.outputMessagesPerOrder()))
            .append(",\"output_bytes_per_order\":").append(decimal(result.outputBytesPerOrder()))
            .append(",\"check_ns_per_order\":").append(decimal(result.checkNsPerOrder()))
            .append(",\"allocated_bytes\":").append(result.allocatedBytes())
            .append(",\"jit_ms\":").append(result.jitMs())
            .append('}');
    }

    /** Appends {@code {"new GTC":0.0900,...}}: a fraction for each {@link RequestKind}. */
    private static void appendByKind(final StringBuilder json, final double[] byOrdinal)
    {
        json.append('{');
        for (final RequestKind kind : RequestKind.ALL)
        {
            json.append(kind == RequestKind.NEW_GTC ? "" : ",").append(JsonText.quote(kind.label())).append(':')
                .append(String.format(Locale.ROOT, "%.4f", byOrdinal[kind.ordinal()]));
        }
        json.append('}');
    }

    private static void appendPercentiles(final StringBuilder json, final MatchingResult.Percentiles percentiles)
    {
        json.append(",\"p50_ns\":").append(percentiles.p50())
            .append(",\"p99_ns\":").append(percentiles.p99())
            .append(",\"p99_9_ns\":").append(percentiles.p99_9())
            .append(",\"max_ns\":").append(percentiles.max());
    }

    private static String percent(final double fraction)
    {
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }

    /** A share to two decimals of a percent: the late shares sit near 1%, where one decimal hides the answer. */
    private static String precisePercent(final double fraction)
    {
        return String.format(Locale.ROOT, "%.2f%%", fraction * 100);
    }

    private static String decimal(final double value)
    {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static String bytes(final long bytes)
    {
        return bytes == ThreadAllocation.UNKNOWN ? "unknown bytes" : bytes + " bytes";
    }
}
