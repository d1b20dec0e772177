package io.ringwire.exchange.demo;

import io.ringwire.exchange.config.RoleFiles;
import io.ringwire.exchange.engine.JournaledEngine;
import io.ringwire.exchange.journal.JournalDirectory;
import io.ringwire.exchange.node.ExchangeLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exchange as separate processes (engine; gateway and market data; clients), over real
 * transports, with real SIGKILLs: conservation and a late market-data subscriber, the engine killed
 * and restarted from its journal, a client process killed.
 */
class MultiProcessExchangeTest
{
    private static final Duration READY = Duration.ofSeconds(60);
    private static final Duration STOP = Duration.ofSeconds(30);
    private static final int INSTRUMENTS = 4;
    private static final long RATE = 4_000;
    private static final long LIVENESS_MS = 5_000;
    /** Requests the clients send before the engine is killed, and again after its restart. */
    private static final long ORDERS_PER_PHASE = 600;

    @TempDir
    Path directory;

    private final List<RoleProcess> roles = new ArrayList<>();
    private final Map<RoleProcess, RoleProcess> marketDataOf = new HashMap<>();

    @AfterEach
    void killLeftovers()
    {
        roles.forEach(RoleProcess::close);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "shm", "roce" })
    void everyOrderIsAcknowledgedOnceFillsBalanceAndALateSubscriberRebuildsTheBooks(final String provider)
        throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts(provider, 3, 1);
        final RoleProcess engine = engine(layout);
        final RoleProcess exchange = exchange(layout);
        final RoleProcess clients = clients(layout, 0, 3, 0, 1000);
        awaitReady(engine, exchange, clients);
        Thread.sleep(3_000);
        // The late subscriber joins a second in; on a loaded small machine its connections and its
        // snapshots may take longer than the rest of the run: the flow goes on until it recovered
        // every instrument's book (a recovery is counted per book).
        awaitProgress(clients, "mdRecoveries", INSTRUMENTS);

        final Map<String, String> c = clients.quiesce(STOP);
        assertEquals(0, engine.stopAndWait(STOP));
        final Map<String, String> e = engine.report("engine");
        assertEquals(0, stopExchange(exchange));
        assertEquals(0, clients.stopAndWait(STOP));

        assertTrue(Long.parseLong(c.get("newOrders")) > 1_000, "the flow ran: " + c);
        assertEquals(c.get("newOrders"), c.get("acks"), "every new order acknowledged: " + c);
        assertEquals("0", c.get("duplicateAcks"), "none twice: " + c);
        assertEquals(c.get("bought"), c.get("sold"), "each fill has both sides: " + c);
        assertTrue(Long.parseLong(c.get("bought")) > 0, "something traded: " + c);
        assertEquals("0", c.get("filledAndCanceled"), "no order both filled and canceled: " + c);
        assertEquals(e.get("sequence"), c.get("sequences"), "every execution report reached a client: " + c + e);
        assertEquals("0", c.get("duplicateSequences"), c.toString());
        assertTrue(Long.parseLong(c.get("mdRecoveries")) >= 1, "the late subscriber recovered from snapshots: " + c);
        assertEquals(e.get("books"), c.get("books"), "the late subscriber's books are the engine's");
    }

    /**
     * Waits, up to 30 s, until the clients' PROGRESS line gives {@code key} at least {@code atLeast}
     * (requests {@code sent}, logons {@code loggedOn}, again ones included, books {@code mdRecoveries}):
     * a loaded two-CPU machine may take longer than a fixed pause to get a flow going (the assertions
     * after say whether it did).
     *
     * @return the value the last PROGRESS line gave.
     */
    private static long awaitProgress(final RoleProcess clients, final String key, final long atLeast)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long value = Long.parseLong(clients.progress().getOrDefault(key, "0"));
        while (value < atLeast && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(100);
            value = Long.parseLong(clients.progress().getOrDefault(key, "0"));
        }
        return value;
    }

    /** Waits (see {@link #awaitProgress}) until a clients process counts this many logons, and asserts it. */
    private static void assertLoggedOn(final RoleProcess clients, final long sessions, final String whose)
        throws InterruptedException
    {
        assertTrue(awaitProgress(clients, "loggedOn", sessions) >= sessions, whose + " logged on: " +
            clients.progress());
    }

    @ParameterizedTest(name = "{0}, engine-threads = {1}")
    @CsvSource(delimiter = ';', value = { "shm;auto", "roce;auto", "shm;journaller, digest, replica" })
    void anEngineKilledMidRunAndRestartedFromItsJournalLosesAndRepeatsNoExecutionReport(final String provider,
        final String engineThreads) throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts(provider, 2, 1);
        final Path engineConf = files(layout).resolve("engine.conf");
        Files.writeString(engineConf, "engine-threads = " + engineThreads + "\n", StandardOpenOption.APPEND);
        RoleProcess engine = engine(layout);
        final RoleProcess exchange = exchange(layout);
        final RoleProcess clients = clients(layout, 0, 2, -1, 0);
        awaitReady(engine, exchange, clients);
        Thread.sleep(1_500);
        final long sentBeforeKill = awaitProgress(clients, "sent", ORDERS_PER_PHASE);

        engine.kill();
        Thread.sleep(300);
        engine = engine(layout);
        engine.awaitReady(READY);
        final boolean journaller = engineThreads.contains("journaller");
        assertEquals(journaller, engine.lines().stream().anyMatch(line -> line.startsWith("READY engine") &&
            line.contains("a journaller")), "the restarted engine says where it journals: " + engine.lines());
        Thread.sleep(1_500);
        awaitProgress(clients, "sent", sentBeforeKill + ORDERS_PER_PHASE);

        final Map<String, String> c = clients.quiesce(STOP);
        assertEquals(0, engine.stopAndWait(STOP));
        final Map<String, String> e = engine.report("engine");
        assertEquals(0, stopExchange(exchange));
        assertEquals(0, clients.stopAndWait(STOP));

        assertNotNull(e.get("sequence"), engine.lines().toString());
        assertTrue(Long.parseLong(e.get("sequence")) > 1_000, "reports before and after the kill: " + e);
        assertEquals("0", c.get("duplicateSequences"), "no execution report twice: " + c);
        assertEquals(e.get("sequence"), c.get("sequences"), "no execution report lost: " + c + " " + e + " " +
            exchange.report("gateway"));
        assertEquals(e.get("sequence"), c.get("maxSequence"), c.toString());
        assertEquals(e.get("digest"), JournaledEngine.replay(directory.resolve("journal")).digest(),
            "the journal replays to the restarted engine's digest");
        assertEquals("none", e.get("helperFailure"), e.toString());
        assertEquals("0", e.get("digestWritesDropped"), e.toString());
        assertEquals("0", exchange.report("gateway").get("ordersUntracked"),
            "every order the gateway forwarded was followed to its first report");
        assertEquals("0", e.get("snapshotFailures"), e.toString());
        assertTrue("0".equals(e.get("tornTails")) || "1".equals(e.get("tornTails")),
            "a SIGKILL leaves at most the last record torn, and says so: " + e);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "shm", "roce" })
    void aClientProcessKilledHasItsOrdersCanceledAndTheOthersKeepTheirs(final String provider) throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts(provider, 4, 1);
        final RoleProcess engine = engine(layout);
        final RoleProcess exchange = exchange(layout);
        final RoleProcess killed = clients(layout, 0, 2, -1, 0);
        final RoleProcess survivor = clients(layout, 2, 4, -1, 0);
        awaitReady(engine, exchange, killed, survivor);
        // Every session logged on and trading before the kill: on two loaded cores a logon can miss
        // the gateway's logon timeout and come again, and a session never logged on has nothing to cancel.
        assertLoggedOn(killed, 2, "the killed process's sessions");
        assertLoggedOn(survivor, 2, "the survivor's sessions");
        Thread.sleep(2_000);

        killed.kill();
        // The gateway hears of it from the transport (the image goes silent) or the missed
        // heartbeats (three seconds), whichever is first; either cancels the session's orders, with
        // room for five JVMs on two cores.
        Thread.sleep(8_000);
        survivor.quiesce(STOP);
        assertEquals(0, engine.stopAndWait(STOP));
        final Map<String, String> e = engine.report("engine");
        assertEquals(0, stopExchange(exchange));
        final Map<String, String> x = exchange.report("gateway");
        assertEquals(0, survivor.stopAndWait(STOP));

        final List<SessionConfigView> sessions = SessionConfigView.of(4);
        assertFalse(e.containsKey("resting." + sessions.get(0).account()), "killed client's orders canceled: " + e);
        assertFalse(e.containsKey("resting." + sessions.get(1).account()), "killed client's orders canceled: " + e);
        assertTrue(e.containsKey("resting." + sessions.get(2).account()), "the other clients keep theirs: " + e);
        assertTrue(e.containsKey("resting." + sessions.get(3).account()), "the other clients keep theirs: " + e);
        assertTrue(Long.parseLong(x.get("cancelOnDisconnect")) >= 2, x.toString());
    }

    @Test
    void aDeployedRoleRunsWithStdinAtItsEndAndStopsGracefullyOnSigterm() throws Exception
    {
        // As a service manager runs it: stdin /dev/null, no parent watching over a pipe.
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 1, 1);
        final RoleProcess engine = RoleProcess.startDetached("engine", files(layout).resolve("engine.conf"));
        roles.add(engine);
        final RoleProcess exchange = exchange(layout);
        final RoleProcess clients = clients(layout, 0, 1, -1, 0);
        awaitReady(engine, exchange, clients);
        Thread.sleep(1_000);
        assertTrue(engine.isAlive(), "stdin at its end stops no role without a parent pipe: " + engine.lines());
        clients.quiesce(STOP);

        assertEquals(143, engine.terminate(STOP), "SIGTERM's status");
        final List<String> lines = engine.lines();
        assertFalse(engine.report("engine").isEmpty(), "SIGTERM runs the role's stop and report: " + lines);
        assertEquals("DONE", lines.getLast(), lines.toString());
        assertEquals(0, stopExchange(exchange));
        assertEquals(0, clients.stopAndWait(STOP));
    }

    @Test
    void aGatewayIsReadyWithItsMembersOfflineAndServesTheOneThatComesWhileTheOtherStaysAway() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 2, 1);
        final RoleProcess engine = engine(layout);
        final RoleProcess exchange = exchange(layout);
        // No member's client runs: the gateway needs the engine alone to be ready.
        awaitReady(engine, exchange);
        final RoleProcess clients = clients(layout, 0, 1, -1, 0); // the second member stays offline throughout
        awaitReady(clients);
        awaitProgress(clients, "sent", 200);
        final Map<String, String> c = clients.quiesce(STOP);
        assertEquals(0, engine.stopAndWait(STOP));
        assertEquals(0, stopExchange(exchange));
        final Map<String, String> g = exchange.report("gateway");
        assertEquals(0, clients.stopAndWait(STOP));

        assertTrue(Long.parseLong(c.get("newOrders")) > 100, "the member that came traded: " + c);
        assertEquals(c.get("newOrders"), c.get("acks"), "every new order acknowledged: " + c);
        assertEquals("0", c.get("duplicateAcks"), c.toString());
        assertTrue(Long.parseLong(g.get("logons")) >= 1, "the member that came logged on: " + g);
        // A logon that came before the gateway's reply link was left for the next, not answered into
        // nothing: no session of it was lost.
        assertEquals("0", g.get("cancelOnDisconnect"), g.toString());
    }

    @Test
    void aGatewayKilledAndStartedAgainCancelsTheOrdersItsLoggedOnSessionsLeftInTheEngine() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 2, 1);
        final Trading trading = trading(layout);
        final RoleProcess engine = trading.engine();
        final RoleProcess exchange = trading.exchange();
        final RoleProcess clients = trading.clients();
        // The clients stop sending and stay logged on: their orders rest in the engine.
        final Map<String, String> c = clients.quiesce(STOP);
        assertTrue(Long.parseLong(c.get("newOrders")) > 100, c.toString());

        final long logonsBefore = Long.parseLong(c.get("loggedOn"));
        exchange.kill();
        final RoleProcess gateway = start("gateway", files(layout).resolve("gateway.conf"));
        gateway.awaitReady(READY);
        // The clients find their gateway gone (a liveness timeout) and log on to the new one.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Long.parseLong(clients.held().getOrDefault("loggedOn", "0")) < logonsBefore + 2 &&
            System.nanoTime() - deadline < 0)
        {
            Thread.sleep(100);
        }
        assertTrue(Long.parseLong(clients.held().getOrDefault("loggedOn", "0")) >= logonsBefore + 2,
            "two logons (one a session) to the new gateway: " + clients.held());
        assertEquals(0, engine.stopAndWait(STOP));
        final Map<String, String> e = engine.report("engine");
        assertEquals(0, gateway.stopAndWait(STOP));
        final Map<String, String> g = gateway.report("gateway");

        for (final SessionConfigView session : SessionConfigView.of(2))
        {
            assertFalse(e.containsKey("resting." + session.account()), "the lost sessions' orders canceled: " + e);
        }
        assertEquals("2", g.get("startCancels"), "one per configured session: " + g);
        assertEquals("0", g.get("cancelOnDisconnect"), "no session was lost at the new gateway: " + g);
        assertTrue(Long.parseLong(g.get("logons")) >= 1, "the clients logged on to the new gateway: " + g);
        assertEquals(g.get("logons"), g.get("logonsFromAnotherLife"),
            "each logon named the killed gateway's reply life, so each got every report kept: " + g);
    }

    @Test
    void aGatewayMeetingAnEngineStartedAgainOnANewJournalEndsAndSaysSo() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 2, 1);
        final Trading trading = trading(layout);
        RoleProcess engine = trading.engine();
        final RoleProcess exchange = trading.exchange();
        final RoleProcess clients = trading.clients();
        // An order acknowledged: the gateway has had a report, so it serves the engine's life.
        assertTrue(awaitProgress(clients, "p50", 0) >= 0, "an order acknowledged: " + clients.progress());

        // The engine's journal is lost with it: the engine started again begins from nothing, a
        // new life, while the gateway holds the sessions and orders of the old one.
        engine.kill();
        try (Stream<Path> files = Files.list(directory.resolve("journal")))
        {
            for (final Path file : files.toList())
            {
                Files.delete(file);
            }
        }
        engine = engine(layout);
        engine.awaitReady(READY);
        // The clients go on sending; the new engine refuses the gateway's requests, which name the
        // old life, and the first refusal ends the gateway.
        assertEquals(1, exchange.awaitExit(Duration.ofSeconds(60)), "the gateway ended, failed: " + exchange.lines());
        final Map<String, String> g = exchange.report("gateway");
        assertTrue(Long.parseLong(g.get("reportsOfAnotherEngine")) >= 1, g.toString());
        assertEquals("DONE", exchange.lines().getLast(), "it stopped as a role stops: " + exchange.lines());
        final Map<String, String> settings = JournalDirectory.readSettings(directory.resolve("journal"));
        assertNotEquals(settings.get(JournaledEngine.LIFE_KEY), g.get("engineLife"), "the life it served was the old one");

        clients.quiesce(STOP);
        assertEquals(0, engine.stopAndWait(STOP));
        final Map<String, String> e = engine.report("engine");
        assertEquals(settings.get(JournaledEngine.LIFE_KEY), e.get("life"), e.toString());
        assertTrue(Long.parseLong(e.get("otherLifeRefused")) >= 1, "the old gateway's requests refused: " + e);
        assertEquals("0", e.get("applied"), "none of them applied: " + e);
        assertEquals(0, marketDataOf.get(exchange).stopAndWait(STOP));
        clients.stopAndWait(STOP);
    }

    @Test
    void aClientProcessHeldPastItsHeartbeatsLogsOnAgainAndReceivesEveryExecutionReportOnce() throws Exception
    {
        final ExchangeLayout layout = ExchangeLayout.onFreePorts("shm", 2, 1);
        final Trading trading = trading(layout);
        final RoleProcess engine = trading.engine();
        final RoleProcess exchange = trading.exchange();
        final RoleProcess clients = trading.clients();

        // Held past three of its 1 s heartbeat intervals (and under the transport's liveness): the
        // gateway loses both sessions and cancels their orders while the reports in flight to them,
        // and the cancels' reports, wait in the sessions' reply logs.
        clients.signal(true);
        Thread.sleep(4_000);
        clients.signal(false);
        awaitProgress(clients, "loggedOn", 4);
        Thread.sleep(1_500);

        final Map<String, String> c = clients.quiesce(STOP);
        assertEquals(0, engine.stopAndWait(STOP));
        final Map<String, String> e = engine.report("engine");
        assertEquals(0, stopExchange(exchange));
        final Map<String, String> x = exchange.report("gateway");
        assertEquals(0, clients.stopAndWait(STOP));
        System.out.println("clients held past their heartbeats: " + c + "; gateway: " + x);

        assertTrue(Long.parseLong(x.get("cancelOnDisconnect")) >= 2, "the gateway lost both sessions: " + x);
        assertTrue(Long.parseLong(c.get("sessionsLost")) >= 2, "the clients found out: " + c);
        assertTrue(Long.parseLong(c.get("loggedOn")) >= 4, "and logged on again: " + c);
        assertEquals("0", c.get("replyGaps"), "nothing the reply logs no longer kept: " + c + " " + x);
        assertEquals("0", c.get("duplicateSequences"), "a report received again is dropped by its reply sequence: " + c);
        assertEquals(e.get("sequence"), c.get("sequences"), "every execution report reached its client, those in " +
            "flight at the loss and the cancel-on-disconnect's among them: " + c + " " + e + " " + x);
        assertEquals("0", c.get("duplicateAcks"), c.toString());
        // The held clients log on again before sending anything; only a new order whose send the
        // stop itself straddled (after the check that no hold had begun) may have gone into the lost
        // session, where a request may go unanswered, and the client counts each such one it has not
        // had acknowledged.
        assertEquals(Long.parseLong(c.get("newOrders")),
            Long.parseLong(c.get("acks")) + Long.parseLong(c.get("unansweredAcrossHold")),
            "every new order acknowledged but those sent across the hold: " + c);
    }

    /** The accounts the demo's sessions trade. */
    private record SessionConfigView(long account)
    {
        static List<SessionConfigView> of(final int clients)
        {
            return ExchangeDemo.sessions(clients).stream().map(session -> new SessionConfigView(session.account()))
                .toList();
        }
    }

    /** The roles of a run: the engine, the gateway (with market data), the clients of every member. */
    private record Trading(RoleProcess engine, RoleProcess exchange, RoleProcess clients)
    {
    }

    /** @return the roles of two members over shm, ready, both sessions logged on and trading for two seconds. */
    private Trading trading(final ExchangeLayout layout) throws IOException, InterruptedException
    {
        final Trading trading = new Trading(engine(layout), exchange(layout), clients(layout, 0, 2, -1, 0));
        awaitReady(trading.engine(), trading.exchange(), trading.clients());
        // A logon that misses the gateway's logon timeout on two loaded cores comes again; the tests
        // after lose or cancel both sessions, so both are logged on first.
        assertLoggedOn(trading.clients(), 2, "both sessions");
        Thread.sleep(2_000);
        return trading;
    }

    /** The run's role files: keys and the core roles' configs, written once per layout. */
    private Path files(final ExchangeLayout layout) throws IOException
    {
        final Path files = directory.resolve("roles-" + layout.engineRequests().replace(':', '-'));
        if (!Files.exists(files.resolve("engine.conf")))
        {
            RoleFiles.writeCore(files, layout, run(layout));
        }
        return files;
    }

    /**
     * The run's settings: five JVMs share two cores here, so a role may be descheduled for seconds;
     * peers are given {@value #LIVENESS_MS} ms before they count as gone.
     */
    private RoleFiles.Run run(final ExchangeLayout layout) throws IOException
    {
        return ExchangeDemo.roleFiles(INSTRUMENTS, layout.members().size(), RATE, 1, directory.resolve("journal"),
            shm(), "", 0).withLivenessTimeoutMs(LIVENESS_MS);
    }

    private RoleProcess engine(final ExchangeLayout layout) throws IOException
    {
        return start("engine", files(layout).resolve("engine.conf"));
    }

    /** The gateway's and the market-data service's processes, started together; the gateway's is returned. */
    private RoleProcess exchange(final ExchangeLayout layout) throws IOException
    {
        final RoleProcess gateway = start("gateway", files(layout).resolve("gateway.conf"));
        marketDataOf.put(gateway, start("marketdata", files(layout).resolve("marketdata.conf")));
        return gateway;
    }

    /** Stops the market-data service's process and the gateway's; @return the gateway's exit code. */
    private int stopExchange(final RoleProcess gateway) throws InterruptedException
    {
        assertEquals(0, marketDataOf.get(gateway).stopAndWait(STOP), "the market-data service stopped");
        return gateway.stopAndWait(STOP);
    }

    private RoleProcess clients(final ExchangeLayout layout, final int from, final int to, final int marketDataIndex,
        final long joinAfterMs) throws IOException
    {
        final Path file = files(layout).resolve("clients-" + from + "-" + to + ".conf");
        RoleFiles.writeClients(file, layout, run(layout), from, to, marketDataIndex, joinAfterMs);
        return start("clients " + from + ":" + to, file);
    }

    private Path shm() throws IOException
    {
        return directory.resolve("shm");
    }

    private RoleProcess start(final String name, final Path config) throws IOException
    {
        final RoleProcess role = RoleProcess.start(name, config, null);
        roles.add(role);
        return role;
    }

    private static void awaitReady(final RoleProcess... processes) throws InterruptedException
    {
        for (final RoleProcess process : processes)
        {
            process.awaitReady(READY);
        }
    }
}
