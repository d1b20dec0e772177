package io.ringwire.exchange.demo;

import io.ringwire.exchange.config.RoleConfig;
import io.ringwire.exchange.config.RoleFiles;
import io.ringwire.exchange.fix.FixDoor;
import io.ringwire.exchange.gateway.GatewayCounters;
import io.ringwire.exchange.marketdata.PublicBookDigest;
import io.ringwire.exchange.book.RestingOrder;
import io.ringwire.exchange.node.EngineNode;
import io.ringwire.exchange.node.EngineThreads;
import io.ringwire.exchange.node.GatewayNode;
import io.ringwire.exchange.node.MarketDataNode;
import io.ringwire.exchange.node.RunFlag;
import io.ringwire.messaging.Agents;
import io.ringwire.messaging.MessagingContext;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One role of the sample exchange in a JVM of its own, from its config file ({@link RoleConfig}):
 * {@code ringwire exchange engine|gateway|marketdata --config FILE} deploys the roles host by host,
 * and {@code ringwire demo --processes} and the multi-process tests start the same roles, and a
 * {@code clients} role of simulated clients ({@link ClientsRole}), from files they write ({@link RoleFiles}).
 *
 * <p>It talks to whoever started it by lines: it prints {@code READY} once every connection it
 * needs is up and its thread runs, {@code PROGRESS k=v...} once a second (clients), and on
 * {@code stop} (a line on its stdin, or SIGTERM) it stops, prints {@code REPORT k=v...} lines and
 * {@code DONE}, closes what it opened, and exits (0 after a stop line; SIGTERM's status after
 * SIGTERM). Stdin closing stops it only where a parent started it over a pipe and said so
 * ({@value #PARENT_PIPE_ENV}{@code =1}, as {@link RoleProcess} does): the pipe closing then means
 * the parent is gone. A role deployed as a service has no such parent, and its stdin may be
 * {@code /dev/null}. Clients also take {@code quiesce}: stop
 * sending, drain and report, but keep the sessions up until {@code stop}, so the engine can report
 * its books before cancel-on-disconnect empties them.
 *
 * <p>Thread layout: the role's agents on one thread (spinning for engine and gateway, backing off
 * for market data and clients, so two spinners share two cores); the main thread waits for the
 * stop line.
 */
public final class RoleMain
{
    /** Set to {@code 1} by a parent whose pipe to the role's stdin closing means the parent is gone. */
    public static final String PARENT_PIPE_ENV = "RINGWIRE_ROLE_PARENT_PIPE";

    private static final long CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    /**
     * How long SIGTERM waits for the role to stop, report and close before the JVM halts: past the
     * clients' drain of what is in flight, the longest stop.
     */
    private static final long TERMINATE_WAIT_SECONDS = 60;
    /** How often the gateway's role looks whether its gateway met another engine life, and must end. */
    private static final long ENGINE_LIFE_CHECK_MS = 50;
    /** How long what the clients carried must stay still for their report ({@link #settle}). */
    private static final long SETTLED_NS = TimeUnit.SECONDS.toNanos(1);
    /** The longest the clients wait for it to. */
    private static final long SETTLE_LIMIT_NS = TimeUnit.SECONDS.toNanos(5);

    private RoleMain()
    {
    }

    /**
     * @param args {@code --config FILE}.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the role its config file names.
     *
     * @param args {@code --config FILE}.
     * @param out  where the line protocol goes.
     * @param err  where refusals and failures go.
     * @return the exit code: 0 done, 1 failed, 2 bad command line or config.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (args.length != 2 || !"--config".equals(args[0]))
        {
            err.println("usage: ringwire exchange engine|gateway|marketdata|clients --config FILE");
            return 2;
        }
        final RoleConfig config;
        final MessagingContext context;
        try
        {
            config = RoleConfig.read(Path.of(args[1]));
        }
        catch (final IllegalArgumentException | UncheckedIOException ex)
        {
            err.println("ringwire exchange: " + ex.getMessage());
            return 2;
        }
        try
        {
            context = context(config);
        }
        catch (final IllegalArgumentException | UncheckedIOException ex)
        {
            // The file's messaging settings meet the JVM's (-Dringwire...) only here.
            err.println("ringwire exchange: " + args[1] + ": its messaging settings (liveness-timeout-ms, cores, " +
                "identities, trust, shm-dir) with the JVM's (-Dringwire.messaging...) are refused: " + ex.getMessage());
            return 2;
        }
        final String role = config.role();
        final RunFlag running = new RunFlag();
        final CountDownLatch stop = new CountDownLatch(1);
        final CountDownLatch exit = new CountDownLatch(1);
        final CountDownLatch finished = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            stop(stop, running);
            exit.countDown();
            try
            {
                // The JVM halts when its hooks return: the role's stop (report, close) must run first.
                finished.await(TERMINATE_WAIT_SECONDS, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }, "ringwire-role-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        final boolean parentPipe = "1".equals(System.getenv(PARENT_PIPE_ENV));
        final Thread stdin = Thread.ofPlatform().daemon().start(() -> awaitStopLines(System.in, stop, exit, running,
            parentPipe));
        final List<AutoCloseable> closeables = new ArrayList<>();
        final RoleFailures failures = new RoleFailures(err);
        final int code;
        try
        {
            code = switch (role)
            {
                case "engine" -> runEngine(context, config, running, stop, closeables, out, failures);
                case "gateway" -> runGateway(context, config, running, stop, closeables, out, failures);
                case "marketdata" -> runMarketData(context, config, running, stop, closeables, out, failures);
                default -> ClientsRole.run(context, config, running, stop, exit, closeables, out, failures);
            };
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return 1;
        }
        catch (final RuntimeException ex)
        {
            err.println("ringwire exchange " + role + ": " + ex);
            return 1;
        }
        catch (final OutOfMemoryError ex)
        {
            err.println("ringwire exchange " + role + ": out of memory (" + ex.getMessage() + "): the engine's books " +
                "take their max-orders and price bands at start; lower those, or give the JVM more " +
                "(RINGWIRE_JAVA_OPTS=-Xmx...)");
            return 1;
        }
        finally
        {
            closeAll(closeables, failures);
            out.println("DONE");
            out.flush();
            stdin.interrupt();
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException ignored)
            {
                // shutting down already
            }
            finished.countDown();
        }
        // After the closes: what their agents threw meanwhile (a helper's last work, say) counts too.
        return failures.exitCode(code);
    }

    /**
     * Closes what a role opened, last opened first, each whatever the ones before threw; a close
     * that throws is a failure of the role (its exit code says so), not passed over.
     */
    static void closeAll(final List<AutoCloseable> closeables, final RoleFailures failures)
    {
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            try
            {
                closeables.get(i).close();
            }
            catch (final Exception ex)
            {
                failures.onError(ex);
            }
        }
    }

    /**
     * The role's messaging: its identities and the keys it accepts, its cores, liveness timeout and
     * shm directory where its file gives them; what the file leaves out keeps messaging's own
     * setting (a {@code -D} property in {@code RINGWIRE_JAVA_OPTS}, or the default).
     */
    static MessagingContext context(final RoleConfig config)
    {
        final MessagingContext context = new MessagingContext().trust(config.trusted());
        if (null != config.cores())
        {
            context.cores(config.cores());
        }
        if (config.livenessTimeoutMs() > 0)
        {
            context.livenessTimeoutMs(config.livenessTimeoutMs());
        }
        config.identities().forEach(context::identity);
        context.rdmaSettings(rdma ->
        {
            if (config.livenessTimeoutMs() > 0)
            {
                // A peer the transport hears nothing from for as long as messaging waits is gone at both layers.
                rdma.peerTimeoutMs(config.livenessTimeoutMs());
            }
            if (null != config.shmDirectory())
            {
                rdma.shmDirectory(config.shmDirectory().toString());
            }
        });
        return context.conclude();
    }

    private static int runEngine(final MessagingContext context, final RoleConfig config, final RunFlag running,
        final CountDownLatch stop, final List<AutoCloseable> closeables, final PrintStream out,
        final RoleFailures failures)
        throws InterruptedException
    {
        final EngineNode[] built = new EngineNode[1];
        final boolean[] reported = new boolean[1];
        // Closed last, once the engine's helpers have stopped: a helper that fails in its last work,
        // after the REPORT below, fails the role too.
        closeables.add(() ->
        {
            if (null != built[0] && !reported[0] && null != built[0].backgroundFailure())
            {
                throw new IllegalStateException("a helper of the engine failed as it stopped: " +
                    built[0].backgroundFailure());
            }
        });
        final EngineNode engine = add(closeables, new EngineNode(context, config.layout(), config.journal(),
            config.engine(), running, EngineNode.JOURNAL_SEGMENT, config.engineThreads()));
        built[0] = engine;
        connect(engine::isConnected, engine, "engine", stop);
        engine.open();
        final Agents.RunningAgent agent = add(closeables, Agents.start(context, engine, failures));
        out.println("READY engine " + describe(agent) + "; " + engineHelpers(engine));
        out.flush();
        stop.await();
        engine.stopTaking();
        agent.close();
        quiesce(engine);
        // What the journal took and the output held back (a gateway gone or slow) is applied now,
        // so the digest below is the one replay gives for this journal.
        if (engine.finishJournaled() > 0)
        {
            quiesce(engine);
        }
        final Map<String, Long> resting = new TreeMap<>();
        for (final RestingOrder order : engine.engine().engine().books().resting())
        {
            resting.merge("resting." + order.account(), 1L, Long::sum);
        }
        out.println("REPORT engine applied=" + engine.engine().applied() +
            " sequence=" + engine.engine().engine().engineSequence() +
            " trades=" + engine.engine().engine().counters().trades() +
            " digest=" + engine.digest() +
            " books=" + PublicBookDigest.of(engine.engine().engine().books()) +
            " resting=" + resting.values().stream().mapToLong(Long::longValue).sum() +
            " dropped=" + engine.dropped() + " refused=" + engine.refused() +
            " otherLifeRefused=" + engine.otherLifeRefused() + " life=" + engine.engine().life() +
            " journalFailures=" + engine.journalFailures() +
            " snapshotFailures=" + engine.snapshotFailures() + " tornTails=" + engine.tornTailsDiscarded() +
            " feedSnapshots=" + engine.feedSnapshotsSent() +
            " helperFailure=" + (null == engine.backgroundFailure() ? "none" :
                engine.backgroundFailure().getClass().getSimpleName()) +
            " digestWritesDropped=" + engine.digestWritesDropped() +
            resting.entrySet().stream().map(entry -> " " + entry.getKey() + "=" + entry.getValue())
                .reduce("", String::concat));
        reported[0] = null != engine.backgroundFailure();
        return reported[0] ? 1 : 0; // a helper's failure is the role's
    }

    private static int runGateway(final MessagingContext context, final RoleConfig config, final RunFlag running,
        final CountDownLatch stop, final List<AutoCloseable> closeables, final PrintStream out,
        final RoleFailures failures)
        throws InterruptedException
    {
        final RoleConfig.FixDoorConfig fix = config.fix();
        final FixDoor door = null == fix ? null : new FixDoor(fix.address(), fix.compId(), fix.store(), fix.members(),
            config.gateway().maxClientOrderIdsPerSession());
        final GatewayNode gateway = add(closeables, new GatewayNode(context, config.layout(), config.gateway(),
            running, door));
        connect(gateway::isConnected, gateway, "gateway", stop);
        if (null != door)
        {
            door.start();
            out.println("FIX door " + fix.address().getHostString() + ":" + fix.address().getPort() + " as " +
                fix.compId() + ", " + fix.members().size() + " session(s)");
        }
        final Agents.RunningAgent agent = add(closeables, Agents.start(context, gateway, failures));
        out.println("READY gateway " + describe(agent));
        out.flush();
        while (!stop.await(ENGINE_LIFE_CHECK_MS, TimeUnit.MILLISECONDS))
        {
            if (0 != gateway.otherEngineLife())
            {
                break; // the gateway serves one engine life: a report of another ends it (see below)
            }
        }
        agent.close();
        quiesce(gateway);
        final GatewayCounters counters = gateway.gateway().counters();
        out.println("REPORT gateway forwarded=" + counters.forwarded() + " logons=" + counters.logons() +
            " malformed=" + counters.malformed() + " throttled=" + counters.throttled() +
            " cancelOnDisconnect=" + counters.cancelOnDisconnects() + " startCancels=" + counters.startCancels() +
            " cancelsRefusedByJournal=" + counters.cancelsRefusedByJournal() +
            " cancelsResent=" + counters.cancelsResent() +
            " cancelsRefusedAfterRequests=" + counters.cancelsRefusedAfterRequests() +
            " clientOrderIdsReleased=" + counters.clientOrderIdsReleased() +
            " transportLosses=" + counters.transportLosses() +
            " heartbeatTimeouts=" + counters.heartbeatTimeouts() + " impersonations=" + counters.impersonations() +
            " logonTimeouts=" + counters.logonTimeouts() + " logonsUnreachable=" + counters.logonsUnreachable() +
            " slowConsumers=" + counters.slowConsumerDisconnects() +
            " malformedDisconnects=" + counters.malformedDisconnects() + " repliesResent=" +
            counters.repliesResent() + " repliesNoLongerKept=" + counters.repliesNoLongerKept() +
            " logonsFromAnotherLife=" + counters.logonsFromAnotherLife() +
            " notLoggedOn=" + counters.notLoggedOn() + " repliesThrottled=" + counters.repliesThrottled() +
            " unidentifiedBeforeLogon=" + counters.unidentifiedBeforeLogon() +
            " fromLeftConnections=" + counters.fromLeftConnections() +
            " ordersUntracked=" + gateway.gateway().ordersUntracked() + " sessionSendFailures=" +
            counters.sessionSendFailures() + " engineRefused=" + counters.engineBackPressured() + " engineOffersWaited=" +
            gateway.engineOffersWaited() + " engineRequestsHeld=" + gateway.engineRequestsHeld() +
            " lastEngineSequence=" +
            gateway.gateway().lastEngineSequence() + (null == door ? "" : " fixRequests=" + door.requests() +
            " fixRefusals=" + door.refusals() + " fixLogonsRefused=" + door.logonsRefused() +
            " fixRepliesRefused=" + door.repliesRefused() + " fixSenderFailures=" + door.senderFailures() +
            " fixRecordsWithoutSession=" + door.recordsWithoutSession() + " fixStaleMessagesDropped=" +
            door.staleMessagesDropped() + " fixConnectionsClosedAtCut=" + door.connectionsClosedAtCut() +
            " fixLogoutsDeferred=" + door.logoutsDeferred() + " fixReadsWoken=" + door.readsWoken() +
            " fixClosedOverBodyLength=" + door.connectionsClosedOverBodyLength() + " fixClosedSequenceAhead=" +
            door.connectionsClosedSequenceAhead() + " fixPossResendsIgnored=" + door.possResendsIgnored()) +
            " engineLife=" + gateway.gateway().engineLife() + " reportsOfAnotherEngine=" +
            counters.reportsOfAnotherEngine());
        if (0 != gateway.otherEngineLife())
        {
            failures.onError(new IllegalStateException("the engine reports from life " + gateway.otherEngineLife() +
                ", not life " + gateway.gateway().engineLife() + " which this gateway serves: it was started again " +
                "on a new journal, without the orders this gateway's sessions hold. Start the gateway and the " +
                "market-data service again with it."));
            return 1;
        }
        return 0;
    }

    private static int runMarketData(final MessagingContext context, final RoleConfig config, final RunFlag running,
        final CountDownLatch stop, final List<AutoCloseable> closeables, final PrintStream out,
        final RoleFailures failures)
        throws InterruptedException
    {
        final MarketDataNode marketData = add(closeables, new MarketDataNode(context, config.layout(), config.engine(),
            running));
        // Subscribers may join late: the service publishes whether or not one is there.
        connect(() -> true, marketData, "marketdata", stop);
        final AgentRunner runner = add(closeables, new AgentRunner(new BackoffIdleStrategy(), failures, null,
            marketData)); // a third role on a small machine: it backs off, leaving the cores to engine and gateway
        AgentRunner.startOnThread(runner);
        out.println("READY marketdata (backs off, not pinned)");
        out.flush();
        stop.await();
        runner.close();
        quiesce(marketData);
        out.println("REPORT marketdata published=" + marketData.published() + " snapshotParts=" +
            marketData.snapshotParts() + " slowSubscribers=" + marketData.slowSubscribers() + " backlogCuts=" +
            marketData.backlogCuts() + " dropped=" + marketData.dropped() + " engineSnapshotParts=" +
            marketData.engineSnapshotParts() + " replicaRecoveries=" +
            marketData.replica().recoveries() + " feedMalformed=" + marketData.replica().malformed() +
            " engineLife=" + marketData.replica().engineLife() + " newEngineLives=" +
            marketData.replica().newEngineLives());
        return 0;
    }

    static void connect(final java.util.function.BooleanSupplier connected, final Agent agent,
        final String role, final CountDownLatch stop) throws InterruptedException
    {
        final long deadline = System.nanoTime() + CONNECT_TIMEOUT_NS;
        while (!connected.getAsBoolean())
        {
            if (stop.getCount() == 0)
            {
                // SIGTERM or a stop line: the JVM waits for the stop only so long.
                throw new IllegalStateException(role + " stopped before it connected");
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException(role + " did not connect within " +
                    TimeUnit.NANOSECONDS.toSeconds(CONNECT_TIMEOUT_NS) + " s");
            }
            try
            {
                if (agent.doWork() == 0)
                {
                    Thread.sleep(1);
                }
            }
            catch (final InterruptedException ex)
            {
                throw ex;
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(role + " failed while connecting: " + ex, ex);
            }
        }
    }

    /**
     * Drives an agent on this thread until what it carried has not moved for {@link #SETTLED_NS}:
     * idle duty cycles cannot tell the end (heartbeats and status messages come for ever), and the
     * other roles, in processes of their own, may send the last reports a loaded machine's second
     * after the last acknowledgement.
     */
    static void settle(final Agent agent, final LongSupplier carried) throws InterruptedException
    {
        final long deadline = System.nanoTime() + SETTLE_LIMIT_NS;
        long last = carried.getAsLong();
        long movedNs = System.nanoTime();
        for (long nowNs = movedNs; nowNs - movedNs < SETTLED_NS && nowNs - deadline < 0; nowNs = System.nanoTime())
        {
            if (doWork(agent) == 0)
            {
                Thread.sleep(0, 100_000);
            }
            final long now = carried.getAsLong();
            if (now != last)
            {
                last = now;
                movedNs = System.nanoTime();
            }
        }
    }

    /** Drives an agent on this thread until it has had nothing to do for a while. */
    private static void quiesce(final Agent agent) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int quiet = 0;
        while (quiet < 300 && System.nanoTime() - deadline < 0)
        {
            if (doWork(agent) == 0)
            {
                quiet++;
                Thread.sleep(0, 200_000);
            }
            else
            {
                quiet = 0;
            }
        }
    }

    /** One duty cycle of the agent on this thread; what it throws ends the role. */
    private static int doWork(final Agent agent)
    {
        try
        {
            return agent.doWork();
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** @return where the engine's journal, digest and snapshots are made, in words. */
    static String engineHelpers(final EngineNode engine)
    {
        final EngineThreads threads = engine.threads();
        return (threads.journaller() ? "applies what a journaller, " +
            (EngineNode.journallerSpins() ? "spinning" : "backing off") + " on a thread of its own, journaled" :
            "journals each request itself") +
            (threads.digest() ? "; hashes its output on a thread of its own, which backs off" :
            "; hashes its output itself") + (threads.replica() ?
            "; a replica on another such thread writes its snapshots" : "; writes its snapshots itself");
    }

    private static String describe(final Agents.RunningAgent agent)
    {
        return (agent.backedOff() ? "backs off" : "spins") + (agent.core() >= 0 ? " on CPU " + agent.core() : ", not pinned");
    }

    /**
     * Stops the role: its run flag too, so that a wait the flag bounds (the engine's recovery, for a
     * gateway that takes nothing) ends rather than outlast the stop.
     */
    private static void stop(final CountDownLatch stop, final RunFlag running)
    {
        running.stop();
        stop.countDown();
    }

    /**
     * {@code quiesce}: stop and report, but stay connected; {@code stop}: stop, report and exit; and
     * so does the input's end where it is a parent's pipe.
     */
    static void awaitStopLines(final InputStream input, final CountDownLatch stop, final CountDownLatch exit,
        final RunFlag running, final boolean parentPipe)
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = reader.readLine()))
            {
                if ("quiesce".equals(line.trim()))
                {
                    stop(stop, running);
                }
                else if ("stop".equals(line.trim()))
                {
                    stop(stop, running);
                    exit.countDown();
                    return;
                }
            }
        }
        catch (final java.io.IOException ignored)
        {
            // stdin closed or unreadable: as its end
        }
        if (parentPipe)
        {
            // The parent is gone: nobody is left to stop the role.
            stop(stop, running);
            exit.countDown();
        }
    }

    static <T extends AutoCloseable> T add(final List<AutoCloseable> closeables, final T closeable)
    {
        closeables.add(closeable);
        return closeable;
    }
}
