package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
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
