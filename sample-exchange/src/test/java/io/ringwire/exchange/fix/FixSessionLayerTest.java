package io.ringwire.exchange.fix;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import quickfix.MemoryStore;
import quickfix.Message;
import quickfix.MessageStoreFactory;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.field.ClOrdID;
import quickfix.field.MsgType;
import quickfix.field.OrdType;
import quickfix.field.OrderQty;
import quickfix.field.Price;
import quickfix.field.Side;
import quickfix.field.Symbol;
import quickfix.field.TimeInForce;
import quickfix.field.TransactTime;
import quickfix.fix44.NewOrderSingle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FIX session layer of the door, as FIX 4.4 prescribes it: a member that comes back with its
 * sequence numbers persisted gets what it missed resent, once; garbled messages are ignored and the
 * session goes on; a message missing a required tag, or of a type FIX does not have, draws a
 * session-level Reject and the session goes on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FixSessionLayerTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** MEMBER8's session at the door. */
    private static final SessionID MEMBER_B_AT_DOOR = new SessionID("FIX.4.4", FixDoorTest.DOOR_COMP_ID,
        FixExchange.MEMBER_B);

    @TempDir
    Path directory;

    private FixExchange exchange;

    @BeforeEach
    void start() throws Exception
    {
        exchange = new FixExchange(directory.resolve("door"));
    }

    @AfterEach
    void stop() throws Exception
    {
        exchange.close();
    }

    @Test
    void aMemberThatRestartsWithItsSequenceNumbersGetsWhatItMissedResentOnce() throws Exception
    {
        final Path store = directory.resolve("member");
        final Set<String> orders = new HashSet<>();
        try (FixTestClient client = new FixTestClient(exchange.port, FixExchange.MEMBER_A, FixExchange.PASSWORD_A,
            store))
        {
            assertTrue(client.awaitLogon(WAIT));
            for (int i = 1; i <= 3; i++)
            {
                final NewOrderSingle order = new NewOrderSingle(new ClOrdID("G-" + i), new Side(Side.BUY),
                    new TransactTime(LocalDateTime.now()), new OrdType(OrdType.LIMIT));
                order.set(new Symbol("1"));
                order.setString(Price.FIELD, String.valueOf(980 + i));
                order.set(new OrderQty(1));
                order.set(new TimeInForce(TimeInForce.GOOD_TILL_CANCEL));
                client.send(order);
                assertEquals('0', client.next(MsgType.EXECUTION_REPORT, WAIT).getChar(150));
                orders.add("G-" + i);
            }
        }
        // Gone: the gateway cancels its orders and the door keeps the three reports for it.
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (exchange.liveOrders() > 0 && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
        }
        assertEquals(0, exchange.liveOrders());

        try (FixTestClient again = new FixTestClient(exchange.port, FixExchange.MEMBER_A, FixExchange.PASSWORD_A, store))
        {
            assertTrue(again.awaitLogon(WAIT));
            final Set<String> execIds = new HashSet<>();
            final Set<String> canceled = new HashSet<>();
            for (int i = 0; i < 3; i++)
            {
                final Message report = again.next(MsgType.EXECUTION_REPORT, WAIT);
                assertEquals('4', report.getChar(150), report.toString());
                assertTrue(execIds.add(report.getString(17)), "no report twice: " + report);
                canceled.add(report.getString(11));
            }
            assertEquals(orders, canceled, "every order's cancel, resent after the gap");
            assertNull(again.received.poll(1, TimeUnit.SECONDS), "and nothing more");
        }
    }

    @Test
    void aLogonWithAWrongPasswordNeitherResetsNorAdvancesTheMembersSessionAndTheMemberResumesWhereItWas()
        throws Exception
    {
        final int target;
        final int sender;
        final Session doorSide = Session.lookupSession(new SessionID("FIX.4.4", FixDoorTest.DOOR_COMP_ID,
            FixExchange.MEMBER_B));
        try (RawFixConnection member = logOnRaw())
        {
            assertAlive(member, "before");
            member.send("5", "");
            assertEquals("5", member.receiveSkippingHeartbeats(WAIT).get(35), "logged out");
        }
        awaitLoggedOff(doorSide);
        target = doorSide.getExpectedTargetNum();
        sender = doorSide.getExpectedSenderNum();

        // Someone who knows the member's SenderCompID but not its password: once at the sequence
        // number the door expects, once asking for both to start again at 1, once with no password
        // behind a Heartbeat's MsgType (QuickFIX/J takes the last MsgType).
        for (final String attempt : List.of("", "141=Y|", "disguised"))
        {
            try (RawFixConnection intruder = new RawFixConnection(exchange.port, FixExchange.MEMBER_B,
                FixDoorTest.DOOR_COMP_ID))
            {
                intruder.sequence(attempt.isEmpty() ? target : 1);
                if ("disguised".equals(attempt))
                {
                    intruder.sendRaw(RawFixConnection.frame("35=0\u0001" + intruder.body("A", "98=0|108=30|141=Y|"),
                        0, false));
                }
                else
                {
                    intruder.send("A", "98=0|108=30|" + attempt + "554=not-" + FixExchange.PASSWORD_B + "|");
                }
                final Map<Integer, String> answer = intruder.receive(WAIT);
                assertTrue(null == answer || "5".equals(answer.get(35)), "no Logon answered: " + answer);
            }
            awaitLoggedOff(doorSide);
            assertEquals(target, doorSide.getExpectedTargetNum(), "the member's next MsgSeqNum, after " + attempt);
            assertEquals(sender, doorSide.getExpectedSenderNum(), "the door's next MsgSeqNum, after " + attempt);
        }
        assertEquals(3, exchange.door.logonsRefused());

        try (RawFixConnection member = new RawFixConnection(exchange.port, FixExchange.MEMBER_B,
            FixDoorTest.DOOR_COMP_ID))
        {
            member.sequence(target);
            member.send("A", "98=0|108=30|554=" + FixExchange.PASSWORD_B + "|");
            final Map<Integer, String> logon = member.receive(WAIT);
            assertEquals("A", logon.get(35), "logged on where it left off: " + logon);
            assertEquals(String.valueOf(sender), logon.get(34), "the door goes on from its own number");
            assertAlive(member, "after");
        }
    }

    private static void awaitLoggedOff(final Session session) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (session.isLoggedOn() || session.hasResponder())
        {
            assertTrue(System.nanoTime() < deadline, "the door's session ended");
            Thread.sleep(10);
        }
    }

    @Test
    void aMemberThatStopsReadingIsDisconnectedAsASlowConsumerAndTheOtherMemberTradesOn() throws Exception
    {
        final SessionID slow = MEMBER_B_AT_DOOR;
        try (RawFixConnection member = logOnNotReading();
            StallWatch watch = new StallWatch(member, Duration.ofSeconds(45)))
        {
            // IOC orders nobody trades against, at about the gateway's rate: each draws a report,
            // which this member never reads, until the door's queue for it is past its bound. The
            // door may stop reading this member meanwhile (its own requests wait past their bound),
            // so a send can block.
            int sent = 0;
            boolean closedByDoor = false;
            try
            {
                while (Session.lookupSession(slow).isLoggedOn())
                {
                    for (int i = 0; i < 100; i++)
                    {
                        member.send("D", "11=S" + sent++ + "|55=1|54=1|60=20261128-12:00:00|40=2|44=990|38=1|59=3|");
                    }
                    Thread.sleep(10);
                }
            }
            catch (final SocketException ex)
            {
                // The door closes the connection of a member it cut off at once, its requests unread.
                watch.assertNotStalled();
                closedByDoor = true;
                awaitLoggedOff(Session.lookupSession(slow));
            }
            watch.assertNotStalled();
            assertTrue(sent > FixDoor.MAX_QUEUED_WRITES, "cut off after " + sent + " orders, past the door's bound");
            assertEquals(0, exchange.door.disconnectsDone(), "cut off by the door's write bound, not by the " +
                "gateway's (its outbound ring never filled)");
            assertEquals(0, exchange.door.repliesRefused());
            assertTrue(closedByDoor || member.sendsFailWithin(WAIT), "the door closed the connection at the cut, " +
                "not once the writes it had queued for a member that reads nothing were flushed");
            watch.assertNotStalled();
            assertEquals(1, exchange.door.connectionsClosedAtCut());
        }
        try (FixTestClient other = new FixTestClient(exchange.port, FixExchange.MEMBER_A, FixExchange.PASSWORD_A,
            directory.resolve("member")))
        {
            assertTrue(other.awaitLogon(WAIT));
            final NewOrderSingle order = new NewOrderSingle(new ClOrdID("A-1"), new Side(Side.BUY),
                new TransactTime(LocalDateTime.now()), new OrdType(OrdType.LIMIT));
            order.set(new Symbol("1"));
            order.setString(Price.FIELD, "990");
            order.set(new OrderQty(1));
            order.set(new TimeInForce(TimeInForce.GOOD_TILL_CANCEL));
            other.send(order);
            assertEquals('0', other.next(MsgType.EXECUTION_REPORT, WAIT).getChar(150), "the other member trades on");
        }
    }

    @Test
    void aMemberTheGatewayCutsOffLosesItsConnectionAtOnceWithWhatWasQueuedForIt() throws Exception
    {
        try (RawFixConnection member = logOnNotReading();
            StallWatch watch = new StallWatch(member, Duration.ofSeconds(45)))
        {
            // IOC orders, each drawing a report or two, read by nobody, a hundred at a time until
            // replies wait in the door's queue for the connection (the socket's buffers are full):
            // a few thousand, far fewer than QuickFIX/J's own bound.
            int sent = 0;
            // The backlog is the setting, not what the test proves: it gets three times the usual wait,
            // and a door slower than the usual wait to take the orders leaves every thread's stack in
            // the test's output once, as evidence of what held it.
            final long start = System.nanoTime();
            final long backlogBy = start + 3 * WAIT.toNanos();
            boolean slowReported = false;
            while (exchange.door.queuedWrites(1) < 2_000)
            {
                assertTrue(System.nanoTime() < backlogBy, "no replies queued at the door after " + sent + " orders");
                for (int i = 0; i < 100; i++)
                {
                    member.send("D", "11=G" + sent++ + "|55=1|54=1|60=20261128-12:00:00|40=2|44=990|38=1|59=3|");
                }
                while (exchange.door.requests() + exchange.door.refusals() < sent || exchange.door.outboundBacklog() > 0)
                {
                    final int orders = sent;
                    final long now = System.nanoTime();
                    assertTrue(now < backlogBy, () -> "the door took " + exchange.door.requests() + " of " + orders +
                        " orders (refused " + exchange.door.refusals() + "), outbound backlog " +
                        exchange.door.outboundBacklog() + ", writes queued for the member " +
                        exchange.door.queuedWrites(1) + "; the member: " + exchange.door.describe(1) + "; threads:" +
                        threadDump());
                    if (!slowReported && now - start > WAIT.toNanos())
                    {
                        slowReported = true;
                        System.err.println("FixSessionLayerTest: the door has taken " + exchange.door.requests() +
                            " of " + orders + " orders after " + WAIT + "; outbound backlog " +
                            exchange.door.outboundBacklog() + "; the member: " + exchange.door.describe(1) +
                            "; threads:" + threadDump());
                    }
                    Thread.sleep(1);
                }
            }
            assertTrue(exchange.door.queuedWrites(1) < FixDoor.MAX_QUEUED_WRITES / 2);
            exchange.onThread(() ->
            {
                exchange.door.disconnect(FixDoor.FIRST_TRANSPORT + 1);
                return null;
            });
            assertTrue(member.sendsFailWithin(WAIT), "the door closed the connection at the cut, not once what " +
                "it had queued for a member that reads nothing was written");
            watch.assertNotStalled();
            assertFalse(Session.lookupSession(MEMBER_B_AT_DOOR).isLoggedOn());
            assertEquals(1, exchange.door.disconnectsDone());
            assertEquals(1, exchange.door.connectionsClosedAtCut());
        }
    }

    /** Logs MEMBER8 on over a connection with a small receive buffer, which it will not read. */
    private RawFixConnection logOnNotReading() throws Exception
    {
        final RawFixConnection member = new RawFixConnection(exchange.port, FixExchange.MEMBER_B,
            FixDoorTest.DOOR_COMP_ID, 4096);
        member.send("A", "98=0|108=30|141=Y|554=" + FixExchange.PASSWORD_B + "|");
        assertEquals("A", member.receive(WAIT).get(35));
        // QuickFIX/J writes its Logon answer before it marks the session logged on.
        final long loggedOnBy = System.nanoTime() + WAIT.toNanos();
        while (!Session.lookupSession(MEMBER_B_AT_DOOR).isLoggedOn())
        {
            assertTrue(System.nanoTime() < loggedOnBy, "the door's session logged on");
            Thread.sleep(1);
        }
        return member;
    }

    /**
     * Ends a member's sends that would outlast the test: a send blocks while the door reads nothing
     * of the member, and no test timeout interrupts it. Past its limit it keeps every thread's stack
     * for the failure and closes the connection, which fails the send.
     */
    private static final class StallWatch implements AutoCloseable
    {
        private final AtomicReference<String> stalled = new AtomicReference<>();
        private final Thread thread;

        StallWatch(final RawFixConnection member, final Duration limit)
        {
            thread = Thread.ofPlatform().daemon().name("stall-watch").start(() ->
            {
                try
                {
                    Thread.sleep(limit);
                }
                catch (final InterruptedException ex)
                {
                    return;
                }
                stalled.set(threadDump());
                // Also here: the send it ends fails with an error of its own.
                System.err.println("stall-watch: the member's sends were held past " + limit + ":" + stalled.get());
                try
                {
                    member.close();
                }
                catch (final IOException ignored)
                {
                    // The send it held fails either way.
                }
            });
        }

        void assertNotStalled()
        {
            assertNull(stalled.get(), () -> "the member's sends were held past the limit: " + stalled.get());
        }

        @Override
        public void close() throws InterruptedException
        {
            thread.interrupt();
            thread.join();
        }
    }

    /** @return every live thread's name, state and stack, for a failure that a stall caused. */
    static String threadDump()
    {
        final StringBuilder dump = new StringBuilder();
        for (final ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true))
        {
            dump.append('\n').append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState());
            if (null != thread.getLockName())
            {
                dump.append(" on ").append(thread.getLockName()).append(" held by ").append(thread.getLockOwnerName());
            }
            for (final StackTraceElement frame : thread.getStackTrace())
            {
                dump.append("\n    at ").append(frame);
            }
        }
        return dump.toString();
    }

    @Test
    void aMemberThatSendsFasterThanTheDoorTakesRequestsIsHeldBackAloneAndLosesNothing() throws Exception
    {
        // A small inbound ring, which a few hundred requests fill.
        exchange.close();
        exchange = new FixExchange(directory.resolve("small-ring"), 64 << 10);
        final int orders = 15_000;
        try (RawFixConnection flooder = logOnRaw(FixExchange.MEMBER_B, FixExchange.PASSWORD_B);
            RawFixConnection other = logOnRaw(FixExchange.MEMBER_A, FixExchange.PASSWORD_A))
        {
            // The gateway takes none of the door's requests for a while, as while the engine's stream
            // is behind: the door's inbound ring fills and the member's session thread waits.
            exchange.holdDoor(true);
            final Flood flood = new Flood(flooder, orders);
            flood.awaitHeld(exchange);
            // The other member's TestRequest, read now, waits behind what the door holds of the
            // flooder's requests: the flooder's bound, not a queue the flooder alone has filled.
            final long takenBefore = exchange.door.requests() + exchange.door.refusals();
            other.send("1", "112=behind-the-flood|");
            exchange.holdDoor(false);
            final Map<Integer, String> answer = other.receiveSkippingHeartbeats(Duration.ofSeconds(30));
            final long takenBehind = exchange.door.requests() + exchange.door.refusals() - takenBefore;
            assertNotNull(answer, "the other member's TestRequest was answered");
            assertEquals("behind-the-flood", answer.get(112), answer.toString());
            assertTrue(takenBehind < 3_000, "the other member's TestRequest waited behind " + takenBehind +
                " of the flooder's requests (the door holds " + FixDoor.QUEUE_UPPER + " of a member's, and one read)");

            flood.awaitAllTaken(exchange);
            assertEquals(0, exchange.door.staleMessagesDropped());
            assertTrue(Session.lookupSession(MEMBER_B_AT_DOOR).isLoggedOn(), "the flooder is still logged on");
            assertAlive(other, "after-the-flood");
            flooder.close();
            flood.reader.join();
        }
    }

    @Test
    void aHeldMemberToWhichNothingIsWrittenIsReadAgainAsSoonAsTheDoorResumesIt() throws Exception
    {
        // Heartbeats draw no reply, so nothing written to the member wakes the door's I/O thread:
        // only the door's own resume does. Each hold and resume takes fewer than QUEUE_UPPER of them.
        exchange.close();
        exchange = new FixExchange(directory.resolve("small-ring"), 64 << 10);
        final int heartbeats = 12_000;
        try (RawFixConnection member = logOnRaw(FixExchange.MEMBER_B, FixExchange.PASSWORD_B))
        {
            exchange.holdDoor(true);
            final StringBuilder batch = new StringBuilder();
            for (int i = 0; i < heartbeats; i++)
            {
                batch.append(RawFixConnection.frame(member.body("0", ""), 0, false));
                if (i % 100 == 99)
                {
                    member.sendRaw(batch.toString());
                    batch.setLength(0);
                }
            }
            member.send("1", "112=after-the-heartbeats|");
            Thread.sleep(500); // the door's ring fills, and what it read of the member waits
            final long resumedNs = System.nanoTime();
            exchange.holdDoor(false);
            final Map<Integer, String> answer = member.receiveSkippingHeartbeats(Duration.ofSeconds(60));
            final Duration took = Duration.ofNanos(System.nanoTime() - resumedNs);
            assertNotNull(answer, "the TestRequest behind the heartbeats was answered");
            assertEquals("after-the-heartbeats", answer.get(112), answer.toString());
            // Dozens of holds: a read late by the I/O thread's select timeout (a second) at each
            // would take tens of seconds.
            assertTrue(took.compareTo(Duration.ofSeconds(6)) < 0, "the door took " + took + " to read " + heartbeats +
                " heartbeats after it was let go");
            assertTrue(exchange.door.readsWoken() > 0, "the door held the member and woke its reads");
            assertTrue(Session.lookupSession(MEMBER_B_AT_DOOR).isLoggedOn(), "the member is still logged on");
        }
    }

    @Test
    void aMemberCutOffWhileTheDoorsRingIsFullHoldsUpNoThreadAndItsLogoutReachesTheGatewayOnceThereIsRoom()
        throws Exception
    {
        exchange.close();
        exchange = new FixExchange(directory.resolve("small-ring"), 64 << 10);
        final int orders = 3_000;
        try (RawFixConnection flooder = logOnRaw(FixExchange.MEMBER_B, FixExchange.PASSWORD_B);
            RawFixConnection cut = logOnRaw(FixExchange.MEMBER_A, FixExchange.PASSWORD_A))
        {
            // Both logons read by the gateway first: a disconnect names the connection it has read.
            final long loggedOnBy = System.nanoTime() + WAIT.toNanos();
            while (!exchange.loggedOn(0) || !exchange.loggedOn(1))
            {
                assertTrue(System.nanoTime() < loggedOnBy, "the gateway read both logons");
                Thread.sleep(1);
            }
            // The gateway takes none of the door's requests: the ring fills with the flooder's, and
            // the member's session thread waits for room holding the ring.
            exchange.holdDoor(true);
            final Flood flood = new Flood(flooder, orders);
            final long fullBy = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (exchange.door.inboundRoom() >= 256)
            {
                assertTrue(System.nanoTime() < fullBy, "the door's inbound ring never filled: " +
                    exchange.door.inboundRoom() + " bytes free");
                Thread.sleep(1);
            }
            flood.awaitHeld(exchange);
            assertTrue(exchange.door.requests() < orders, "the ring is full: the door waits to take the rest");

            // The gateway cuts MEMBER7 off; the door's sender, which every member's replies need,
            // ends the session at once rather than wait for room for its logout.
            exchange.onThread(() ->
            {
                exchange.door.disconnect(FixDoor.FIRST_TRANSPORT);
                return null;
            });
            final long doneBy = System.nanoTime() + WAIT.toNanos();
            while (exchange.door.disconnectsDone() < 1)
            {
                assertTrue(System.nanoTime() < doneBy, () -> "the door's sender has not ended the session (stale " +
                    "disconnects " + exchange.door.disconnectsStale() + "); threads:" + threadDump());
                Thread.sleep(1);
            }
            assertTrue(cut.awaitClosedByPeer(WAIT), "the member's connection closed");
            assertEquals(1, exchange.door.logoutsDeferred(), "its logout waits for room in the ring");
            assertTrue(exchange.loggedOn(0), "the gateway has not read the logout yet");

            exchange.holdDoor(false);
            flood.awaitAllTaken(exchange);
            final long lostBy = System.nanoTime() + WAIT.toNanos();
            while (exchange.loggedOn(0))
            {
                assertTrue(System.nanoTime() < lostBy, "the gateway never heard of the logout");
                Thread.sleep(1);
            }
            assertTrue(Session.lookupSession(MEMBER_B_AT_DOOR).isLoggedOn(), "the flooder is still logged on");

            // MEMBER7 logs on again and trades.
            try (RawFixConnection again = logOnRaw(FixExchange.MEMBER_A, FixExchange.PASSWORD_A))
            {
                again.send("D", "11=A-again|55=1|54=1|60=20261128-12:00:00|40=2|44=990|38=1|59=1|");
                final Map<Integer, String> report = again.receiveSkippingHeartbeats(WAIT);
                assertNotNull(report, "an execution report");
                assertEquals("8", report.get(35), report.toString());
                assertEquals("0", report.get(150), report.toString());
            }
            flooder.close();
            flood.reader.join();
        }
    }

    /**
     * A member that reads its replies (it is fast, not a slow consumer) and writes its IOC orders a
     * hundred to a write, from threads of its own.
     */
    private static final class Flood
    {
        final Thread reader;
        private final Thread writer;
        private final int orders;
        private final AtomicInteger written = new AtomicInteger();
        private final AtomicReference<Exception> writeFailure = new AtomicReference<>();

        Flood(final RawFixConnection flooder, final int orders)
        {
            this.orders = orders;
            reader = Thread.ofPlatform().daemon().start(() ->
            {
                try
                {
                    flooder.awaitClosedByPeer(Duration.ofMinutes(2));
                }
                catch (final IOException ignored)
                {
                    // Closed at the end of the test.
                }
            });
            writer = Thread.ofPlatform().daemon().start(() ->
            {
                try
                {
                    final StringBuilder batch = new StringBuilder();
                    for (int i = 0; i < orders; i++)
                    {
                        batch.append(RawFixConnection.frame(flooder.body("D", "11=F" + i +
                            "|55=1|54=1|60=20261128-12:00:00|40=2|44=990|38=1|59=3|"), 0, false));
                        if (i % 100 == 99)
                        {
                            flooder.sendRaw(batch.toString());
                            batch.setLength(0);
                            written.set(i + 1);
                        }
                    }
                }
                catch (final IOException ex)
                {
                    writeFailure.set(ex);
                }
            });
        }

        /** Waits until the door takes no more: its ring is full, and what it has read of the flooder waits. */
        void awaitHeld(final FixExchange exchange) throws InterruptedException
        {
            final long settleBy = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            long taken = -1;
            int seen = -1;
            while (taken != exchange.door.requests() + exchange.door.refusals() || seen != written.get())
            {
                assertTrue(System.nanoTime() < settleBy, "the door still takes the flooder's requests");
                taken = exchange.door.requests() + exchange.door.refusals();
                seen = written.get();
                Thread.sleep(200);
            }
        }

        /** Waits until every order is written and taken once, the flooder held back, not cut off. */
        void awaitAllTaken(final FixExchange exchange) throws InterruptedException
        {
            writer.join(Duration.ofSeconds(40).toMillis());
            assertNull(writeFailure.get(), "the flooder was held back, not cut off");
            assertEquals(orders, written.get());
            final long allTakenBy = System.nanoTime() + Duration.ofSeconds(40).toNanos();
            while (exchange.door.requests() + exchange.door.refusals() < orders)
            {
                assertTrue(System.nanoTime() < allTakenBy, "the door took " + exchange.door.requests() + " requests " +
                    "and refused " + exchange.door.refusals() + " of the flooder's " + orders);
                Thread.sleep(5);
            }
            assertEquals(orders, exchange.door.requests() + exchange.door.refusals(), "each order taken once");
        }
    }

    @Test
    void aResendRequestForEverythingIsAnsweredFromTheSessionsLastMessagesWithTheOlderOnesGapFilled()
        throws Exception
    {
        final int window = 8;
        exchange.close();
        exchange = new FixExchange(directory.resolve("door-window"), FixDoorApplication.INBOUND_RING_BYTES, window,
            null);
        try (RawFixConnection member = logOnRaw())
        {
            int last = 0;
            for (int i = 1; i <= 20; i++)
            {
                member.send("D", "11=W" + i + "|55=1|54=1|60=20261128-12:00:00|40=2|44=1000|38=1|");
                final Map<Integer, String> ack = member.receiveSkippingHeartbeats(WAIT);
                assertNotNull(ack);
                assertEquals("0", ack.get(39), "the order taken: " + ack);
                last = Integer.parseInt(ack.get(34));
            }
            member.send("2", "7=1|16=0|"); // everything, from the first
            final Map<Integer, String> gapFill = member.receiveSkippingHeartbeats(WAIT);
            assertNotNull(gapFill);
            assertEquals("4", gapFill.get(35), "a SequenceReset first: " + gapFill);
            assertEquals("Y", gapFill.get(123), "a gap fill: " + gapFill);
            assertEquals("1", gapFill.get(34), gapFill.toString());
            assertEquals(String.valueOf(last + 1 - window), gapFill.get(36), "up to the window: " + gapFill);
            for (int sequence = last + 1 - window; sequence <= last; sequence++)
            {
                final Map<Integer, String> resent = member.receiveSkippingHeartbeats(WAIT);
                assertNotNull(resent, "report " + sequence + " resent");
                assertEquals("8", resent.get(35), resent.toString());
                assertEquals(String.valueOf(sequence), resent.get(34), resent.toString());
                assertEquals("Y", resent.get(43), "PossDupFlag: " + resent);
            }
            assertAlive(member, "after-the-resend");
        }
    }

    @Test
    void aMemberWhoseResendRequestHoldsItsSessionsThreadHoldsUpNoOtherMember() throws Exception
    {
        final CountDownLatch inResend = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        // Member B's store holds its session's thread in a resend until the test lets it go.
        final MessageStoreFactory holding = sessionId ->
        {
            try
            {
                return new MemoryStore(sessionId)
                {
                    @Override
                    public void get(final int start, final int end, final Collection<String> messages)
                        throws IOException
                    {
                        if (FixExchange.MEMBER_B.equals(sessionId.getTargetCompID()))
                        {
                            inResend.countDown();
                            try
                            {
                                release.await(30, TimeUnit.SECONDS);
                            }
                            catch (final InterruptedException ex)
                            {
                                Thread.currentThread().interrupt();
                            }
                        }
                        super.get(start, end, messages);
                    }
                };
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        };
        exchange.close();
        exchange = new FixExchange(directory.resolve("door-held"), FixDoorApplication.INBOUND_RING_BYTES,
            FixDoor.RESEND_WINDOW, holding);
        try (RawFixConnection held = logOnRaw(FixExchange.MEMBER_B, FixExchange.PASSWORD_B);
            RawFixConnection other = logOnRaw(FixExchange.MEMBER_A, FixExchange.PASSWORD_A))
        {
            held.send("2", "7=1|16=0|");
            assertTrue(inResend.await(10, TimeUnit.SECONDS), "the ResendRequest reached the store");
            assertAlive(other, "while-the-other-resends");
            release.countDown();
            final Map<Integer, String> gapFill = held.receiveSkippingHeartbeats(WAIT);
            assertNotNull(gapFill);
            assertEquals("4", gapFill.get(35), "the held member's answer once let go: " + gapFill);
        }
        finally
        {
            release.countDown();
        }
    }

    private RawFixConnection logOnRaw() throws Exception
    {
        return logOnRaw(FixExchange.MEMBER_B, FixExchange.PASSWORD_B);
    }

    private RawFixConnection logOnRaw(final String member, final String password) throws Exception
    {
        return logOnRaw(member, password, 30);
    }

    private RawFixConnection logOnRaw(final String member, final String password, final int heartbeatSeconds)
        throws Exception
    {
        final RawFixConnection connection = new RawFixConnection(exchange.port, member, FixDoorTest.DOOR_COMP_ID);
        connection.send("A", "98=0|108=" + heartbeatSeconds + "|141=Y|554=" + password + "|");
        final Map<Integer, String> logon = connection.receive(WAIT);
        assertNotNull(logon);
        assertEquals("A", logon.get(35), "logged on: " + logon);
        return connection;
    }

    private static void assertAlive(final RawFixConnection connection, final String id) throws Exception
    {
        connection.send("1", "112=" + id + "|");
        final Map<Integer, String> answer = receiveAnsweringTestRequests(connection);
        assertNotNull(answer, "the session answers a TestRequest");
        assertEquals("0", answer.get(35), answer.toString());
        assertEquals(id, answer.get(112));
    }

    /**
     * The next message but heartbeats, answering the door's TestRequests on the way: one comes when
     * this thread was paused past the heartbeat interval (a loaded machine), and a member answers it.
     */
    private static Map<Integer, String> receiveAnsweringTestRequests(final RawFixConnection connection)
        throws Exception
    {
        Map<Integer, String> message = connection.receiveSkippingHeartbeats(WAIT);
        while (null != message && "1".equals(message.get(35)))
        {
            connection.send("0", "112=" + message.get(112) + "|");
            message = connection.receiveSkippingHeartbeats(WAIT);
        }
        return message;
    }

    @Test
    void garbledMessagesAreIgnoredAndTheSessionGoesOn() throws Exception
    {
        try (RawFixConnection connection = logOnRaw())
        {
            final String order = "11=X1|55=1|54=1|60=20261128-12:00:00|40=2|44=1000|38=1|";
            connection.sendRaw(RawFixConnection.frame(connection.body("D", order), 0, true));
            connection.reuseSequence();
            assertAlive(connection, "after-bad-checksum");
            connection.sendRaw(RawFixConnection.frame(connection.body("D", order), 5, false));
            connection.reuseSequence();
            assertAlive(connection, "after-bad-body-length");
            assertEquals(0, exchange.liveOrders(), "neither reached the engine");
        }
    }

    @Test
    void aMissingRequiredTagOrAnUnknownMsgTypeDrawsASessionRejectAndTheSessionGoesOn() throws Exception
    {
        try (RawFixConnection connection = logOnRaw())
        {
            connection.send("D", "11=X2|54=1|60=20261128-12:00:00|40=2|44=1000|38=1|");
            final Map<Integer, String> missing = connection.receiveSkippingHeartbeats(WAIT);
            assertEquals("3", missing.get(35), "a session Reject: " + missing);
            assertEquals("1", missing.get(373), "SessionRejectReason: required tag missing");
            assertEquals("55", missing.get(371), "RefTagID");
            assertAlive(connection, "after-missing-tag");

            connection.send("ZZ", "58=what|");
            final Map<Integer, String> unknown = connection.receiveSkippingHeartbeats(WAIT);
            assertEquals("3", unknown.get(35), "a session Reject: " + unknown);
            assertEquals("11", unknown.get(373), "SessionRejectReason: invalid MsgType");
            assertAlive(connection, "after-unknown-type");
        }
    }

    @Test
    void aMessageAnnouncingABodyOverTheBoundClosesItsConnectionBeforeLogonAndOtherMembersGoOn() throws Exception
    {
        try (RawFixConnection member = logOnRaw();
            RawFixConnection stranger = new RawFixConnection(exchange.port, "NOBODY", FixDoorTest.DOOR_COMP_ID))
        {
            stranger.sendRaw("8=FIX.4.4\u00019=2000000000\u000135=A\u0001");
            final boolean closed = stranger.awaitClosedByPeer(WAIT) || stranger.sendsFailWithin(WAIT);
            assertTrue(closed, "the door closed the connection");
            assertEquals(1, exchange.door.connectionsClosedOverBodyLength());
            assertAlive(member, "after-a-stranger's-length");
        }
    }

    @Test
    void aMessageNumberedFarPastItsSessionClosesTheConnectionAndAGapWithinTheBoundIsAskedFor() throws Exception
    {
        try (RawFixConnection member = logOnRaw())
        {
            member.sequence(3 + 10);
            member.send("0", "");
            final Map<Integer, String> resendRequest = member.receiveSkippingHeartbeats(WAIT);
            assertNotNull(resendRequest);
            assertEquals("2", resendRequest.get(35), "a gap within the bound is asked for: " + resendRequest);

            member.sequence(2 + ConnectionGuard.MAX_SEQUENCE_AHEAD + 1);
            member.send("0", "");
            final boolean closed = member.awaitClosedByPeer(WAIT) || member.sendsFailWithin(WAIT);
            assertTrue(closed, "past the bound: the connection closed");
            assertEquals(1, exchange.door.connectionsClosedSequenceAhead());
        }
    }

    @Test
    void aMessageNumberedFarPastItsSessionUnderAPaddedTagClosesTheConnection() throws Exception
    {
        try (RawFixConnection member = logOnRaw())
        {
            // QuickFIX/J reads "034" as MsgSeqNum: it would keep the message, and every one after it, until the gap filled.
            member.sequence(2 + ConnectionGuard.MAX_SEQUENCE_AHEAD + 1);
            member.sendRaw(RawFixConnection.frame(member.body("0", "").replace("\u000134=", "\u0001034="), 0, false));
            // Read only: a message sent now would carry its number the plain way, which the bound reads anyway.
            assertTrue(member.awaitClosedByPeer(WAIT), "past the bound: the connection closed");
            assertEquals(1, exchange.door.connectionsClosedSequenceAhead());
        }
    }

    @Test
    void aMemberNumberedFarPastASessionThatStartedAnewSendsAfterItsLogonWhileItFillsTheGap() throws Exception
    {
        try (RawFixConnection member = new RawFixConnection(exchange.port, FixExchange.MEMBER_B,
            FixDoorTest.DOOR_COMP_ID))
        {
            // The member kept its numbers; the door's session starts from 1.
            member.sequence(10_000);
            member.send("A", "98=0|108=30|554=" + FixExchange.PASSWORD_B + "|");
            final Map<Integer, String> logon = member.receive(WAIT);
            assertNotNull(logon);
            assertEquals("A", logon.get(35), "logged on: " + logon);
            member.send("0", "");
            final Map<Integer, String> resendRequest = member.receiveSkippingHeartbeats(WAIT);
            assertNotNull(resendRequest);
            assertEquals("2", resendRequest.get(35), "the gap asked for: " + resendRequest);

            final int next = 10_002;
            member.sequence(1);
            member.send("4", "43=Y|122=20261128-12:00:00|123=Y|36=" + next + "|");
            member.sequence(next);
            assertAlive(member, "after-the-gap-filled");
            assertEquals(0, exchange.door.connectionsClosedSequenceAhead());
        }
    }

    @Test
    void aMemberWhoseMessagesTheDoorAnswersItselfIsKeptAliveWithoutAHeartbeat() throws Exception
    {
        try (RawFixConnection member = logOnRaw(FixExchange.MEMBER_B, FixExchange.PASSWORD_B, 1))
        {
            // An OrderStatusRequest, which the door answers itself, more often than the heartbeat
            // interval, so no Heartbeat is due: past the gateway's three silent seconds twice over.
            final long endNs = System.nanoTime() + Duration.ofSeconds(6).toNanos();
            int rejects = 0;
            while (System.nanoTime() < endNs)
            {
                member.send("H", "11=S" + rejects + "|55=1|54=1|");
                final Map<Integer, String> answer = receiveAnsweringTestRequests(member);
                assertNotNull(answer, "an answer to each");
                assertEquals("j", answer.get(35), "a BusinessMessageReject, not a Logout: " + answer);
                rejects++;
                Thread.sleep(300);
            }
            assertTrue(rejects > 10, "sent " + rejects);
            assertAlive(member, "after-door-answered-messages");
            assertTrue(exchange.loggedOn(1), "the gateway still holds the session");
        }
    }

    @Test
    void aPossResendOfARequestTakenBeforeIsIgnoredAndOneUnderANewClOrdIdIsTaken() throws Exception
    {
        try (RawFixConnection member = logOnRaw())
        {
            final String order = "55=1|54=1|60=20261128-12:00:00|40=2|44=1000|38=1|";
            member.send("D", "11=P1|" + order);
            final Map<Integer, String> ack = member.receiveSkippingHeartbeats(WAIT);
            assertNotNull(ack);
            assertEquals("0", ack.get(39), "the order taken: " + ack);

            member.send("D", "97=Y|11=P1|" + order);
            assertAlive(member, "after-a-possible-resend");
            assertEquals(1, exchange.door.possResendsIgnored());
            assertEquals(1, exchange.liveOrders(), "taken once");

            member.send("D", "97=Y|11=P2|" + order);
            final Map<Integer, String> second = member.receiveSkippingHeartbeats(WAIT);
            assertNotNull(second);
            assertEquals("P2", second.get(11));
            assertEquals("0", second.get(39), "a possible resend of a request never taken is taken: " + second);
            assertEquals(1, exchange.door.possResendsIgnored());
        }
    }
}
