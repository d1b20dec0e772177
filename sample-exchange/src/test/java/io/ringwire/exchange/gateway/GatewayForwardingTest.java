package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TradeEncoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;

import static io.ringwire.exchange.gateway.GatewayFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Requests reach the engine stamped with the gateway's times as version 2; execution reports reach
 * their account's session stamped with the reply time, once per engine sequence.
 */
class GatewayForwardingTest
{
    private static final long SEND_CLOCK = START_NS + 777;

    private final RecordingGatewayOutput output = new RecordingGatewayOutput();
    private final Gateway gateway = new Gateway(GatewayFixture.config(100, 10, 1_000), output, () -> SEND_CLOCK);
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[512]);

    private void logOn()
    {
        GatewayFixture.sendStartCancels(gateway, output);
        for (final int[] session : new int[][]{ { TRANSPORT_A, ID_A }, { TRANSPORT_B, ID_B } })
        {
            final int length = new io.ringwire.codecs.trading.LogonEncoder().wrapAndApplyHeader(buffer, 0, header)
                .sessionId(session[1]).heartbeatIntervalMs(HEARTBEAT_MS).sendingTime(START_NS).nextReplySequence(0)
                .replyLife(0).credentials(session[1] == ID_A ? TOKEN_A : TOKEN_B).encodedLength() +
                MessageHeaderEncoder.ENCODED_LENGTH;
            gateway.onTransportAvailable(session[0], SessionConfig.memberIdentity(session[1]), START_NS);
            assertEquals(Gateway.LOGGED_ON, gateway.onClientMessage(session[0], buffer, 0, length, START_NS));
        }
        output.clear();
    }

    private static NewOrderDecoder newOrder(final DirectBuffer message)
    {
        final MessageHeaderDecoder decoded = new MessageHeaderDecoder().wrap(message, 0);
        assertEquals(NewOrderDecoder.TEMPLATE_ID, decoded.templateId());
        assertEquals(MessageHeaderDecoder.SCHEMA_VERSION, decoded.version(), "forwarded as the current version");
        assertEquals(NewOrderDecoder.BLOCK_LENGTH, decoded.blockLength());
        return new NewOrderDecoder().wrap(message, MessageHeaderDecoder.ENCODED_LENGTH, decoded.blockLength(),
            decoded.version());
    }

    private void engineReport(final long sequence, final long account)
    {
        final int length = encodeReport(buffer, header, sequence, account, 5, 55, ExecType.NEW, OrdStatus.NEW, 1, 0, 0);
        gateway.onEngineMessage(buffer, 0, length, START_NS + 1_000);
    }

    private ExecutionReportDecoder routed(final int index)
    {
        final DirectBuffer message = output.toSessions.get(index).buffer();
        final MessageHeaderDecoder decoded = new MessageHeaderDecoder().wrap(message, 0);
        return new ExecutionReportDecoder().wrap(message, MessageHeaderDecoder.ENCODED_LENGTH, decoded.blockLength(),
            decoded.version());
    }

    @Test
    void forwardedOrderIsACopyStampedWithReceiveTimeAndGatewaySendTime()
    {
        logOn();
        final long received = START_NS + 500;
        final int length = encodeNewOrder(buffer, header, 42, ACCOUNT_A, 1, OrdType.LIMIT, 1_010, 7, START_NS + 400);
        buffer.putLong(MessageHeaderEncoder.ENCODED_LENGTH + NewOrderDecoder.receiveTimeEncodingOffset(), 123);

        assertEquals(Gateway.FORWARDED, gateway.onClientMessage(TRANSPORT_A, buffer, 0, length, received));

        assertEquals(1, output.toEngine.size());
        final NewOrderDecoder forwarded = newOrder(output.lastToEngine());
        assertEquals(received, forwarded.receiveTime(), "the client's value is overwritten");
        assertEquals(SEND_CLOCK, forwarded.gatewaySendTime());
        assertEquals(42, forwarded.clientOrderId());
        assertEquals(ACCOUNT_A, forwarded.account());
        assertEquals(1_010, forwarded.price());
        assertEquals(7, forwarded.quantity());
        assertEquals(START_NS + 400, forwarded.sendingTime());
        assertEquals(1 + gateway.counters().startCancels(), gateway.counters().forwarded(), "and the start cancels");
    }

    @Test
    void versionOneOrderIsForwardedAsVersionTwoWithTheDefaultsOfTheNewFields()
    {
        logOn();
        encodeNewOrder(buffer, header, 42, ACCOUNT_A, 1, OrdType.LIMIT, 1_010, 7, START_NS + 400);
        final int version1Block = NewOrderDecoder.postOnlyEncodingOffset();
        buffer.putShort(0, (short)version1Block, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(6, (short)1, ByteOrder.LITTLE_ENDIAN);

        assertEquals(Gateway.FORWARDED, gateway.onClientMessage(TRANSPORT_A, buffer, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + version1Block, START_NS + 500));

        final NewOrderDecoder forwarded = newOrder(output.lastToEngine());
        assertEquals(BooleanType.NULL_VAL.value(), forwarded.postOnlyRaw());
        assertEquals(NewOrderDecoder.displayQuantityNullValue(), forwarded.displayQuantity());
        assertEquals(SelfTradePrevention.NULL_VAL.value(), forwarded.selfTradePreventionRaw());
        assertEquals(START_NS + 500, forwarded.receiveTime());
        assertEquals(42, forwarded.clientOrderId());
        assertEquals(7, forwarded.quantity());
    }

    @Test
    void versionFourOrderKeepsItsTermsAndIsForwardedWithTheCurrentBlock()
    {
        logOn();
        encodeNewOrder(buffer, header, 43, ACCOUNT_A, 1, OrdType.LIMIT, 1_010, 7, START_NS + 400);
        final int body = MessageHeaderEncoder.ENCODED_LENGTH;
        buffer.putByte(body + NewOrderDecoder.postOnlyEncodingOffset(), (byte)BooleanType.TRUE.value());
        buffer.putLong(body + NewOrderDecoder.displayQuantityEncodingOffset(), 2, ByteOrder.LITTLE_ENDIAN);
        final int version4Block = NewOrderDecoder.engineLifeEncodingOffset();
        buffer.putShort(0, (short)version4Block, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(6, (short)4, ByteOrder.LITTLE_ENDIAN);

        assertEquals(Gateway.FORWARDED, gateway.onClientMessage(TRANSPORT_A, buffer, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + version4Block, START_NS + 500));

        final NewOrderDecoder forwarded = newOrder(output.lastToEngine());
        assertEquals(BooleanType.TRUE, forwarded.postOnly(), "a version-4 client's terms are kept");
        assertEquals(2, forwarded.displayQuantity());
        assertEquals(0, forwarded.engineLife(), "the life the gateway serves: none heard yet");
    }

    @Test
    void versionOneOrderWithAFullBlockCarriesNoneOfTheLaterFieldsWhateverItsBytesThere()
    {
        logOn();
        final int length = encodeNewOrder(buffer, header, 42, ACCOUNT_A, 1, OrdType.LIMIT, 1_010, 7, START_NS + 400);
        final int body = MessageHeaderEncoder.ENCODED_LENGTH;
        buffer.putShort(6, (short)1, ByteOrder.LITTLE_ENDIAN); // version 1, its block the whole of today's
        buffer.putByte(body + NewOrderDecoder.postOnlyEncodingOffset(), (byte)BooleanType.TRUE.value());
        buffer.putLong(body + NewOrderDecoder.displayQuantityEncodingOffset(), 1, ByteOrder.LITTLE_ENDIAN);
        buffer.putByte(body + NewOrderDecoder.selfTradePreventionEncodingOffset(),
            (byte)SelfTradePrevention.values()[0].value());

        assertEquals(Gateway.FORWARDED, gateway.onClientMessage(TRANSPORT_A, buffer, 0, length, START_NS + 500));

        final NewOrderDecoder forwarded = newOrder(output.lastToEngine());
        assertEquals(BooleanType.NULL_VAL.value(), forwarded.postOnlyRaw());
        assertEquals(NewOrderDecoder.displayQuantityNullValue(), forwarded.displayQuantity());
        assertEquals(SelfTradePrevention.NULL_VAL.value(), forwarded.selfTradePreventionRaw());
        assertEquals(7, forwarded.quantity());
    }

    @Test
    void forwardedReplaceIsStampedToo()
    {
        logOn();
        final int length = new io.ringwire.codecs.trading.ReplaceOrderEncoder().wrapAndApplyHeader(buffer, 0, header)
            .clientOrderId(2).origClientOrderId(1).account(ACCOUNT_A).instrumentId(1).side(Side.SELL).price(1_000)
            .quantity(3).sendingTime(START_NS + 1).encodedLength() + MessageHeaderEncoder.ENCODED_LENGTH;

        assertEquals(Gateway.FORWARDED, gateway.onClientMessage(TRANSPORT_A, buffer, 0, length, START_NS + 9));

        final DirectBuffer message = output.lastToEngine();
        final ReplaceOrderDecoder forwarded = new ReplaceOrderDecoder().wrap(message,
            MessageHeaderDecoder.ENCODED_LENGTH, ReplaceOrderDecoder.BLOCK_LENGTH, 2);
        assertEquals(START_NS + 9, forwarded.receiveTime());
        assertEquals(SEND_CLOCK, forwarded.gatewaySendTime());
        assertEquals(2, forwarded.clientOrderId());
    }

    @Test
    void gatewayRejectCarriesTheRequestsFieldsAndTheLatencyLedgerToTheGateway()
    {
        logOn();
        final int length = encodeNewOrder(buffer, header, 42, ACCOUNT_A, 1, OrdType.LIMIT, 1_010, 7_000,
            START_NS + 400);

        gateway.onClientMessage(TRANSPORT_A, buffer, 0, length, START_NS + 500);

        final ExecutionReportDecoder reject = routed(0);
        assertEquals(RejectReason.MAX_ORDER_QUANTITY, reject.rejectReason());
        assertEquals(42, reject.clientOrderId());
        assertEquals(Side.BUY, reject.side());
        assertEquals(OrdType.LIMIT, reject.ordType());
        assertEquals(7_000, reject.orderQuantity());
        assertEquals(0, reject.engineSequence());
        assertEquals(0, reject.exchangeOrderId());
        assertEquals(START_NS + 400, reject.clientSendTime());
        assertEquals(START_NS + 500, reject.gatewayInTime());
        assertEquals(SEND_CLOCK, reject.gatewayReplyTime());
        assertEquals(ExecutionReportEncoder.engineInTimeNullValue(), reject.engineInTime());
    }

    @Test
    void executionReportGoesToTheSessionOfItsAccountStampedWithGatewayReplyTime()
    {
        logOn();
        engineReport(1, ACCOUNT_B);
        engineReport(2, ACCOUNT_A);

        assertEquals(2, output.toSessions.size());
        assertEquals(SESSION_B, output.toSessions.get(0).sessionIndex());
        assertEquals(SESSION_A, output.toSessions.get(1).sessionIndex());
        final ExecutionReportDecoder report = routed(1);
        assertEquals(SEND_CLOCK, report.gatewayReplyTime());
        assertEquals(2, report.engineSequence());
        assertEquals(ACCOUNT_A, report.account());
        assertEquals(4, report.gatewayOutTime(), "the rest of the ledger is the engine's");
        assertEquals(6, report.engineOutTime());
        assertEquals(2, gateway.counters().routed());
        assertEquals(2, gateway.lastEngineSequence());
    }

    @Test
    void executionReportsResentByTheEngineAreDroppedByEngineSequence()
    {
        logOn();
        engineReport(1, ACCOUNT_A);
        engineReport(2, ACCOUNT_A);

        engineReport(1, ACCOUNT_A);
        engineReport(2, ACCOUNT_A);
        engineReport(3, ACCOUNT_A);

        assertEquals(3, output.toSessions.size());
        assertEquals(3, routed(2).engineSequence());
        assertEquals(2, gateway.counters().duplicateReportsDropped());
        assertEquals(3, gateway.lastEngineSequence());
    }

    @Test
    void executionReportForASessionAwayIsKeptForItsNextLogonAndOneOfNoSessionIsDroppedAndCounted()
    {
        logOn();
        gateway.onTransportLost(TRANSPORT_A, START_NS + 1);
        output.clear();

        engineReport(1, ACCOUNT_A);
        engineReport(2, 999);

        assertTrue(output.toSessions.isEmpty());
        assertEquals(1, gateway.counters().reportsForGoneSessions(), "999 is no session's account");
        assertEquals(1, gateway.counters().routed(), "A's is kept in its reply log");
        assertEquals(2, gateway.lastEngineSequence(), "seen, so not asked for again");
    }

    @Test
    void engineMessageThatIsNotAnExecutionReportIsIgnored()
    {
        logOn();
        final int length = new TradeEncoder().wrapAndApplyHeader(buffer, 0, header).instrumentId(1).encodedLength() +
            MessageHeaderEncoder.ENCODED_LENGTH;

        gateway.onEngineMessage(buffer, 0, length, START_NS);
        gateway.onEngineMessage(buffer, 0, 4, START_NS);

        assertTrue(output.toSessions.isEmpty());
        assertEquals(1, gateway.counters().engineOtherMessages());
        assertEquals(1, gateway.counters().engineMalformed());
    }

    @Test
    void engineReportWithoutASequenceWhoseEnumsTheSchemaDoesNotListIsCountedMalformedNotThrown()
    {
        logOn();
        final long noSequence = ExecutionReportDecoder.engineSequenceNullValue();
        final int length = encodeReport(buffer, header, noSequence, ACCOUNT_A, 5, 55, ExecType.REJECTED,
            OrdStatus.REJECTED, 1, 0, 0);
        final int body = MessageHeaderEncoder.ENCODED_LENGTH;
        buffer.putByte(body + ExecutionReportDecoder.rejectReasonEncodingOffset(), (byte)28); // a newer engine's reason
        gateway.onEngineMessage(buffer, 0, length, START_NS + 1_000);
        encodeReport(buffer, header, noSequence, ACCOUNT_A, 5, 55, ExecType.REJECTED, OrdStatus.REJECTED, 1, 0, 0);
        buffer.putByte(body + ExecutionReportDecoder.execTypeEncodingOffset(), (byte)3); // no ExecType of the schema
        gateway.onEngineMessage(buffer, 0, length, START_NS + 2_000);

        assertTrue(output.toSessions.isEmpty());
        assertEquals(2, gateway.counters().engineMalformed());
    }
}
