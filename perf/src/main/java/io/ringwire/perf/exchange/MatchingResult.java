package io.ringwire.perf.exchange;

import io.ringwire.perf.host.ThreadAllocation;
import org.HdrHistogram.Histogram;

import java.util.List;

/**
 * What {@code ringwire perf matching} measured on one instrument count. Figures over rounds are
 * each the median of the rounds' figures; times are nanoseconds.
 *
 * @param instruments      instruments (books).
 * @param flow             the flow: its size, mix and books.
 * @param rounds           measured rounds.
 * @param ordersPerSecond  back-to-back throughput: median, lowest and highest round.
 * @param service          each apply timed on its own: percentiles (medians over rounds).
 * @param serviceMeanNs    the mean service time (median over rounds), the clock reads included.
 * @param timerNs          two clock reads with nothing between them, p50: the clock's share of a service time.
 * @param byKind           service times by request kind, all rounds together.
 * @param fixedRate        the fixed-rate run.
 * @param digestNsPerOrder {@link io.ringwire.exchange.engine.OutputDigest#update} alone over the output
 *                         of one measured request, on average.
 * @param outputMessagesPerOrder messages the engine sends per measured request.
 * @param outputBytesPerOrder    bytes the engine sends per measured request.
 * @param checkNsPerOrder  {@link io.ringwire.exchange.engine.MatchingEngine#check} (validation) alone, per request.
 * @param allocatedBytes   bytes the benchmark thread allocated in all measured passes, or
 *                         {@link ThreadAllocation#UNKNOWN}.
 * @param jitMs            milliseconds the JIT compiled during measured passes, or {@link ThreadAllocation#UNKNOWN}.
 */
public record MatchingResult(
    int instruments,
    FlowSummary flow,
    int rounds,
    Spread ordersPerSecond,
    Percentiles service,
    double serviceMeanNs,
    long timerNs,
    List<KindTimes> byKind,
    FixedRate fixedRate,
    double digestNsPerOrder,
    double outputMessagesPerOrder,
    double outputBytesPerOrder,
    double checkNsPerOrder,
    long allocatedBytes,
    long jitMs)
{
    /**
     * The flow a case replayed.
     *
     * @param measured        measured requests.
     * @param prefill         requests that filled the books first.
     * @param bookOrders      resting orders per book the flow keeps.
     * @param seed            its seed.
     * @param shares          the measured requests' share of each {@link RequestKind}, by ordinal.
     * @param tradingShares   the share of the measured requests of each kind that traded, by ordinal.
     * @param tradingShare    the share of measured requests that traded.
     * @param restingPerBook  resting orders per book, averaged over the measured requests.
     * @param levelsPerBook   price levels per book at the end.
     * @param bytesPerRequest SBE bytes per measured request.
     */
    record FlowSummary(int measured, int prefill, int bookOrders, long seed, double[] shares, double[] tradingShares,
        double tradingShare,
        double restingPerBook, double levelsPerBook, double bytesPerRequest)
    {
        static FlowSummary of(final RecordedFlow flow, final int bookOrders, final long seed)
        {
            final double[] shares = new double[RequestKind.ALL.length];
            final double[] tradingShares = new double[RequestKind.ALL.length];
            for (final RequestKind kind : RequestKind.ALL)
            {
                shares[kind.ordinal()] = flow.share(kind);
                tradingShares[kind.ordinal()] = flow.tradingShare(kind);
            }
            return new FlowSummary(flow.measured(), flow.prefill(), bookOrders, seed, shares, tradingShares,
                flow.tradingCount() / (double)flow.measured(), flow.restingPerBook(), flow.levelsPerBook(),
                flow.measuredBytes() / (double)flow.measured());
        }
    }

    /**
     * A figure over rounds.
     *
     * @param median  the median round's.
     * @param lowest  the lowest round's.
     * @param highest the highest round's.
     */
    record Spread(double median, double lowest, double highest)
    {
    }

    /**
     * Percentiles of a latency, each HdrHistogram's highest equivalent value.
     *
     * @param p50   median.
     * @param p99   99th percentile.
     * @param p99_9 99.9th percentile.
     * @param max   the largest.
     */
    record Percentiles(long p50, long p99, long p99_9, long max)
    {
        static Percentiles of(final Histogram histogram)
        {
            return new Percentiles(histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(99),
                histogram.getValueAtPercentile(99.9), histogram.getMaxValue());
        }
    }

    /**
     * Service times of one kind of request.
     *
     * @param kind      the kind.
     * @param count     requests timed (all rounds).
     * @param p50       median.
     * @param p99       99th percentile.
     * @param meanNs    mean.
     * @param timeShare its share of all the service time.
     */
    record KindTimes(RequestKind kind, long count, long p50, long p99, double meanNs, double timeShare)
    {
    }

    /**
     * The fixed-rate run.
     *
     * @param offeredPerSecond  requests offered a second.
     * @param achievedPerSecond requests done a second, first due time to last completion (median).
     * @param latency           from due time to completion: percentiles (medians over rounds).
     * @param floor             the same schedule with nothing applied, from due time to the clock
     *                          read after it: what the thread and the machine put under the latency
     *                          (percentiles, medians over rounds).
     * @param lateShare         the share of requests done more than {@link #LATE_NS} after their due
     *                          time (median over rounds): under 1% is a p99 within it.
     * @param floorLateShare    the same share in the floor: what the machine alone makes late.
     */
    record FixedRate(long offeredPerSecond, double achievedPerSecond, Percentiles latency, Percentiles floor,
        double lateShare, double floorLateShare)
    {
        /** The fixed-rate p99 the engine is held to: a request later than this is late. */
        static final long LATE_NS = 2_000;

        /** @return the share of a histogram's values above {@link #LATE_NS}. */
        static double lateShare(final Histogram histogram)
        {
            return histogram.getTotalCount() == 0 ? 0 :
                1 - histogram.getPercentileAtOrBelowValue(LATE_NS) / 100.0;
        }
    }
}
