package io.ringwire.exchange.fix;

import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.DummySession;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.filter.codec.ProtocolCodecFilter;
import org.apache.mina.filter.codec.textline.TextLineCodecFactory;
import org.apache.mina.transport.socket.nio.NioSocketAcceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import quickfix.Application;
import quickfix.DefaultSessionFactory;
import quickfix.MemoryStoreFactory;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.mina.IoSessionResponder;
import quickfix.mina.SessionConnector;

import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SelectionKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The door's connection guard over MINA's in-memory connections and a real QuickFIX/J session: a
 * message on a connection the session no longer uses goes no further, one on the session's
 * connection does; a cut closes the connection the session let go and leaves its new one alone.
 * Over a real socket: a connection whose reads QuickFIX/J resumed is read again even when the
 * resume's read interest was lost.
 */
class ConnectionGuardTest
{
    private final SessionID sessionId = new SessionID("FIX.4.4", "GUARD", "MEMBER-G");
    private final List<Object> handled = new ArrayList<>();
    private Session session;

    @BeforeEach
    void createSession() throws Exception
    {
        final SessionSettings settings = new SessionSettings();
        settings.setString("ConnectionType", "acceptor");
        settings.setString("StartTime", "00:00:00");
        settings.setString("EndTime", "00:00:00");
        settings.setString("UseDataDictionary", "N");
        settings.setString(sessionId, "BeginString", "FIX.4.4");
        settings.setString(sessionId, "SenderCompID", "GUARD");
        settings.setString(sessionId, "TargetCompID", "MEMBER-G");
        session = new DefaultSessionFactory(new NoApplication(), new MemoryStoreFactory(), id -> null)
            .create(sessionId, settings);
    }

    @AfterEach
    void closeSession() throws Exception
    {
        session.close();
    }

    @Test
    void aMessageOnAConnectionItsSessionLetGoIsDroppedAndOneOnTheSessionsConnectionPasses() throws Exception
    {
        final ConnectionGuard guard = new ConnectionGuard(FixDoor.MAX_QUEUED_WRITES);
        final IoSession earlier = connection(guard, 40001);
        final IoSession now = connection(guard, 40002);
        session.setResponder(new IoSessionResponder(now, false, 0, 0));

        earlier.getFilterChain().fireMessageReceived("from the earlier connection");
        now.getFilterChain().fireMessageReceived("from the connection now");
        assertEquals(List.of("from the connection now"), handled);
        assertEquals(1, guard.messagesDropped());
        assertFalse(earlier.isClosing(), "nothing queued for it: it closes once its writes are flushed");

        final IoSession beforeLogon = connection(guard, 40003);
        beforeLogon.removeAttribute(SessionConnector.QF_SESSION);
        beforeLogon.getFilterChain().fireMessageReceived("a Logon");
        assertEquals(List.of("from the connection now", "a Logon"), handled, "no session yet: the gate decides");
    }

    @Test
    void aMessagesSequenceNumberIsReadAsQuickFixJReadsIt()
    {
        assertEquals(12, ConnectionGuard.sequenceNumber("8=FIX.4.4\u00019=5\u000135=0\u000134=12\u000149=M\u0001"));
        assertEquals(0, ConnectionGuard.sequenceNumber("8=FIX.4.4\u00019=5\u000135=0\u0001134=12\u0001"), "no MsgSeqNum");
        assertEquals(999_999_999, ConnectionGuard.sequenceNumber("8=FIX.4.4\u000134=999999999\u0001"));
        assertEquals(1_000_000_000, ConnectionGuard.sequenceNumber("8=FIX.4.4\u000134=1000000000\u0001"));
        assertEquals(12, ConnectionGuard.sequenceNumber("8=FIX.4.4\u00019=5\u000135=0\u0001034=12\u0001"), "a padded tag");
        assertEquals(12, ConnectionGuard.sequenceNumber("8=FIX.4.4\u00019=5\u0001+34=12\u0001"), "a signed tag");
        assertEquals(500_000, ConnectionGuard.sequenceNumber("8=FIX.4.4\u000134=0000500000\u0001"), "a padded value");
        assertEquals(0, ConnectionGuard.sequenceNumber("8=FIX.4.4\u000134=2147483648\u0001"), "past an int: unreadable");
        assertEquals(0, ConnectionGuard.sequenceNumber("8=FIX.4.4\u000134=+5\u0001"), "a sign: unreadable");
        assertEquals(0, ConnectionGuard.sequenceNumber("8=FIX.4.4\u000134=\u0001"), "empty: unreadable");
    }

    @Test
    void aMessageWrittenToSlipPastTheBoundIsReadAsQuickFixJReadsIt()
    {
        final int far = 2 + ConnectionGuard.MAX_SEQUENCE_AHEAD + 1;
        assertTrue(ConnectionGuard.pastBound("8=FIX.4.4\u00019=5\u000135=0\u0001034=" + far + "\u0001", 2,
            ConnectionGuard.NO_LOGON), "a padded tag");
        assertTrue(ConnectionGuard.pastBound("8=FIX.4.4\u00019=5\u000135=0\u000134=" + String.format("%010d", far) +
            "\u0001", 2, ConnectionGuard.sequenceNumber("8=FIX.4.4\u000134=0000000001\u0001")), "padded values, the Logon's too");
        assertTrue(ConnectionGuard.pastBound("8=FIX.4.4\u00019=5\u000135=4\u000134=" + far + "\u00010123=Y\u000136=5\u0001",
            2, ConnectionGuard.NO_LOGON), "a gap fill whose flag's tag is padded");
        assertTrue(ConnectionGuard.pastBound("8=FIX.4.4\u00019=5\u000135=4\u000134=" + far + "\u0001035=0\u000136=5\u0001",
            2, ConnectionGuard.NO_LOGON), "a reset that names a second MsgType");
        assertTrue(ConnectionGuard.pastBound("8=FIX.4.4\u00019=5\u000135=0\u000134=3\u000134=" + far + "\u0001", 2,
            ConnectionGuard.NO_LOGON), "two MsgSeqNums: no one reading");
        assertFalse(ConnectionGuard.pastBound("8=FIX.4.4\u00019=5\u000135=0\u0001034=3\u0001", 2,
            ConnectionGuard.NO_LOGON), "a padded tag in order");
        // QuickFIX/J reads SecureData (91) by its length, 5: "x\u0001abc", then MsgSeqNum; split at SOH, "abc\u000134" is no tag.
        assertTrue(ConnectionGuard.pastBound("8=FIX.4.4\u00019=5\u000135=0\u000190=5\u000191=x\u0001abc\u000134=" + far +
            "\u0001", 2, ConnectionGuard.NO_LOGON), "a MsgSeqNum behind a data field's value");
    }

    @Test
    void aMessageIsPastTheBoundOnlyBeyondBothTheSessionsWindowAndItsLogonsAndAResetNever()
    {
        final int bound = ConnectionGuard.MAX_SEQUENCE_AHEAD;
        assertFalse(ConnectionGuard.pastBound(heartbeat(2 + bound), 2, ConnectionGuard.NO_LOGON), "at the edge");
        assertTrue(ConnectionGuard.pastBound(heartbeat(3 + bound), 2, ConnectionGuard.NO_LOGON));
        assertFalse(ConnectionGuard.pastBound(heartbeat(10_001), 1, 10_000),
            "after a Logon numbered past a restarted door's session");
        assertTrue(ConnectionGuard.pastBound(heartbeat(10_001 + bound), 1, 10_000));
        assertTrue(ConnectionGuard.pastBound(heartbeat(9_000), 1, 10_000), "between the two windows");
        assertFalse(ConnectionGuard.pastBound("8=FIX.4.4\u00019=5\u000135=4\u000134=999999\u000136=5\u0001", 2,
            ConnectionGuard.NO_LOGON), "a SequenceReset that resets");
        assertTrue(ConnectionGuard.pastBound("8=FIX.4.4\u00019=5\u000135=4\u000134=999999\u0001123=Y\u000136=5\u0001", 2,
            ConnectionGuard.NO_LOGON), "a gap fill is numbered like any message");
    }

    private static String heartbeat(final long sequence)
    {
        return "8=FIX.4.4\u00019=5\u000135=0\u000134=" + sequence + "\u000149=M\u0001";
    }

    @Test
    void aCutClosesTheConnectionTheSessionLetGoAndLeavesItsNewConnectionAlone() throws Exception
    {
        // A bound of 0 queued writes: every connection the session let go is past it.
        final ConnectionGuard guard = new ConnectionGuard(0);
        final IoSession earlier = connection(guard, 40001);
        final IoSession now = connection(guard, 40002);
        session.setResponder(new IoSessionResponder(now, false, 0, 0));
        assertEquals(0, guard.queuedWrites("MEMBER-G"));

        guard.closeCut(sessionId);
        assertTrue(earlier.isClosing());
        assertFalse(now.isClosing(), "the session's connection now");
        assertEquals(1, guard.connectionsClosed());

        // The gateway cuts the member off: QuickFIX/J lets the connection go, the guard closes it.
        final String cutConnection = ConnectionGuard.remoteAddressOf(session);
        session.setResponder(null);
        final IoSession next = connection(guard, 40003);
        guard.close(sessionId, cutConnection);
        assertTrue(now.isClosing());
        assertFalse(next.isClosing(), "a later connection of the member from another address");
        assertEquals(2, guard.connectionsClosed());
    }

    /**
     * MINA's resume writes the connection's interest from QuickFIX/J's thread while its I/O thread
     * may write it too, so the read interest can be lost: the test removes it by hand after the
     * resume, as the losing order leaves it, and the guard's wake at the session's next message
     * must bring it back.
     */
    @Test
    void aResumedConnectionWhoseReadInterestWasLostIsReadAgainAtItsSessionsNextMessage() throws Exception
    {
        final ConnectionGuard guard = new ConnectionGuard(FixDoor.MAX_QUEUED_WRITES);
        final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        final CompletableFuture<IoSession> opened = new CompletableFuture<>();
        final NioSocketAcceptor acceptor = new NioSocketAcceptor(1);
        acceptor.getFilterChain().addLast("codec",
            new ProtocolCodecFilter(new TextLineCodecFactory(StandardCharsets.US_ASCII)));
        acceptor.getFilterChain().addLast("guard", guard);
        acceptor.setHandler(new IoHandlerAdapter()
        {
            @Override
            public void sessionCreated(final IoSession connection)
            {
                connection.setAttribute(SessionConnector.QF_SESSION, session);
            }

            @Override
            public void sessionOpened(final IoSession connection)
            {
                opened.complete(connection);
            }

            @Override
            public void messageReceived(final IoSession connection, final Object message)
            {
                received.add(message);
            }
        });
        acceptor.bind(new InetSocketAddress("127.0.0.1", 0));
        try (Socket client = new Socket("127.0.0.1", acceptor.getLocalAddress().getPort()))
        {
            final OutputStream out = client.getOutputStream();
            final IoSession connection = opened.get(10, TimeUnit.SECONDS);
            session.setResponder(new IoSessionResponder(connection, false, 0, 0));
            out.write("first\n".getBytes(StandardCharsets.US_ASCII));
            assertEquals("first", received.poll(10, TimeUnit.SECONDS));

            connection.suspendRead();
            guard.wakeIfResumed(sessionId); // a message of the session handled while it is held
            connection.resumeRead();
            final SelectionKey key = selectionKey(connection);
            key.interestOps(key.interestOps() & ~SelectionKey.OP_READ);
            out.write("second\n".getBytes(StandardCharsets.US_ASCII));
            assertNull(received.poll(1500, TimeUnit.MILLISECONDS), "its read interest lost, nothing reads it");

            guard.wakeIfResumed(sessionId); // the session's next message
            assertEquals("second", received.poll(10, TimeUnit.SECONDS));
            assertEquals(1, guard.readsWoken());
        }
        finally
        {
            acceptor.dispose(true);
        }
    }

    /** The connection's selection key, which MINA keeps to itself. */
    private static SelectionKey selectionKey(final IoSession connection) throws Exception
    {
        final Method getter = connection.getClass().getSuperclass().getDeclaredMethod("getSelectionKey");
        getter.setAccessible(true);
        return (SelectionKey)getter.invoke(connection);
    }

    /** An in-memory connection of the session, opened through the guard, from the given port. */
    private IoSession connection(final ConnectionGuard guard, final int port) throws Exception
    {
        final DummySession connection = new DummySession();
        connection.setRemoteAddress(new InetSocketAddress("127.0.0.1", port));
        connection.setHandler(new IoHandlerAdapter()
        {
            @Override
            public void messageReceived(final IoSession ioSession, final Object message)
            {
                handled.add(message);
            }
        });
        connection.getFilterChain().addLast("guard", guard);
        connection.setAttribute(SessionConnector.QF_SESSION, session);
        connection.getFilterChain().fireSessionOpened();
        return connection;
    }

    private static final class NoApplication implements Application
    {
        @Override
        public void onCreate(final SessionID sessionId)
        {
        }

        @Override
        public void onLogon(final SessionID sessionId)
        {
        }

        @Override
        public void onLogout(final SessionID sessionId)
        {
        }

        @Override
        public void toAdmin(final Message message, final SessionID sessionId)
        {
        }

        @Override
        public void fromAdmin(final Message message, final SessionID sessionId)
        {
        }

        @Override
        public void toApp(final Message message, final SessionID sessionId)
        {
        }

        @Override
        public void fromApp(final Message message, final SessionID sessionId)
        {
        }
    }
}
