package io.ringwire.exchange.demo;

import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.LogonResponseDecoder;
import io.ringwire.codecs.trading.LogonRejectReason;
import io.ringwire.codecs.trading.LogonResponseEncoder;
import io.ringwire.codecs.trading.LogonStatus;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.exchange.gateway.SessionConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLongArray;

import static io.ringwire.exchange.demo.SimulatedClients.ACK_REJECT_REASONS;
import static io.ringwire.exchange.demo.SimulatedClients.DUE_WHILE_LOST;
import static io.ringwire.exchange.demo.SimulatedClients.LOGGED_ON;
import static io.ringwire.exchange.demo.SimulatedClients.MALFORMED_REPLIES;
import static io.ringwire.exchange.demo.SimulatedClients.REPORTS;
import static io.ringwire.exchange.demo.SimulatedClients.REJECTS;
import static io.ringwire.exchange.demo.SimulatedClients.REJECT_REASONS;
import static io.ringwire.exchange.demo.SimulatedClients.REPLY_GAPS;
import static io.ringwire.exchange.demo.SimulatedClients.SESSIONS_LOST;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where a reject's reason is counted: in its own block of counters, never in the next one; a reply
 * that does not decode as the schema has it is counted and dropped, never thrown out of the poll.
 */
class ReplyReaderTest
{
    @Test
    void aReasonPastItsBlockIsNotCountedInTheCountersThatFollowIt()
    {
        assertEquals(REJECT_REASONS + 3, ReplyReader.reasonCounter(REJECT_REASONS, ACK_REJECT_REASONS, 3));
        assertEquals(ACK_REJECT_REASONS - 1,
            ReplyReader.reasonCounter(REJECT_REASONS, ACK_REJECT_REASONS, ACK_REJECT_REASONS - REJECT_REASONS - 1));
        assertEquals(-1, ReplyReader.reasonCounter(REJECT_REASONS, ACK_REJECT_REASONS, ACK_REJECT_REASONS - REJECT_REASONS));

        // The last block of reasons is followed by the reply counters (gaps, duplicates...).
        assertEquals(REPLY_GAPS - 1,
            ReplyReader.reasonCounter(ACK_REJECT_REASONS, REPLY_GAPS, REPLY_GAPS - ACK_REJECT_REASONS - 1));
        assertEquals(-1, ReplyReader.reasonCounter(ACK_REJECT_REASONS, REPLY_GAPS, REPLY_GAPS - ACK_REJECT_REASONS));
        assertEquals(-1, ReplyReader.reasonCounter(ACK_REJECT_REASONS, REPLY_GAPS, -1));
    }

    @Test
    void repliesThatDoNotDecodeAsTheSchemaHasThemAreCountedAndDropped()
    {
        final AtomicLongArray counters = new AtomicLongArray(MALFORMED_REPLIES + 1);
        final ReplyReader reader = new ReplyReader(counters, new LatencyLedger(), 1_000_000);
        final SimulatedClient client = new SimulatedClient(new SessionConfig(1, "token", 100),
            new OrderFlow(1, 1, 100, 20, 10_000, 50, 4096), null, null);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final MessageHeaderEncoder header = new MessageHeaderEncoder();
        final int body = MessageHeaderEncoder.ENCODED_LENGTH;

        reader.read(client, buffer, 0, 4); // shorter than a header

        final int logon = body + new LogonResponseEncoder().wrapAndApplyHeader(buffer, 0, header)
            .status(LogonStatus.ACCEPTED).rejectReason(LogonRejectReason.NONE).nextReplySequence(1).reasonText("")
            .encodedLength();
        reader.read(client, buffer, 0, logon - 1); // shorter than the message it names
        buffer.putByte(body + LogonResponseDecoder.statusEncodingOffset(), (byte)0); // no LogonStatus of the schema
        reader.read(client, buffer, 0, logon);
        assertFalse(client.loggedOn);
        assertEquals(3, counters.get(MALFORMED_REPLIES));

        buffer.putByte(body + LogonResponseDecoder.statusEncodingOffset(), (byte)LogonStatus.ACCEPTED.value());
        reader.read(client, buffer, 0, logon);
        assertEquals(1, counters.get(LOGGED_ON), "the same logon, its status one of the schema's");

        final ExecutionReportEncoder encoder = new ExecutionReportEncoder();
        final int report = body + encoder.wrapAndApplyHeader(buffer, 0, header)
            .execType(ExecType.REJECTED).ordStatus(OrdStatus.REJECTED).side(Side.NULL_VAL)
            .rejectReason(RejectReason.THROTTLED).ordType(OrdType.NULL_VAL).timeInForce(TimeInForce.NULL_VAL)
            .engineSequence(ExecutionReportEncoder.engineSequenceNullValue()).replySequence(1).encodedLength();
        reader.read(client, buffer, 0, report); // a mass cancel's reject names no side
        assertEquals(1, counters.get(REJECTS), "a reject without a side is a reject");

        encoder.replySequence(2);
        buffer.putByte(body + ExecutionReportDecoder.execTypeEncodingOffset(), (byte)3); // no ExecType of the schema
        reader.read(client, buffer, 0, report);
        encoder.replySequence(3);
        buffer.putByte(body + ExecutionReportDecoder.execTypeEncodingOffset(), (byte)ExecType.FILL.value());
        reader.read(client, buffer, 0, report); // a fill must say which side it bought or sold

        assertEquals(5, counters.get(MALFORMED_REPLIES));
        assertEquals(1, counters.get(REPORTS));
        assertEquals(0, counters.get(REPLY_GAPS), "what was dropped was still taken in the reply sequence");
    }

    @Test
    void ordersThatFellDueWhileTheSessionWasDownAreCountedAtTheNextLogonWhereTheScheduleBeginsAgain()
    {
        final AtomicLongArray counters = new AtomicLongArray(DUE_WHILE_LOST + 1);
        final long intervalNs = 10_000_000_000L;
        final ReplyReader reader = new ReplyReader(counters, new LatencyLedger(), intervalNs);
        final SimulatedClient client = new SimulatedClient(new SessionConfig(1, "token", 100),
            new OrderFlow(1, 1, 100, 20, 10_000, 50, 4096), null, null);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int logon = MessageHeaderEncoder.ENCODED_LENGTH + new LogonResponseEncoder()
            .wrapAndApplyHeader(buffer, 0, new MessageHeaderEncoder()).status(LogonStatus.ACCEPTED)
            .rejectReason(LogonRejectReason.NONE).nextReplySequence(1).reasonText("").encodedLength();

        reader.read(client, buffer, 0, logon);
        assertEquals(0, counters.get(DUE_WHILE_LOST), "the first logon starts the schedule: nothing fell due before it");

        // Its next order was due 25 s ago; the session went then: orders due 25, 15 and 5 s ago never went.
        client.nextDueNs = System.nanoTime() - 25_000_000_000L;
        reader.lost(client);
        final long beforeLogonNs = System.nanoTime();
        reader.read(client, buffer, 0, logon);

        assertEquals(1, counters.get(SESSIONS_LOST));
        assertEquals(3, counters.get(DUE_WHILE_LOST));
        assertTrue(client.nextDueNs - beforeLogonNs >= 0, "the schedule begins again at the logon");
        client.nextDueNs = System.nanoTime() + intervalNs;
        reader.lost(client);
        reader.read(client, buffer, 0, logon);
        assertEquals(3, counters.get(DUE_WHILE_LOST), "a session lost before its next due time left nothing unsent");
    }
}
