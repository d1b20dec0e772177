package io.ringwire.exchange.fix;

import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.LoopbackPorts;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The door's way out, the outbound ring and the sender thread behind it, with no member connected:
 * a disconnect the full ring cannot take is owed and sent once there is room, never lost; a record
 * the sender fails on is counted and skipped, and the sender goes on.
 */
class FixDoorSenderTest
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** An SBE header of template 0: a reply the sender reads and has nothing to send for. */
    private static final UnsafeBuffer NOTHING_TO_SEND = new UnsafeBuffer(new byte[64]);

    @Test
    void aDisconnectTheFullRingCannotTakeIsSentOnceThereIsRoomBehindTheRepliesWaiting() throws Exception
    {
        try (FixDoor door = door())
        {
            int replies = 0;
            while (door.toSession(0, NOTHING_TO_SEND, 0, NOTHING_TO_SEND.capacity()))
            {
                replies++;
            }
            // Then the last room with empty replies, each as large as a disconnect's record.
            while (door.toSession(0, NOTHING_TO_SEND, 0, 0))
            {
                replies++;
            }
            assertTrue(replies > 1_000, "the ring took " + replies + " replies before it was full");

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

    private static FixDoor door()
    {
        return new FixDoor(new InetSocketAddress("127.0.0.1", LoopbackPorts.pick()), "EXCH", null,
            List.of(new FixDoor.Member(0, new SessionConfig(1, "token-1", 1, "member-0"), "MEMBER0")), 1 << 20, 0);
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
