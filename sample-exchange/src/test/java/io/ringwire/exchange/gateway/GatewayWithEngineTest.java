package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.MatchingEngine;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.ringwire.exchange.gateway.GatewayFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway in front of the real matching engine: what it forwards, the engine takes; the
 * engine's execution reports drive the gateway's open-order count and last trade; a lost session's
 * cancel-on-disconnect empties its account's resting orders from the books, and its CANCELED
 * reports reach the client at its next logon.
 */
class GatewayWithEngineTest
{
    private final GatewayFixture fixture = new GatewayFixture();
    private final Gateway gateway = fixture.gateway;
    private final List<UnsafeBuffer> reports = new ArrayList<>();
    private final MatchingEngine engine = new MatchingEngine(
        new EngineConfig(GatewayFixture.config(100, 10, 1_000).instruments(), 1_000, 10, 0),
        new EngineOutput()
        {
            @Override
            public void executionReport(final DirectBuffer buffer, final int offset, final int length)
            {
                final byte[] copy = new byte[length];
                buffer.getBytes(offset, copy);
                reports.add(new UnsafeBuffer(copy));
            }

            @Override
            public void marketData(final DirectBuffer buffer, final int offset, final int length)
            {
            }
        });
    private int applied;
    private long nowNs = START_NS;

    /** Hands the engine what the gateway forwarded, and the gateway what the engine reported. */
    private void pump()
    {
        final List<UnsafeBuffer> requests = fixture.output.toEngine;
        while (applied < requests.size())
        {
            final UnsafeBuffer request = requests.get(applied++);
            assertTrue(engine.apply(request, 0, request.capacity()) > 0, "the engine takes what the gateway sends");
        }
        for (final UnsafeBuffer report : reports)
        {
            gateway.onEngineMessage(report, 0, report.capacity(), ++nowNs);
        }
        reports.clear();
    }

    @Test
    void engineReportsKeepTheOpenOrderCountAndCancelOnDisconnectEmptiesTheBooksAndIsReportedAtTheNextLogon()
    {
        fixture.logOnBoth();
        for (int i = 1; i <= MAX_OPEN; i++)
        {
            assertEquals(Gateway.FORWARDED, fixture.limitA(i, 1_000 - i, 1, ++nowNs));
            pump();
        }
        assertEquals(MAX_OPEN, gateway.openOrders(SESSION_A));
        assertEquals(-RejectReason.MAX_OPEN_ORDERS.value(), fixture.limitA(10, 1_000, 1, ++nowNs));

        assertEquals(Gateway.FORWARDED,
            fixture.sell(TRANSPORT_B, 1, ACCOUNT_B, 1, 990, 1, ++nowNs));
        pump();
        assertEquals(MAX_OPEN - 1, gateway.openOrders(SESSION_A), "the fill ended one");
        assertEquals(0, gateway.openOrders(SESSION_B), "B's order filled at once");
        assertEquals(999, gateway.lastTradePrice(1), "the trade printed at the resting price");
        assertEquals(engine.engineSequence(), gateway.lastEngineSequence());

        fixture.output.toSessions.clear();
        gateway.onTransportLost(TRANSPORT_A, ++nowNs);
        pump();

        assertEquals(0, engine.books().orders().live(), "cancel-on-disconnect canceled A's resting orders");
        assertEquals(0, gateway.openOrders(SESSION_A), "their CANCELED reports ended them");
        assertTrue(fixture.output.toSessions.isEmpty(), "A is away: its reports wait in its reply log");
        assertEquals(0, gateway.counters().reportsForGoneSessions());

        // A received a NEW for each order and a FILL, then lost its session: it asks for what follows.
        final long received = MAX_OPEN + 1 + 1; // NEWs, the MAX_OPEN_ORDERS reject, the fill
        final int reconnected = TRANSPORT_A + 100;
        fixture.connect(reconnected, ID_A);
        assertEquals(Gateway.LOGGED_ON, fixture.logon(reconnected, ID_A, TOKEN_A, ++nowNs, received + 1));
        gateway.doWork(nowNs);
        final List<RecordingGatewayOutput.SessionMessage> resent = fixture.output.toSessions;
        assertEquals(1 + MAX_OPEN - 1, resent.size(), "the LogonResponse, then each CANCELED report once");
        for (int i = 1; i < resent.size(); i++)
        {
            final var report = fixture.report(resent.get(i).buffer());
            assertEquals(ExecType.CANCELED, report.execType());
            assertEquals(received + i, report.replySequence(), "in order, from the one A asked for");
        }
        assertEquals(0, gateway.counters().repliesResent(), "none had been sent before: first sends, not resends");
        assertEquals(engine.engineSequence(), gateway.lastEngineSequence());
    }

    @Test
    void engineRejectOfAForwardedOrderReachesTheClientAndEndsTheOrder()
    {
        fixture.logOnBoth();
        // Tick 5 on instrument 2: 502 passes the gateway's band but not the engine's tick check.
        assertEquals(Gateway.FORWARDED,
            fixture.newOrder(TRANSPORT_A, 1, ACCOUNT_A, 2, OrdType.LIMIT, 502, 1, ++nowNs));
        pump();

        final var reject = fixture.report(fixture.output.lastToSession().buffer());
        assertEquals(ExecType.REJECTED, reject.execType());
        assertEquals(RejectReason.TICK_SIZE, reject.rejectReason());
        assertTrue(reject.engineSequence() > 0, "the engine's, not the gateway's");
        assertEquals(0, gateway.openOrders(SESSION_A));
    }
}
