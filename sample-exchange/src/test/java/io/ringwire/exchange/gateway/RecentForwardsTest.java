package io.ringwire.exchange.gateway;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecentForwardsTest
{
    private final RecentForwards forwards = new RecentForwards();

    @Test
    void aRefusalMatchesOnlyTheSessionIdAndReceiveTimeThisProcessRecorded()
    {
        forwards.record(2, 7, 1_000);

        assertFalse(forwards.forget(2, 7, 999), "the same id received at another time: another life's request");
        assertFalse(forwards.forget(3, 7, 1_000), "another session's id");
        assertFalse(forwards.forget(2, 8, 1_000), "another id");
        assertTrue(forwards.forget(2, 7, 1_000));
        assertFalse(forwards.forget(2, 7, 1_000), "one refusal frees an id once");
    }

    @Test
    void slotsNeverWrittenMatchNothing()
    {
        assertFalse(forwards.forget(0, 0, 0), "an empty ring");
        forwards.record(1, 1, 1);
        assertFalse(forwards.forget(0, 0, 0), "a ring with room left");
    }

    @Test
    void aRequestForwardedTwiceUnderOneIdIsFoundByItsOwnReceiveTime()
    {
        forwards.record(0, 5, 100);
        forwards.record(0, 5, 200);

        assertTrue(forwards.forget(0, 5, 100));
        assertTrue(forwards.forget(0, 5, 200));
    }

    @Test
    void aRequestOlderThanTheLastCapacityForwardsIsNoLongerMatched()
    {
        forwards.record(1, 1, 10);
        forwards.record(1, 2, 20);
        for (int i = 0; i < RecentForwards.CAPACITY - 1; i++)
        {
            forwards.record(0, 1_000 + i, 1_000 + i);
        }

        assertFalse(forwards.forget(1, 1, 10), "overwritten: its id stays used");
        assertTrue(forwards.forget(1, 2, 20), "the oldest still held");
        assertTrue(forwards.forget(0, 1_000 + RecentForwards.CAPACITY - 2, 1_000 + RecentForwards.CAPACITY - 2));
    }

    @Test
    void refusalsInTheOrderTheirRequestsWentOutReadEachForwardOnceWhateverShareIsRefused()
    {
        final int forwarded = 10_000;
        for (int i = 0; i < forwarded; i++)
        {
            forwards.record(i % 7, i, 50_000 + i);
        }

        int refused = 0;
        for (int i = 0; i < forwarded; i += 1 + i % 3)
        {
            assertTrue(forwards.forget(i % 7, i, 50_000 + i), "request " + i);
            refused++;
        }
        for (int i = 0; i < 1_000; i++)
        {
            forwards.record(1, 1_000_000 + i, 1_000_000 + i);
            assertTrue(forwards.forget(1, 1_000_000 + i, 1_000_000 + i), "while the journal refuses every request");
        }

        assertTrue(refused > forwarded / 3, "a share of the forwards refused: " + refused);
        assertTrue(forwards.slotsRead() <= forwarded + 1_000,
            "each forward read once at most: " + forwards.slotsRead() + " slots for " + (forwarded + 1_000));
    }

    @Test
    void aRefusalArrivingAfterALaterOnesIsStillMatched()
    {
        forwards.record(0, 1, 10);
        forwards.record(0, 2, 20);
        forwards.record(0, 3, 30);

        assertTrue(forwards.forget(0, 3, 30));
        assertTrue(forwards.forget(0, 1, 10), "behind the last match");
        assertTrue(forwards.forget(0, 2, 20));
        assertFalse(forwards.forget(0, 2, 20), "once");
    }

    @Test
    void anEarlierLifesRefusalReadsTheRingOnceAndLeavesTheNextMatchWhereItWas()
    {
        for (int i = 0; i < 100; i++)
        {
            forwards.record(0, i, i);
        }
        assertTrue(forwards.forget(0, 40, 40));
        final long before = forwards.slotsRead();

        assertFalse(forwards.forget(0, 40, 39), "an earlier life's request under an id this one used");
        assertEquals(100, forwards.slotsRead() - before, "every remembered forward read once");
        assertTrue(forwards.forget(0, 41, 41));
        assertEquals(101, forwards.slotsRead() - before, "the next refusal found where the last match left off");
    }
}
