package io.ringwire.exchange.fix;

import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.LogoutDecoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import org.HdrHistogram.Recorder;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.MessageHandler;
import quickfix.Session;
import quickfix.SessionID;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import static io.ringwire.exchange.fix.FixReplyRing.DISCONNECT;
import static io.ringwire.exchange.fix.FixReplyRing.MASS_CANCEL_FORWARDED;
import static io.ringwire.exchange.fix.FixReplyRing.RECORD_HEADER;
import static io.ringwire.exchange.fix.FixReplyRing.REPLY;
import static io.ringwire.exchange.fix.FixReplyRing.REPLY_HEADER;

/**
 * The FIX door's sender thread: takes the gateway's records for the members from the door's
 * outbound ring ({@link FixReplyRing}), maps replies to FIX ({@link FixOutbound}) and sends them
 * through QuickFIX/J (which stores them for a ResendRequest, sent or not), and acts on the
 * gateway's disconnects, Logouts and logon refusals while the connection they were for is the
 * member's current one.
 *
 * <p>Threading: one thread of its own, which backs off to parking when idle (no spin). It
 * allocates (QuickFIX/J's messages are objects).
 */
final class FixReplySender
{
    private static final System.Logger LOG = System.getLogger(FixDoor.class.getName());
    private static final int POLL_LIMIT = 64;

    private final FixReplyRing replies;
    private final SessionID[] sessionIds;
    private final FixOrders[] orders;
    private final FixExecIds execIds;
    /** Per session index, the member's logons and logouts ({@link FixDoorApplication} counts them). */
    private final AtomicIntegerArray logonsAndLogouts;
    private final Recorder gatewayToDoor;
    private final Recorder mapAndSend;
    private final MessageHandler onRecord = this::onRecord;
    private final MessageHeaderDecoder headerDecoder = new MessageHeaderDecoder();
    private final ExecutionReportDecoder report = new ExecutionReportDecoder();
    private final LogonResponseDecoder logonResponse = new LogonResponseDecoder();
    private final MassCancelDecoder massCancel = new MassCancelDecoder();
    private final AtomicLong recordsTaken = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final ConnectionGuard guard;
    private final AtomicLong disconnectsDone = new AtomicLong();
    private final AtomicLong disconnectsStale = new AtomicLong();
    private final AtomicLong logoutsStale = new AtomicLong();
    private final AtomicLong recordsWithoutSession = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * @param replies          the ring it takes records from.
     * @param sessionIds       per session index, the member's QuickFIX/J session.
     * @param orders           per session index, the member's ClOrdIDs and order states.
     * @param execIds          the door's ExecIDs.
     * @param logonsAndLogouts per session index, the member's logons and logouts in the door's life.
     * @param gatewayToDoor    times a record's wait in the ring.
     * @param mapAndSend       times a report's mapping and send.
     * @param guard            closes the connection of a member the gateway cuts off.
     */
    FixReplySender(final FixReplyRing replies, final SessionID[] sessionIds, final FixOrders[] orders,
        final FixExecIds execIds, final AtomicIntegerArray logonsAndLogouts,
        final Recorder gatewayToDoor, final Recorder mapAndSend, final ConnectionGuard guard)
    {
        this.guard = guard;
        this.replies = replies;
        this.sessionIds = sessionIds;
        this.orders = orders;
        this.execIds = execIds;
        this.logonsAndLogouts = logonsAndLogouts;
        this.gatewayToDoor = gatewayToDoor;
        this.mapAndSend = mapAndSend;
        thread = new Thread(this::run, "ringwire-fix-door-sender");
        thread.setDaemon(true);
    }

    void start()
    {
        thread.start();
    }

    /** Stops the thread, waiting a second at most for it. */
    void stop()
    {
        running = false;
        try
        {
            thread.join(1_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** @return records taken from the ring. */
    long recordsTaken()
    {
        return recordsTaken.get();
    }

    /** @return records it failed on (each logged, skipped, and the rest sent). */
    long failures()
    {
        return failures.get();
    }

    /** @return members' connections closed because the gateway asked. */
    long disconnectsDone()
    {
        return disconnectsDone.get();
    }

    /** @return disconnects not acted on: the connection the gateway asked about was gone already. */
    long disconnectsStale()
    {
        return disconnectsStale.get();
    }

    /** @return Logouts and logon refusals not acted on: the connection they were for was gone already. */
    long logoutsStale()
    {
        return logoutsStale.get();
    }

    /**
     * @return records skipped because QuickFIX/J no longer knows their member's session: its
     *         acceptor stopped (the door closing) before the sender took them; lost to the member.
     */
    long recordsWithoutSession()
    {
        return recordsWithoutSession.get();
    }

    private void run()
    {
        // Backs off to parking, so no CPU is taken from the spinners; a reply after a quiet spell waits
        // at most one 50 us park, small beside a FIX member's TCP round trip.
        final IdleStrategy idle = new BackoffIdleStrategy(1, 1, 10_000, 50_000);
        while (running)
        {
            idle.idle(replies.read(onRecord, POLL_LIMIT));
        }
    }

    /**
     * One record for a member. A record that fails (a QuickFIX/J or decoding exception) is counted,
     * logged and skipped: the thread goes on with the rest, as every member's replies depend on it.
     */
    private void onRecord(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final int sessionIndex = buffer.getInt(index);
        replies.taken(sessionIndex, length);
        recordsTaken.setRelease(recordsTaken.getPlain() + 1);
        try
        {
            sendOne(type, buffer, index);
        }
        catch (final RuntimeException ex)
        {
            final long failed = failures.incrementAndGet();
            if (Long.bitCount(failed) == 1) // the 1st, 2nd, 4th, 8th...: a stream of them cannot flood the log
            {
                LOG.log(System.Logger.Level.WARNING, "the FIX door's sender skipped a record of type " + type +
                    " (" + failed + " so far): " + ex, ex);
            }
        }
    }

    private void sendOne(final int type, final MutableDirectBuffer buffer, final int index)
    {
        final long readNs = System.nanoTime();
        final int sessionIndex = buffer.getInt(index);
        final SessionID sessionId = sessionIds[sessionIndex];
        final Session session = Session.lookupSession(sessionId);
        if (null == session)
        {
            recordsWithoutSession.incrementAndGet();
            return;
        }
        FixDoor.record(gatewayToDoor, readNs - buffer.getLong(index + BitUtil.SIZE_OF_INT));
        final int body = index + (type == REPLY ? REPLY_HEADER : RECORD_HEADER);
        headerDecoder.wrap(buffer, body);
        final int fields = body + MessageHeaderDecoder.ENCODED_LENGTH;
        if (type == DISCONNECT)
        {
            if (buffer.getInt(body) != logonsAndLogouts.get(sessionIndex))
            {
                disconnectsStale.incrementAndGet();
                return;
            }
            final String connection = ConnectionGuard.remoteAddressOf(session);
            try
            {
                session.disconnect("the gateway disconnected the session", false);
            }
            catch (final IOException ex)
            {
                // Gone either way; its loss reaches the gateway through onLogout.
            }
            // A cut: what is queued for it is not written first; QuickFIX/J stored it for the member's
            // ResendRequest when it logs on again.
            guard.close(sessionId, connection);
            disconnectsDone.incrementAndGet();
        }
        else if (type == MASS_CANCEL_FORWARDED)
        {
            massCancel.wrap(buffer, fields, headerDecoder.blockLength(), headerDecoder.version());
            session.send(FixOutbound.massCancelReport(orders[sessionIndex].clOrdId(massCancel.clientOrderId()),
                massCancel.instrumentId(), -1, null));
            orders[sessionIndex].massCancelForwarded(massCancel.clientOrderId());
        }
        else if (headerDecoder.templateId() == ExecutionReportDecoder.TEMPLATE_ID)
        {
            report.wrap(buffer, fields, headerDecoder.blockLength(), headerDecoder.version());
            // Sent, or, while the member is away, stored under its sequence number for its ResendRequest.
            session.send(FixOutbound.report(report, orders[sessionIndex], execIds));
            FixDoor.record(mapAndSend, System.nanoTime() - readNs);
        }
        else if (headerDecoder.templateId() == LogonResponseDecoder.TEMPLATE_ID)
        {
            logonResponse.wrap(buffer, fields, headerDecoder.blockLength(), headerDecoder.version());
            if (logonResponse.status() != LogonStatus.ACCEPTED && forCurrentConnection(buffer, index, sessionIndex))
            {
                session.logout("the gateway refused the logon: " + logonResponse.rejectReason());
            }
        }
        else if (headerDecoder.templateId() == LogoutDecoder.TEMPLATE_ID && forCurrentConnection(buffer, index,
            sessionIndex))
        {
            session.logout("the gateway ended the session");
        }
        // Heartbeats: QuickFIX/J keeps the FIX session's own.
    }

    /**
     * Whether a reply that ends a session was for the member's connection now: one the gateway sent
     * for a connection gone (it had not yet read that connection's end, or the member's next logon)
     * is counted and skipped, as a stale disconnect is.
     */
    private boolean forCurrentConnection(final DirectBuffer buffer, final int index, final int sessionIndex)
    {
        if (buffer.getInt(index + RECORD_HEADER) == logonsAndLogouts.get(sessionIndex))
        {
            return true;
        }
        logoutsStale.incrementAndGet();
        return false;
    }
}
