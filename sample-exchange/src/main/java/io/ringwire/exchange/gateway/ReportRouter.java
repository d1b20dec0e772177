package io.ringwire.exchange.gateway;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.exchange.book.RejectReports;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

import static io.ringwire.exchange.gateway.GatewaySessions.NONE;

/**
 * The engine's execution reports on their way back to clients: each is checked, taken once by
 * its engine sequence (the engine resends after a restart, and a report seen before is dropped),
 * but for the engine's reject of a request its journal refused, which has no sequence (it was
 * never journaled, so it is never resent) and passes as it comes,
 * shown to pre-trade risk (fills move the price band, ended orders free the open-order limit) and
 * given to the session of its account: numbered and kept in its reply log, and sent, stamped with
 * {@code gatewayReplyTime}, while it is logged on (see {@link GatewaySender#report}); a session whose
 * transport keeps its replies (a FIX door's) is sent it as it comes.
 *
 * <p>Every report names its engine's life, whose sequences it counts in. The first life named is the
 * one this gateway serves; a report of another (an engine started again on a new journal, whose
 * sequences begin again below those this gateway has) is dropped, as is every report after it: the
 * orders, open-order counts and client order ids this gateway holds are the old engine's, which
 * the new one does not have, so the gateway stops ({@link #otherEngineLife()}) and is started again
 * with the engine rather than route the new engine's reports against them, or drop them as resends.
 *
 * <p>Threading: the gateway's thread. Allocation: none after construction.
 */
final class ReportRouter
{
    private static final int HEADER_LENGTH = MessageHeaderDecoder.ENCODED_LENGTH;
    /** The longest report the gateway passes on. */
    private static final int REPLY_CAPACITY = 1024;

    private final GatewaySessions sessions;
    private final PreTradeRisk risk;
    private final OrderEntry orderEntry;
    private final GatewayCounters counters;
    private final GatewaySender sender;
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final ExecutionReportDecoder report = new ExecutionReportDecoder();
    private final ExecutionReportEncoder reportStamp = new ExecutionReportEncoder();
    private final UnsafeBuffer replyBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(REPLY_CAPACITY));

    private long lastEngineSequence;
    /** The life of the engine this gateway serves: the first a report named; 0 before. */
    private long engineLife;
    /** Another life a report named, once one did: the gateway then stops; 0 before. */
    private long otherEngineLife;

    ReportRouter(final GatewaySessions sessions, final PreTradeRisk risk, final OrderEntry orderEntry,
        final GatewayCounters counters, final GatewaySender sender)
    {
        this.sessions = sessions;
        this.risk = risk;
        this.orderEntry = orderEntry;
        this.counters = counters;
        this.sender = sender;
    }

    /** See {@link Gateway#engineLife}. */
    long engineLife()
    {
        return engineLife;
    }

    /** See {@link Gateway#otherEngineLife}. */
    long otherEngineLife()
    {
        return otherEngineLife;
    }

    /** See {@link Gateway#lastEngineSequence}. */
    long lastEngineSequence()
    {
        return lastEngineSequence;
    }

    /** See {@link Gateway#onEngineMessage}. */
    void onEngineMessage(final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        final int valid = MessageValidator.validate(buffer, offset, length);
        if (valid < 0 || valid > REPLY_CAPACITY)
        {
            counters.engineMalformed++;
            return;
        }
        header.wrap(buffer, offset);
        if (header.templateId() != ExecutionReportDecoder.TEMPLATE_ID)
        {
            counters.engineOtherMessages++;
            return;
        }
        final int version = header.version();
        report.wrap(buffer, offset + HEADER_LENGTH, header.blockLength(), version);
        final long engineSequence = report.engineSequence();
        if (version < 2)
        {
            counters.engineMalformed++;
            return;
        }
        final long life = report.engineLife(); // the null value, negative, from an engine before lives
        if (otherEngineLife != 0 || (life > 0 && life != engineLife && engineLife != 0))
        {
            if (otherEngineLife == 0)
            {
                otherEngineLife = life;
            }
            counters.reportsOfAnotherEngine++;
            return;
        }
        if (life > 0 && engineLife == 0)
        {
            engineLife = life;
            sender.requests().engineLife(life); // every request names it from now on
        }
        if (engineSequence == ExecutionReportDecoder.engineSequenceNullValue())
        {
            // Without a sequence a report can be neither deduplicated nor resent: only the reject of a
            // request the engine never journaled may come so.
            // Raw values: a value the schema does not list is malformed here, not an exception.
            if (report.execTypeRaw() != ExecType.REJECTED.value() ||
                report.rejectReasonRaw() != RejectReason.JOURNAL_REFUSED.value())
            {
                counters.engineMalformed++;
                return;
            }
        }
        else if (engineSequence <= lastEngineSequence)
        {
            counters.duplicateReportsDropped++;
            return;
        }
        else
        {
            lastEngineSequence = engineSequence;
        }
        final int session = sessions.ofAccount(report.account());
        if (session == NONE)
        {
            counters.reportsForGoneSessions++;
            return;
        }
        if (engineSequence == ExecutionReportDecoder.engineSequenceNullValue() && 0 == report.clientOrderId() &&
            0 == report.instrumentId() &&
            sessions.isGatewaysCancel(session, report.clientSendTime(), report.gatewayInTime()))
        {
            // The gateway's own cancel of the account (a lost session's, or the start's): no client
            // waits on its reject. Its orders would trade on once the journal takes requests
            // again, so it goes again, after a pause, unless the session sent a request since
            // (the cancel would take that request's order too).
            counters.cancelsRefusedByJournal++;
            if (!sessions.cancelRefused(session, nowNs))
            {
                counters.cancelsRefusedAfterRequests++;
            }
            return;
        }
        if (engineSequence == ExecutionReportDecoder.engineSequenceNullValue())
        {
            // The journal refused a request. Only a new order or a replace this process forwarded
            // (not one of an earlier gateway life, whose client's resend this one may have taken
            // under the same id) frees its client order id, and only such a new order ends one of
            // the orders this process counts open. A cancel's or mass cancel's refusal names no
            // order type, ends no order and keeps its id (a mass cancel's may be a live order's, as
            // mass cancels are not checked for duplicates).
            if (RejectReports.namesOrderTerms(report.ordTypeRaw()) &&
                orderEntry.releaseClientOrderId(session, report.clientOrderId(), report.gatewayInTime()))
            {
                counters.clientOrderIdsReleased++;
                if (risk.onReport(session, report))
                {
                    risk.orderEnded(session);
                }
            }
        }
        else if (!sessions.isStartCancels(session, report.clientSendTime(), report.gatewayInTime()) &&
            risk.onReport(session, report) && orderEntry.usedClientOrderId(session, report.clientOrderId()))
        {
            // The id set is large and read at random, so it is asked only of the reports that end an
            // order. The start cancel's reports end orders of an earlier gateway process only, whatever
            // id a client's resend has taken here since: they leave this process's open orders as they are.
            risk.orderEnded(session);
        }
        if (sender.hasReplyLog(session))
        {
            if (sender.report(session, buffer, offset, valid, nowNs))
            {
                counters.routed++;
            }
            return;
        }
        // Without a log the session's transport keeps its replies while it is away (the FIX door's
        // store): the report goes to it whether or not the session is logged on.
        replyBuffer.putBytes(0, buffer, offset, valid);
        reportStamp.wrap(replyBuffer, HEADER_LENGTH).gatewayReplyTime(sender.sendTime(nowNs));
        if (sender.toSession(session, replyBuffer, valid, nowNs))
        {
            counters.routed++;
        }
    }
}
