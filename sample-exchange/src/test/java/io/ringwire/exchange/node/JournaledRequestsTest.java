package io.ringwire.exchange.node;

import io.ringwire.exchange.engine.JournaledEngine;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ring from the journaller to the engine: whenever it says it has room for N requests, N of
 * the longest requests fit, wherever the ring wraps (the journaller appends before it hands a
 * request on, so one that did not fit would be journaled and never applied), and every request
 * comes out whole, in order, with its type and time.
 */
class JournaledRequestsTest
{
    private static final int BATCH = 16;

    @Test
    void roomForABatchAlwaysTakesABatchOfTheLongestRequestsAndEveryOneComesOutWholeInOrder()
    {
        final JournaledRequests ring = new JournaledRequests(64 << 10);
        final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(JournaledEngine.MAX_REQUEST_LENGTH));
        final SplittableRandom random = new SplittableRandom(42);
        final long[] offered = { 0 };
        final long[] read = { 0 };
        for (int round = 0; round < 60_000; round++)
        {
            if (ring.hasRoomFor(BATCH))
            {
                for (int i = 0; i < BATCH; i++)
                {
                    // Mostly the longest, now and then a short one, so the ring wraps at every offset.
                    final int length = random.nextInt(4) == 0 ? random.nextInt(8, 200) : JournaledEngine.MAX_REQUEST_LENGTH;
                    request.putLong(0, offered[0]);
                    assertTrue(ring.offer(JournaledRequests.JOURNALED, offered[0] * 3, request, 0, length),
                        "request " + offered[0] + " of " + length + " bytes, after the ring said it had room");
                    offered[0]++;
                }
            }
            ring.read((type, buffer, index, length) ->
            {
                assertEquals(JournaledRequests.JOURNALED, type);
                assertEquals(read[0] * 3, buffer.getLong(index + JournaledRequests.TAKEN_NS_OFFSET));
                assertEquals(read[0], buffer.getLong(index + JournaledRequests.REQUEST_OFFSET));
                read[0]++;
            }, random.nextInt(1, 5)); // a few at a time: the free space hovers at the threshold
        }
        assertTrue(offered[0] > 100_000, "offered " + offered[0]);
        while (ring.read((type, buffer, index, length) -> read[0]++, 100) > 0)
        {
            // drains the rest
        }
        assertEquals(offered[0], read[0]);
    }
}
