package io.ringwire.exchange.fix;

import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.LoopbackPorts;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The door's way out, the outbound ring and the sender thread behind it, with no member connected:
 * a disconnect the full ring cannot take is owed and sent once there is room, never lost; a record
 * the sender fails on is counted and skipped, and the sender goes on; a session's replies wait at
 * its share of the ring, and a full ring names the session holding the most of it as the one to cut.
 */
class FixDoorSenderTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** An SBE header of template 0: a reply the sender reads and has nothing to send for. */
    private static final UnsafeBuffer NOTHING_TO_SEND = new UnsafeBuffer(new byte[64]);
    private static final int MEMBERS = 5;

    @Test
    void aDisconnectTheFullRingCannotTakeIsSentOnceThereIsRoomBehindTheRepliesWaiting() throws Exception
    {
        try (FixDoor door = door())
        {
            // Five sessions' shares are more than the ring: taking turns, they fill it, none at its share.
            int replies = fill(door, NOTHING_TO_SEND.capacity());
            // Then the last room with empty replies, each as large as a disconnect's record.
            replies += fill(door, 0);
            assertTrue(replies > 1_000, "the ring took " + replies + " replies before it was full");
            assertEquals(0, door.repliesHeldBack());

            door.disconnect(FixDoor.FIRST_TRANSPORT);
            door.disconnect(FixDoor.FIRST_TRANSPORT); // asked again while owed: still one owed
            assertEquals(1, door.disconnectsDeferred(), "owed, not dropped");

            door.start();
            await(() -> door.outboundBacklog() == 0, "the sender to take the replies");
            assertEquals(0, door.disconnectsDone(), "nothing sent it yet");
            assertEquals(1, door.sendOwed(), "the gateway's next cycle writes the owed disconnect");
            await(() -> door.disconnectsDone() == 1, "the sender to act on the disconnect");
            assertEquals(0, door.sendOwed(), "and owes nothing more");
            assertEquals(1, door.disconnectsDone());
            assertEquals(0, door.senderFailures());
        }
    }

    @Test
    void aRecordTheSenderFailsOnIsCountedAndSkippedAndTheSenderGoesOn() throws Exception
    {
        try (FixDoor door = door())
        {
            door.start();
            assertTrue(door.toSession(99, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()), "a session the door lacks");
            door.disconnect(FixDoor.FIRST_TRANSPORT);

            await(() -> door.disconnectsDone() == 1, "the sender to go on past the failed record");
            assertEquals(1, door.senderFailures());
            assertFalse(door.outboundBacklog() > 0);
        }
    }

    @Test
    void aSessionWaitsAtItsShareAndAFullRingCutsTheSessionHoldingTheMostOfItNotTheOneWithFewReplies() throws Exception
    {
        try (FixDoor door = door())
        {
            final int repliesToShare = untilRefused(door, 0);
            assertEquals(-1, door.slowConsumer(), "a session at its share is not cut: its reply waits");
            assertEquals(1, door.repliesHeldBack());
            assertEquals(0, door.ringFullRefusals());
            final int recordBytes = FixDoor.SESSION_SHARE / repliesToShare;
            assertTrue(recordBytes >= NOTHING_TO_SEND.capacity() && recordBytes < 2 * NOTHING_TO_SEND.capacity(),
                repliesToShare + " replies took the share");
            assertTrue(door.toSession(1, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()),
                "the ring still takes other sessions' replies");
            assertFalse(door.heldBackLongerThan(0, TimeUnit.SECONDS.toNanos(10)), "waiting, not yet for long");
            Thread.sleep(20);
            assertTrue(door.heldBackLongerThan(0, TimeUnit.MILLISECONDS.toNanos(10)),
                "its replies waited at its share past the limit: the gateway cuts it");
            assertFalse(door.heldBackLongerThan(1, 0), "a session under its share never waited");

            untilRefused(door, 1);
            untilRefused(door, 2);
            untilRefused(door, 3);
            assertEquals(4, door.repliesHeldBack(), "four sessions at their share, none cut");
            assertEquals(0, door.ringFullRefusals());

            // The four shares are the whole ring, less the last few records' room: session 4, which
            // has few replies, meets it full.
            final int light = untilRefused(door, 4);
            assertTrue(light < 4, light + " replies of session 4 fitted");
            assertEquals(1, door.ringFullRefusals());
            final int slow = door.slowConsumer();
            assertTrue(slow >= 0 && slow < 4, "the session to cut holds a share of the ring, not session 4: " + slow);

            door.start();
            await(() -> door.outboundBacklog() == 0, "the sender to take the replies");
            assertTrue(door.toSession(4, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()), "room again");
            assertTrue(door.toSession(0, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()),
                "and a share again for the session the sender caught up with");
            assertFalse(door.heldBackLongerThan(1, 0), "the sender caught up: nothing waits");
        }
    }

    /** Session {@code session}'s replies until the door refuses one: how many it took. */
    private static int untilRefused(final FixDoor door, final int session)
    {
        int replies = 0;
        while (door.toSession(session, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()))
        {
            replies++;
        }
        return replies;
    }

    /** Replies of {@code length} from each session in turn until the ring is full: how many it took. */
    private static int fill(final FixDoor door, final int length)
    {
        int replies = 0;
        for (int session = 0; ; session = (session + 1) % MEMBERS)
        {
            if (!door.toSession(session, NOTHING_TO_SEND, 0, length))
            {
                assertTrue(door.slowConsumer() >= 0, "the ring full, not a session's share");
                return replies;
            }
            replies++;
        }
    }

    private static FixDoor door()
    {
        final List<FixDoor.Member> members = new java.util.ArrayList<>();
        for (int i = 0; i < MEMBERS; i++)
        {
            members.add(new FixDoor.Member(i, new SessionConfig(1 + i, "token-" + i, 1 + i, "member-" + i), "MEMBER" + i));
        }
        return new FixDoor(new InetSocketAddress("127.0.0.1", LoopbackPorts.pick()), "EXCH", null, members, 1 << 20, 0);
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
