package io.ringwire.perf.host;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GcActivityTest
{
    @Test
    void aCollectionBetweenTwoReadingsIsCountedInTheirDifference()
    {
        final GcActivity before = GcActivity.now();
        System.gc();
        final GcActivity during = GcActivity.now().since(before);
        assertTrue(during.collections() >= 1, "System.gc() is a collection (or a concurrent cycle): " + during);
        assertTrue(during.timeMs() >= 0, during.toString());
    }

    @Test
    void twoProcessesActivityAddsUpAndADifferenceSubtractsFieldByField()
    {
        final GcActivity pinger = new GcActivity(3, 12);
        final GcActivity ponger = new GcActivity(1, 5);
        assertEquals(new GcActivity(4, 17), pinger.plus(ponger));
        assertEquals(new GcActivity(2, 7), pinger.since(ponger));
        assertEquals(pinger, pinger.plus(GcActivity.NONE));
    }
}
