package io.ringwire.exchange.fix;

import quickfix.Application;
import quickfix.ConfigError;
import quickfix.DefaultMessageFactory;
import quickfix.FieldNotFound;
import quickfix.FileStoreFactory;
import quickfix.MemoryStoreFactory;
import quickfix.Message;
import quickfix.MessageStoreFactory;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.SocketInitiator;
import quickfix.field.MsgType;
import quickfix.field.Password;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A member's FIX client for the tests: QuickFIX/J's own initiator, an implementation of FIX nobody
 * here wrote, logging on with its SenderCompID and password and keeping what the door sends it.
 */
final class FixTestClient implements Application, AutoCloseable
{
    final BlockingQueue<Message> received = new LinkedBlockingQueue<>();
    final BlockingQueue<Message> rejects = new LinkedBlockingQueue<>();
    private final SocketInitiator initiator;
    private final SessionID sessionId;
    private final String password;
    private volatile boolean loggedOn;
    private volatile String logoutText;

    /**
     * @param store where its sequence numbers persist, or null for memory only.
     */
    FixTestClient(final int port, final String senderCompId, final String password, final Path store)
        throws ConfigError
    {
        this.password = password;
        sessionId = new SessionID("FIX.4.4", senderCompId, FixDoorTest.DOOR_COMP_ID);
        final SessionSettings settings = FixClients.initiatorSettings(new InetSocketAddress("127.0.0.1", port), 1);
        settings.setString("UseDataDictionary", "Y");
        settings.setString("ResetOnLogon", "N");
        if (null != store)
        {
            settings.setString("FileStorePath", store.toString());
        }
        settings.setString(sessionId, "BeginString", "FIX.4.4");
        final MessageStoreFactory stores = null == store ? new MemoryStoreFactory() : new FileStoreFactory(settings);
        initiator = new SocketInitiator(this, stores, settings, null, new DefaultMessageFactory());
        initiator.start();
    }

    boolean awaitLogon(final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!loggedOn && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
        return loggedOn;
    }

    boolean isLoggedOn()
    {
        return loggedOn;
    }

    String logoutText()
    {
        return logoutText;
    }

    void send(final Message message)
    {
        if (!Session.lookupSession(sessionId).send(message))
        {
            throw new IllegalStateException("not sent: " + message);
        }
    }

    /** @return the next application message of that MsgType, others before it skipped into a list. */
    Message next(final String msgType, final Duration timeout) throws InterruptedException, FieldNotFound
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            final Message message = received.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (null == message)
            {
                throw new AssertionError("no " + msgType + " within " + timeout.toMillis() + " ms");
            }
            if (msgType.equals(message.getHeader().getString(MsgType.FIELD)))
            {
                return message;
            }
            throw new AssertionError("expected " + msgType + " but got " + message);
        }
    }

    Session session()
    {
        return Session.lookupSession(sessionId);
    }

    @Override
    public void close()
    {
        initiator.stop(true);
    }

    /** Drops the TCP connection without a Logout, as a crashed client would. */
    void kill()
    {
        initiator.stop(true);
    }

    @Override
    public void onCreate(final SessionID id)
    {
    }

    @Override
    public void onLogon(final SessionID id)
    {
        loggedOn = true;
    }

    @Override
    public void onLogout(final SessionID id)
    {
        loggedOn = false;
    }

    @Override
    public void toAdmin(final Message message, final SessionID id)
    {
        try
        {
            if (MsgType.LOGON.equals(message.getHeader().getString(MsgType.FIELD)))
            {
                message.setField(new Password(password));
            }
        }
        catch (final FieldNotFound ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    public void fromAdmin(final Message message, final SessionID id) throws FieldNotFound
    {
        final String type = message.getHeader().getString(MsgType.FIELD);
        if (MsgType.REJECT.equals(type))
        {
            rejects.add(message);
        }
        else if (MsgType.LOGOUT.equals(type) && message.isSetField(58))
        {
            logoutText = message.getString(58);
        }
    }

    @Override
    public void toApp(final Message message, final SessionID id)
    {
    }

    @Override
    public void fromApp(final Message message, final SessionID id)
    {
        received.add(message);
    }
}
