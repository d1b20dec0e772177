package io.ringwire.rdma.roce;

import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the bad-input campaign sent and what the model said became of it, for the summary it prints
 * and for failure messages (the last datagrams, in hex).
 */
final class FuzzStatistics
{
    private static final int RECENT = 12;

    final long[][] verdictsByCategory = new long[FuzzDatagrams.CATEGORY_NAMES.length][
        FuzzResponderModel.VERDICT_NAMES.length];
    final long[] intactIcrcByCategory = new long[FuzzDatagrams.CATEGORY_NAMES.length];
    final long[] decisions = new long[FuzzVictim.DECISION_NAMES.length];
    /** Why generated datagrams were replaced before sending, and how often. */
    final Map<String, Long> steered = new TreeMap<>();
    long datagrams;
    long mutated;
    long responses;
    long acknowledgements;
    private final ArrayDeque<String> recent = new ArrayDeque<>();

    /** Counts a datagram about to be sent and remembers its first bytes. */
    void record(final FuzzDatagrams generated, final int verdict, final int decision, final FuzzRequester requester,
        final int length)
    {
        verdictsByCategory[generated.category][verdict]++;
        if (generated.icrcIntact)
        {
            intactIcrcByCategory[generated.category]++;
        }
        if (generated.mutated)
        {
            mutated++;
        }
        if (verdict == FuzzResponderModel.TO_VICTIM)
        {
            decisions[decision]++;
        }
        remember(requester, length, verdict, decision);
        datagrams++;
    }

    void steer(final String why)
    {
        steered.merge(why, 1L, Long::sum);
    }

    /** Remembers a datagram the test built itself (not counted as fuzz). */
    void remember(final FuzzRequester requester, final int length, final int verdict, final int decision)
    {
        final byte[] bytes = new byte[Math.min(length, 64)];
        requester.sendView.getBytes(0, bytes);
        recent.addLast("  #" + datagrams + " " + length + " bytes, " + FuzzResponderModel.VERDICT_NAMES[verdict] +
            (verdict == FuzzResponderModel.TO_VICTIM ? " / " + FuzzVictim.DECISION_NAMES[decision] : "") + ": " +
            HexFormat.of().formatHex(bytes) + (length > 64 ? "..." : ""));
        if (recent.size() > RECENT)
        {
            recent.removeFirst();
        }
    }

    /** @return the last datagrams sent, one per line. */
    String recentDatagrams()
    {
        return String.join("\n", recent);
    }

    /** @return datagrams with a broken ICRC that the device had to look at (they parsed). */
    long corruptedThatParsed(final long corruptedButAccepted)
    {
        long count = corruptedButAccepted;
        for (final long[] verdicts : verdictsByCategory)
        {
            count += verdicts[FuzzResponderModel.ICRC_ERROR];
        }
        return count;
    }

    /** Appends the per-category table, the responder decisions and the steering. */
    void format(final StringBuilder out, final long corruptedButAccepted)
    {
        for (int category = 0; category < FuzzDatagrams.CATEGORY_NAMES.length; category++)
        {
            long total = 0;
            for (final long v : verdictsByCategory[category])
            {
                total += v;
            }
            out.append(String.format(Locale.ROOT, "  %-38s %6d (intact ICRC %6d):",
                FuzzDatagrams.CATEGORY_NAMES[category], total, intactIcrcByCategory[category]));
            for (int verdict = 0; verdict < FuzzResponderModel.VERDICT_NAMES.length; verdict++)
            {
                if (verdictsByCategory[category][verdict] > 0)
                {
                    out.append(' ').append(FuzzResponderModel.VERDICT_NAMES[verdict]).append('=')
                        .append(verdictsByCategory[category][verdict]);
                }
            }
            out.append('\n');
        }
        out.append("  mutated byte-wise: ").append(mutated).append("; corrupted but accepted by the IP-ID solver: ")
            .append(corruptedButAccepted).append('\n');
        out.append("  at the victims' responders:");
        for (int d = 0; d < FuzzVictim.DECISION_NAMES.length; d++)
        {
            out.append(d == 0 ? " " : ", ").append(FuzzVictim.DECISION_NAMES[d]).append('=').append(decisions[d]);
        }
        out.append('\n');
        out.append("  steered clear of known deviations (see the failing tests in RoceBadInputTest):\n");
        steered.forEach((why, count) -> out.append("    ").append(count).append(" x ").append(why).append('\n'));
    }
}
