package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.CancelOrderDecoder;
import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MassCancelDecoder;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderDecoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.ReplaceOrderDecoder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.ringwire.exchange.gateway.GatewayFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The gateway serves one engine life: the first a report names. The same engine started again on
 * its journal resends under that life, and the gateway drops what it had by sequence; an engine
 * started again on a new journal names another life, with sequences that start again, and from its
 * first report the gateway routes nothing and says so, rather than drop the new engine's reports as
 * resends or route them against orders the new engine never had.
 */
class GatewayEngineLifeTest
{
    private static final long OTHER_LIFE = ENGINE_LIFE + 1;

    private final GatewayFixture fixture = new GatewayFixture();
    private final Gateway gateway = fixture.gateway;
    private long nowNs = START_NS;

    private void report(final long sequence, final long clientOrderId, final long life)
    {
        final int length = GatewayFixture.encodeReport(fixture.buffer, fixture.header, sequence, ACCOUNT_A,
            clientOrderId, 9_000 + clientOrderId, ExecType.NEW, OrdStatus.NEW, 1, 0, 0);
        new ExecutionReportEncoder().wrap(fixture.buffer, MessageHeaderEncoder.ENCODED_LENGTH).engineLife(life);
        gateway.onEngineMessage(fixture.buffer, 0, length, ++nowNs);
    }

    private void logOnA()
    {
        fixture.connect(TRANSPORT_A, ID_A);
        assertEquals(Gateway.LOGGED_ON, fixture.logon(TRANSPORT_A, ID_A, TOKEN_A, ++nowNs));
    }

    @Test
    void theFirstLifeIsServedAndTheSameEnginesResendIsDroppedBySequence()
    {
        logOnA();
        assertEquals(0, gateway.engineLife(), "no report yet");
        report(1, 11, ENGINE_LIFE);
        report(2, 12, ENGINE_LIFE);
        // The same engine restarted: its recovery sends again what it had sent, under its life.
        report(1, 11, ENGINE_LIFE);
        report(2, 12, ENGINE_LIFE);
        report(3, 13, ENGINE_LIFE);

        assertEquals(ENGINE_LIFE, gateway.engineLife());
        assertEquals(0, gateway.otherEngineLife());
        assertEquals(3, gateway.counters().routed());
        assertEquals(2, gateway.counters().duplicateReportsDropped());
        assertEquals(0, gateway.counters().reportsOfAnotherEngine());
    }

    @Test
    void aReportOfAnotherLifeIsNotRoutedNorIsAnyAfterIt()
    {
        logOnA();
        report(1, 11, ENGINE_LIFE);
        report(2, 12, ENGINE_LIFE);
        fixture.output.clear();

        // An engine started on a new journal: its sequences start again, under a life of its own.
        report(1, 21, OTHER_LIFE);
        report(2, 22, OTHER_LIFE);
        report(3, 23, OTHER_LIFE);
        // Not even one naming the gateway's own life passes now: the gateway is to stop.
        report(3, 13, ENGINE_LIFE);

        assertEquals(ENGINE_LIFE, gateway.engineLife(), "the life it served");
        assertEquals(OTHER_LIFE, gateway.otherEngineLife(), "the life it met");
        assertEquals(2, gateway.counters().routed(), "the first life's two");
        assertEquals(4, gateway.counters().reportsOfAnotherEngine());
        assertEquals(0, gateway.counters().duplicateReportsDropped(), "none taken for a resend");
        assertEquals(0, fixture.output.toSessions.size(), "nothing reached the client");
        assertEquals(2, gateway.lastEngineSequence());
    }

    /** @return the engine life the request the gateway last sent the engine names. */
    private long lifeNamedByLastRequest()
    {
        final UnsafeBuffer sent = fixture.output.lastToEngine();
        final MessageHeaderDecoder header = new MessageHeaderDecoder().wrap(sent, 0);
        final int body = MessageHeaderDecoder.ENCODED_LENGTH;
        return switch (header.templateId())
        {
            case NewOrderDecoder.TEMPLATE_ID ->
                new NewOrderDecoder().wrap(sent, body, header.blockLength(), header.version()).engineLife();
            case CancelOrderDecoder.TEMPLATE_ID ->
                new CancelOrderDecoder().wrap(sent, body, header.blockLength(), header.version()).engineLife();
            case ReplaceOrderDecoder.TEMPLATE_ID ->
                new ReplaceOrderDecoder().wrap(sent, body, header.blockLength(), header.version()).engineLife();
            case MassCancelDecoder.TEMPLATE_ID ->
                new MassCancelDecoder().wrap(sent, body, header.blockLength(), header.version()).engineLife();
            default -> throw new AssertionError("not a request: template " + header.templateId());
        };
    }

    @Test
    void everyRequestNamesTheLifeTheGatewayServesOverWhateverItsClientWrote()
    {
        logOnA();
        assertEquals(Gateway.FORWARDED, fixture.limitA(1, 1_000, 10, ++nowNs));
        assertEquals(0, lifeNamedByLastRequest(), "before any report the gateway serves no life yet");

        report(1, 1, ENGINE_LIFE);
        // A client that writes a life of its own into its request: the gateway writes its own over it.
        final int length = GatewayFixture.encodeNewOrder(fixture.buffer, fixture.header, 2, ACCOUNT_A, 1, OrdType.LIMIT,
            1_000, 10, nowNs);
        new NewOrderEncoder().wrap(fixture.buffer, MessageHeaderEncoder.ENCODED_LENGTH).engineLife(OTHER_LIFE);
        assertEquals(Gateway.FORWARDED, gateway.onClientMessage(TRANSPORT_A, fixture.buffer, 0, length, ++nowNs));
        assertEquals(ENGINE_LIFE, lifeNamedByLastRequest());
        assertEquals(Gateway.FORWARDED, fixture.replace(TRANSPORT_A, 3, 2, ACCOUNT_A, 1_001, 10, ++nowNs));
        assertEquals(ENGINE_LIFE, lifeNamedByLastRequest());
        assertEquals(Gateway.FORWARDED, fixture.cancel(TRANSPORT_A, 4, 3, ACCOUNT_A, ++nowNs));
        assertEquals(ENGINE_LIFE, lifeNamedByLastRequest());
        assertEquals(Gateway.FORWARDED, fixture.massCancelAll(TRANSPORT_A, 5, ACCOUNT_A, ++nowNs));
        assertEquals(ENGINE_LIFE, lifeNamedByLastRequest());
    }

    @Test
    void aReportThatNamesNoLifeIsRoutedByItsSequenceAndTheFirstLifeNamedIsServed()
    {
        logOnA();
        report(1, 11, 0); // an engine of a schema before lives, or a report widened from one
        report(2, 12, ExecutionReportEncoder.engineLifeNullValue());
        assertEquals(0, gateway.engineLife());
        report(3, 13, ENGINE_LIFE);
        report(4, 14, 0);

        assertEquals(ENGINE_LIFE, gateway.engineLife());
        assertEquals(0, gateway.otherEngineLife());
        assertEquals(4, gateway.counters().routed());
        assertEquals(0, gateway.counters().reportsOfAnotherEngine());
    }
}
