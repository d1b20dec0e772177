package io.ringwire.exchange.node;

import io.ringwire.exchange.demo.ExchangeDemo;
import io.ringwire.exchange.demo.LatencyLedger;
import io.ringwire.exchange.demo.MarketDataClient;
import io.ringwire.exchange.demo.SimulatedClients;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.marketdata.MarketDataBooks;
import io.ringwire.exchange.marketdata.PublicBookDigest;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.rdma.cm.Identity;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A role that goes away for a while costs no message and no session. Requests clients send while
 * the engine is gone (closed, its subscription with it) wait in the gateway's stream to the engine,
 * which reads nothing newer meanwhile (its clients' publications back up behind them), and go in
 * order once an engine restarted on the same journal is back. A gateway whose own thread stalls
 * past its clients' heartbeat timeout does not lose their sessions for the messages it had not read;
 * one back from a stall with reports and orders waiting takes more reports than orders a duty cycle.
 * In both, every new order is acknowledged once. A market-data service that restarts while the
 * engine trades, or with it after the engine's snapshot, rebuilds every book from the snapshots the
 * engine sends into the feed when the service connects, and so does a subscriber of the service. Real shm messaging; every role is driven on
 * the test's thread.
 */
@Tag("system")
class RoleAbsenceTest
{
    private static final int INSTRUMENTS = 2;
    private static final int CLIENTS = 2;
    private static final long RATE = 2_000;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(60);
    /**
     * Past three of the simulated clients' one-second heartbeat intervals (the gateway's limit), and
     * short of six (theirs) and of the transport's liveness.
     */
    private static final long STALL_NS = TimeUnit.MILLISECONDS.toNanos(4_500);
    private static final int LIVENESS_MS = 10_000;

    @TempDir
    Path directory;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private EngineNode engine;
    /** Whether {@link #drive} runs the engine (it may be present and held still). */
    private boolean engineDriven = true;
    private GatewayNode gateway;
    private MarketDataNode marketData;
    private MarketDataClient subscriber;
    private SimulatedClients clients;

    @AfterEach
    void close()
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(closeables.get(i));
        }
    }

    private ExchangeLayout layout;
    private MessagingContext context;
    private Path journal;
    private EngineConfig config;
    private RunFlag running;
    /** The engine's snapshot interval, or 0 for the demo's. */
    private long snapshotInterval;

    @Test
    void requestsReadWhileTheEngineIsGoneWaitForItsReturnAndAreAnsweredOnce() throws Exception
    {
        final AtomicLongArray c = startTrading();

        // The engine leaves with nothing in flight to it: what the gateway offered into a ring the
        // engine closed unread is the transport's loss, not the gateway's, and is not this test's.
        drive(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS), "the flow answered", false);
        engine.close();
        engine = null;
        drive(() -> !gateway.isConnected(), "the gateway seeing the engine gone", false);
        final long newOrdersWhileGone = c.get(SimulatedClients.NEW_ORDERS);
        drive(() -> gateway.engineOffersWaited() > 0 && c.get(SimulatedClients.NEW_ORDERS) > newOrdersWhileGone,
            "a request waiting at the gateway while the engine is gone", true);
        final long waitedBeforeRestart = gateway.engineOffersWaited();

        engine = add(new EngineNode(context, layout, journal, config, running, 1 << 20));
        drive(() -> engine.isConnected(), "the restarted engine connected", true);
        engine.open();
        drive(() -> c.get(SimulatedClients.ACKS) > newOrdersWhileGone + 200, "the clients trading again", true);
        clients.stopSending();
        // The last acknowledgement may arrive before the last fill its request made for the other
        // client: both are awaited.
        drive(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS) &&
            c.get(SimulatedClients.SEQUENCES) >= engine.engine().engine().engineSequence(),
            "every new order answered and every execution report delivered", false);

        assertTrue(waitedBeforeRestart > 0, "requests waited at the gateway");
        assertEquals(0, gateway.gateway().counters().engineBackPressured(), "none was refused");
        assertEquals(c.get(SimulatedClients.NEW_ORDERS), c.get(SimulatedClients.ACKS), "every new order acknowledged");
        assertEquals(0, c.get(SimulatedClients.DUPLICATE_ACKS), "none twice");
        assertEquals(0, c.get(SimulatedClients.SESSIONS_LOST), "no session lost while the engine was away");
        assertEquals(0, c.get(SimulatedClients.DUPLICATE_SEQUENCES), "no execution report twice");
        assertEquals(engine.engine().engine().engineSequence(), c.get(SimulatedClients.SEQUENCES),
            "every execution report once, from both engines");
    }

    @Test
    void reportsTheEngineMakesWhileTheGatewayIsGoneReachTheClientsThroughTheNextGateway() throws Exception
    {
        final AtomicLongArray c = startTrading();

        // Requests pile up in the engine's ring while it is not driven; the gateway passes on every
        // report made before, then goes, and the engine applies the pile with no one to report to.
        engineDriven = false;
        final long appliedBefore = engine.engine().applied();
        drive(() -> gateway.gateway().counters().forwarded() > appliedBefore + 200, "requests waiting at the engine",
            true);
        final long sequenceBefore = engine.engine().engine().engineSequence();
        drive(() -> c.get(SimulatedClients.SEQUENCES) == sequenceBefore, "the reports made so far delivered", false);
        gateway.close();
        gateway = null;
        engineDriven = true;
        // How much of the pile it applies with the gateway gone depends on when its reports'
        // publication sees the queue pair fail (its reports then wait in its backlog, and it takes
        // no more requests): at least its first poll's.
        drive(() -> engine.engine().engine().engineSequence() > sequenceBefore && !engine.isConnected(),
            "the engine reporting with the gateway gone", false);
        final long sequenceWhileGone = engine.engine().engine().engineSequence();

        gateway = add(new GatewayNode(context, layout, ExchangeDemo.gatewayConfig(CLIENTS, RATE, config, 0), running));
        // Both clients log on to the new gateway while they still send (a client that is only read
        // does not retry a logon); the requests of theirs the first gateway left unread reach the new
        // one first and are refused as not logged on, within the connection's answers before logon.
        drive(() -> c.get(SimulatedClients.SEQUENCES) >= sequenceWhileGone && clients.isConnected() &&
            c.get(SimulatedClients.LOGGED_ON) >= 2 * CLIENTS,
            "the reports made while the gateway was gone reaching the clients, logged on again", true);
        clients.stopSending();
        // New orders the first gateway still held for the engine went with it; reports did not.
        drive(() -> c.get(SimulatedClients.SEQUENCES) == engine.engine().engine().engineSequence(), "the flow settled",
            false);

        assertEquals(0, engine.dropped(), "no report dropped");
        assertEquals(0, c.get(SimulatedClients.DUPLICATE_SEQUENCES), "no execution report twice");
        assertEquals(engine.engine().engine().engineSequence(), c.get(SimulatedClients.SEQUENCES),
            "every execution report once, through both gateways");
    }

    @Test
    void aGatewayStalledPastItsClientsHeartbeatTimeoutKeepsTheirSessions() throws Exception
    {
        final AtomicLongArray c = startTrading();

        // The clients go on sending into the gateway's rings while its thread does nothing for
        // longer than three of their heartbeat intervals.
        final long stallEndNs = System.nanoTime() + STALL_NS;
        while (System.nanoTime() - stallEndNs < 0)
        {
            engine.doWork();
            marketData.doWork();
            subscriber.doWork();
            if (clients.doWork() == 0)
            {
                Thread.sleep(0, 100_000);
            }
        }
        final long newOrdersByStallEnd = c.get(SimulatedClients.NEW_ORDERS);
        drive(() -> c.get(SimulatedClients.ACKS) > newOrdersByStallEnd + 100, "the clients trading again", true);
        clients.stopSending();
        drive(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS), "every new order answered",
            false);

        assertEquals(0, gateway.gateway().counters().heartbeatTimeouts(), "no session lost to the gateway's stall");
        assertEquals(0, c.get(SimulatedClients.SESSIONS_LOST));
        assertEquals(0, c.get(SimulatedClients.DUPLICATE_ACKS));
    }

    @Test
    void aGatewayBackFromAStallTakesTheEnginesReportsAheadOfNewOrders() throws Exception
    {
        final AtomicLongArray c = startTrading();

        // Requests wait at the engine, then the gateway stops while the engine applies them (their
        // reports wait in the gateway's stream) and the clients send more (their orders wait in the
        // gateway's rings): when it comes back, both directions wait for it.
        engineDriven = false;
        final long appliedBefore = engine.engine().applied();
        drive(() -> gateway.gateway().counters().forwarded() > appliedBefore + 200, "requests waiting at the engine",
            true);
        final long forwardedBeforeStall = gateway.gateway().counters().forwarded();
        final long sentBeforeStall = c.get(SimulatedClients.SENT);
        final long deadline = System.nanoTime() + WAIT_NS;
        while (engine.engine().applied() + engine.refused() < forwardedBeforeStall ||
            c.get(SimulatedClients.SENT) < sentBeforeStall + 200)
        {
            assertTrue(System.nanoTime() - deadline < 0, "the engine applying what waited, the clients sending more");
            engine.doWork();
            marketData.doWork();
            subscriber.doWork();
            if (clients.doWork() == 0)
            {
                Thread.sleep(0, 100_000);
            }
        }
        engineDriven = true;

        final long routed = gateway.gateway().counters().routed();
        final long forwarded = gateway.gateway().counters().forwarded();
        gateway.doWork();
        final long reportsTaken = gateway.gateway().counters().routed() - routed;
        final long ordersTaken = gateway.gateway().counters().forwarded() - forwarded;

        assertTrue(ordersTaken > 0, "orders admitted in the cycle");
        assertTrue(reportsTaken >= 2 * ordersTaken,
            "the cycle took " + reportsTaken + " reports for " + ordersTaken + " orders: each order makes one report " +
            "or more, so reads at an even pace leave the engine's output behind, and the engine waits for it");
        clients.stopSending();
        drive(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS) &&
            c.get(SimulatedClients.SEQUENCES) >= engine.engine().engine().engineSequence(),
            "every new order answered and every execution report delivered", false);
        assertEquals(0, c.get(SimulatedClients.DUPLICATE_ACKS), "no acknowledgement twice");
        assertEquals(0, c.get(SimulatedClients.DUPLICATE_SEQUENCES), "no execution report twice");
        assertEquals(engine.engine().engine().engineSequence(), c.get(SimulatedClients.SEQUENCES),
            "every execution report once");
    }

    @Test
    void aMarketDataServiceRestartedWhileTheEngineTradedRebuildsEveryBookFromTheEngineAndSoDoesItsSubscriber()
        throws Exception
    {
        final AtomicLongArray c = startTrading();

        marketData.close();
        marketData = null;
        drive(() -> !engine.isConnected(), "the engine seeing the market-data service gone", true);
        final long acksWhileGone = c.get(SimulatedClients.ACKS);
        drive(() -> c.get(SimulatedClients.ACKS) > acksWhileGone + 300, "the clients trading with the service gone",
            true);
        // The books go quiet: no change after the service's return shows its replica, or the
        // subscriber, a gap.
        clients.stopSending();
        drive(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS), "the flow answered", false);

        marketData = add(new MarketDataNode(context, layout, config, running));
        drive(() -> engine.isConnected() && booksEqualEngine(marketData.replica()) &&
            booksEqualEngine(subscriber.books()), "the new service's replica and its subscriber equal to the engine's books",
            false);

        assertTrue(engine.feedSnapshotsSent() > 0, "the engine sent its books into the feed");
        assertTrue(marketData.engineSnapshotParts() > 0, "the service took them");
        assertTrue(marketData.replica().recoveries() >= INSTRUMENTS, "every book the engine changed recovered");
        assertEquals(0, marketData.replica().inconsistencies());
        assertEquals(0, subscriber.books().inconsistencies());
        // The new service's feed and the subscriber's new image each made every book stale until its snapshot.
        assertEquals(1, marketData.replica().feedInterruptions());
        assertEquals(2, subscriber.books().feedInterruptions());
    }

    @Test
    void aWholeExchangeRestartedAfterTheEnginesSnapshotRebuildsTheNewServicesReplicaAndItsSubscriber() throws Exception
    {
        snapshotInterval = 500;
        final AtomicLongArray c = startTrading();
        drive(() -> engine.snapshotsTaken() > 0 && c.get(SimulatedClients.ACKS) > 1_500,
            "the engine's snapshot and trading after it", true);
        clients.stopSending();
        drive(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS), "the flow answered", false);
        final String booksBefore = PublicBookDigest.of(engine.engine().engine().books());

        // The engine and the service stop together; the engine's recovery replays the journal from
        // its snapshot, so the new service's feed begins past every book's first changes.
        engine.close();
        marketData.close();
        engine = add(new EngineNode(context, layout, journal, config, running, 1 << 20));
        marketData = add(new MarketDataNode(context, layout, config, running));
        drive(() -> engine.isConnected(), "the new engine and service connected", false);
        engine.open();
        drive(() -> booksEqualEngine(marketData.replica()) && booksEqualEngine(subscriber.books()),
            "the new service's replica and its subscriber equal to the recovered engine's books", false);

        assertEquals(booksBefore, marketData.replica().publicDigest(), "the books before the restart");
        assertTrue(marketData.replica().recoveries() >= INSTRUMENTS, "every book recovered from the engine's snapshot");
        assertEquals(0, marketData.replica().inconsistencies());
    }

    @ParameterizedTest(name = "journaller on its own thread: {0}")
    @ValueSource(booleans = { false, true })
    void anEngineStartedAgainOnANewJournalAppliesNothingOfTheOldGatewayWhichStopsAndTheBooksTakeItsBooks(
        final boolean journaller) throws Exception
    {
        final AtomicLongArray c = startTrading();
        // Every report routed before the engine goes (an order's last fill may come after its acknowledgement).
        drive(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS) &&
            c.get(SimulatedClients.SEQUENCES) >= engine.engine().engine().engineSequence(),
            "the flow answered and every report delivered", false);
        final long oldLife = engine.engine().life();
        assertTrue(oldLife > 0, "the engine has a life");
        assertEquals(oldLife, gateway.gateway().engineLife(), "the gateway serves the engine's life");
        assertEquals(oldLife, marketData.replica().engineLife(), "the service's books are the engine's life's");
        assertEquals(oldLife, subscriber.books().engineLife(), "and so are its subscriber's");
        final long routedBefore = gateway.gateway().counters().routed();

        // The engine is started again on a new journal: it has none of the orders resting before,
        // and its sequences start again, below those the gateway and the books have.
        engine.close();
        engine = add(new EngineNode(context, layout, directory.resolve("journal-new"), config, running, 1 << 20,
            new EngineThreads(journaller, false, false)));
        drive(() -> engine.isConnected(), "the new engine connected", false);
        engine.open();
        final long newLife = engine.engine().life();
        assertTrue(newLife > 0 && newLife != oldLife, "a life of its own: " + newLife + " after " + oldLife);
        drive(() -> gateway.otherEngineLife() != 0, "the gateway meeting the new engine's first report", true);
        clients.stopSending();
        drive(() -> booksEqualEngine(marketData.replica()) && booksEqualEngine(subscriber.books()),
            "the service's replica and its subscriber equal to the new engine's books", false);

        // Every request the old gateway forwarded named its life: the new engine refused each
        // unjournaled, so none traded there unknown to its client.
        assertTrue(engine.otherLifeRefused() > 0, "the old gateway's requests refused");
        assertEquals(0, engine.engine().applied(), "none applied");
        assertEquals(0, engine.engine().engine().engineSequence(), "no sequenced report made");
        assertEquals(newLife, gateway.otherEngineLife());
        assertEquals(oldLife, gateway.gateway().engineLife(), "the gateway still names the life it served");
        assertTrue(gateway.gateway().counters().reportsOfAnotherEngine() > 0);
        assertEquals(routedBefore, gateway.gateway().counters().routed(), "none of the new engine's reports routed");
        assertEquals(0, gateway.gateway().counters().duplicateReportsDropped(), "none taken for a resend");
        assertEquals(newLife, marketData.replica().engineLife());
        assertEquals(1, marketData.replica().newEngineLives());
        assertEquals(newLife, subscriber.books().engineLife());
        assertEquals(1, subscriber.books().newEngineLives());
        assertEquals(0, marketData.replica().inconsistencies());
        assertEquals(0, subscriber.books().inconsistencies());
    }

    @Test
    void anEngineStartedAgainOnItsJournalKeepsItsLife() throws Exception
    {
        final AtomicLongArray c = startTrading();
        drive(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS), "the flow answered", false);
        final long life = engine.engine().life();

        engine.close();
        engine = add(new EngineNode(context, layout, journal, config, running, 1 << 20));
        drive(() -> engine.isConnected(), "the restarted engine connected", false);
        engine.open();
        final long acks = c.get(SimulatedClients.ACKS);
        drive(() -> c.get(SimulatedClients.ACKS) > acks + 200, "the clients trading again", true);
        clients.stopSending();
        drive(() -> c.get(SimulatedClients.ACKS) == c.get(SimulatedClients.NEW_ORDERS) &&
            booksEqualEngine(marketData.replica()) && booksEqualEngine(subscriber.books()),
            "every new order answered and the books equal to the engine's", false);

        assertEquals(life, engine.engine().life(), "the same life");
        assertEquals(0, gateway.otherEngineLife());
        assertEquals(0, gateway.gateway().counters().reportsOfAnotherEngine());
        assertEquals(0, marketData.replica().newEngineLives());
        assertEquals(0, subscriber.books().newEngineLives());
    }

    /** @return whether these books are all live and equal to the engine's public books. */
    private boolean booksEqualEngine(final MarketDataBooks books)
    {
        for (int id = 1; id <= INSTRUMENTS; id++)
        {
            if (books.isStale(id))
            {
                return false;
            }
        }
        return books.publicDigest().equals(PublicBookDigest.of(engine.engine().engine().books()));
    }

    /** Opens the roles, connects them and has the clients trade a little. */
    private AtomicLongArray startTrading() throws Exception
    {
        layout = ExchangeLayout.onFreePorts("shm", CLIENTS, 1);
        final Map<String, Identity> identities = new HashMap<>();
        layout.identities().forEach(name -> identities.put(name, Identity.generate(name)));
        // The transport's liveness well past the gateway's stall: a subscriber silent for longer is
        // cut off, and what was on its way to it with it, which is not what this test is about.
        context = RoleContexts.context(directory, identities, layout.identities(), layout.identities(), LIVENESS_MS,
            0);
        journal = directory.resolve("journal");
        final EngineConfig demo = ExchangeDemo.engineConfig(INSTRUMENTS, CLIENTS);
        config = new EngineConfig(demo.instruments(), demo.maxOrders(), demo.maxAccounts(),
            snapshotInterval == 0 ? demo.snapshotInterval() : snapshotInterval);
        running = new RunFlag();
        engine = add(new EngineNode(context, layout, journal, config, running, 1 << 20));
        gateway = add(new GatewayNode(context, layout, ExchangeDemo.gatewayConfig(CLIENTS, RATE, config, 0), running));
        marketData = add(new MarketDataNode(context, layout, config, running));
        subscriber = add(new MarketDataClient(context, layout, 0, config, new LatencyLedger(), running));
        clients = add(new SimulatedClients(context, layout, ExchangeDemo.sessions(CLIENTS), 0, INSTRUMENTS, RATE, 7,
            new LatencyLedger(), running));
        final AtomicLongArray c = clients.counters();
        drive(() -> engine.isConnected() && gateway.isConnected() && gateway.clientsConnected() && clients.isConnected() &&
            subscriber.isConnected(), "the roles connected", false);
        engine.open();
        drive(() -> c.get(SimulatedClients.ACKS) > 200, "the clients trading", true);
        return c;
    }

    /** Drives every role present on this thread until the condition holds. */
    private void drive(final BooleanSupplier condition, final String what, final boolean sending) throws Exception
    {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("waiting for " + what + ": clients sent " + clients.counters().get(SimulatedClients.SENT) +
                    ", new orders " + clients.counters().get(SimulatedClients.NEW_ORDERS) + ", acks " +
                    clients.counters().get(SimulatedClients.ACKS) + ", sequences " +
                    clients.counters().get(SimulatedClients.SEQUENCES) + ", logged on " +
                    clients.counters().get(SimulatedClients.LOGGED_ON) + ", sessions lost " +
                    clients.counters().get(SimulatedClients.SESSIONS_LOST) + ", reply gaps " +
                    clients.counters().get(SimulatedClients.REPLY_GAPS) +
                    (null == gateway ? "" : "; gateway waited " + gateway.engineOffersWaited() + ", forwarded " +
                    gateway.gateway().counters().forwarded() + ", routed " + gateway.gateway().counters().routed() +
                    ", last engine sequence " + gateway.gateway().lastEngineSequence()) +
                    (null == engine ? "" : "; engine applied " + engine.engine().applied() + ", sequence " +
                    engine.engine().engine().engineSequence() + ", dropped " + engine.dropped()));
            }
            final int work = (null == engine || !engineDriven ? 0 : engine.doWork()) +
                (null == gateway ? 0 : gateway.doWork()) + (null == marketData ? 0 : marketData.doWork()) + subscriber.doWork() +
                (sending ? clients.doWork() : clients.pollOnly());
            if (work == 0)
            {
                Thread.sleep(0, 100_000);
            }
        }
    }

    private <T extends AutoCloseable> T add(final T closeable)
    {
        closeables.add(closeable);
        return closeable;
    }
}
