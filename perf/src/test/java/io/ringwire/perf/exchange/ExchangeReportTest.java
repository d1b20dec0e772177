package io.ringwire.perf.exchange;

import io.ringwire.exchange.demo.LatencyLedger;
import io.ringwire.exchange.fix.FixDoor;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code perf exchange}'s report says when its figures are not those of the rate offered: a rate
 * the clients did not keep up, and a first measured second still draining a backlog from before;
 * where a queue ends, the hop whose reader is the first stage that does not keep up; and sessions
 * the clients lost while it measured.
 */
class ExchangeReportTest
{
    private static final long[] SETTLED = { 14_063, 13_300, 15_300 };

    @Test
    void aRunThatSentLessThanItsRateSaysTheRateWasNotHeld()
    {
        final ExchangeBenchmark.Result run = result(400_000, 319_527, SETTLED);
        assertFalse(run.rateHeld());
        final String table = ExchangeBenchmark.table(List.of(run));
        assertTrue(table.contains("RATE NOT HELD: the clients sent 319,527 a second of the 400,000 offered (80%)"),
            table);
        assertTrue(ExchangeBenchmark.json(List.of(run)).contains("\"rate_held\":false"));
    }

    @Test
    void aRunWhoseFirstSecondDrainedTheStartsBacklogSaysSo()
    {
        final ExchangeBenchmark.Result run = result(300_000, 300_032, new long[] { 742_916_100, 362_545_200, 33_300 });
        assertTrue(run.rateHeld());
        assertTrue(run.backlogAtStart());
        final String table = ExchangeBenchmark.table(List.of(run));
        assertTrue(table.contains("BACKLOG FROM THE WARM-UP: order-to-ack p50 from due time 742916.1 us in the " +
            "first measured second, 33.3 us in the last"), table);
        final String json = ExchangeBenchmark.json(List.of(run));
        assertTrue(json.contains("\"backlog_at_start\":true,\"second_p50_ns\":[742916100,362545200,33300]"), json);
    }

    @Test
    void aSettledRunAtItsRateCarriesNeitherWarning()
    {
        final ExchangeBenchmark.Result run = result(300_000, 300_032, SETTLED);
        assertTrue(run.rateHeld());
        assertFalse(run.backlogAtStart());
        final String table = ExchangeBenchmark.table(List.of(run));
        assertFalse(table.contains("RATE NOT HELD") || table.contains("BACKLOG"), table);
    }

    @Test
    void aSlowerFirstSecondUnder100MicrosecondsIsNoBacklog()
    {
        assertFalse(result(100_000, 100_001, new long[] { 90_000, 5_000 }).backlogAtStart());
        assertTrue(result(50_000, 49_967, new long[] { 953_855, 6_627, 6_411 }).backlogAtStart());
        assertFalse(result(100_000, 100_001, new long[] { 50_000_000 }).backlogAtStart(), "one second: no last");
        assertFalse(result(100_000, 100_001, new long[] { 50_000_000, -1 }).backlogAtStart(), "no ack at the end");
    }

    @Test
    void aRunThatQueuesNamesTheLastHopOfThePathThatHoldsAQueueAndWhatReadsIt()
    {
        // The reports wait for the gateway: the engine, whose output is behind, takes no request,
        // and the clients' orders wait behind it; the replies, once routed, go at once.
        final ExchangeBenchmark.Result reportsWait = result(1_000_000, 386_887, SETTLED,
            9_300_000, 416, 463_000, 115_000_000, 4_900_000, 751);
        assertEquals(4, reportsWait.queueEndsAt());
        final String table = ExchangeBenchmark.table(List.of(reportsWait));
        assertTrue(table.contains("QUEUE ENDS AT \"engine to gateway\" (p50 4902.9 us"), table);
        assertTrue(table.contains("the gateway reading the engine's reports, is the first stage that does not keep up"),
            table);
        assertTrue(ExchangeBenchmark.json(List.of(reportsWait)).contains("\"queue_ends_at\":\"engine to gateway\""));

        // The gateway's thread admits orders no faster: the engine's streams move at their pace.
        final ExchangeBenchmark.Result ordersWait = result(1_000_000, 373_004, SETTLED,
            242_000_000, 60, 42_000, 511, 16_000, 20_000);
        assertEquals(0, ordersWait.queueEndsAt());
        assertTrue(ExchangeBenchmark.table(List.of(ordersWait)).contains(
            "what takes from it, the gateway reading its clients' orders, is"));
    }

    @Test
    void aRunWhoseHopsAllMoveAtTheirPaceNamesNoQueue()
    {
        final ExchangeBenchmark.Result run = result(100_000, 100_005, SETTLED, 1_280, 420, 720, 1_300, 1_670, 450);
        assertEquals(-1, run.queueEndsAt());
        assertFalse(ExchangeBenchmark.table(List.of(run)).contains("QUEUE"));
        assertTrue(ExchangeBenchmark.json(List.of(run)).contains("\"queue_ends_at\":null"));
    }

    /** A run whose path's hops (client to gateway .. gateway to client) read these p50s; the rest 10 us. */
    @Test
    void aRunInWhichClientsLostTheirSessionsSaysHowMany()
    {
        final ExchangeBenchmark.Result settled = result(300_000, 300_032, SETTLED);
        final ExchangeBenchmark.Result cut = new ExchangeBenchmark.Result(settled.provider(), settled.offered(),
            settled.achieved(), settled.threads(), settled.acks(), settled.unacked(), settled.hops(),
            settled.outcomes(), null, SETTLED, 3, 4_500);
        final String table = ExchangeBenchmark.table(List.of(cut));
        assertTrue(table.contains("SESSIONS LOST: 3 while measuring"), table);
        assertTrue(table.contains("4,500 orders fell due while a session was down and were never sent (counted at " +
            "the logons that ended losses in these seconds"), table);
        assertTrue(table.contains("the latency figures leave them out"), table);
        assertTrue(ExchangeBenchmark.json(List.of(cut)).contains("\"sessions_lost\":3,\"due_while_lost\":4500,"));
        assertFalse(ExchangeBenchmark.table(List.of(settled)).contains("SESSIONS LOST"));
        assertTrue(ExchangeBenchmark.json(List.of(settled)).contains("\"sessions_lost\":0,"));
    }

    @Test
    void theCountOfOrdersNeverAcknowledgedSaysItIsTakenAfterTheDrain()
    {
        final ExchangeBenchmark.Result settled = result(300_000, 300_032, SETTLED);
        final ExchangeBenchmark.Result unanswered = new ExchangeBenchmark.Result(settled.provider(), settled.offered(),
            settled.achieved(), settled.threads(), 1_000, 7, settled.hops(), settled.outcomes(), null, SETTLED, 0, 0);
        final String table = ExchangeBenchmark.table(List.of(unanswered));
        assertTrue(table.contains("1,000 acknowledged (those in flight when measuring stopped taken in the drain " +
            "after it), 7 never"), table);
        assertTrue(ExchangeBenchmark.json(List.of(unanswered)).contains("\"acks\":1000,\"never_acked\":7,"));
    }

    @Test
    void aFixDoorWindowWithoutAnAcknowledgementPrintsNoPercentiles()
    {
        final Histogram[] stages = new Histogram[FixDoor.STAGES.length];
        for (int i = 0; i < stages.length; i++)
        {
            stages[i] = new Histogram(3);
        }
        final FixDoorFigures none = new FixDoorFigures(1, 1, 1, 0, 0, 0, new Histogram(3), stages);
        final String table = none.describe();
        assertTrue(table.contains("FIX order to ack (from send)                     0         -         -         -" +
            "         -         -"), table);
        final String json = none.json();
        assertTrue(json.contains("\"order_to_ack\":{\"count\":0,\"p50\":null,\"p90\":null,\"p99\":null," +
            "\"p99_9\":null,\"max\":null}"), json);
    }

    private static ExchangeBenchmark.Result result(final long offered, final double achieved, final long[] secondP50Ns,
        final long... pathP50Ns)
    {
        final Histogram[] hops = new Histogram[LatencyLedger.HOPS.length];
        for (int i = 0; i < hops.length; i++)
        {
            hops[i] = new Histogram(3);
            hops[i].recordValue(i < pathP50Ns.length ? pathP50Ns[i] : 10_000);
        }
        return new ExchangeBenchmark.Result("shm", offered, achieved, "", 100, 0, hops,
            new AckOutcomes(100, 0, 0, Map.of()), null, secondP50Ns, 0, 0);
    }
}
