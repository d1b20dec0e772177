package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The gateway's two ways out, shared by the parts that build messages: requests built in
 * {@link EngineRequests} go to the engine, replies built in {@link ClientReplies} (or an engine's
 * report) go to a session's client. It counts what the engine's stream refused and what a client
 * could not be sent, notes when the gateway last wrote to a session (its heartbeat is due after a
 * silence), and reads the send clock.
 *
 * <p>Execution reports to a session go through its {@link ReplyLog}: each is numbered
 * ({@code replySequence}) and kept, and sent from the log's cursor while the session is logged on,
 * so a logon can resend what its client missed. A session whose transport keeps its replies itself
 * (a FIX door's) has no log: its reports go straight out, unnumbered. So do rejects of requests
 * sent before logon, which answer the connection rather than the session.
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction.
 */
final class GatewaySender
{
    private final GatewayOutput output;
    private final EpochNanoClock sendClock;
    private final GatewaySessions sessions;
    private final GatewayCounters counters;
    private final EngineRequests requests = new EngineRequests();
    private final ClientReplies replies = new ClientReplies();
    /** Per session, its reply log, or null when its transport keeps replies itself. */
    private final ReplyLog[] logs;
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();
    private final ExecutionReportEncoder stamp = new ExecutionReportEncoder();
    /** Where a report of an older schema is widened to hold its reply sequence. */
    private final UnsafeBuffer widened = new UnsafeBuffer(ByteBuffer.allocateDirect(REPORT_BLOCK_END + 64));

    /**
     * Where a current ExecutionReport's fixed block ends: past its reply sequence, and past every
     * field the current version holds, so a widened report is whole at the version it then says.
     */
    private static final int REPORT_BLOCK_END = MessageHeaderEncoder.ENCODED_LENGTH + ExecutionReportEncoder.BLOCK_LENGTH;
    private static final int HEADER_LENGTH = MessageHeaderEncoder.ENCODED_LENGTH;

    /**
     * @param sendClock stamps {@code gatewaySendTime} and {@code gatewayReplyTime}; null to use the
     *                  call's {@code nowNs}.
     */
    GatewaySender(final GatewayOutput output, final EpochNanoClock sendClock, final GatewaySessions sessions,
        final GatewayCounters counters, final int replyLogBytes)
    {
        this.output = output;
        this.sendClock = sendClock;
        this.sessions = sessions;
        this.counters = counters;
        this.logs = new ReplyLog[sessions.count()];
        for (int i = 0; i < logs.length; i++)
        {
            logs[i] = output.keepsRepliesWhileAway(i) ? null : new ReplyLog(replyLogBytes);
        }
    }

    /** @return where requests for the engine are built. */
    EngineRequests requests()
    {
        return requests;
    }

    /** @return where the gateway's own replies are built. */
    ClientReplies replies()
    {
        return replies;
    }

    /** @return the time to stamp on a message sent now: the send clock's, or {@code nowNs} without one. */
    long sendTime(final long nowNs)
    {
        return null == sendClock ? nowNs : sendClock.nanoTime();
    }

    /** @return whether the session's reports are numbered and kept here (its transport keeps none). */
    boolean hasReplyLog(final int session)
    {
        return null != logs[session];
    }

    /**
     * Takes an execution report for a session with a reply log: numbers it, keeps it, and sends it
     * when the session is logged on and has nothing older waiting. A report of an older schema,
     * whose block ends before the current one does, is widened to the current block first (the
     * fields it lacked zero, its reply sequence then stamped).
     *
     * @return false when the report is longer than the log keeps (counted; nothing kept).
     */
    boolean report(final int session, final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        final ReplyLog log = logs[session];
        header.wrap(buffer, offset);
        final int blockEnd = HEADER_LENGTH + header.blockLength();
        final long overwrittenBefore = log.overwrittenUnsent();
        final int at;
        if (blockEnd >= REPORT_BLOCK_END)
        {
            at = log.append(buffer, offset, length);
        }
        else
        {
            // An ExecutionReport has no groups or var data: its block is the whole message.
            widened.putBytes(0, buffer, offset, blockEnd);
            widened.setMemory(blockEnd, REPORT_BLOCK_END - blockEnd, (byte)0);
            headerEncoder.wrap(widened, 0).blockLength(REPORT_BLOCK_END - HEADER_LENGTH)
                .version(MessageHeaderEncoder.SCHEMA_VERSION);
            at = log.append(widened, 0, REPORT_BLOCK_END);
        }
        if (at == ReplyLog.TOO_LONG)
        {
            counters.repliesTooLong++;
            return false;
        }
        counters.repliesOverwrittenUnsent += log.overwrittenUnsent() - overwrittenBefore;
        stamp.wrap(log.buffer(), at + HEADER_LENGTH).replySequence(log.nextSequence() - 1);
        if (sessions.isLoggedOn(session))
        {
            sendReplies(session, 1, nowNs);
        }
        return true;
    }

    /**
     * Sends a logged-on session's waiting reports from its log's cursor, each stamped with
     * {@code gatewayReplyTime} as it goes, until {@code limit} went, none waits, or one could not be
     * sent (it waits for the next call, or for the session's next logon once it is lost).
     *
     * @return reports sent.
     */
    int sendReplies(final int session, final int limit, final long nowNs)
    {
        final ReplyLog log = logs[session];
        int sent = 0;
        while (sent < limit && null != log && log.hasUnsent())
        {
            final int at = log.sendOffset();
            final int length = log.sendLength();
            stamp.wrap(log.buffer(), at + HEADER_LENGTH).gatewayReplyTime(sendTime(nowNs));
            if (!toSession(session, log.buffer(), at, length, nowNs))
            {
                break;
            }
            if (log.sent())
            {
                counters.repliesResent++;
            }
            sent++;
        }
        return sent;
    }

    /**
     * Points a session's log at the sequence its client asked for at logon (see {@link ReplyLog#rewind}).
     *
     * @return the sequence its reports now start from, or 0 when it has no log.
     */
    long rewindReplies(final int session, final long requested)
    {
        final ReplyLog log = logs[session];
        if (null == log)
        {
            return 0;
        }
        final long from = log.rewind(requested);
        if (requested > 0 && from > requested && requested <= log.nextSequence())
        {
            counters.repliesNoLongerKept += from - requested;
        }
        return from;
    }

    /**
     * Sends the request last built in {@link #requests()}.
     *
     * @return false when the engine's stream refused it (back pressure): nothing was sent.
     */
    boolean toEngine(final int length)
    {
        if (output.toEngine(requests.buffer(), 0, length))
        {
            counters.forwarded++;
            return true;
        }
        counters.engineBackPressured++;
        return false;
    }

    /**
     * Sends the gateway's own execution report last built in {@link #replies()} (a reject): through
     * the session's log, numbered, when the session is logged on and has one; else straight out,
     * unnumbered (a reject before logon answers the connection, not the session).
     */
    void replyReport(final int session, final int length, final long nowNs)
    {
        if (null != logs[session] && sessions.isLoggedOn(session))
        {
            report(session, replies.buffer(), 0, length, nowNs);
        }
        else
        {
            reply(session, length, nowNs);
        }
    }

    /** @return whether a reply to the session can go now ({@link GatewayOutput#canReach}). */
    boolean canReach(final int session)
    {
        return output.canReach(session);
    }

    /**
     * Sends the reply last built in {@link #replies()} to the session's client.
     *
     * @return false when it could not be sent.
     */
    boolean reply(final int session, final int length, final long nowNs)
    {
        return toSession(session, replies.buffer(), length, nowNs);
    }

    /**
     * Sends one message from offset 0 of the buffer to the session's client.
     *
     * @return false when it could not be sent.
     */
    boolean toSession(final int session, final DirectBuffer buffer, final int length, final long nowNs)
    {
        return toSession(session, buffer, 0, length, nowNs);
    }

    private boolean toSession(final int session, final DirectBuffer buffer, final int offset, final int length,
        final long nowNs)
    {
        if (output.toSession(session, buffer, offset, length))
        {
            sessions.sent(session, nowNs);
            return true;
        }
        counters.sessionSendFailures++;
        return false;
    }
}
