package io.ringwire.exchange.fix;

import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.LoopbackPorts;
import org.HdrHistogram.Recorder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import quickfix.FixVersions;
import quickfix.SessionID;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The door's way out, the outbound ring and the sender thread behind it, with no member connected:
 * a disconnect the full ring cannot take is owed and sent once there is room, never lost; a record
 * the sender fails on is counted and skipped, and the sender goes on; a session's replies past its
 * share of the ring, or meeting it full, wait in the session's own queue, and only a session whose
 * queue is full has a reply refused.
 */
class FixDoorSenderTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** An SBE header of template 0: a reply the sender reads and has nothing to send for. */
    private static final UnsafeBuffer NOTHING_TO_SEND = new UnsafeBuffer(new byte[64]);
    private static final int MEMBERS = 6;

    @Test
    void aDisconnectTheFullRingCannotTakeIsSentOnceThereIsRoomBehindTheRepliesWaiting() throws Exception
    {
        try (FixDoor door = door(4))
        {
            // Five sessions' shares are more than the ring: taking turns, they fill it, none at its share.
            long replies = fill(door, 0, 5, NOTHING_TO_SEND.capacity());
            // Then the last room with one more session's empty replies, each as large as a disconnect's record.
            replies += fill(door, 5, 6, 0);
            assertTrue(replies > 1_000, "the ring took " + replies + " replies before it was full");
            assertEquals(0, door.repliesRefused(), "what the ring could not take waits in its session's queue");

            door.disconnect(FixDoor.FIRST_TRANSPORT);
            door.disconnect(FixDoor.FIRST_TRANSPORT); // asked again while owed: still one owed
            assertEquals(1, door.disconnectsDeferred(), "owed, not dropped");

            door.start();
            await(() -> door.outboundBacklog() == 0, "the sender to take the replies");
            assertEquals(0, door.disconnectsDone(), "nothing sent it yet");
            // The gateway's cycles: the queued replies go into the ring, then the owed disconnect.
            final long records = replies + 1;
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while ((door.recordsTaken() < records || door.disconnectsDone() < 1) && System.nanoTime() < deadline)
            {
                door.sendOwed();
                Thread.sleep(1);
            }
            assertEquals(1, door.disconnectsDone(), "the sender acted on the owed disconnect");
            assertEquals(records, door.recordsTaken(), "every reply and the disconnect reached the sender");
            assertEquals(0, door.sendOwed(), "and nothing more is owed");
            assertEquals(0, door.senderFailures());
        }
    }

    @Test
    void aSessionWhoseRepliesOutrunTheSenderWaitsInItsOwnQueueAndOneWithFewRepliesIsNotHeldBehindIt() throws Exception
    {
        try (FixDoor door = door(4))
        {
            // The sender takes nothing yet. Session 0's replies take its share of the ring, then its
            // queue; the reply that overflows the queue marks session 0 for the gateway to cut off.
            long accepted = untilSlow(door, 0);
            assertTrue(accepted > (door.replies().sessionShare() + FixReplyRing.SESSION_QUEUE_BYTES) / 128,
                accepted + " replies of session 0 taken");
            assertEquals(0, door.replies().queuedBytesOf(0),
                "its queue went into the ring, ahead of the reply that overflowed it");
            // What the gateway sends it as it cuts it off (the engine's cancels of its orders) still goes.
            for (int i = 0; i < 100; i++)
            {
                assertTrue(door.toSession(0, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()), "cancel " + i);
                accepted++;
            }
            assertEquals(0, door.replies().queuedBytesOf(0));
            assertFalse(door.takeSlow(0), "marked once");
            // Session 1 takes its share and queues half of its queue's room behind it.
            accepted += untilQueued(door, 1, FixReplyRing.SESSION_QUEUE_BYTES / 2);
            // Session 4, with few replies, waits in its own queue only while the ring has no room for it.
            for (int i = 0; i < 10; i++)
            {
                assertTrue(door.toSession(4, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()), "reply " + i);
                accepted++;
            }
            assertEquals(0, door.replies().queuedBytesOf(4), "the ring has room for it: nothing of it waits");
            // Sessions 2 and 3 fill the ring: now session 4's replies wait.
            for (int session = 2; session <= 3; session++)
            {
                accepted += untilQueued(door, session, 1);
            }
            for (int i = 0; i < 10; i++)
            {
                assertTrue(door.toSession(4, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()), "reply " + i);
                accepted++;
            }
            assertTrue(door.replies().queuedBytesOf(4) > 0);
            assertEquals(0, door.repliesRefused(), "nothing refused");
            for (int session = 1; session < MEMBERS; session++)
            {
                assertFalse(door.takeSlow(session), "session " + session + " is not cut");
            }

            door.start();
            // The gateway's cycles move the queued records in as the sender frees room, a record of
            // each session in turn: while session 4 has one waiting, no cycle moves more of session
            // 1's (a longer queue, held at its share until the sender takes its records) than of 4's.
            final int recordRoom = door.replies().queuedBytesOf(4) / 10;
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (anyQueued(door) && System.nanoTime() < deadline)
            {
                final int session1Before = door.replies().queuedBytesOf(1);
                final int session4Before = door.replies().queuedBytesOf(4);
                door.sendOwed();
                final int session1Moved = (session1Before - door.replies().queuedBytesOf(1)) / recordRoom;
                final int session4Moved = (session4Before - door.replies().queuedBytesOf(4)) / recordRoom;
                if (door.replies().queuedBytesOf(4) > 0)
                {
                    assertTrue(session1Moved <= session4Moved + 1,
                        "one cycle moved " + session1Moved + " of session 1's records and " + session4Moved + " of 4's");
                }
            }
            assertFalse(anyQueued(door), "the queues emptied");
            final long all = accepted;
            await(() -> door.recordsTaken() == all, "every reply accepted to reach the sender");
            assertEquals(all, door.recordsTaken(), "none lost");
            assertEquals(0, door.repliesRefused());
        }
    }

    @Test
    void aSessionBeingCutOffTakesAtMostTwiceItsShareOfTheRing() throws Exception
    {
        try (FixDoor door = door(4))
        {
            long accepted = untilQueued(door, 0, 1); // its share, then one reply waits
            final long recordBytes = door.replies().sessionShare() / (accepted - 1); // the room one reply takes in the ring
            accepted += untilSlow(door, 0); // its queue, until it overflows
            accepted += untilQueued(door, 0, 1); // past its share, until it holds twice that
            final long inRing = accepted - 1; // the last one waits in its queue
            assertTrue(inRing * recordBytes <= 2L * door.replies().sessionShare() + recordBytes,
                inRing + " replies of " + recordBytes + " bytes in the ring");
            assertTrue(inRing * recordBytes > 2L * door.replies().sessionShare() - 2 * recordBytes,
                "it took twice its share: " + inRing + " replies");
            for (int session = 1; session <= 2; session++)
            {
                assertTrue(door.toSession(session, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()));
                assertEquals(0, door.replies().queuedBytesOf(session), "the ring has room for the others");
            }
            assertEquals(0, door.repliesRefused());
            // Its queue fills again at twice its share: the reply neither can take is refused, counted,
            // and marks it for the gateway, which cuts whichever connection of it is current.
            while (door.toSession(0, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()))
            {
                assertFalse(door.takeSlow(0),
                    "marked with a reply taken, at " + door.replies().queuedBytesOf(0) + " bytes queued");
            }
            assertEquals(1, door.repliesRefused());
            assertTrue(door.replies().queuedBytesOf(0) > FixReplyRing.SESSION_QUEUE_BYTES * 3 / 4, "its queue was full");
            assertTrue(door.takeSlow(0), "the refusal marks it");
        }
    }

    @Test
    void aReplyNeitherItsSessionsQueueNorTheFullRingCanTakeIsRefusedAndTheSessionMarkedSlow() throws Exception
    {
        try (FixDoor door = door(4))
        {
            long accepted = 0;
            for (int session = 0; session <= 3; session++) // four shares: the ring is full
            {
                accepted += untilQueued(door, session, 1);
            }
            while (door.toSession(4, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()))
            {
                accepted++;
            }
            assertEquals(1, door.repliesRefused());
            assertTrue(door.takeSlow(4), "the gateway cuts session 4 off");
            assertTrue(door.replies().queuedBytesOf(4) > FixReplyRing.SESSION_QUEUE_BYTES * 3 / 4, "its queue was full");
            for (int session = 0; session <= 3; session++)
            {
                assertFalse(door.takeSlow(session), "session " + session + " is not cut");
            }

            startAndDrain(door, accepted);
        }
    }

    @Test
    void aMemberWithinItsShareFindsRoomInTheRingWhileTwoOthersAreCutOffAndTheRestHoldTheirShare() throws Exception
    {
        try (FixDoor door = door(0)) // the door's own sizing
        {
            final int share = door.replies().sessionShare();
            assertTrue(share > FixReplyRing.MAX_SESSION_SHARE * 9L / 10, "share " + share);
            long accepted = 0;
            for (int session = 0; session <= 1; session++) // cut off: each takes twice its share
            {
                accepted += untilSlow(door, session);
                accepted += untilQueued(door, session, 1);
            }
            final int atShare = untilQueued(door, 2, 1);
            accepted += atShare;
            for (int session = 3; session <= 4; session++)
            {
                accepted += untilQueued(door, session, 1);
            }
            // Session 5's burst (a mass cancel's reports, say) goes straight into the ring, up to its
            // whole share: it waits at its share, as session 2 did, not at a full ring.
            final int burst = untilQueued(door, 5, 1);
            accepted += burst;
            assertEquals(atShare, burst, "session 5 took its whole share of the ring");
            for (int session = 2; session < MEMBERS; session++)
            {
                assertFalse(door.takeSlow(session), "session " + session + " is not cut");
            }
            assertEquals(0, door.repliesRefused());

            startAndDrain(door, accepted);
        }
    }

    @Test
    void aMemberLoggingOnAgainBeforeItsLastConnectionsBacklogIsSentHasItsWholeShareAndIsNotCutForThatBacklog()
        throws Exception
    {
        try (FixDoor door = door(0))
        {
            // The sender takes nothing yet. Session 0 holds its share, then is cut off as slow and
            // holds twice its share, one more reply waiting in its queue.
            final int atShare = untilQueued(door, 0, 1);
            long accepted = atShare + untilSlow(door, 0);
            accepted += untilQueued(door, 0, 1);

            // It logs on again with all of that still in the ring: the gateway's cycles move what
            // waits in its queue in, and the new connection's replies take its whole share.
            door.replies().connectionBegan(0);
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (door.replies().queuedBytesOf(0) > 0 && System.nanoTime() < deadline)
            {
                door.sendOwed();
            }
            assertEquals(0, door.replies().queuedBytesOf(0), "its queue went into the ring");
            final int fresh = untilQueued(door, 0, 1);
            accepted += fresh;
            assertTrue(fresh > atShare * 9L / 10, fresh + " replies of the new connection before one waited, " +
                atShare + " at its share");
            assertFalse(door.takeSlow(0), "the new connection is not cut for its last one's backlog");
            assertEquals(0, door.repliesRefused());
            // Its queue overflows too: cut off again, with the last backlog still there, its records
            // hold three shares at most (not twice its share more), and a reply neither can take is refused.
            while (door.toSession(0, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()))
            {
                accepted++;
            }
            assertTrue(door.takeSlow(0));
            assertEquals(1, door.repliesRefused());
            final long recordBytes = door.replies().sessionShare() / (atShare - 1);
            final long bound = FixReplyRing.SHARES_HELD_AT_MOST * door.replies().sessionShare();
            assertTrue(door.replies().ringBytesHeld(0) <= bound && door.replies().ringBytesHeld(0) > bound - 2 * recordBytes,
                door.replies().ringBytesHeld(0) + " ring bytes held, " + bound + " at most");
            // The other members still find their shares.
            assertEquals(atShare, untilQueued(door, 1, 1));
            accepted += atShare;

            startAndDrain(door, accepted);
        }
    }

    /** Starts the sender and runs the gateway's cycles until it has taken every one of {@code accepted} replies. */
    private static void startAndDrain(final FixDoor door, final long accepted)
    {
        door.start();
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (door.recordsTaken() < accepted && System.nanoTime() < deadline)
        {
            door.sendOwed();
        }
        assertEquals(accepted, door.recordsTaken(), "every reply accepted reached the sender");
    }

    private static boolean anyQueued(final FixDoor door)
    {
        for (int session = 0; session < MEMBERS; session++)
        {
            if (door.replies().queuedBytesOf(session) > 0)
            {
                return true;
            }
        }
        return false;
    }

    /** Session {@code session}'s replies until its queue overflows and marks it slow: how many were taken. */
    private static int untilSlow(final FixDoor door, final int session)
    {
        int replies = 0;
        do
        {
            assertTrue(door.toSession(session, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()), "reply " + replies);
            replies++;
        }
        while (!door.takeSlow(session));
        return replies;
    }

    /** Session {@code session}'s replies until {@code bytes} or more of them wait in its queue: how many were taken. */
    private static int untilQueued(final FixDoor door, final int session, final int bytes)
    {
        int replies = 0;
        while (door.replies().queuedBytesOf(session) < bytes)
        {
            assertTrue(door.toSession(session, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()), "reply " + replies);
            replies++;
        }
        return replies;
    }

    /**
     * Replies of {@code length} from sessions {@code from} to {@code to - 1} in turn, until each has
     * one waiting in its queue (the ring full): how many were taken.
     */
    private static int fill(final FixDoor door, final int from, final int to, final int length)
    {
        int replies = 0;
        int queued = 0;
        for (int session = from; queued < to - from; session = session + 1 == to ? from : session + 1)
        {
            if (door.replies().queuedBytesOf(session) > 0)
            {
                continue;
            }
            assertTrue(door.toSession(session, NOTHING_TO_SEND, 0, length));
            replies++;
            if (door.replies().queuedBytesOf(session) > 0)
            {
                queued++;
            }
        }
        return replies;
    }

    @Test
    void aRecordTheSenderFailsOnIsCountedAndSkippedAndTheSenderGoesOn() throws Exception
    {
        try (FixDoor door = door(4))
        {
            door.start();
            assertTrue(door.toSession(99, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()), "a session the door lacks");
            door.disconnect(FixDoor.FIRST_TRANSPORT);

            await(() -> door.disconnectsDone() == 1, "the sender to go on past the failed record");
            assertEquals(1, door.senderFailures());
            // The ring frees what the sender read only after its batch.
            await(() -> door.outboundBacklog() == 0, "the ring emptied");
        }
    }

    @Test
    void aRecordForASessionQuickFixNoLongerKnowsIsCountedAndSkipped() throws Exception
    {
        // The sender alone, its member's session never registered with QuickFIX/J: what a record
        // meets when the acceptor stopped (the door closing) before the sender took it.
        final FixReplyRing ring = new FixReplyRing(1, new int[]{ 0 }, 1);
        final FixReplySender sender = new FixReplySender(ring,
            new SessionID[]{ new SessionID(FixVersions.BEGINSTRING_FIX44, "EXCH", "NOBODY") },
            new FixOrders[]{ new FixOrders(1, 16) }, new FixExecIds(0), new AtomicIntegerArray(1),
            new Recorder(3), new Recorder(3), new ConnectionGuard(FixDoor.MAX_QUEUED_WRITES));
        assertTrue(ring.reply(0, 0, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()));
        assertTrue(ring.reply(0, 0, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()));
        sender.start();
        try
        {
            await(() -> sender.recordsWithoutSession() == 2, "the sender to skip both records");
            assertEquals(2, sender.recordsTaken());
            assertEquals(0, sender.failures(), "skipped, not failed");
            await(() -> ring.backlog() == 0, "the ring emptied");
        }
        finally
        {
            sender.stop();
        }
    }

    /**
     * A door of {@value #MEMBERS} members whose outbound ring holds {@code sharesInRing} session
     * shares: 4 lets members within their share fill it (the ring a door of more than two members
     * would have without its sizing); 0 gives the door's own sizing.
     */
    private static FixDoor door(final int sharesInRing)
    {
        final List<FixDoor.Member> members = new java.util.ArrayList<>();
        for (int i = 0; i < MEMBERS; i++)
        {
            members.add(new FixDoor.Member(i, new SessionConfig(1 + i, "token-" + i, 1 + i, "member-" + i), "MEMBER" + i));
        }
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", LoopbackPorts.pick());
        return sharesInRing == 0 ? new FixDoor(address, "EXCH", null, members, 1 << 20) :
            new FixDoor(address, "EXCH", null, members, 1 << 20, sharesInRing);
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out after " + WAIT + " waiting for " + what);
            }
            Thread.sleep(1);
        }
    }
}
