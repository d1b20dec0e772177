package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.CompletionOpcode;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SendRingTest
{
    /** Posts one request the way the queue pair does; returns whether it went out signaled. */
    private static boolean post(final SendRing ring, final long id, final boolean signaled)
    {
        final boolean postedSignaled = ring.mustSignal(signaled);
        ring.record(id, CompletionOpcode.RDMA_WRITE, 8, signaled, postedSignaled);
        return postedSignaled;
    }

    @Test
    void aFullQueueOfUnsignaledRequestsAlwaysHoldsOneTheProviderSignaled()
    {
        final SendRing ring = new SendRing(16);
        long lastSignaled = -1;
        for (int i = 0; i < 16; i++)
        {
            if (post(ring, i, false))
            {
                lastSignaled = i;
            }
        }
        assertTrue(ring.isFull());
        assertEquals(15, lastSignaled, "every 8th request (depth / 2) is signaled by the provider");
        ring.completeThrough(lastSignaled);
        assertEquals(0, ring.outstanding(), "its completion proves every earlier request complete");
        assertFalse(ring.applicationSignaled(lastSignaled), "and is not delivered");
    }

    @Test
    void completionsMapBackToTheApplicationsIdsAndSendQueuesCompleteInOrder()
    {
        final SendRing ring = new SendRing(4);
        post(ring, 100, true);
        post(ring, 101, false);
        post(ring, 102, true);
        assertEquals(3, ring.outstanding());
        assertEquals(100, ring.workRequestId(0));
        assertEquals(102, ring.workRequestId(2));
        ring.completeThrough(2);
        assertEquals(0, ring.outstanding());
        ring.completeThrough(0);
        assertEquals(0, ring.outstanding(), "an older completion never moves the count back");
        for (int i = 0; i < 4; i++)
        {
            post(ring, 200 + i, true);
        }
        assertTrue(ring.isFull());
        assertEquals(203, ring.workRequestId(6), "indexes wrap around the ring");
    }

    @Test
    void receivesAreCountedExactlyAndMarkedInTheirWorkRequestId()
    {
        final ReceiveRing ring = new ReceiveRing(2);
        final long first = ring.nextNativeWorkRequestId();
        ring.record(7);
        final long second = ring.nextNativeWorkRequestId();
        ring.record(8);
        assertTrue(ring.isFull());
        assertTrue(ReceiveRing.isReceive(first) && ReceiveRing.isReceive(second));
        assertFalse(ReceiveRing.isReceive(0));
        assertEquals(7, ring.complete(first));
        assertEquals(1, ring.outstanding());
        assertEquals(8, ring.complete(second));
        assertEquals(0, ring.outstanding());
    }
}
