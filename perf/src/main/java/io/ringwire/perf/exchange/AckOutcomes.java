package io.ringwire.perf.exchange;

import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.exchange.demo.LatencyLedger;
import io.ringwire.exchange.demo.SimulatedClients;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the acknowledgements a run timed were: new orders accepted, or rejected, by whom (the
 * gateway, so the order never reached the engine, or the engine) and why. A latency figure over
 * acknowledgements that are mostly rejects measures how fast orders are turned away, not how fast
 * they trade; {@link #mostlyRejected()} says when that is the case, and the benchmark fails such a
 * run.
 *
 * @param acks              new orders acknowledged.
 * @param rejectedByGateway of them, rejected by the gateway.
 * @param rejectedByEngine  of them, rejected by the engine.
 * @param rejectReasons     rejects by reason name, both rejecters together.
 */
public record AckOutcomes(long acks, long rejectedByGateway, long rejectedByEngine, Map<String, Long> rejectReasons)
{
    /**
     * @param before the clients' counters when measuring started.
     * @param after  the clients' counters when it stopped.
     * @return what was acknowledged in between.
     */
    public static AckOutcomes between(final AtomicLongArray before, final AtomicLongArray after)
    {
        final Map<String, Long> reasons = new TreeMap<>();
        for (final RejectReason reason : RejectReason.values())
        {
            if (reason == RejectReason.NULL_VAL)
            {
                continue;
            }
            final int index = SimulatedClients.ACK_REJECT_REASONS + reason.value();
            final long count = after.get(index) - before.get(index);
            if (count > 0)
            {
                reasons.put(reason.name(), count);
            }
        }
        return new AckOutcomes(delta(before, after, SimulatedClients.ACKS),
            delta(before, after, SimulatedClients.ACKS_REJECTED_BY_GATEWAY),
            delta(before, after, SimulatedClients.ACKS_REJECTED_BY_ENGINE), reasons);
    }

    private static long delta(final AtomicLongArray before, final AtomicLongArray after, final int index)
    {
        return after.get(index) - before.get(index);
    }

    /** @return acknowledgements that accepted the order. */
    public long accepted()
    {
        return acks - rejected();
    }

    /** @return acknowledgements that rejected the order. */
    public long rejected()
    {
        return rejectedByGateway + rejectedByEngine;
    }

    /** @return whether more than half of the acknowledgements were rejects. */
    public boolean mostlyRejected()
    {
        return rejected() * 2 > acks;
    }

    /**
     * @param hopCounts per hop of {@link LatencyLedger#HOPS}, the acknowledgements timed there.
     * @return the outcome and every hop's count beside the acknowledgements, in lines for people;
     *         a run that is mostly rejects says so first.
     */
    public String describe(final long[] hopCounts)
    {
        final StringBuilder text = new StringBuilder();
        if (mostlyRejected())
        {
            text.append(String.format(Locale.ROOT, "  MOSTLY REJECTS: %,d of %,d acknowledgements rejected the order; " +
                "the latency below is that of rejects, not of orders through the engine%n", rejected(), acks));
        }
        text.append(String.format(Locale.ROOT, "  acknowledgements %,d: %,d accepted, %,d rejected by the gateway, " +
            "%,d rejected by the engine%n", acks, accepted(), rejectedByGateway, rejectedByEngine));
        for (final Map.Entry<String, Long> reason : rejectReasons.entrySet())
        {
            text.append(String.format(Locale.ROOT, "    rejected %-28s %,d%n", reason.getKey(), reason.getValue()));
        }
        text.append("  hops counted beside them:");
        for (int i = 0; i < LatencyLedger.HOPS.length && i < hopCounts.length; i++)
        {
            if (i == LatencyLedger.TO_MARKET_DATA)
            {
                continue; // timed per market-data message, not per acknowledgement
            }
            text.append(String.format(Locale.ROOT, "%s %s %,d", i == 0 ? "" : ";", LatencyLedger.HOPS[i], hopCounts[i]));
        }
        final long reachedEngine = accepted() + rejectedByEngine;
        text.append(String.format(Locale.ROOT, "%n  reached the engine: %,d of %,d acknowledgements%n", reachedEngine,
            acks));
        return text.toString();
    }
}
