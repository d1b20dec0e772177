package io.ringwire.perf.rtt;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an {@code rtt} run of several rounds measured: the whole list of transports ran once per
 * round, one round after the other. A ratio is read within each round, where its two paths ran
 * minutes apart at most, and summarised by its median over the rounds: a host that moves between
 * fast and slow phases during a run then skews one reading of it, not the result.
 *
 * @param rounds one report per round, in the order they ran.
 */
public record RttRounds(List<RttReport> rounds)
{
    /**
     * Copies the list.
     */
    public RttRounds
    {
        rounds = List.copyOf(rounds);
    }

    /**
     * One ratio over the rounds.
     *
     * @param label               which ratio ({@link RttRatio#label()}).
     * @param values              its reading in each round that ran both paths, in round order.
     * @param notComparableReason why its two paths are no fair pair on this host, or null when they
     *                            are one.
     */
    public record Summary(String label, double[] values, String notComparableReason)
    {
        /**
         * @return the median of the readings (the mean of the middle two for an even count).
         */
        public double median()
        {
            return RttRounds.median(values);
        }

        /**
         * @return the lowest reading.
         */
        public double lowest()
        {
            return Arrays.stream(values).min().orElse(0);
        }

        /**
         * @return the highest reading.
         */
        public double highest()
        {
            return Arrays.stream(values).max().orElse(0);
        }
    }

    /**
     * One row's median p50 over the rounds.
     *
     * @param provider the transport.
     * @param api      its path.
     * @param p50      the median over the rounds of its p50, ns.
     */
    public record RowMedian(String provider, String api, double p50)
    {
    }

    /**
     * @return every ratio any round read (messaging over the channel, each provider against its raw
     *         baseline), in the order first read, with its reading in each round.
     */
    public List<Summary> ratioSummaries()
    {
        final Map<String, List<Double>> byLabel = new LinkedHashMap<>();
        final Map<String, String> notComparable = new LinkedHashMap<>();
        for (final RttReport report : rounds)
        {
            for (final RttRatio ratio : report.ratios())
            {
                byLabel.computeIfAbsent(ratio.label(), label -> new ArrayList<>()).add(ratio.ratio());
                if (!ratio.comparable())
                {
                    notComparable.putIfAbsent(ratio.label(), ratio.notComparableReason());
                }
            }
        }
        final List<Summary> summaries = new ArrayList<>();
        byLabel.forEach((label, values) ->
            summaries.add(new Summary(label, toArray(values), notComparable.get(label))));
        return summaries;
    }

    /**
     * @return each transport and path's median p50 over the rounds, in the order they ran.
     */
    public List<RowMedian> rowMedians()
    {
        final Map<String, List<RttResult>> byRow = new LinkedHashMap<>();
        for (final RttReport report : rounds)
        {
            for (final RttResult result : report.results())
            {
                byRow.computeIfAbsent(result.provider() + ' ' + result.api(), row -> new ArrayList<>()).add(result);
            }
        }
        final List<RowMedian> medians = new ArrayList<>();
        for (final List<RttResult> row : byRow.values())
        {
            final RttResult first = row.getFirst();
            medians.add(new RowMedian(first.provider(), first.api(),
                median(toArray(row.stream().map(result -> (double)result.p50()).toList()))));
        }
        return medians;
    }

    private static double[] toArray(final List<Double> values)
    {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * @param values readings, not changed.
     * @return their median: the middle one, or the mean of the middle two; 0 for none.
     */
    public static double median(final double[] values)
    {
        if (values.length == 0)
        {
            return 0;
        }
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int middle = sorted.length / 2;
        return (sorted.length & 1) == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
