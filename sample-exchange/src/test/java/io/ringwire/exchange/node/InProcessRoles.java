package io.ringwire.exchange.node;

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

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The exchange's roles in the test's JVM over real shm messaging, for tests of the engine node:
 * engine, gateway, market data, its subscriber and simulated clients.
 *
 * <p>Thread layout: the engine on one thread, the gateway, market data, its subscriber and the
 * clients on another, both backing off (the test's machine may have two CPUs); the test's thread
 * waits.
 */
final class InProcessRoles implements AutoCloseable
{
    static final Duration WAIT = Duration.ofSeconds(60);
    /** How long nothing moves before a drain counts as done. */
    private static final Duration SETTLE = Duration.ofMillis(1000);
    /**
     * Passes over every role with nothing moving that a drain needs as well: a pause of this thread
     * as long as {@link #SETTLE} would otherwise end it with no look after the pause.
     */
    private static final int SETTLE_PASSES = 2_000;

    private final Path directory;
    private final int clientCount;
    private final int instruments;
    private final long rate;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<AgentRunner> runners = new ArrayList<>();
    private AgentRunner engineRunner;
    final List<Throwable> failures = new CopyOnWriteArrayList<>();
    EngineNode engine;
    GatewayNode gateway;
    MarketDataNode marketData;
    MarketDataClient subscriber;
    SimulatedClients clients;

    /**
     * @param directory   the test's directory (the shm files go under it).
     * @param clientCount simulated clients.
     * @param instruments instruments they trade.
     * @param rate        requests a second over all clients.
     */
    InProcessRoles(final Path directory, final int clientCount, final int instruments, final long rate)
    {
        this.directory = directory;
        this.clientCount = clientCount;
        this.instruments = instruments;
        this.rate = rate;
    }

    /** Stops the threads and closes every role. */
    @Override
    public void close()
    {
        stopThreads();
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(closeables.get(i));
        }
        closeables.clear();
    }

    /**
     * Opens the roles, connects them, opens the engine and starts the threads.
     *
     * @param engineThreads which of the engine's work runs on threads of its own (forced, whatever
     *                      the machine's CPUs).
     */
    void start(final Path journal, final EngineConfig config, final int segmentLength,
        final EngineThreads engineThreads) throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", clientCount, 1);
        final Path shm = directory.resolve("shm");
        final MessagingContext context = ExchangeDemo.context(layout, shm, "");
        final RunFlag running = new RunFlag();
        engine = add(new EngineNode(context, layout, journal, config, running, segmentLength, engineThreads));
        gateway = add(new GatewayNode(context, layout, ExchangeDemo.gatewayConfig(clientCount, rate, config, 0), running));
        marketData = add(new MarketDataNode(context, layout, config, running));
        subscriber = add(new MarketDataClient(context, layout, 0, config, new LatencyLedger(), running));
        clients = add(new SimulatedClients(context, layout, ExchangeDemo.sessions(clientCount), 0, instruments, rate, 26,
            new LatencyLedger(), running));
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (!(engine.isConnected() && gateway.isConnected() && gateway.clientsConnected() && marketData.isConnected() &&
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
        engineRunner = run(engine);
        run(new CompositeAgent(gateway, marketData, subscriber, clients));
    }

    private AgentRunner run(final org.agrona.concurrent.Agent agent)
    {
        final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(), failures::add, null, agent);
        AgentRunner.startOnThread(runner);
        runners.add(runner);
        return runner;
    }

    /** Stops the engine's thread alone: the gateway, market data and clients go on (and the engine's helpers). */
    void stopEngineThread()
    {
        runners.remove(engineRunner);
        engineRunner.close();
    }

    /**
     * Stops the clients and the threads, then drives every role here until nothing moves: no
     * request applied or refused, no report routed or received, for a while. The roles' own
     * periodic work (heartbeats, status) never stops, so their work counts cannot tell.
     */
    void drain() throws InterruptedException
    {
        clients.stopSending();
        stopThreads();
        final long deadline = System.nanoTime() + WAIT.toNanos();
        long progress = -1;
        long stillSinceNs = System.nanoTime();
        int stillPasses = 0;
        while (System.nanoTime() - stillSinceNs < SETTLE.toNanos() || stillPasses < SETTLE_PASSES)
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
                stillPasses = 0;
            }
            else
            {
                stillPasses++;
            }
            if (work == 0)
            {
                Thread.sleep(0, 200_000);
            }
        }
    }

    void stopThreads()
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

    void await(final BooleanSupplier condition, final String what) throws InterruptedException
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
