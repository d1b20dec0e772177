package io.ringwire.exchange.node;

import io.ringwire.exchange.book.OrderTerms;
import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.demo.LatencyLedger;
import io.ringwire.exchange.demo.MarketDataClient;
import io.ringwire.exchange.demo.SimulatedClients;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.messaging.MessagingContext;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CompositeAgent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A request the engine's journal refuses is not applied, and its client hears so: over real
 * messaging with the gateway, market data and simulated clients, the journal's directory is
 * removed while they trade, so from the next segment on every append is refused, and every new
 * order is still acknowledged, the refused ones by a JOURNAL_REFUSED reject.
 *
 * <p>Thread layout: the engine on one thread, the gateway, market data, its subscriber and the
 * clients on another, both backing off (the test's machine may have two CPUs); the test's thread
 * waits.
 */
@Tag("system")
class JournalRefusalTest
{
    private static final int INSTRUMENTS = 4;
    private static final int CLIENTS = 2;
    private static final long RATE = 4_000;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** How long nothing moves before a drain counts as done. */
    private static final Duration SETTLE = Duration.ofMillis(500);

    @TempDir
    Path directory;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<AgentRunner> runners = new ArrayList<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private EngineNode engine;
    private GatewayNode gateway;
    private MarketDataNode marketData;
    private MarketDataClient subscriber;
    private SimulatedClients clients;

    @AfterEach
    void stop()
    {
        stopThreads();
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(closeables.get(i));
        }
    }

    @Test
    void aRequestTheJournalRefusesIsRejectedToItsClient() throws Exception
    {
        final Path journal = directory.resolve("journal");
        start(journal, ExchangeDemo.engineConfig(INSTRUMENTS, CLIENTS), 64 << 10);
        final AtomicLongArray counters = clients.counters();
        await(() -> counters.get(SimulatedClients.NEW_ORDERS) > 1_000, "the clients trading");
        // The journal's next segment cannot be made once its directory is gone: every append from
        // the next roll on is refused.
        ExchangeDemo.deleteQuietly(journal);
        final int refused = SimulatedClients.REJECT_REASONS + OrderTerms.JOURNAL_REFUSED;
        await(() -> counters.get(refused) > 50, "rejects for JOURNAL_REFUSED at the clients");
        drain();

        assertTrue(engine.refused() > 0, "the journal refused appends");
        assertTrue(engine.refusalsReported() > 0, "the engine sent the rejects");
        final var gatewayCounters = gateway.gateway().counters();
        assertEquals(counters.get(SimulatedClients.NEW_ORDERS), counters.get(SimulatedClients.ACKS),
            "every new order acknowledged, the refused ones by their reject; gateway: forwarded " +
            gatewayCounters.forwarded() + ", routed " + gatewayCounters.routed() + ", for gone sessions " +
            gatewayCounters.reportsForGoneSessions() + ", heartbeat timeouts " + gatewayCounters.heartbeatTimeouts() +
            ", transport losses " + gatewayCounters.transportLosses() + ", send failures " +
            gatewayCounters.sessionSendFailures() + ", engine malformed " + gatewayCounters.engineMalformed() +
            "; engine: refused " + engine.refused() + ", reported " + engine.refusalsReported() + ", applied " +
            engine.engine().applied() + "; clients: sent " + counters.get(SimulatedClients.SENT) + ", logons " +
            counters.get(SimulatedClients.LOGGED_ON) + ", unsent " + counters.get(SimulatedClients.UNSENT));
        assertEquals(0, counters.get(SimulatedClients.DUPLICATE_ACKS));
        assertEquals(counters.get(SimulatedClients.BOUGHT), counters.get(SimulatedClients.SOLD));
        assertTrue(failures.isEmpty(), failures.toString());
    }

    private void start(final Path journal, final EngineConfig config, final int segmentLength) throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", CLIENTS, 1);
        final Path shm = Files.createDirectories(directory.resolve("shm"));
        final MessagingContext context = ExchangeDemo.context(layout, shm, "");
        final RunFlag running = new RunFlag();
        engine = add(new EngineNode(context, layout, journal, config, running, segmentLength));
        gateway = add(new GatewayNode(context, layout, ExchangeDemo.gatewayConfig(CLIENTS, RATE, config), running));
        marketData = add(new MarketDataNode(context, layout, config, running));
        subscriber = add(new MarketDataClient(context, layout, 0, config, new LatencyLedger(), running));
        clients = add(new SimulatedClients(context, layout, ExchangeDemo.sessions(CLIENTS), 0, INSTRUMENTS, RATE, 26,
            new LatencyLedger(), running));
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!(engine.isConnected() && gateway.isConnected() && marketData.isConnected() &&
            subscriber.isConnected() && clients.isConnected()))
        {
            if (System.nanoTime() > deadline)
            {
                fail("the roles did not connect within " + WAIT + ": engine " + engine.isConnected() + ", gateway " +
                    gateway.isConnected() + ", market data " + marketData.isConnected() + ", subscriber " +
                    subscriber.isConnected() + ", clients " + clients.isConnected());
            }
            final int work = engine.doWork() + gateway.doWork() + marketData.doWork() + subscriber.doWork() +
                clients.pollOnly();
            if (work == 0)
            {
                Thread.sleep(1);
            }
        }
        engine.open();
        run(engine);
        run(new CompositeAgent(gateway, marketData, subscriber, clients));
    }

    private void run(final org.agrona.concurrent.Agent agent)
    {
        final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(), failures::add, null, agent);
        AgentRunner.startOnThread(runner);
        runners.add(runner);
    }

    /**
     * Stops the clients and the threads, then drives every role here until nothing moves: no
     * request applied or refused, no report routed or received, for a while. The roles' own
     * periodic work (heartbeats, status) never stops, so their work counts cannot tell.
     */
    private void drain() throws InterruptedException
    {
        clients.stopSending();
        stopThreads();
        final long deadline = System.nanoTime() + WAIT.toNanos();
        long progress = -1;
        long stillSinceNs = System.nanoTime();
        while (System.nanoTime() - stillSinceNs < SETTLE.toNanos())
        {
            if (System.nanoTime() > deadline)
            {
                fail("the roles did not settle within " + WAIT);
            }
            final int work = engine.doWork() + gateway.doWork() + marketData.doWork() + subscriber.doWork() +
                clients.pollOnly();
            final long now = engine.engine().applied() + engine.refused() + gateway.gateway().counters().routed() +
                gateway.gateway().counters().forwarded() + clients.counters().get(SimulatedClients.REPORTS);
            if (now != progress)
            {
                progress = now;
                stillSinceNs = System.nanoTime();
            }
            if (work == 0)
            {
                Thread.sleep(0, 200_000);
            }
        }
    }

    private void stopThreads()
    {
        for (final AgentRunner runner : runners)
        {
            CloseHelper.quietClose(runner);
        }
        runners.clear();
    }

    private <T extends AutoCloseable> T add(final T closeable)
    {
        closeables.add(closeable);
        return closeable;
    }

    private void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline || !failures.isEmpty())
            {
                fail("waiting for " + what + ": " + (failures.isEmpty() ? "timed out after " + WAIT : failures));
            }
            Thread.sleep(5);
        }
    }
}
