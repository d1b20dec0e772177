package io.ringwire.perf.pingpong;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The open loop's accounting on a simulated clock: no time is measured here, every instant is
 * computed, so the outcome is exact and the same on any machine.
 */
class OpenLoopRecorderTest
{
    private static final long INTERVAL_NS = 10_000;          // 100,000 messages/s: one due every 10 us
    private static final long RATE = 1_000_000_000L / INTERVAL_NS;
    private static final long SERVICE_NS = 1_000;             // a round trip normally takes 1 us
    private static final long STALL_NS = 10_000_000;          // one response is delayed 10 ms
    private static final int MESSAGES = 5_000;
    private static final int STALLED = 1_000;
    private static final long LATE_NS = 15_000;               // well above a message on time (1 us)

    private final Histogram dueTime = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
    private final Histogram serviceTime = new Histogram(Pinger.HIGHEST_TRACKABLE_NS, 3);
    private final OpenLoopRecorder recorder =
        new OpenLoopRecorder(RATE, Pinger.HIGHEST_TRACKABLE_NS, dueTime, serviceTime);

    /**
     * Runs the pinger's schedule on a simulated clock: each message is sent when due or, when the
     * previous echo came back late, at once; message {@link #STALLED} takes {@link #STALL_NS}.
     *
     * @return each message's latency from its due time, in order.
     */
    private List<Long> runWithOneStall()
    {
        final long startNs = 1_000_000_000L;
        recorder.start(startNs);
        long clockNs = startNs;
        final List<Long> fromDue = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++)
        {
            final long dueNs = recorder.dueNs(i);
            final long sentNs = OpenLoopRecorder.sendNs(dueNs, clockNs);
            final long echoNs = sentNs + (i == STALLED ? STALL_NS : SERVICE_NS);
            fromDue.add(recorder.record(dueNs, sentNs, echoNs));
            clockNs = echoNs;
        }
        return fromDue;
    }

    @Test
    void aStallIsChargedToEveryMessageDueDuringItButToOneServiceTime()
    {
        final List<Long> fromDue = runWithOneStall();

        final long lateByDueTime = dueTime.getCountBetweenValues(LATE_NS, Pinger.HIGHEST_TRACKABLE_NS);
        final long lateByServiceTime = serviceTime.getCountBetweenValues(LATE_NS, Pinger.HIGHEST_TRACKABLE_NS);
        // 1000 messages fall due during the 10 ms stall; they are then sent back to back, each 1 us, and
        // the backlog shrinks by 9 us a message, so about 1110 are late before the schedule is caught up.
        assertTrue(lateByDueTime >= STALL_NS / INTERVAL_NS && lateByDueTime <= STALL_NS / (INTERVAL_NS - SERVICE_NS),
            "messages late by their due time: " + lateByDueTime);
        assertEquals(1, lateByServiceTime, "only the stalled message itself took long from its send");
        assertEquals(MESSAGES, dueTime.getTotalCount());
        assertEquals(MESSAGES, serviceTime.getTotalCount());
        assertEquals(STALL_NS, fromDue.get(STALLED), "the stalled message, sent on time, waits for its 10 ms response");
        int caughtUp = STALLED + 1;
        while (fromDue.get(caughtUp) != SERVICE_NS)
        {
            assertTrue(fromDue.get(caughtUp) < fromDue.get(caughtUp - 1),
                "the backlog drains: message " + caughtUp + " is less late than the one before it");
            caughtUp++;
        }
        assertTrue(caughtUp > STALLED + lateByDueTime, "caught up at message " + caughtUp);
        for (int i = 0; i < MESSAGES; i++)
        {
            if (i < STALLED || i >= caughtUp)
            {
                assertEquals(SERVICE_NS, fromDue.get(i), "message " + i + ", outside the stall, is on time");
            }
        }
        assertTrue(dueTime.getValueAtPercentile(90.0) > 1_000_000,
            "the due-time p90 shows the stall (20% of the messages are late): " + dueTime.getValueAtPercentile(90.0));
        assertTrue(serviceTime.getValueAtPercentile(99.9) <= SERVICE_NS + SERVICE_NS / 100,
            "the service-time p99.9 hides it: " + serviceTime.getValueAtPercentile(99.9));
    }

    @Test
    void withoutAStallDueTimeAndServiceTimeAreTheSame()
    {
        recorder.start(0);
        for (int i = 0; i < MESSAGES; i++)
        {
            final long dueNs = recorder.dueNs(i);
            recorder.record(dueNs, OpenLoopRecorder.sendNs(dueNs, dueNs - 5), dueNs + SERVICE_NS);
        }

        assertEquals(serviceTime, dueTime, "every message sent when due: nothing to charge from the due time");
    }

    @Test
    void messagesFallDueAtStartPlusIndexOverRateWithoutRoundingDrift()
    {
        final OpenLoopRecorder thirds = new OpenLoopRecorder(3, Pinger.HIGHEST_TRACKABLE_NS, dueTime, serviceTime);
        thirds.start(500);

        assertEquals(500, thirds.dueNs(0));
        assertEquals(500 + 333_333_333, thirds.dueNs(1));
        assertEquals(500 + 1_000_000_000L, thirds.dueNs(3), "a whole second after 3 messages at 3/s");
        assertEquals(500 + 1_000_000_000L * 1_000_000, thirds.dueNs(3_000_000), "no drift over a million seconds");
    }

    @Test
    void aMessageIsSentWhenDueOrAtOnceWhenAlreadyLate()
    {
        assertEquals(1_000, OpenLoopRecorder.sendNs(1_000, 900), "early: waits for its due time");
        assertEquals(1_500, OpenLoopRecorder.sendNs(1_000, 1_500), "late: sent at once");
    }
}
