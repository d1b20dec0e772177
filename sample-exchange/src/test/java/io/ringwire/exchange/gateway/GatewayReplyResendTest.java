package io.ringwire.exchange.gateway;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.RejectReason;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.ringwire.exchange.gateway.GatewayFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each session's execution reports are numbered and kept by the gateway, and a logon resends from
 * the sequence its client asks for: what was in flight when a session was lost, and what came while
 * it was away, reaches the client once, in order, before anything newer.
 */
class GatewayReplyResendTest
{
    private final GatewayFixture fixture = new GatewayFixture();
    private final Gateway gateway = fixture.gateway;
    private final RecordingGatewayOutput output = fixture.output;
    private long nowNs = START_NS;
    private int nextTransport = TRANSPORT_A + 100;

    private static LogonResponseDecoder logonResponse(final DirectBuffer message)
    {
        final MessageHeaderDecoder header = new MessageHeaderDecoder().wrap(message, 0);
        assertEquals(LogonResponseDecoder.TEMPLATE_ID, header.templateId(), "a logon response");
        return new LogonResponseDecoder().wrap(message, MessageHeaderDecoder.ENCODED_LENGTH, header.blockLength(),
            header.version());
    }

    /** The engine reports a NEW of client order id {@code clientOrderId} to A. */
    private void reportToA(final long clientOrderId)
    {
        fixture.engineReport(ACCOUNT_A, clientOrderId, 9_000 + clientOrderId, ExecType.NEW, OrdStatus.NEW, 1, 0, 0,
            ++nowNs);
    }

    /** A logs on over a new connection asking for its replies from {@code next}; returns where they start. */
    private long logOnA(final long next)
    {
        return logOnA(next, 0);
    }

    /**
     * A logs on over a new connection asking for its replies from {@code next}, counted in
     * {@code replyLife}; returns where they start.
     */
    private long logOnA(final long next, final long replyLife)
    {
        final int transport = nextTransport++;
        fixture.connect(transport, ID_A);
        output.clear();
        assertEquals(Gateway.LOGGED_ON, fixture.logon(transport, ID_A, TOKEN_A, ++nowNs, next, replyLife));
        final LogonResponseDecoder response = logonResponse(output.toSessions.getFirst().buffer());
        assertEquals(LogonStatus.ACCEPTED, response.status());
        assertEquals(gateway.replyLife(), response.replyLife(), "every answer names this gateway's reply life");
        return response.nextReplySequence();
    }

    private void loseA()
    {
        gateway.onTransportLost(nextTransport - 1, ++nowNs);
    }

    /** Runs the gateway's duty cycle until it has nothing left to do. */
    private void drain()
    {
        while (gateway.doWork(++nowNs) > 0)
        {
            // resends go out a bounded number per cycle
        }
    }

    /** Asserts the reports sent to A since the last clear, after any LogonResponse: these client order ids, these sequences. */
    private void assertReportsToA(final long firstSequence, final long... clientOrderIds)
    {
        final List<RecordingGatewayOutput.SessionMessage> sent = output.toSessions.stream()
            .filter(m -> GatewayFixture.templateId(m.buffer()) == ExecutionReportDecoder.TEMPLATE_ID).toList();
        assertEquals(clientOrderIds.length, sent.size(), "reports sent to A");
        for (int i = 0; i < clientOrderIds.length; i++)
        {
            assertEquals(SESSION_A, sent.get(i).sessionIndex());
            final ExecutionReportDecoder report = fixture.report(sent.get(i).buffer());
            assertEquals(clientOrderIds[i], report.clientOrderId(), "report " + i);
            assertEquals(firstSequence + i, report.replySequence(), "report " + i + "'s sequence");
        }
    }

    @Test
    void aLogonResendsFromTheSequenceItAsksForOnceAndInOrderBeforeAnyNewerReport()
    {
        assertEquals(1, logOnA(0), "a first logon: the session's replies start at 1");
        for (long id = 1; id <= 5; id++)
        {
            reportToA(id);
        }
        assertReportsToA(1, 1, 2, 3, 4, 5);
        loseA();
        reportToA(6);
        reportToA(7);
        assertTrue(output.toSessions.stream().noneMatch(m -> m.sessionIndex() == SESSION_A &&
            GatewayFixture.templateId(m.buffer()) == ExecutionReportDecoder.TEMPLATE_ID &&
            fixture.report(m.buffer()).clientOrderId() > 5), "A is away: 6 and 7 wait");

        // The client had read up to 3 when its session was lost: 4 and 5 were in flight.
        assertEquals(4, logOnA(4));
        reportToA(8);
        drain();
        assertReportsToA(4, 4, 5, 6, 7, 8);
        assertEquals(2, gateway.counters().repliesResent(), "4 and 5 went twice; 6, 7 and 8 once");
        assertEquals(0, gateway.counters().repliesNoLongerKept());
    }

    @Test
    void aSessionsFirstLogonInThisGatewayProcessGetsEveryReportKeptWhateverItAsks()
    {
        // The start cancel's reports come before the member logs on again; its client asks for the
        // number the last gateway process would have sent next (or for none, as the FIX door does).
        reportToA(1);
        reportToA(2);
        assertEquals(1, logOnA(7), "another life's number: from the oldest kept");
        drain();
        assertReportsToA(1, 1, 2);
        loseA();
        reportToA(3);
        assertEquals(4, logOnA(0), "a later logon asking for none skips what waited, as before");
    }

    @Test
    void aLogonWhoseAnswerCouldNotGoLeavesTheClientsNextLogonStartingFromTheOldestKept()
    {
        reportToA(1);
        reportToA(2);
        final int transport = nextTransport++;
        fixture.connect(transport, ID_A);
        output.sessionsRefuse = true; // the reply link is not up yet: the LogonResponse cannot go
        assertEquals(Gateway.LOGGED_ON, fixture.logon(transport, ID_A, TOKEN_A, ++nowNs, 7));
        gateway.onSessionUnreachable(SESSION_A, ++nowNs);
        output.sessionsRefuse = false;

        assertEquals(1, logOnA(7), "the client still knows only another life's numbering: from the oldest kept");
        drain();
        assertReportsToA(1, 1, 2);
    }

    @Test
    void aClientOfAnotherReplyLifeStartsFromTheOldestKeptEvenAfterAnAnswerItNeverRead()
    {
        final long otherLife = gateway.replyLife() == 41 ? 42 : 41;
        reportToA(1);
        reportToA(2);
        // Answered (the LogonResponse went out), but the connection goes before the client reads it:
        // the client still counts in the other life, and asks for its 7 again.
        assertEquals(1, logOnA(7, otherLife), "another life's number: from the oldest kept");
        loseA();
        reportToA(3);

        assertEquals(1, logOnA(7, otherLife), "still another life's number, though this gateway answered one logon");
        drain();
        assertReportsToA(1, 1, 2, 3);
        assertEquals(2, gateway.counters().logonsFromAnotherLife());
        assertEquals(0, gateway.counters().repliesNoLongerKept());
    }

    @Test
    void aLogonCountedInThisReplyLifeResendsFromWhatItAsks()
    {
        final long life = gateway.replyLife();
        assertEquals(1, logOnA(0, 0), "the session's first logon in this process");
        reportToA(1);
        reportToA(2);
        reportToA(3);
        loseA();

        assertEquals(3, logOnA(3, life), "the client received 1 and 2");
        drain();
        assertReportsToA(3, 3);
        assertEquals(0, gateway.counters().logonsFromAnotherLife());
    }

    @Test
    void aLogonAskingForNoneOrForASequenceThisGatewayNeverSentStartsAtTheNextNewReport()
    {
        logOnA(0);
        reportToA(1);
        reportToA(2);
        loseA();
        reportToA(3);

        assertEquals(4, logOnA(0), "0 asks for none: what waited is skipped");
        drain();
        assertReportsToA(4);
        loseA();
        assertEquals(4, logOnA(1_000), "a client of another gateway's life starts anew");
        reportToA(4);
        assertReportsToA(4, 4);
    }

    @Test
    void aLogonAskingForMoreThanTheLogKeepsIsToldWhereItsRepliesStartAndTheGapIsCounted()
    {
        logOnA(0);
        loseA();
        final int reports = 2 * TransportLimits.DEFAULT_REPLY_LOG_BYTES / 200; // each ExecutionReport takes about 200 bytes
        for (long id = 1; id <= reports; id++)
        {
            reportToA(id);
        }
        final long start = logOnA(1);
        assertTrue(start > 1 && start < reports, "the oldest kept: " + start);
        assertEquals(start - 1, gateway.counters().repliesNoLongerKept());
        assertEquals(start - 1, gateway.counters().repliesOverwrittenUnsent(), "they were never sent");
        drain();
        final long[] kept = new long[(int)(reports - start + 1)];
        for (int i = 0; i < kept.length; i++)
        {
            kept[i] = start + i;
        }
        assertReportsToA(start, kept);
    }

    @Test
    void aLongResendGoesOutOverDutyCyclesAndNewReportsWaitBehindIt()
    {
        logOnA(0);
        loseA();
        final int waiting = 5 * SessionControl.REPLIES_PER_CALL;
        for (long id = 1; id <= waiting; id++)
        {
            reportToA(id);
        }
        logOnA(1);
        assertEquals(1 + SessionControl.REPLIES_PER_CALL, output.toSessions.size(),
            "the LogonResponse and the first of the resend; the rest follow in later cycles");
        reportToA(waiting + 1);
        assertEquals(1 + SessionControl.REPLIES_PER_CALL + 1, output.toSessions.size());
        drain();
        final long[] all = new long[waiting + 1];
        for (int i = 0; i < all.length; i++)
        {
            all[i] = i + 1;
        }
        assertReportsToA(1, all);
    }

    @Test
    void aGatewayRejectToALoggedOnSessionIsNumberedWithItsReportsAndOneBeforeLogonIsNot()
    {
        logOnA(0);
        reportToA(1);
        assertEquals(-RejectReason.UNKNOWN_INSTRUMENT.value(),
            fixture.newOrder(nextTransport - 1, 2, ACCOUNT_A, 99, io.ringwire.codecs.trading.OrdType.LIMIT, 1_000, 1,
            ++nowNs));
        reportToA(3);
        assertReportsToA(1, 1, 2, 3);

        loseA();
        final int fresh = nextTransport++;
        fixture.connect(fresh, ID_A);
        output.clear();
        fixture.limitA(4, 1_000, 1, ++nowNs); // over TRANSPORT_A, which never logged on again
        fixture.newOrder(fresh, 4, ACCOUNT_A, 1, io.ringwire.codecs.trading.OrdType.LIMIT, 1_000, 1, ++nowNs);
        final ExecutionReportDecoder beforeLogon = fixture.assertLastRejected(SESSION_A, RejectReason.NOT_LOGGED_ON);
        assertEquals(0, beforeLogon.replySequence(), "it answers the connection, not the session");
        assertEquals(4, logOnA(4));
    }

    @Test
    void aReportOfAnOlderSchemaIsWidenedToCarryItsReplySequence()
    {
        logOnA(0);
        final int length = GatewayFixture.encodeReport(fixture.buffer, fixture.header, 1, ACCOUNT_A, 77, 9_077,
            ExecType.NEW, OrdStatus.NEW, 1, 0, 0);
        final int olderBlock = ExecutionReportEncoder.replySequenceEncodingOffset();
        new MessageHeaderEncoder().wrap(fixture.buffer, 0).blockLength(olderBlock).version(2);
        gateway.onEngineMessage(fixture.buffer, 0, MessageHeaderEncoder.ENCODED_LENGTH + olderBlock, ++nowNs);

        assertEquals(0, gateway.counters().engineMalformed());
        assertEquals(1, gateway.counters().routed());
        final DirectBuffer sent = output.lastToSession().buffer();
        assertEquals(length, sent.capacity(), "the current block");
        final ExecutionReportDecoder report = fixture.report(sent);
        assertEquals(77, report.clientOrderId());
        assertEquals(1, report.replySequence());
        assertEquals(0, report.engineLife(), "a widened report names no engine life");
        assertTrue(MessageValidator.validate(sent, 0, sent.capacity()) > 0, "whole at the version it says");
    }
}
