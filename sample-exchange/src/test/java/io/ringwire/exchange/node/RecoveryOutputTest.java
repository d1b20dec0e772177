package io.ringwire.exchange.node;

import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.JournaledEngine;
import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Subscription;
import io.ringwire.rdma.cm.Identity;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Recovery sends again every report the journal's records make, faster than a gateway takes them:
 * past a bound of its backlog it waits for the gateway, so a gateway that reads late still gets
 * every one (a full backlog would drop the last, which nothing sends again); a gateway driven by
 * the engine's own thread is driven by that wait.
 *
 * <p>Thread layout: the engine on the test's thread; the gateway's reader on one of its own, which
 * parks when idle, or on the test's thread too, its duty run by the engine's wait.
 */
class RecoveryOutputTest
{
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int REPORT_BACKLOG = 1 << 20;
    private static final int RECORDS = 60_000;

    @TempDir
    Path directory;

    @ParameterizedTest(name = "the gateway on a thread of its own: {0}")
    @ValueSource(booleans = { true, false })
    @Timeout(120)
    void aGatewayThatReadsLateGetsEveryReportRecoverySendsAgain(final boolean gatewayThread) throws Exception
    {
        final Path journal = directory.resolve("journal");
        final EngineConfig config = config();
        final long[] reportsMade = { journalMoreReportsThanTheBacklogHolds(journal, config) };

        final Sides sides = sides(10_000);
        final ExchangeLayout layout = sides.layout();
        final MessagingContext engineSide = sides.engine();
        final MessagingContext gatewaySide = sides.gateway();
        final MessagingContext marketDataSide = sides.marketData();
        final AtomicBoolean reading = new AtomicBoolean(true);
        final AtomicLong reportsRead = new AtomicLong();
        Thread reader = null;
        try (Subscription reports = Subscription.open(gatewaySide, layout.gatewayReportsSubscription(),
            ExchangeLayout.REPORTS_STREAM);
             Subscription feed = Subscription.open(marketDataSide, layout.marketDataFeedSubscription(),
                 ExchangeLayout.FEED_STREAM);
             EngineNode node = new EngineNode(engineSide, layout, journal, config, new RunFlag(), 1 << 20,
                 new EngineThreads(false, false, false), REPORT_BACKLOG))
        {
            RoleContexts.await(node::isConnected, WAIT, "the engine connected", () ->
            {
                node.doWork();
                reports.poll((buffer, offset, length, header) -> { }, 10);
                feed.poll((buffer, offset, length, header) -> { }, 10);
            });
            final java.util.function.IntSupplier gatewayDuty = () ->
                reports.poll((buffer, offset, length, header) -> reportsRead.incrementAndGet(), 64) +
                feed.poll((buffer, offset, length, header) -> { }, 64);
            if (gatewayThread)
            {
                // The gateway reads only once recovery has filled what it can take in the meantime.
                reader = Thread.ofPlatform().name("gateway-reader").start(() ->
                {
                    LockSupport.parkNanos(Duration.ofMillis(300).toNanos());
                    while (reading.get())
                    {
                        if (gatewayDuty.getAsInt() == 0)
                        {
                            LockSupport.parkNanos(10_000);
                        }
                    }
                });
                node.open();
            }
            else
            {
                node.open(gatewayDuty); // one thread drives both, as the in-process demo's does before its threads start
            }
            RoleContexts.await(() -> reportsRead.get() >= reportsMade[0], WAIT, "every report recovery sent", () ->
            {
                node.doWork();
                if (!gatewayThread)
                {
                    gatewayDuty.getAsInt();
                }
            });
            assertEquals(0, node.dropped(), "nothing dropped");
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            assertEquals(reportsMade[0], reportsRead.get(), "each report once");
        }
        finally
        {
            reading.set(false);
            if (null != reader)
            {
                reader.join(10_000);
            }
        }
    }

    /** A layout on free ports and the engine's, the gateway's and the market data's contexts, each keyed. */
    private record Sides(ExchangeLayout layout, MessagingContext engine, MessagingContext gateway,
        MessagingContext marketData)
    {
    }

    private Sides sides(final int livenessTimeoutMs)
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 1, 1);
        final Map<String, Identity> identities = new HashMap<>();
        layout.identities().forEach(name -> identities.put(name, Identity.generate(name)));
        return new Sides(layout, RoleContexts.context(directory, identities, List.of(ExchangeLayout.ENGINE),
            List.of(ExchangeLayout.GATEWAY, ExchangeLayout.MARKET_DATA), livenessTimeoutMs, 0),
            RoleContexts.context(directory, identities, List.of(ExchangeLayout.GATEWAY), List.of(ExchangeLayout.ENGINE),
                livenessTimeoutMs, 0),
            RoleContexts.context(directory, identities, List.of(ExchangeLayout.MARKET_DATA),
                List.of(ExchangeLayout.ENGINE), livenessTimeoutMs, 0));
    }

    private static EngineConfig config()
    {
        final OrderFlow flow = flow();
        return new EngineConfig(EngineConfig.uniformInstruments(5, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), 50_000, 100, 0);
    }

    private static OrderFlow flow()
    {
        return new OrderFlow(0x5A9L, 5, 1, 20, 5_000, 40, 2048);
    }

    /** @return the reports the journal's replay makes: many times what {@link #REPORT_BACKLOG} holds. */
    private static long journalMoreReportsThanTheBacklogHolds(final Path journal, final EngineConfig config)
    {
        final OrderFlow flow = flow();
        final long[] reportsMade = { 0 };
        try (JournaledEngine engine = JournaledEngine.open(journal, config, new EngineOutput()
        {
            @Override
            public void executionReport(final DirectBuffer buffer, final int offset, final int length)
            {
                reportsMade[0]++;
            }

            @Override
            public void marketData(final DirectBuffer buffer, final int offset, final int length)
            {
            }
        }, 1 << 20, false))
        {
            final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
            for (int i = 0; i < RECORDS; i++)
            {
                engine.accept(request, 0, flow.next(request, 0));
            }
        }
        assertTrue(reportsMade[0] * 100 > 4L * REPORT_BACKLOG, reportsMade[0] + " reports: more than the backlog holds");
        return reportsMade[0];
    }

    @Test
    @Timeout(120)
    void stoppingTheRunEndsRecoverysWaitForAGatewayThatTakesNothing() throws Exception
    {
        final Path journal = directory.resolve("journal");
        final EngineConfig config = config();
        journalMoreReportsThanTheBacklogHolds(journal, config);
        final Sides sides = sides(60_000);
        final ExchangeLayout layout = sides.layout();
        final MessagingContext engineSide = sides.engine();
        final MessagingContext gatewaySide = sides.gateway();
        final MessagingContext marketDataSide = sides.marketData();
        final RunFlag running = new RunFlag();
        try (Subscription reports = Subscription.open(gatewaySide, layout.gatewayReportsSubscription(),
            ExchangeLayout.REPORTS_STREAM);
             Subscription feed = Subscription.open(marketDataSide, layout.marketDataFeedSubscription(),
                 ExchangeLayout.FEED_STREAM);
             EngineNode node = new EngineNode(engineSide, layout, journal, config, running, 1 << 20,
                 new EngineThreads(false, false, false), REPORT_BACKLOG))
        {
            RoleContexts.await(node::isConnected, WAIT, "the engine connected", () ->
            {
                node.doWork();
                reports.poll((buffer, offset, length, header) -> { }, 10);
                feed.poll((buffer, offset, length, header) -> { }, 10);
            });
            // The gateway now takes nothing: recovery fills the backlog and waits for it.
            final Thread opening = Thread.ofPlatform().name("engine-open").start(node::open);
            opening.join(Duration.ofSeconds(1));
            assertTrue(opening.isAlive(), "recovery waits for the gateway to take its reports");
            running.stop();
            opening.join(WAIT);
            assertFalse(opening.isAlive(), "the run stopping ended the wait");
        }
    }
}
