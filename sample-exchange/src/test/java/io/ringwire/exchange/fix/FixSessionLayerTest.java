package io.ringwire.exchange.fix;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import quickfix.Message;
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

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        final SessionID slow = new SessionID("FIX.4.4", FixDoorTest.DOOR_COMP_ID, FixExchange.MEMBER_B);
        try (RawFixConnection member = new RawFixConnection(exchange.port, FixExchange.MEMBER_B,
            FixDoorTest.DOOR_COMP_ID, 4096))
        {
            member.send("A", "98=0|108=30|141=Y|554=" + FixExchange.PASSWORD_B + "|");
            assertEquals("A", member.receive(WAIT).get(35));
            // QuickFIX/J writes its Logon answer before it marks the session logged on.
            final long loggedOnBy = System.nanoTime() + WAIT.toNanos();
            while (!Session.lookupSession(slow).isLoggedOn())
            {
                assertTrue(System.nanoTime() < loggedOnBy, "the door's session logged on");
                Thread.sleep(1);
            }
            // IOC orders nobody trades against, at about the gateway's rate: each draws a report,
            // which this member never reads, until the door's queue for it is past its bound.
            final long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
            int sent = 0;
            while (Session.lookupSession(slow).isLoggedOn())
            {
                assertTrue(System.nanoTime() < deadline, "still logged on after " + sent + " orders");
                for (int i = 0; i < 100; i++)
                {
                    member.send("D", "11=S" + sent++ + "|55=1|54=1|60=20261128-12:00:00|40=2|44=990|38=1|59=3|");
                }
                Thread.sleep(10);
            }
            assertTrue(sent > FixDoor.MAX_QUEUED_WRITES, "cut off after " + sent + " orders, past the door's bound");
            assertEquals(0, exchange.door.disconnectsDone(), "cut off by the door's write bound, not by the " +
                "gateway's (its outbound ring never filled)");
            assertEquals(0, exchange.door.repliesRefused());
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

    private RawFixConnection logOnRaw() throws Exception
    {
        final RawFixConnection connection = new RawFixConnection(exchange.port, FixExchange.MEMBER_B,
            FixDoorTest.DOOR_COMP_ID);
        connection.send("A", "98=0|108=30|141=Y|554=" + FixExchange.PASSWORD_B + "|");
        final Map<Integer, String> logon = connection.receive(WAIT);
        assertNotNull(logon);
        assertEquals("A", logon.get(35), "logged on: " + logon);
        return connection;
    }

    private static void assertAlive(final RawFixConnection connection, final String id) throws Exception
    {
        connection.send("1", "112=" + id + "|");
        final Map<Integer, String> answer = connection.receiveSkippingHeartbeats(WAIT);
        assertNotNull(answer, "the session answers a TestRequest");
        assertEquals("0", answer.get(35), answer.toString());
        assertEquals(id, answer.get(112));
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
}
