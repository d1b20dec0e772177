package io.ringwire.exchange.gateway;

import io.ringwire.codecs.trading.ExecType;
import io.ringwire.codecs.trading.ExecutionReportEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.LogonEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.OrdStatus;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.exchange.book.InstrumentSpec;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway allocates nothing per message in steady state: after a warm-up, a window of 1M
 * orders from four sessions (each forwarded, acknowledged and filled by execution reports that are
 * routed back, with a risk reject, an engine resend and heartbeat work mixed in) allocates zero
 * bytes on the gateway's thread, by the JVM's per-thread allocation counter. A window with a
 * one-off allocation by the JIT's recompilation may be followed by another; a per-message
 * allocation shows in every window.
 */
class GatewayAllocationTest
{
    private static final int WINDOW = 1_000_000;
    private static final int WINDOWS = 5;
    private static final int WARM_UP = 1_000_000;
    private static final int SESSIONS = 4;
    private static final long START_NS = 1_700_000_000_000_000_000L;
    private static final long STEP_NS = 200;

    private final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final UnsafeBuffer engine = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final NewOrderEncoder orderEncoder = new NewOrderEncoder();
    private final ExecutionReportEncoder reportEncoder = new ExecutionReportEncoder();
    private long nowNs = START_NS;
    private long clientOrderId;
    private long engineSequence;

    /** Counts what it is given and keeps nothing. */
    private static final class CountingOutput implements GatewayOutput
    {
        long toEngine;
        long toSession;

        @Override
        public void disconnect(final int transportSession)
        {
        }

        @Override
        public boolean toEngine(final DirectBuffer buffer, final int offset, final int length)
        {
            toEngine++;
            return true;
        }

        @Override
        public boolean toSession(final int sessionIndex, final DirectBuffer buffer, final int offset, final int length)
        {
            toSession++;
            return true;
        }
    }

    @Test
    void aMillionForwardedOrdersAndRoutedReportsAfterWarmUpAllocateNothing()
    {
        final List<SessionConfig> sessions = new ArrayList<>();
        for (int i = 0; i < SESSIONS; i++)
        {
            sessions.add(new SessionConfig(10 + i, "token-" + i, 100 + i));
        }
        final long[] references = { 0, 1_000, 2_000 };
        final int idsPerSession = (WARM_UP + WINDOW * WINDOWS) / SESSIONS + 1;
        final GatewayConfig config = new GatewayConfig(sessions,
            List.of(new InstrumentSpec(1, 1, 1, 1, 1_000_000), new InstrumentSpec(2, 1, 1, 1, 1_000_000)), references,
            new RiskLimits(1_000, 100_000_000, 100, 64), 1_000_000_000, 1_000_000, idsPerSession);
        final CountingOutput output = new CountingOutput();
        final Gateway gateway = new Gateway(config, output);
        for (int i = 0; i < SESSIONS; i++)
        {
            final int length = MessageHeaderEncoder.ENCODED_LENGTH + new LogonEncoder()
                .wrapAndApplyHeader(request, 0, header).sessionId(10 + i).heartbeatIntervalMs(1_000).sendingTime(nowNs)
                .nextReplySequence(0).replyLife(0)
                .credentials("token-" + i).encodedLength();
            gateway.onTransportAvailable(500 + i, SessionConfig.memberIdentity(10 + i), nowNs);
            assertEquals(Gateway.LOGGED_ON, gateway.onClientMessage(500 + i, request, 0, length, nowNs));
        }
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

        run(gateway, WARM_UP);
        long smallest = Long.MAX_VALUE;
        for (int window = 0; window < WINDOWS && smallest > 0; window++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            run(gateway, WINDOW);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            System.out.printf("window %d: %d bytes over %d orders%n", window, allocated, WINDOW);
            smallest = Math.min(smallest, allocated);
        }

        assertEquals(0, smallest, "bytes allocated over " + WINDOW + " orders in the quietest window");
        final GatewayCounters counters = gateway.counters();
        assertTrue(counters.forwarded() > WINDOW && counters.routed() > 2L * WINDOW &&
            counters.maxOrderQuantity() > 0 && counters.duplicateReportsDropped() > 0,
            "the flow forwards, routes, rejects and drops resends: " + counters.forwarded() + " forwarded, " +
                counters.routed() + " routed, " + counters.maxOrderQuantity() + " rejected, " +
                counters.duplicateReportsDropped() + " resends");
        for (int i = 0; i < SESSIONS; i++)
        {
            assertTrue(gateway.isLoggedOn(i), "session " + i + " stays logged on");
            assertEquals(0, gateway.openOrders(i), "every order was filled");
        }
    }

    private void run(final Gateway gateway, final int orders)
    {
        for (int i = 0; i < orders; i++)
        {
            nowNs += STEP_NS;
            final int session = i & (SESSIONS - 1);
            final long id = ++clientOrderId;
            final long account = 100 + session;
            final int instrument = 1 + (i & 1);
            final long price = (instrument == 1 ? 1_000 : 2_000) + (i % 21) - 10;
            // One order in 64 is over the maximum quantity: a reject built by the gateway.
            final long quantity = (i & 63) == 63 ? 5_000 : 1 + (i & 7);
            final int length = GatewayFixture.encodeNewOrder(orderEncoder, request, header, id, account, instrument,
                OrdType.LIMIT, price, quantity, nowNs - 50);
            final int outcome = gateway.onClientMessage(500 + session, request, 0, length, nowNs);
            if (outcome == Gateway.FORWARDED)
            {
                report(gateway, account, id, ExecType.NEW, OrdStatus.NEW, instrument, 0, 0);
                report(gateway, account, id, ExecType.FILL, OrdStatus.FILLED, instrument, price, quantity);
                if ((i & 255) == 0)
                {
                    // An engine's resend of the fill: dropped by its sequence.
                    final int resent = GatewayFixture.encodeReport(reportEncoder, engine, header, engineSequence,
                        account, id, id, ExecType.FILL, OrdStatus.FILLED, instrument, price, quantity);
                    gateway.onEngineMessage(engine, 0, resent, nowNs);
                }
            }
            else if (quantity <= 1_000)
            {
                throw new IllegalStateException("order " + i + " was not forwarded: " + outcome);
            }
            if ((i & 1023) == 0)
            {
                gateway.doWork(nowNs);
            }
        }
    }

    private void report(final Gateway gateway, final long account, final long id, final ExecType execType,
        final OrdStatus ordStatus, final int instrument, final long lastPrice, final long lastQuantity)
    {
        final int length = GatewayFixture.encodeReport(reportEncoder, engine, header, ++engineSequence, account, id,
            id, execType, ordStatus, instrument, lastPrice, lastQuantity);
        gateway.onEngineMessage(engine, 0, length, nowNs);
    }
}
