package io.ringwire.exchange.fix;

import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.polling.AbstractPollingIoProcessor;
import org.apache.mina.core.service.IoProcessor;
import org.apache.mina.core.session.AbstractIoSession;
import org.apache.mina.core.session.IoSession;
import quickfix.Responder;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.mina.SessionConnector;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ends what QuickFIX/J leaves of a connection its session has let go. QuickFIX/J ends a session's
 * connection by closing it once its queued writes are flushed: a member cut off because it stopped
 * reading never lets them flush, so its connection, its queued writes and, while it still sends,
 * its messages would live on until the network layer's write timeout. Its messages would also
 * still be handed to the session, which may be the member's next connection's by then. This filter
 * sits on every connection of the door and
 * <ul>
 *   <li>drops each message that arrives on a connection its session no longer uses (counted), and
 *       closes it at once if its queued writes are past the slow-consumer bound;</li>
 *   <li>closes a member's connection at once when it is cut off: by QuickFIX/J at its write bound
 *       ({@link #closeCut}, at the session's logout), or by the gateway ({@link #close}).</li>
 * </ul>
 * It also closes a member's connection on a message numbered past what its session keeps
 * ({@link #pastBound}, counted), and wakes a connection's I/O thread when QuickFIX/J resumes
 * reading it ({@link #wakeIfResumed}).
 * A connection that ends in order (a Logout either way) still closes once its last messages are
 * written.
 *
 * <p>Threading: QuickFIX/J's I/O threads (the filter's events), its sessions' threads and the
 * door's sender thread (the closes).
 */
final class ConnectionGuard extends IoFilterAdapter
{
    /**
     * How far past the MsgSeqNum its session expects a member's message may be numbered. QuickFIX/J
     * keeps every message numbered past a gap, by number, until the gap is filled, with no bound of
     * its own: a member that opened a gap and never filled it would grow that store for as long as
     * it sent. Bounded by number, it holds twice this many messages at most (of {@link
     * BodyLengthBound#MAX_BODY_LENGTH} bytes at most): this far past the session's number, and this
     * far past the connection's Logon ({@link #pastBound}). A member in order is ahead of its
     * session by what the session's thread has still to take (about {@link FixDoor#QUEUE_UPPER})
     * and one read of its connection, far less.
     */
    static final int MAX_SEQUENCE_AHEAD = 4096;
    private static final char SOH = FixFields.SOH;
    private static final int MSG_SEQ_NUM = 34;
    private static final int MSG_TYPE = 35;
    private static final int GAP_FILL_FLAG = 123;
    private static final String SEQUENCE_RESET = "4";
    /** A connection's attribute: the MsgSeqNum of the Logon that opened it. */
    private static final Object LOGON_SEQUENCE = ConnectionGuard.class.getName() + ".logonSequence";
    /** {@link #pastBound}: no Logon opened the connection, so only the session's own window counts. */
    static final long NO_LOGON = Long.MAX_VALUE;

    private final int maxQueuedWrites;
    private final Set<IoSession> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong messagesDropped = new AtomicLong();
    private final AtomicLong connectionsClosed = new AtomicLong();
    /** Each session's connection, as of its last message the filter passed on. */
    private final Map<SessionID, IoSession> current = new ConcurrentHashMap<>();
    private final AtomicLong readsWoken = new AtomicLong();
    private final AtomicLong closedSequenceAhead = new AtomicLong();
    /** A connection's attribute: it was read-suspended at its session's last message that QuickFIX/J handled. */
    private static final Object READS_HELD = ConnectionGuard.class.getName() + ".readsHeld";

    /** @param maxQueuedWrites the writes QuickFIX/J queues for a connection before it cuts the member off. */
    ConnectionGuard(final int maxQueuedWrites)
    {
        this.maxQueuedWrites = maxQueuedWrites;
    }

    /** @return messages dropped because they came on a connection their session had let go. */
    long messagesDropped()
    {
        return messagesDropped.get();
    }

    /** @return connections closed at once because their member was cut off. */
    long connectionsClosed()
    {
        return connectionsClosed.get();
    }

    /**
     * @return connections closed on a message numbered past what its session keeps, or read no one
     *         way ({@link #pastBound}).
     */
    long closedSequenceAhead()
    {
        return closedSequenceAhead.get();
    }

    /** @return connections QuickFIX/J resumed reading whose I/O thread was woken for it. */
    long readsWoken()
    {
        return readsWoken.get();
    }

    /**
     * Has the I/O thread of the session's connection set its interest again, and woken, when
     * QuickFIX/J has resumed reading it since the session's last message. MINA's resume, on
     * a QuickFIX/J session's thread, sets the connection's read interest without waking its
     * selector, which waits up to a second: a member held back, to which nothing is written
     * meanwhile, would be read that late. And it reads the connection's interest and writes it back
     * from that thread while the I/O thread may do the same for its write interest: one of the two
     * can undo the other, and a connection whose read interest is lost is never read again. MINA's
     * traffic-mask update runs on the I/O thread (queued, with a wake-up): it sets both interests
     * from what the connection says now, so a lost one comes back.
     *
     * <p>The session's QuickFIX/J thread, at each message of the session: it resumes a connection
     * there, just before it hands on a message of the session.
     */
    void wakeIfResumed(final SessionID sessionId)
    {
        final IoSession connection = current.get(sessionId);
        if (null == connection)
        {
            return;
        }
        if (connection.isReadSuspended())
        {
            connection.setAttribute(READS_HELD, Boolean.TRUE);
        }
        else if (connection.containsAttribute(READS_HELD) && null != connection.removeAttribute(READS_HELD) &&
            connection instanceof AbstractIoSession polled)
        {
            readsWoken.incrementAndGet();
            updateInterest(polled);
        }
    }

    /**
     * Queues the connection for its I/O thread to set its interest from its state, and wakes that
     * thread; then flushes it. A reply MINA has only partly written is not in the write queue the
     * update (and MINA's own resume) looks at, so either can clear the write interest that reply
     * still needs; the flush sets it again. The I/O thread's cycle updates interests before it
     * flushes, so the flush comes after the update unless the thread was between the two steps
     * when they were queued; then the member's next reply, written to the connection, flushes it.
     * The polling processor serving the connection is its processor or, behind a pool, an
     * attribute of the connection; a connection with neither (not a socket's) is only flushed,
     * which wakes its thread too.
     */
    @SuppressWarnings("unchecked") // MINA hands its processors out raw; each is the connection's own
    private static void updateInterest(final AbstractIoSession connection)
    {
        final IoProcessor<AbstractIoSession> processor = (IoProcessor<AbstractIoSession>)connection.getProcessor();
        final AbstractPollingIoProcessor<AbstractIoSession> polling = pollingProcessorOf(connection, processor);
        if (null != polling)
        {
            polling.updateTrafficMask(connection);
        }
        processor.flush(connection);
    }

    @SuppressWarnings("unchecked") // as above
    private static AbstractPollingIoProcessor<AbstractIoSession> pollingProcessorOf(
        final AbstractIoSession connection, final IoProcessor<AbstractIoSession> processor)
    {
        if (processor instanceof AbstractPollingIoProcessor<?> polling)
        {
            return (AbstractPollingIoProcessor<AbstractIoSession>)polling;
        }
        for (final Object key : connection.getAttributeKeys())
        {
            if (connection.getAttribute(key) instanceof AbstractPollingIoProcessor<?> polling)
            {
                return (AbstractPollingIoProcessor<AbstractIoSession>)polling;
            }
        }
        return null;
    }

    /**
     * @return the writes queued for the member's connection now (past what the socket's buffers
     *         took), or 0 while it has none.
     */
    int queuedWrites(final String memberCompId)
    {
        for (final IoSession connection : connections)
        {
            final Session session = memberSessionOf(connection, memberCompId);
            if (null != session && usedBy(session, connection))
            {
                return connection.getScheduledWriteMessages();
            }
        }
        return 0;
    }

    /**
     * @return what the network layer says of each connection the member has at the door now (for
     *         a stalled member's diagnosis): its address, whether its session uses it, whether its
     *         reads are held back, what was read from it and what waits to be written.
     */
    String describe(final String memberCompId)
    {
        final StringBuilder text = new StringBuilder();
        for (final IoSession connection : connections)
        {
            final Session session = memberSessionOf(connection, memberCompId);
            if (null != session)
            {
                text.append(text.isEmpty() ? "" : "; ").append(connection.getRemoteAddress())
                    .append(usedBy(session, connection) ? " (the session's)" : " (let go)")
                    .append(connection.isReadSuspended() ? ", reads held" : ", reading")
                    .append(", read ").append(connection.getReadBytes()).append(" bytes, writes queued ")
                    .append(connection.getScheduledWriteMessages())
                    .append(connection.isClosing() ? ", closing" : "");
            }
        }
        return text.isEmpty() ? "no connection" : text.toString();
    }

    /** @return the connection's session where it is the member's, else null. */
    private static Session memberSessionOf(final IoSession connection, final String memberCompId)
    {
        final Session session = sessionOf(connection);
        return null != session && session.getSessionID().getTargetCompID().equals(memberCompId) ? session : null;
    }

    @Override
    public void sessionOpened(final NextFilter nextFilter, final IoSession connection) throws Exception
    {
        connections.add(connection);
        nextFilter.sessionOpened(connection);
    }

    @Override
    public void sessionClosed(final NextFilter nextFilter, final IoSession connection) throws Exception
    {
        connections.remove(connection);
        current.values().remove(connection);
        nextFilter.sessionClosed(connection);
    }

    @Override
    public void messageReceived(final NextFilter nextFilter, final IoSession connection, final Object message)
        throws Exception
    {
        final Session session = sessionOf(connection);
        // Before its Logon a connection has no session: the logon gate and QuickFIX/J see to it.
        if (null != session && !usedBy(session, connection))
        {
            messagesDropped.incrementAndGet();
            if (connection.getScheduledWriteMessages() >= maxQueuedWrites)
            {
                closeNow(connection);
            }
            return;
        }
        if (null == session && message instanceof String text && isLogon(text))
        {
            connection.setAttribute(LOGON_SEQUENCE, sequenceNumber(text));
        }
        if (null != session && message instanceof String text &&
            pastBound(text, session.getExpectedTargetNum(), (Long)connection.getAttribute(LOGON_SEQUENCE, NO_LOGON)))
        {
            if (!connection.isClosing())
            {
                closedSequenceAhead.incrementAndGet();
                connection.closeNow();
            }
            return;
        }
        if (null != session && current.get(session.getSessionID()) != connection)
        {
            current.put(session.getSessionID(), connection);
        }
        nextFilter.messageReceived(connection, message);
    }

    /**
     * Whether a message is numbered past what its session keeps for it: more than {@link
     * #MAX_SEQUENCE_AHEAD} past the number the session expects, and past as far beyond the number
     * of the Logon that opened the connection. The second window is a member's that kept its
     * numbers where the door did not (a door without a store, restarted): its Logon opens a gap the
     * session asks to have filled, and what it sends meanwhile follows its Logon. Each window holds
     * {@link #MAX_SEQUENCE_AHEAD} numbers, so the session keeps twice that many messages at most. A
     * SequenceReset that resets (not a gap fill) is taken whatever its number and kept by none. The
     * fields are read as QuickFIX/J reads them ({@link HeaderFields}); a message that names its
     * MsgSeqNum, MsgType or GapFillFlag twice, or holds a field whose text before its '=' is no tag
     * (what a data field's value, which QuickFIX/J reads by its declared length, may hide), has no
     * one reading, and counts as past the bound.
     *
     * @param expected       the MsgSeqNum the session expects next.
     * @param logonSequence  the MsgSeqNum of the Logon that opened the connection, or {@link #NO_LOGON}.
     */
    static boolean pastBound(final String message, final long expected, final long logonSequence)
    {
        final HeaderFields fields = HeaderFields.of(message);
        if (fields.ambiguous)
        {
            return true;
        }
        if (SEQUENCE_RESET.equals(fields.msgType) && !fields.gapFill)
        {
            return false;
        }
        final long sequence = fields.sequence;
        return sequence - expected > MAX_SEQUENCE_AHEAD &&
            (sequence < logonSequence || sequence - logonSequence > MAX_SEQUENCE_AHEAD);
    }

    /**
     * @return the message's MsgSeqNum (34), or 0 where it has none QuickFIX/J could read (it
     *         answers that itself).
     */
    static long sequenceNumber(final String message)
    {
        return HeaderFields.of(message).sequence;
    }

    /** @return whether a MsgType of the message is a Logon's (QuickFIX/J takes the message for one). */
    private static boolean isLogon(final String message)
    {
        return message.contains("=A" + SOH) && "A".equals(HeaderFields.of(message).msgType);
    }

    /**
     * The fields the bound reads, field by field as QuickFIX/J reads them: a tag is a decimal number
     * as {@link Integer#parseInt} takes it ("034" is 34), MsgSeqNum's value one of digits only that
     * fits an int (leading zeros and all; anything else QuickFIX/J cannot read, and rejects the
     * message without keeping it), GapFillFlag "Y" for yes.
     */
    private static final class HeaderFields implements FixFields.Reader
    {
        long sequence;
        String msgType;
        boolean gapFill;
        /** A field the bound reads named twice, or a field that is no tag=value: read one way by no two readers. */
        boolean ambiguous;
        private int sequences;
        private int msgTypes;
        private int gapFills;

        static HeaderFields of(final String message)
        {
            final HeaderFields fields = new HeaderFields();
            FixFields.read(message, fields);
            fields.ambiguous |= fields.sequences > 1 || fields.msgTypes > 1 || fields.gapFills > 1;
            return fields;
        }

        @Override
        public void field(final int tag, final String message, final int valueFrom, final int valueTo)
        {
            switch (tag)
            {
                case MSG_SEQ_NUM ->
                {
                    sequences++;
                    sequence = intValue(message, valueFrom, valueTo);
                }
                case MSG_TYPE ->
                {
                    msgTypes++;
                    msgType = message.substring(valueFrom, valueTo);
                }
                case GAP_FILL_FLAG ->
                {
                    gapFills++;
                    gapFill = valueTo == valueFrom + 1 && message.charAt(valueFrom) == 'Y';
                }
                case FixFields.NOT_A_TAG -> ambiguous = true;
                default ->
                {
                }
            }
        }

        /** @return the value as QuickFIX/J's int reading takes it, or 0 where it cannot. */
        private static long intValue(final String message, final int from, final int to)
        {
            if (from == to)
            {
                return 0;
            }
            for (int i = from; i < to; i++)
            {
                if (!Character.isDigit(message.charAt(i)))
                {
                    return 0;
                }
            }
            try
            {
                return Integer.parseInt(message, from, to, 10);
            }
            catch (final NumberFormatException ex)
            {
                return 0;
            }
        }
    }

    /**
     * Closes at once each connection of the session that the session has let go and whose queued
     * writes are past the bound: QuickFIX/J cut its member off as a slow consumer, and the writes
     * will not flush. Called at the session's logout, which follows the cut.
     */
    void closeCut(final SessionID sessionId)
    {
        for (final IoSession connection : connections)
        {
            final Session session = sessionOf(connection);
            if (null != session && session.getSessionID().equals(sessionId) && !usedBy(session, connection) &&
                connection.getScheduledWriteMessages() >= maxQueuedWrites)
            {
                closeNow(connection);
            }
        }
    }

    /**
     * Closes at once the session's connection from {@code remoteAddress} (the one it used before the
     * gateway cut it off), whatever it has queued; a later connection of the member is left alone.
     */
    void close(final SessionID sessionId, final String remoteAddress)
    {
        for (final IoSession connection : connections)
        {
            final Session session = sessionOf(connection);
            if (null != session && session.getSessionID().equals(sessionId) &&
                Objects.equals(remoteAddress, String.valueOf(connection.getRemoteAddress())) &&
                !usedBy(session, connection))
            {
                closeNow(connection);
            }
        }
    }

    /** @return the address of the connection the session uses now, or null when it has none. */
    static String remoteAddressOf(final Session session)
    {
        final Responder responder = session.getResponder();
        return null == responder ? null : responder.getRemoteAddress();
    }

    private void closeNow(final IoSession connection)
    {
        if (!connection.isClosing())
        {
            connectionsClosed.incrementAndGet();
            connection.closeNow();
        }
    }

    private static Session sessionOf(final IoSession connection)
    {
        return (Session)connection.getAttribute(SessionConnector.QF_SESSION);
    }

    /**
     * Whether the session's connection now is this one: the responder names its connection by its
     * remote address, which no two open connections share.
     */
    private static boolean usedBy(final Session session, final IoSession connection)
    {
        final String remote = remoteAddressOf(session);
        return null != remote && remote.equals(String.valueOf(connection.getRemoteAddress()));
    }
}
