package io.ringwire.exchange.fix;

import io.ringwire.exchange.gateway.SessionConfig;
import org.HdrHistogram.Recorder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import quickfix.FixVersions;
import quickfix.SessionID;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static io.ringwire.exchange.fix.FixDoorApplication.LOGGED_ON;
import static io.ringwire.exchange.fix.FixDoorApplication.LOST;
import static io.ringwire.exchange.fix.FixDoorApplication.REQUEST;
import static io.ringwire.exchange.fix.FixReplyRing.RECORD_HEADER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The door's QuickFIX/J application over its inbound ring alone, no sockets: a logout that finds
 * the ring full never waits; its LOST record is owed and comes after the record another thread was
 * writing, before the same member's next record, or from the gateway's thread once it read the ring.
 */
class FixDoorApplicationTest
{
    private static final int RING_BYTES = 4096;
    private static final int FILLER_MEMBER = 7;
    private static final long BLOCKED_MS = 200;

    private final AtomicIntegerArray logonsAndLogouts = new AtomicIntegerArray(2);
    private final FixDoorApplication application = new FixDoorApplication(
        Map.of("M0", member(0), "M1", member(1)), new FixOrders[]{ new FixOrders(1, 16), new FixOrders(1, 16) },
        new FixExecIds(0), logonsAndLogouts, new Recorder(3), new Recorder(3),
        new ConnectionGuard(FixDoor.MAX_QUEUED_WRITES), RING_BYTES);

    @Test
    void aLogoutThatFindsTheRingFullIsOwedAndTheGatewaysThreadWritesItOnceTheRingHasRoom()
    {
        final int fillers = fill();
        application.onLogout(session("M0"));

        assertEquals(1, application.logoutsDeferred());
        assertEquals(1, logonsAndLogouts.get(0), "counted at once, as if written");
        assertEquals(0, application.payOwedLogouts(), "no room yet");
        assertEquals(fillers, drain().size());

        assertEquals(1, application.payOwedLogouts());
        assertEquals(List.of(new Record(LOST, 0)), drain());
        assertEquals(0, application.payOwedLogouts(), "paid once");
    }

    @Test
    void aLogoutWithRoomInTheRingIsWrittenAtOnce()
    {
        application.onLogout(session("M1"));

        assertEquals(0, application.logoutsDeferred());
        assertEquals(List.of(new Record(LOST, 1)), drain());
        assertEquals(0, application.payOwedLogouts());
    }

    @Test
    void aMembersNextRecordWaitsForItsOwedLogoutAndComesAfterIt() throws Exception
    {
        final List<Record> afterFillers = logonWhileM0sLogoutIsOwed("M0");
        assertEquals(List.of(new Record(LOST, 0), new Record(LOGGED_ON, 0)), afterFillers,
            "the member's logout before its next logon");
        assertEquals(2, logonsAndLogouts.get(0));
    }

    @Test
    void anotherMembersRecordWrittenWhileALogoutIsOwedIsFollowedByThatLogout() throws Exception
    {
        final List<Record> afterFillers = logonWhileM0sLogoutIsOwed("M1");
        assertEquals(List.of(new Record(LOGGED_ON, 1), new Record(LOST, 0)), afterFillers,
            "the thread holding the lock pays what is owed after its own record");
        assertEquals(0, application.payOwedLogouts(), "nothing left owed");
    }

    /**
     * Fills the ring, has M0's logout owed, then logs {@code member} on from a thread of its own,
     * which waits for room; drains the ring until that thread is done.
     *
     * @return the two records after the fillers.
     */
    private List<Record> logonWhileM0sLogoutIsOwed(final String member) throws InterruptedException
    {
        final int fillers = fill();
        application.onLogout(session("M0"));
        final Thread logon = Thread.ofPlatform().start(() -> application.onLogon(session(member)));
        logon.join(BLOCKED_MS);
        assertTrue(logon.isAlive(), "the logon waits while the ring is full");

        final List<Record> records = drainUntilDone(logon);
        assertEquals(fillers + 2, records.size(), () -> "besides the fillers: " + notFillers(records));
        return records.subList(fillers, fillers + 2);
    }

    private record Record(int type, int sessionIndex)
    {
    }

    /** Fills the inbound ring with the smallest records, so not even a LOST record fits. */
    private int fill()
    {
        final UnsafeBuffer header = new UnsafeBuffer(new byte[RECORD_HEADER]);
        header.putInt(0, FILLER_MEMBER);
        int written = 0;
        while (application.inbound().write(REQUEST, header, 0, RECORD_HEADER))
        {
            written++;
        }
        assertTrue(written > 0);
        return written;
    }

    private List<Record> drain()
    {
        final List<Record> records = new ArrayList<>();
        // A read stops at the ring's end, and counts no padding record: it may read nothing with
        // records still behind the padding.
        while (application.inbound().read((type, buffer, index, length) ->
            records.add(new Record(type, buffer.getInt(index)))) > 0 || application.inbound().size() > 0)
        {
            Thread.onSpinWait();
        }
        return records;
    }

    /** Reads the ring until {@code writer} has ended and the ring is empty. */
    private List<Record> drainUntilDone(final Thread writer) throws InterruptedException
    {
        final List<Record> records = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        do
        {
            records.addAll(drain());
            writer.join(1);
            assertFalse(System.nanoTime() > deadline, "the writer to end");
        }
        while (writer.isAlive());
        records.addAll(drain());
        return records;
    }

    private static List<Record> notFillers(final List<Record> records)
    {
        return records.stream().filter(record -> record.sessionIndex() != FILLER_MEMBER).toList();
    }

    private static FixDoor.Member member(final int index)
    {
        return new FixDoor.Member(index, new SessionConfig(1 + index, "token-" + index, 1 + index, "member-" + index),
            "M" + index);
    }

    private static SessionID session(final String member)
    {
        return new SessionID(FixVersions.BEGINSTRING_FIX44, "EXCH", member);
    }
}
