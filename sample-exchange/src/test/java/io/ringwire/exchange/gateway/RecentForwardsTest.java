package io.ringwire.exchange.gateway;

import org.junit.jupiter.api.Test;

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
}
