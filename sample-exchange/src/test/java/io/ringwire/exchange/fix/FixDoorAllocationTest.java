package io.ringwire.exchange.fix;

import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.gateway.Gateway;
import io.ringwire.exchange.gateway.GatewayConfig;
import io.ringwire.exchange.gateway.GatewayOutput;
import io.ringwire.exchange.gateway.RiskLimits;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.LoopbackPorts;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import quickfix.SessionID;
import quickfix.field.ClOrdID;
import quickfix.field.OrdType;
import quickfix.field.OrderQty;
import quickfix.field.Price;
import quickfix.field.SendingTime;
import quickfix.field.Side;
import quickfix.field.Symbol;
import quickfix.field.TransactTime;
import quickfix.fix44.NewOrderSingle;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.LocalDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the FIX door costs the gateway's thread: reading the members' requests from the inbound ring
 * into the gateway, and copying the gateway's replies into the outbound ring, allocate nothing once
 * warm. QuickFIX/J's side (parsing, mapping) allocates, on threads of its own.
 */
class FixDoorAllocationTest
{
    private static final int WINDOW = 2_000;
    private static final int WINDOWS = 30;

    @Test
    void theGatewaysThreadReadsRequestsAndHandsBackRepliesWithoutAllocating() throws Exception
    {
        final List<SessionConfig> sessions = List.of(new SessionConfig(7, "token-7", 700));
        final int port = LoopbackPorts.pick();
        final FixDoor door = new FixDoor(new InetSocketAddress("127.0.0.1", port), "RINGWIRE", null,
            List.of(new FixDoor.Member(0, sessions.get(0), "MEMBER7")), 1 << 20);
        final long[] replies = new long[1];
        // Some orders pass the rate limit, the rest are THROTTLED: forwarded requests and replies both.
        final Gateway gateway = new Gateway(new GatewayConfig(sessions, List.of(new InstrumentSpec(1, 1, 1, 1, 100_000)),
            new long[]{ 0, 1_000 }, new RiskLimits(1_000, 10_000_000, 500, 1_000_000), 20_000, 10, 10_000_000),
            new GatewayOutput()
            {
                @Override
                public boolean toEngine(final DirectBuffer buffer, final int offset, final int length)
                {
                    return true;
                }

                @Override
                public boolean toSession(final int sessionIndex, final DirectBuffer buffer, final int offset,
                    final int length)
                {
                    replies[0]++;
                    return door.toSession(sessionIndex, buffer, offset, length);
                }

                @Override
                public void disconnect(final int transportSession)
                {
                }
            });
        door.start(); // the sender thread drains the outbound ring (no member is logged on: nothing is sent)
        try
        {
            final SessionID sessionId = new SessionID("FIX.4.4", "RINGWIRE", "MEMBER7");
            door.application().onLogon(sessionId);
            long nowNs = 1_700_000_000_000_000_000L;
            assertEquals(1, door.poll(gateway, nowNs));
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
            long smallest = Long.MAX_VALUE;
            long order = 0;
            for (int window = 0; window < WINDOWS; window++)
            {
                for (int i = 0; i < WINDOW; i++) // QuickFIX/J's side: allocates, not measured
                {
                    final NewOrderSingle message = new NewOrderSingle(new ClOrdID("O" + ++order), new Side(Side.BUY),
                        new TransactTime(LocalDateTime.now()), new OrdType(OrdType.LIMIT));
                    message.getHeader().setField(new SendingTime(LocalDateTime.now()));
                    message.set(new Symbol("1"));
                    message.setString(Price.FIELD, "1000");
                    message.set(new OrderQty(1));
                    door.application().fromApp(message, sessionId);
                }
                // The sender thread maps and stores every reply (QuickFIX/J, allocating): on a loaded
                // host it can fall a window behind. It catches up before each window, so a window's
                // replies never fill the member's share of the outbound ring and its queue: a full
                // queue cuts the member off as a slow consumer, which is the gateway's answer to a
                // slow member, not what this measures.
                final long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (door.outboundBacklog() > 0 && System.nanoTime() < drainDeadline)
                {
                    Thread.sleep(1);
                }
                assertEquals(0, door.outboundBacklog(), "replies the sender thread had not taken after a minute");
                final long before = threads.getCurrentThreadAllocatedBytes();
                int handled = 0;
                while (handled < WINDOW)
                {
                    nowNs += 1_000_000;
                    handled += door.poll(gateway, nowNs);
                }
                smallest = Math.min(smallest, threads.getCurrentThreadAllocatedBytes() - before);
            }
            assertEquals(0, smallest, "bytes allocated on the gateway's thread over " + WINDOW + " requests");
            assertEquals(WINDOWS * (long)WINDOW, door.requests());
            assertTrue(gateway.counters().forwarded() > WINDOW && replies[0] > WINDOW,
                "requests forwarded and replies handed back: " + gateway.counters().forwarded() + ", " + replies[0]);
            assertEquals(0, door.repliesRefused(), "replies refused: a session's queue at the door was full");
        }
        finally
        {
            door.close();
        }
    }
}
