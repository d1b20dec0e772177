package io.ringwire.exchange.node;

import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.SelfTradePrevention;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A report the engine drops (its backlog toward a gateway that stopped reading, past its bound)
 * is sent again only by a replay from a snapshot taken before it: from then on the engine takes no
 * snapshot in that run, however well the gateway reads again. Real shm messaging; the engine writes
 * its own snapshots; everything on the test's thread, the gateway's side played by a bare
 * publication of requests and a subscription of reports.
 */
class DroppedReportSnapshotTest
{
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(60);
    private static final int ORDERS = 1_000;
    /** Account 1's resting orders: their cancels' reports take more than the gateway's ring. */
    private static final int DEEP = 12_000;

    @TempDir
    Path directory;

    private final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final FragmentHandler ignore = (buffer, offset, length, messageHeader) -> { };
    private long clientOrderId;
    private EngineNode engine;
    private Subscription reports;
    private Subscription feed;
    private Publication requests;

    @Test
    void aDroppedReportStopsTheSnapshotsForTheRestOfTheRun() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 1, 1);
        final MessagingContext context = ExchangeDemo.context(layout, directory.resolve("shm"), "");
        final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(1, 1, 1_000), 50_000, 100, 200);
        try (Subscription gatewayReports = Subscription.open(context, layout.gatewayReportsSubscription(),
                ExchangeLayout.REPORTS_STREAM);
            Subscription marketData = Subscription.open(context, layout.marketDataFeedSubscription(),
                ExchangeLayout.FEED_STREAM);
            Publication toEngine = Publication.open(context, layout.engineRequestsPublication(),
                ExchangeLayout.REQUESTS_STREAM);
            EngineNode node = new EngineNode(context, layout, directory.resolve("journal"), config, new RunFlag(),
                1 << 20, EngineThreads.NONE, 4096))
        {
            engine = node;
            reports = gatewayReports;
            feed = marketData;
            requests = toEngine;
            drive(() -> engine.isConnected() && requests.isConnected(), "connected", Integer.MAX_VALUE);
            engine.open();

            // Resting bids of account 1, more reports than the gateway's ring holds, every report
            // read: snapshots are taken.
            sendNewOrders(1, DEEP, Integer.MAX_VALUE);
            drive(() -> engine.snapshotsTaken() > 0, "a snapshot", Integer.MAX_VALUE);

            // The gateway stops reading: account 2's bids fill its ring until the engine waits.
            while (!engine.reportsBehind())
            {
                offer(newOrder(2));
                drive(() -> true, "a turn", 0);
            }
            // Account 1's mass cancel waits in the requests' ring; the gateway reads a report at a
            // time, and once the engine's backlog has gone into the room made, the engine takes the
            // cancel, whose reports pass the ring's room and the backlog's bound.
            offer(massCancel(1));
            drive(() -> engine.dropped() > 0, "a report dropped", 1);
            final long snapshotsAtDrop = engine.snapshotsTaken();

            // The gateway reads again, and the engine applies a thousand more, every report leaving.
            sendNewOrders(3, ORDERS, Integer.MAX_VALUE);
            drive(() -> !engine.reportsBehind(), "every report gone", Integer.MAX_VALUE);
            for (int turn = 0; turn < 100; turn++)
            {
                drive(() -> true, "a turn", Integer.MAX_VALUE); // where a pending snapshot would be written
            }

            assertEquals(snapshotsAtDrop, engine.snapshotsTaken(), "no snapshot after a report was dropped");
        }
    }

    private void sendNewOrders(final long account, final int count, final int reportsPerTurn)
        throws InterruptedException
    {
        final long target = engine.engine().applied() + count;
        for (int i = 0; i < count; i++)
        {
            final int length = newOrder(account);
            final long deadline = System.nanoTime() + WAIT_NS;
            while (requests.offer(request, 0, length) < 0)
            {
                drive(() -> true, "a turn", reportsPerTurn);
                if (System.nanoTime() - deadline > 0)
                {
                    fail("the engine took no request");
                }
            }
        }
        drive(() -> engine.engine().applied() >= target, "the requests applied", reportsPerTurn);
    }

    private void offer(final int length) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (requests.offer(request, 0, length) < 0)
        {
            drive(() -> true, "a turn", 0);
            if (System.nanoTime() - deadline > 0)
            {
                fail("the request could not be offered");
            }
        }
    }

    private int newOrder(final long account)
    {
        return MessageHeaderEncoder.ENCODED_LENGTH + new NewOrderEncoder().wrapAndApplyHeader(request, 0, header)
            .clientOrderId(++clientOrderId).account(account).instrumentId(1).side(Side.BUY).ordType(OrdType.LIMIT)
            .timeInForce(TimeInForce.DAY).price(100).quantity(1).sendingTime(1).postOnly(BooleanType.FALSE)
            .displayQuantity(0).selfTradePrevention(SelfTradePrevention.get((short)0)).receiveTime(1).engineLife(0)
            .encodedLength();
    }

    private int massCancel(final long account)
    {
        return MessageHeaderEncoder.ENCODED_LENGTH + new MassCancelEncoder().wrapAndApplyHeader(request, 0, header)
            .clientOrderId(++clientOrderId).account(account).instrumentId(0).sendingTime(1).receiveTime(1)
            .engineLife(0).encodedLength(); // the gateway's side names no engine life, as a fresh gateway's does
    }

    /** Drives the engine and both of the gateway's ends until the condition holds, reading up to {@code reportsPerTurn} reports a turn. */
    private void drive(final BooleanSupplier condition, final String what, final int reportsPerTurn)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT_NS;
        do
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("waiting for " + what + ": applied " + engine.engine().applied() + ", dropped " + engine.dropped());
            }
            final int work = engine.doWork() + (reportsPerTurn > 0 ? reports.poll(ignore, reportsPerTurn) :
                reports.doWork()) + feed.poll(ignore, 64) + requests.doWork();
            if (work == 0)
            {
                Thread.sleep(0, 100_000);
            }
        }
        while (!condition.getAsBoolean());
    }
}
