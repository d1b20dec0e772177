package io.ringwire.perf.exchange;

import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.exchange.demo.LatencyLedger;
import io.ringwire.exchange.demo.SimulatedClients;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a run's acknowledgements were, from the clients' counters: accepted, or rejected by whom and
 * why, and a run of mostly rejects named as such.
 */
class AckOutcomesTest
{
    private static final int COUNTERS = SimulatedClients.ACK_REJECT_REASONS + 64;

    @Test
    void acknowledgementsSplitIntoAcceptedAndRejectedByWhomAndWhyBetweenTwoReadings()
    {
        final AtomicLongArray before = new AtomicLongArray(COUNTERS);
        before.set(SimulatedClients.ACKS, 100);
        before.set(SimulatedClients.ACKS_REJECTED_BY_GATEWAY, 10);
        before.set(SimulatedClients.ACK_REJECT_REASONS + RejectReason.THROTTLED.value(), 10);
        final AtomicLongArray after = new AtomicLongArray(COUNTERS);
        after.set(SimulatedClients.ACKS, 1_100);
        after.set(SimulatedClients.ACKS_REJECTED_BY_GATEWAY, 60);
        after.set(SimulatedClients.ACKS_REJECTED_BY_ENGINE, 30);
        after.set(SimulatedClients.ACK_REJECT_REASONS + RejectReason.THROTTLED.value(), 60);
        after.set(SimulatedClients.ACK_REJECT_REASONS + RejectReason.NO_LIQUIDITY.value(), 30);

        final AckOutcomes outcomes = AckOutcomes.between(before, after);

        assertEquals(1_000, outcomes.acks());
        assertEquals(920, outcomes.accepted());
        assertEquals(50, outcomes.rejectedByGateway());
        assertEquals(30, outcomes.rejectedByEngine());
        assertEquals(Map.of("THROTTLED", 50L, "NO_LIQUIDITY", 30L), outcomes.rejectReasons());
        assertFalse(outcomes.mostlyRejected());
        final String text = outcomes.describe(new long[LatencyLedger.HOPS.length]);
        assertFalse(text.contains("MOSTLY REJECTS"), text);
        assertTrue(text.contains("920 accepted, 50 rejected by the gateway, 30 rejected by the engine"), text);
        assertTrue(text.contains("reached the engine: 950 of 1,000"), text);
    }

    @Test
    void aRunWhoseAcknowledgementsAreMostlyGatewayRejectsSaysSoWithEveryHopsCountBesideThem()
    {
        final AtomicLongArray after = new AtomicLongArray(COUNTERS);
        after.set(SimulatedClients.ACKS, 5_500_000);
        after.set(SimulatedClients.ACKS_REJECTED_BY_GATEWAY, 5_400_000);
        after.set(SimulatedClients.ACK_REJECT_REASONS + RejectReason.THROTTLED.value(), 5_400_000);
        final long[] hops = new long[LatencyLedger.HOPS.length];
        hops[0] = 5_500_000;
        hops[2] = 100_000;

        final AckOutcomes outcomes = AckOutcomes.between(new AtomicLongArray(COUNTERS), after);

        assertTrue(outcomes.mostlyRejected());
        final String text = outcomes.describe(hops);
        assertTrue(text.startsWith("  MOSTLY REJECTS: 5,400,000 of 5,500,000"), text);
        assertTrue(text.contains("client to gateway 5,500,000"), text);
        assertTrue(text.contains("gateway to engine 100,000"), text);
        assertTrue(text.contains("rejected THROTTLED"), text);
    }

    @Test
    void theBenchmarkNamesTheRunsOfMostlyRejectsThatFailTheCommand()
    {
        final Histogram[] hops = emptyHops();
        final ExchangeBenchmark.Result honest = new ExchangeBenchmark.Result("shm", 1_000, 1_000, "", 100, 0, hops,
            new AckOutcomes(100, 1, 2, Map.of()), null, new long[0], 0, 0);
        final ExchangeBenchmark.Result rejects = new ExchangeBenchmark.Result("socket", 1_000, 1_000, "", 100, 0, hops,
            new AckOutcomes(100, 90, 0, Map.of("THROTTLED", 90L)), null, new long[0], 0, 0);

        assertEquals("", ExchangeBenchmark.mostlyRejected(List.of(honest)));
        final String json = ExchangeBenchmark.json(List.of(rejects));
        assertTrue(json.contains("\"rejected_by_gateway\":90,\"rejected_by_engine\":0,\"reject_reasons\":{\"THROTTLED\":90}"),
            "the JSON says why a run was mostly rejects: " + json);
        final String named = ExchangeBenchmark.mostlyRejected(List.of(honest, rejects));
        assertTrue(named.startsWith("socket: 90 of 100 acknowledgements were rejects (90 by the gateway"), named);
        assertTrue(ExchangeBenchmark.table(List.of(rejects)).contains("MOSTLY REJECTS"));
    }

    @Test
    void aRunWhoseFixMembersWereMostlyRejectedFailsTheCommandToo()
    {
        final Histogram[] hops = emptyHops();
        final ExchangeBenchmark.Result fixRejected = new ExchangeBenchmark.Result("shm", 1_000, 1_000, "", 100, 0, hops,
            new AckOutcomes(100, 1, 2, Map.of()), fix(40, 30), new long[0], 0, 0);
        final ExchangeBenchmark.Result fixHonest = new ExchangeBenchmark.Result("shm", 1_000, 1_000, "", 100, 0, hops,
            new AckOutcomes(100, 1, 2, Map.of()), fix(40, 20), new long[0], 0, 0);

        assertEquals("shm: 30 of the FIX members' 40 acknowledgements were rejects",
            ExchangeBenchmark.mostlyRejected(List.of(fixRejected)));
        assertEquals("", ExchangeBenchmark.mostlyRejected(List.of(fixHonest)), "half rejected is not most");
    }

    /** @return a FIX door's figures with these acknowledgements and rejects. */
    private static FixDoorFigures fix(final long acks, final long rejects)
    {
        return new FixDoorFigures(2, 1_000, 100, acks, acks, rejects, new Histogram(3), new Histogram[0]);
    }

    @Test
    void aRunWithNoAcknowledgementFailsTheCommandAndItsEmptyHopsPrintNoFigures()
    {
        final Histogram[] hops = emptyHops();
        final ExchangeBenchmark.Result silent = new ExchangeBenchmark.Result("shm", 1_000, 0, "", 0, 0, hops,
            new AckOutcomes(0, 0, 0, Map.of()), null, new long[0], 0, 0);

        assertEquals("shm: no acknowledgement arrived in the measured window",
            ExchangeBenchmark.mostlyRejected(List.of(silent)));
        final String table = ExchangeBenchmark.table(List.of(silent));
        assertTrue(table.contains("        0         -         -         -         -         -"), table);
        final String json = ExchangeBenchmark.json(List.of(silent));
        assertTrue(json.contains("\"p50_ns\":null") && !json.contains("\"p50_ns\":0"), json);
    }

    @Test
    void halfRejectedIsNotMostly()
    {
        assertFalse(new AckOutcomes(10, 5, 0, Map.of()).mostlyRejected());
        assertTrue(new AckOutcomes(10, 3, 3, Map.of()).mostlyRejected());
    }

    private static Histogram[] emptyHops()
    {
        final Histogram[] hops = new Histogram[LatencyLedger.HOPS.length];
        for (int i = 0; i < hops.length; i++)
        {
            hops[i] = new Histogram(3);
        }
        return hops;
    }
}
