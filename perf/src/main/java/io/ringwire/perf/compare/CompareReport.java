package io.ringwire.perf.compare;

import io.ringwire.perf.output.JsonText;
import io.ringwire.perf.rtt.RttJson;
import io.ringwire.perf.rtt.RttRatio;
import io.ringwire.perf.rtt.RttResult;
import io.ringwire.perf.rtt.RttRounds;
import io.ringwire.perf.rtt.RttTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * What {@code ringwire perf compare} measured: every row of every round, and per pair the median of
 * its per-round p50 ratios. A ratio is read within a round, where both sides ran moments apart, so a
 * host that moves between fast and slow phases sways one reading of it, not its median. Pure: no
 * clock, no I/O.
 *
 * @param size        bytes per message asked for (--size).
 * @param messages    recorded round trips per row.
 * @param warmup      unrecorded round trips per row.
 * @param processes   1 or 2.
 * @param comparisons the pairs compared, in order.
 * @param rounds      each round's rows, in the order the rounds ran.
 * @param notes       pairs or rows left out and why ("ibverbs: no RDMA device").
 */
public record CompareReport(int size, long messages, long warmup, int processes, List<Comparison> comparisons,
    List<List<RttResult>> rounds, List<String> notes)
{
    /**
     * Copies the lists.
     */
    public CompareReport
    {
        comparisons = List.copyOf(comparisons);
        rounds = rounds.stream().map(List::copyOf).toList();
        notes = List.copyOf(notes);
    }

    /**
     * One row over the rounds.
     *
     * @param provider  the transport.
     * @param api       its path.
     * @param size      bytes per message on it.
     * @param p50       median over the rounds of its p50, ns.
     * @param p99       median over the rounds of its p99, ns.
     * @param p50Values its p50 in each round, ns.
     * @param gcCount   garbage collections over all its rounds, in every process.
     */
    public record Row(String provider, String api, int size, double p50, double p99, double[] p50Values, long gcCount)
    {
    }

    /**
     * One pair's ratio over the rounds.
     *
     * @param label               which pair ({@link Comparison#label()}).
     * @param values              its p50 ratio in each round that ran both sides.
     * @param rounds              the round (from 1) each value was read in: a round missing one side
     *                            has no value, so the values' positions are not the rounds.
     * @param notComparableReason why its two sides are no fair pair on this host (aeron-udp whose
     *                            media driver cannot have CPUs of its own), or null when they are one.
     */
    public record Ratio(String label, double[] values, int[] rounds, String notComparableReason)
    {
        /**
         * A pair that is a fair one, read in every round from the first.
         *
         * @param label  which pair.
         * @param values its p50 ratio in each round.
         */
        public Ratio(final String label, final double[] values)
        {
            this(label, values, IntStream.rangeClosed(1, values.length).toArray(), null);
        }

        /**
         * @return whether its two sides are a fair pair on this host.
         */
        public boolean comparable()
        {
            return null == notComparableReason;
        }

        /**
         * @return the median of the readings (mean of the middle two for an even count; 0 for none).
         */
        public double median()
        {
            return RttRounds.median(values);
        }
    }

    /**
     * @return every row, in the order first run, with its medians over the rounds.
     */
    public List<Row> rows()
    {
        final Map<String, List<RttResult>> byRow = new LinkedHashMap<>();
        for (final List<RttResult> round : rounds)
        {
            for (final RttResult result : round)
            {
                byRow.computeIfAbsent(result.provider() + ' ' + result.api(), row -> new ArrayList<>()).add(result);
            }
        }
        final List<Row> rows = new ArrayList<>();
        for (final List<RttResult> row : byRow.values())
        {
            final RttResult first = row.getFirst();
            final double[] p50s = row.stream().mapToDouble(RttResult::p50).toArray();
            final double[] p99s = row.stream().mapToDouble(RttResult::p99).toArray();
            rows.add(new Row(first.provider(), first.api(), first.size(), RttRounds.median(p50s),
                RttRounds.median(p99s), p50s, row.stream().mapToLong(result -> result.gc().collections()).sum()));
        }
        return rows;
    }

    /**
     * @return each pair that ran in at least one round, with its reading in each such round, not
     *         comparable where a round's reading was not.
     */
    public List<Ratio> ratios()
    {
        final List<Ratio> ratios = new ArrayList<>();
        for (final Comparison comparison : comparisons)
        {
            final List<Double> values = new ArrayList<>();
            final List<Integer> readIn = new ArrayList<>();
            String notComparableReason = null;
            for (int round = 0; round < rounds.size(); round++)
            {
                final RttRatio reading = comparison.readingIn(rounds.get(round));
                if (null != reading)
                {
                    values.add(reading.ratio());
                    readIn.add(round + 1);
                    notComparableReason = reading.comparable() ? notComparableReason : reading.notComparableReason();
                }
            }
            if (!values.isEmpty())
            {
                ratios.add(new Ratio(comparison.label(), values.stream().mapToDouble(Double::doubleValue).toArray(),
                    readIn.stream().mapToInt(Integer::intValue).toArray(),
                    notComparableReason));
            }
        }
        return ratios;
    }

    /**
     * @return the rows, the ratios and the notes as text tables.
     */
    public String table()
    {
        final StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "compare: %d round(s), %d measured + %d warm-up round trips per row, " +
            "%d process(es), --size %d%n%n", rounds.size(), messages, warmup, processes, size));
        text.append(String.format(Locale.ROOT, "%-15s %-10s %6s %12s %12s %4s%n", "provider", "api", "size", "p50 ns",
            "p99 ns", "gc"));
        for (final Row row : rows())
        {
            text.append(String.format(Locale.ROOT, "%-15s %-10s %6d %12.0f %12.0f %4d%n", row.provider(), row.api(),
                row.size(), row.p50(), row.p99(), row.gcCount()));
        }
        text.append(String.format(Locale.ROOT, "%n%-36s %8s  %s%n", "ratio (p50 / p50)", "median", "per round"));
        for (final Ratio ratio : ratios())
        {
            // A round that did not read the pair shows "-", so each column stays its round.
            final StringBuilder values = new StringBuilder();
            int next = 0;
            for (int round = 1; round <= rounds.size(); round++)
            {
                final boolean read = next < ratio.rounds().length && ratio.rounds()[next] == round;
                values.append(values.isEmpty() ? "" : " ")
                    .append(read ? String.format(Locale.ROOT, "%.3g", ratio.values()[next++]) : "-");
            }
            text.append(String.format(Locale.ROOT, "%-36s %7.3gx  %s%s%n", ratio.label(), ratio.median(), values,
                RttTable.notComparable(ratio.notComparableReason())));
        }
        if (!notes.isEmpty())
        {
            text.append(System.lineSeparator());
            for (final String note : notes)
            {
                text.append("note: ").append(note).append(System.lineSeparator());
            }
        }
        text.append(System.lineSeparator()).append("p50, p99: medians over the rounds of each row's percentiles; ")
            .append("a ratio is read once per round (1.07x: 7% slower than the alternative) and summarised by its ")
            .append("median; gc: garbage collections while the row measured, over its rounds, every process")
            .append(System.lineSeparator());
        return text.toString();
    }

    /**
     * @return one JSON object: the settings, {@code rows} (one object per row, values in ns),
     *         {@code ratios} (one object per pair: label, median, per-round values, {@code comparable}
     *         and, where false, the {@code reason}) and {@code notes}.
     */
    public String json()
    {
        final StringBuilder json = new StringBuilder("{\"benchmark\":\"compare\"")
            .append(",\"size\":").append(size)
            .append(",\"messages\":").append(messages)
            .append(",\"warmup\":").append(warmup)
            .append(",\"processes\":").append(processes)
            .append(",\"rounds\":").append(rounds.size())
            .append(",\"rows\":");
        JsonText.appendArray(json, rows(), (out, row) -> out.append("{\"provider\":").append(JsonText.quote(row.provider()))
            .append(",\"api\":").append(JsonText.quote(row.api()))
            .append(",\"size\":").append(row.size())
            .append(",\"p50\":").append(number(row.p50()))
            .append(",\"p99\":").append(number(row.p99()))
            .append(",\"p50_values\":").append(numbers(row.p50Values()))
            .append(",\"gc_collections\":").append(row.gcCount())
            .append('}'));
        json.append(",\"ratios\":");
        JsonText.appendArray(json, ratios(), (out, ratio) -> RttJson.appendComparable(out
            .append("{\"label\":").append(JsonText.quote(ratio.label()))
            .append(",\"median\":").append(number(ratio.median()))
            .append(",\"values\":").append(numbers(ratio.values()))
            .append(",\"rounds\":").append(Arrays.toString(ratio.rounds()).replace(" ", "")),
            ratio.notComparableReason())
            .append('}'));
        json.append(",\"notes\":");
        JsonText.appendArray(json, notes, (out, note) -> out.append(JsonText.quote(note)));
        return json.append('}').toString();
    }

    private static String numbers(final double[] values)
    {
        final StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < values.length; i++)
        {
            text.append(i > 0 ? "," : "").append(number(values[i]));
        }
        return text.append(']').toString();
    }

    private static String number(final double value)
    {
        return String.format(Locale.ROOT, "%.4f", value);
    }
}
