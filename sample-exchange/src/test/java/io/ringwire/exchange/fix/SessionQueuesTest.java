package io.ringwire.exchange.fix;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FIX door's per-member queues, over plain arrays: records come out of a queue in the order
 * they went in, byte for byte; the members waiting are served in turn; a full queue takes a record
 * again only once enough was taken from its front to be worth moving the rest.
 */
class SessionQueuesTest
{
    private static final int RECORD = 100;

    @Test
    void recordsComeOutInOrderByteForByteAndAnEmptiedQueueStartsAgainAtTheFront()
    {
        final SessionQueues queues = new SessionQueues(4, new int[]{ 1, 3 });
        assertTrue(queues.has(1));
        assertFalse(queues.has(2));
        for (int i = 0; i < 3; i++)
        {
            add(queues, 1, i);
        }
        assertEquals(3 * 112, queues.queuedBytes(1), "each record behind its 8-byte header, aligned to 8");
        final UnsafeBuffer out = new UnsafeBuffer(new byte[RECORD]);
        for (int i = 0; i < 3; i++)
        {
            assertEquals(7, queues.oldestType(1));
            assertEquals(RECORD, queues.oldestLength(1));
            queues.copyOldest(1, out, 0);
            for (int b = 0; b < RECORD; b++)
            {
                assertEquals((byte)(i * 7 + b), out.getByte(b), "record " + i + " byte " + b);
            }
            queues.removeOldest(1);
        }
        assertTrue(queues.isEmpty(1));
        assertEquals(0, queues.claim(1, 7, RECORD) - 8, "an emptied queue writes from its start again");
    }

    @Test
    void theMembersWaitingAreServedInTurnAndOneLeavesTheTurnOnceItsQueueIsEmpty()
    {
        final SessionQueues queues = new SessionQueues(4, new int[]{ 0, 1, 2 });
        add(queues, 2, 0);
        add(queues, 0, 0);
        add(queues, 0, 1);
        add(queues, 1, 0);
        add(queues, 2, 1); // already waiting: keeps its place
        final List<Integer> served = new ArrayList<>();
        while (queues.waitingCount() > 0)
        {
            final int session = queues.nextWaiting();
            served.add(session);
            queues.removeOldest(session);
            queues.rotate();
        }
        assertEquals(List.of(2, 0, 1, 2, 0), served);
        add(queues, 1, 0);
        assertEquals(1, queues.waitingCount(), "a member whose queue emptied joins the turn again");
        assertEquals(1, queues.nextWaiting());
    }

    @Test
    void aFullQueueCompactsOnlyOnceEnoughWasTakenFromItsFront()
    {
        final SessionQueues queues = new SessionQueues(1, new int[]{ 0 });
        int added = 0;
        while (queues.hasRoom(0, RECORD, SessionQueues.QUEUE_BYTES / 4))
        {
            add(queues, 0, added++);
        }
        assertEquals(SessionQueues.QUEUE_BYTES / 112, added);
        queues.removeOldest(0);
        assertFalse(queues.hasRoom(0, RECORD, SessionQueues.QUEUE_BYTES / 4), "one record taken: not worth a move");
        assertTrue(queues.hasRoom(0, RECORD, 1), "room at any cost: the rest moved to the front");
        assertEquals((added - 1) * 112, queues.queuedBytes(0));
        add(queues, 0, added);
        final UnsafeBuffer out = new UnsafeBuffer(new byte[RECORD]);
        queues.copyOldest(0, out, 0);
        assertEquals((byte)7, out.getByte(0), "the oldest left is record 1, moved intact");
        assertEquals(added * 112, queues.queuedBytes(0));
    }

    /** Adds a record of {@link #RECORD} bytes, byte b being {@code number * 7 + b}, of type 7. */
    private static void add(final SessionQueues queues, final int session, final int number)
    {
        assertTrue(queues.hasRoom(session, RECORD, SessionQueues.QUEUE_BYTES / 4));
        final int at = queues.claim(session, 7, RECORD);
        for (int b = 0; b < RECORD; b++)
        {
            queues.buffer(session).putByte(at + b, (byte)(number * 7 + b));
        }
        queues.commit(session, RECORD);
    }
}
