package io.ringwire.exchange.fix;

import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FIX door's outbound ring on one thread, the test taking the sender's part: a member's replies
 * past its share wait in its queue and reach the sender in order, while another member's go
 * straight in; a disconnect the full ring cannot take is owed and written once there is room,
 * unless the connection it was for ends first.
 */
class FixReplyRingTest
{
    private static final int MEMBERS = 6;
    private static final int PAYLOAD = 64;

    /** What the test, as the sender, took from the ring. */
    private record Taken(int type, int session, int connection, long sequence)
    {
    }

    private final List<Taken> taken = new ArrayList<>();
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[PAYLOAD]);

    @Test
    void aMembersRepliesPastItsShareWaitInItsQueueAndReachTheSenderInOrderWhileAnothersGoStraightIn()
    {
        final FixReplyRing ring = ring(MEMBERS + 2);
        long sent = 0;
        while (ring.queuedBytesOf(0) == 0)
        {
            assertTrue(reply(ring, 0, 7, sent++), "reply " + sent);
        }
        final long atShare = sent;
        for (int i = 0; i < 100; i++)
        {
            assertTrue(reply(ring, 0, 7, sent++));
        }
        assertTrue(ring.queuedBytesOf(0) > 0);
        assertTrue(reply(ring, 1, 2, 0), "another member within its share");
        assertEquals(0, ring.queuedBytesOf(1), "goes straight into the ring, not behind the first's queue");
        assertTrue(atShare * PAYLOAD > ring.sessionShare() * 7L / 10, atShare + " replies before the share held");
        assertEquals(100, ring.repliesQueued() - 1, "the reply that found the share held and 100 after it");

        drain(ring);
        assertEquals(0, ring.queuedBytesOf(0));
        long expected = 0;
        for (final Taken record : taken)
        {
            if (record.session() == 0)
            {
                assertEquals(new Taken(FixReplyRing.REPLY, 0, 7, expected++), record);
            }
        }
        assertEquals(sent, expected, "every reply of the first member, once each, in order");
        assertEquals(new Taken(FixReplyRing.REPLY, 1, 2, 0), taken.stream().filter(t -> t.session() == 1)
            .findFirst().orElseThrow());
        assertFalse(ring.takeSlow(0), "its queue never overflowed");
        assertEquals(0, ring.repliesRefused());
    }

    @Test
    void aDisconnectTheFullRingCannotTakeIsWrittenOnceThereIsRoomUnlessItsConnectionEndsFirst()
    {
        // Four shares in the ring: five members taking turns fill it, none at its share.
        final FixReplyRing ring = ring(4);
        long sent = 0;
        int queued = 0;
        for (int session = 0; queued < 5; session = session == 4 ? 0 : session + 1)
        {
            if (ring.queuedBytesOf(session) == 0)
            {
                assertTrue(reply(ring, session, 1, sent++));
                queued += ring.queuedBytesOf(session) > 0 ? 1 : 0;
            }
        }
        // Then the last room, with a sixth member's empty replies, each as large as a disconnect's record.
        while (ring.queuedBytesOf(5) == 0)
        {
            assertTrue(ring.reply(5, 1, payload, 0, 0));
            sent++;
        }
        ring.disconnect(0, 3);
        ring.disconnect(0, 3); // asked again while owed: still one
        ring.disconnect(1, 5);
        assertEquals(2, ring.disconnectsDeferred(), "owed, not dropped");
        ring.forgetOwedDisconnect(1); // session 1's connection ended before there was room

        drain(ring);
        final List<Taken> disconnects = taken.stream().filter(t -> t.type() == FixReplyRing.DISCONNECT).toList();
        assertEquals(List.of(new Taken(FixReplyRing.DISCONNECT, 0, 3, -1)), disconnects,
            "session 0's, for the connection asked about; none for session 1's next connection");
        assertEquals(sent, taken.size() - 1, "every reply too");
        assertEquals(0, ring.backlog());
        assertEquals(0, ring.sendOwed());
    }

    /**
     * The sender takes all there is (a read that meets the wrap's padding takes no record), then the
     * gateway's cycle writes what is owed and moves the queues in, until nothing is left.
     */
    private void drain(final FixReplyRing ring)
    {
        final MessageHandler sender = handler(ring);
        while (ring.backlog() > 0 || ring.sendOwed() > 0)
        {
            ring.read(sender, 1024);
        }
    }

    private static FixReplyRing ring(final int sharesInRing)
    {
        final int[] members = new int[MEMBERS];
        for (int i = 0; i < MEMBERS; i++)
        {
            members[i] = i;
        }
        return new FixReplyRing(MEMBERS, members, sharesInRing);
    }

    private boolean reply(final FixReplyRing ring, final int session, final int connection, final long sequence)
    {
        payload.putLong(0, sequence);
        return ring.reply(session, connection, payload, 0, PAYLOAD);
    }

    private MessageHandler handler(final FixReplyRing ring)
    {
        return (type, buffer, index, length) ->
        {
            final int session = buffer.getInt(index);
            ring.taken(session, length);
            final int connection = buffer.getInt(index + FixReplyRing.RECORD_HEADER);
            final long sequence = type == FixReplyRing.REPLY && length == FixReplyRing.REPLY_HEADER + PAYLOAD ?
                buffer.getLong(index + FixReplyRing.REPLY_HEADER) : -1;
            taken.add(new Taken(type, session, connection, sequence));
        };
    }
}
