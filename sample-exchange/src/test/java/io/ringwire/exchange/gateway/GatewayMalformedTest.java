package io.ringwire.exchange.gateway;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.ExecutionReportDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;

import static io.ringwire.exchange.gateway.GatewayFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every client message passes the validator first: a malformed one is counted by the validator's
 * code, answered with a MALFORMED_MESSAGE reject when its transport is logged on, and never reaches
 * the engine.
 */
class GatewayMalformedTest
{
    private static final int BLOCK_LENGTH_OFFSET = 0;
    private static final int TEMPLATE_ID_OFFSET = 2;
    private static final int SCHEMA_ID_OFFSET = 4;

    private final GatewayFixture fixture = new GatewayFixture();
    private final Gateway gateway = fixture.gateway;
    private final RecordingGatewayOutput output = fixture.output;
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[256]);

    private int validOrder()
    {
        return encodeNewOrder(message, new MessageHeaderEncoder(), 1, ACCOUNT_A, 1, OrdType.LIMIT, 1_000, 10,
            START_NS);
    }

    private void assertRejectedAsMalformed(final int length, final int validatorCode)
    {
        fixture.logOnBoth();

        final int outcome = gateway.onClientMessage(TRANSPORT_A, message, 0, length, START_NS + 1);

        assertEquals(validatorCode, MessageValidator.validate(message, 0, length), "the validator's verdict");
        assertEquals(-RejectReason.MALFORMED_MESSAGE.value(), outcome);
        final ExecutionReportDecoder reject = fixture.assertLastRejected(SESSION_A, RejectReason.MALFORMED_MESSAGE);
        assertEquals(ACCOUNT_A, reject.account());
        assertEquals(1, gateway.counters().malformed());
        assertEquals(1, gateway.counters().malformed(validatorCode));
        assertTrue(output.toEngine.isEmpty(), "never forwarded");
    }

    @Test
    void truncatedHeaderIsRejectedAsMalformed()
    {
        validOrder();
        assertRejectedAsMalformed(5, MessageValidator.TRUNCATED_HEADER);
    }

    @Test
    void truncatedBodyIsRejectedAsMalformed()
    {
        final int length = validOrder();
        assertRejectedAsMalformed(length - 1, MessageValidator.BLOCK_PAST_END);
    }

    @Test
    void wrongSchemaIdIsRejectedAsMalformed()
    {
        final int length = validOrder();
        message.putShort(SCHEMA_ID_OFFSET, (short)4242, ByteOrder.LITTLE_ENDIAN);
        assertRejectedAsMalformed(length, MessageValidator.WRONG_SCHEMA_ID);
    }

    @Test
    void unknownTemplateIsRejectedAsMalformed()
    {
        final int length = validOrder();
        message.putShort(TEMPLATE_ID_OFFSET, (short)99, ByteOrder.LITTLE_ENDIAN);
        assertRejectedAsMalformed(length, MessageValidator.UNKNOWN_TEMPLATE_ID);
    }

    @Test
    void blockLengthShorterThanTheTemplatesFieldsIsRejectedAsMalformed()
    {
        final int length = validOrder();
        message.putShort(BLOCK_LENGTH_OFFSET, (short)8, ByteOrder.LITTLE_ENDIAN);
        assertRejectedAsMalformed(length, MessageValidator.BLOCK_LENGTH_TOO_SHORT);
    }

    @Test
    void malformedMessageBeforeLogonIsAnsweredOnlyOnTheConnectionsOwnSessionWithinItsRate()
    {
        final int length = validOrder();
        message.putShort(SCHEMA_ID_OFFSET, (short)4242, ByteOrder.LITTLE_ENDIAN);

        final int outcome = gateway.onClientMessage(TRANSPORT_A, message, 0, length, START_NS);

        assertEquals(-RejectReason.MALFORMED_MESSAGE.value(), outcome);
        assertEquals(1, gateway.counters().malformed(MessageValidator.WRONG_SCHEMA_ID));
        fixture.assertLastRejected(SESSION_A, RejectReason.MALFORMED_MESSAGE);
        assertTrue(output.toEngine.isEmpty());
        for (int i = 0; i < 20; i++)
        {
            gateway.onClientMessage(TRANSPORT_A, message, 0, length, START_NS);
        }
        assertEquals(TransportLimits.DEFAULT.logonBurst(), output.toSessions.size(),
            "a connection draws no more answers than its burst before logon");
        assertEquals(21 - TransportLimits.DEFAULT.logonBurst(), gateway.counters().repliesThrottled());
    }

    @Test
    void aConnectionThatKeepsSendingMalformedMessagesIsDisconnectedOnce()
    {
        fixture.logOnBoth();
        final int length = validOrder();
        message.putShort(SCHEMA_ID_OFFSET, (short)4242, ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < TransportLimits.DEFAULT.maxMalformed(); i++)
        {
            gateway.onClientMessage(TRANSPORT_A, message, 0, length, START_NS + i);
        }
        assertTrue(output.disconnected.isEmpty(), "within its limit");
        gateway.onClientMessage(TRANSPORT_A, message, 0, length, START_NS + 100);
        gateway.onClientMessage(TRANSPORT_A, message, 0, length, START_NS + 101);
        assertEquals(java.util.List.of(TRANSPORT_A), output.disconnected, "past it, asked to go once");
        assertEquals(1, gateway.counters().malformedDisconnects());
        gateway.onTransportLost(TRANSPORT_A, START_NS + 102);
        assertFalse(gateway.isLoggedOn(SESSION_A), "its session is lost with it");
        assertTrue(gateway.isLoggedOn(SESSION_B), "the other session is untouched");
    }

    @Test
    void wellFormedMessageAClientMayNotSendIsCountedAndDropped()
    {
        fixture.logOnBoth();
        final int length = encodeReport(message, new MessageHeaderEncoder(), 1, ACCOUNT_A, 1, 1,
            io.ringwire.codecs.trading.ExecType.NEW, io.ringwire.codecs.trading.OrdStatus.NEW, 1, 0, 0);

        assertEquals(Gateway.UNSUPPORTED, gateway.onClientMessage(TRANSPORT_A, message, 0, length, START_NS + 1));

        assertEquals(1, gateway.counters().unsupportedMessages());
        assertTrue(output.toEngine.isEmpty());
    }
}
