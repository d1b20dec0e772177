package io.ringwire.exchange.fix;

import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.DummySession;
import org.apache.mina.core.session.IoSession;
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

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The door's connection guard over MINA's in-memory connections and a real QuickFIX/J session: a
 * message on a connection the session no longer uses goes no further, one on the session's
 * connection does; a cut closes the connection the session let go and leaves its new one alone.
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
