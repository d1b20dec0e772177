package io.ringwire.exchange.demo;

import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.marketdata.PublicBookDigest;
import io.ringwire.exchange.book.RestingOrder;
import io.ringwire.exchange.node.EngineNode;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.exchange.node.GatewayNode;
import io.ringwire.exchange.node.MarketDataNode;
import io.ringwire.exchange.node.RunFlag;
import io.ringwire.messaging.Agents;
import io.ringwire.messaging.MessagingContext;
import org.HdrHistogram.Histogram;
import org.agrona.CloseHelper;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CompositeAgent;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One role group of the demo in a JVM of its own ({@code ringwire demo --processes}, and the
 * multi-process tests): {@code engine}, {@code exchange} (gateway and market-data service) or
 * {@code clients} (a range of the sessions, and optionally a market-data subscriber).
 *
 * <p>The parent talks to it by lines: the role prints {@code READY} once every connection it needs
 * is up and its thread runs, {@code PROGRESS k=v...} once a second (clients), and on {@code stop}
 * (a line on its stdin, or stdin closing, or SIGTERM) it stops as the in-process demo does, prints
 * {@code REPORT k=v...} lines and {@code DONE}, and exits 0. Clients also take {@code quiesce}: stop
 * sending, drain and report, but keep the sessions up until {@code stop}, so the engine can report
 * its books before cancel-on-disconnect empties them. The messaging secret comes in the
 * environment ({@value #SECRET_ENV}), never on the command line.
 *
 * <p>Thread layout: the role's agents on one thread (spinning for engine and exchange, backing off
 * for clients); the main thread waits for the stop line.
 */
public final class RoleMain
{
    /** The environment variable that carries the run's messaging secret. */
    public static final String SECRET_ENV = "RINGWIRE_DEMO_SECRET";
    private static final long CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private RoleMain()
    {
    }

    /**
     * @param args the role's command line (see {@link ProcessDemo#roleArguments}).
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out));
    }

    static int run(final String[] args, final PrintStream out)
    {
        final Map<String, String> options = parse(args);
        final String role = options.get("role");
        final ExchangeLayout layout = layout(options);
        final int instruments = Integer.parseInt(options.get("instruments"));
        final int clientCount = layout.clientReplies().length;
        final EngineConfig engineConfig = ExchangeDemo.engineConfig(instruments, clientCount);
        final String secret = System.getenv(SECRET_ENV);
        if (null == secret || secret.isBlank())
        {
            System.err.println("ringwire demo role: " + SECRET_ENV + " is not set");
            return 2;
        }
        final boolean spins = !"clients".equals(role);
        final MessagingContext context = ExchangeDemo.context(Path.of(options.get("shm-dir")), secret,
            options.getOrDefault("cores", ""));
        final RunFlag running = new RunFlag();
        final CountDownLatch stop = new CountDownLatch(1);
        final CountDownLatch exit = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            stop.countDown();
            exit.countDown();
        }, "ringwire-role-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        final Thread stdin = Thread.ofPlatform().daemon().start(() -> awaitStopLines(stop, exit));
        final List<AutoCloseable> closeables = new ArrayList<>();
        try
        {
            return switch (role)
            {
                case "engine" -> runEngine(context, layout, Path.of(options.get("journal")), engineConfig, running, stop,
                    closeables, out);
                case "exchange" -> runExchange(context, layout, engineConfig, options, running, stop, closeables, out);
                case "clients" -> runClients(context, layout, engineConfig, options, running, stop, exit, closeables,
                    out);
                default -> throw new IllegalArgumentException("unknown role '" + role + "'");
            };
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return 1;
        }
        catch (final RuntimeException ex)
        {
            System.err.println("ringwire demo role " + role + ": " + ex);
            return 1;
        }
        finally
        {
            for (int i = closeables.size() - 1; i >= 0; i--)
            {
                CloseHelper.quietClose(closeables.get(i));
            }
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
        }
    }

    private static int runEngine(final MessagingContext context, final ExchangeLayout layout, final Path journal,
        final EngineConfig config, final RunFlag running, final CountDownLatch stop, final List<AutoCloseable> closeables,
        final PrintStream out) throws InterruptedException
    {
        final EngineNode engine = add(closeables, new EngineNode(context, layout, journal, config, running));
        connect(engine::isConnected, engine, "engine");
        engine.open();
        final Agents.RunningAgent agent = add(closeables, Agents.start(context, engine, RoleMain::fail));
        out.println("READY engine " + describe(agent));
        out.flush();
        stop.await();
        engine.stopTaking();
        agent.close();
        quiesce(engine);
        final Map<String, Long> resting = new TreeMap<>();
        for (final RestingOrder order : engine.engine().engine().books().resting())
        {
            resting.merge("resting." + order.account(), 1L, Long::sum);
        }
        out.println("REPORT engine applied=" + engine.engine().applied() +
            " sequence=" + engine.engine().engine().engineSequence() +
            " trades=" + engine.engine().engine().counters().trades() +
            " digest=" + engine.engine().digest() +
            " books=" + PublicBookDigest.of(engine.engine().engine().books()) +
            " resting=" + resting.values().stream().mapToLong(Long::longValue).sum() +
            " dropped=" + engine.dropped() + " refused=" + engine.refused() +
            resting.entrySet().stream().map(entry -> " " + entry.getKey() + "=" + entry.getValue())
                .reduce("", String::concat));
        return 0;
    }

    private static int runExchange(final MessagingContext context, final ExchangeLayout layout,
        final EngineConfig engineConfig, final Map<String, String> options, final RunFlag running,
        final CountDownLatch stop, final List<AutoCloseable> closeables, final PrintStream out)
        throws InterruptedException
    {
        final long rate = Long.parseLong(options.get("rate"));
        final GatewayNode gateway = add(closeables, new GatewayNode(context, layout,
            ExchangeDemo.gatewayConfig(layout.clientReplies().length, rate, engineConfig), running));
        final MarketDataNode marketData = add(closeables, new MarketDataNode(context, layout, engineConfig, running));
        final Agent both = new CompositeAgent(gateway, marketData);
        // Market-data subscribers may join late: the service publishes whether or not one is there.
        connect(gateway::isConnected, both, "exchange");
        final Agents.RunningAgent agent = add(closeables, Agents.start(context, both, RoleMain::fail));
        out.println("READY exchange " + describe(agent));
        out.flush();
        stop.await();
        agent.close();
        quiesce(both);
        final var counters = gateway.gateway().counters();
        out.println("REPORT exchange forwarded=" + counters.forwarded() + " logons=" + counters.logons() +
            " malformed=" + counters.malformed() + " throttled=" + counters.throttled() +
            " cancelOnDisconnect=" + counters.cancelOnDisconnects() + " transportLosses=" + counters.transportLosses() +
            " heartbeatTimeouts=" + counters.heartbeatTimeouts() + " lastEngineSequence=" +
            gateway.gateway().lastEngineSequence() + " published=" + marketData.published() +
            " snapshotParts=" + marketData.snapshotParts());
        return 0;
    }

    private static int runClients(final MessagingContext context, final ExchangeLayout layout,
        final EngineConfig engineConfig, final Map<String, String> options, final RunFlag running,
        final CountDownLatch stop, final CountDownLatch exit, final List<AutoCloseable> closeables,
        final PrintStream out)
        throws InterruptedException
    {
        final String[] range = options.get("sessions").split(":");
        final int from = Integer.parseInt(range[0]);
        final int to = Integer.parseInt(range[1]);
        final List<SessionConfig> sessions = ExchangeDemo.sessions(layout.clientReplies().length).subList(from, to);
        final long rate = Long.parseLong(options.get("rate"));
        final long seed = Long.parseLong(options.getOrDefault("seed", "1"));
        final int marketDataIndex = Integer.parseInt(options.getOrDefault("md-index", "-1"));
        final long marketDataJoinMs = Long.parseLong(options.getOrDefault("md-join-after-ms", "0"));
        final LatencyLedger ledger = new LatencyLedger();
        final SimulatedClients clients = add(closeables, new SimulatedClients(context, layout, sessions, from,
            instrumentsOf(engineConfig), rate, seed, ledger, running));
        MarketDataClient marketData = null;
        if (marketDataIndex >= 0 && marketDataJoinMs == 0)
        {
            marketData = add(closeables, new MarketDataClient(context, layout, marketDataIndex, engineConfig, ledger,
                running));
            final MarketDataClient subscriber = marketData;
            connect(() -> clients.isConnected() && subscriber.isConnected(), new CompositeAgent(clients, subscriber),
                "clients");
        }
        else
        {
            connect(clients::isConnected, new CompositeAgent(clients), "clients");
        }
        final SwitchableAgent agent = new SwitchableAgent(clients, marketData);
        final AgentRunner runner = add(closeables, new AgentRunner(new BackoffIdleStrategy(), RoleMain::fail, null,
            agent)); // a third thread on a small machine: it backs off, leaving the cores to engine and exchange
        AgentRunner.startOnThread(runner);
        out.println("READY clients sessions " + from + " to " + (to - 1) + " (backs off, not pinned)");
        out.flush();
        final long startNs = System.nanoTime();
        long nextNs = startNs + TimeUnit.SECONDS.toNanos(1);
        while (!stop.await(Math.max(1, nextNs - System.nanoTime()), TimeUnit.NANOSECONDS))
        {
            nextNs += TimeUnit.SECONDS.toNanos(1);
            if (marketDataIndex >= 0 && null == marketData && System.nanoTime() - startNs >=
                TimeUnit.MILLISECONDS.toNanos(marketDataJoinMs))
            {
                marketData = add(closeables, new MarketDataClient(context, layout, marketDataIndex, engineConfig,
                    ledger, running));
                agent.add(marketData); // a late joiner: it starts mid-stream and recovers from snapshots
            }
            final Histogram ack = ledger.interval()[LatencyLedger.ORDER_TO_ACK];
            final AtomicLongArray c = clients.counters();
            out.println("PROGRESS sent=" + c.get(SimulatedClients.SENT) + " fills=" + c.get(SimulatedClients.FILLS) +
                " rejects=" + c.get(SimulatedClients.REJECTS) + " p50=" + (ack.getTotalCount() == 0 ? -1 :
                ack.getValueAtPercentile(50)) + " p99=" + (ack.getTotalCount() == 0 ? -1 : ack.getValueAtPercentile(99)));
            out.flush();
        }
        clients.stopSending();
        Thread.sleep(500); // replies in flight arrive while the agent still runs
        runner.close();
        quiesce(agent);
        final AtomicLongArray c = clients.counters();
        final StringBuilder report = new StringBuilder("REPORT clients");
        final String[] names = { "sent", "newOrders", "acks", "duplicateAcks", "fills", "bought", "sold", "rejects",
            "cancels", "reports", "unsent", "loggedOn", "sequences", "duplicateSequences", "maxSequence",
            "filledAndCanceled" };
        for (int i = 0; i < names.length; i++)
        {
            report.append(' ').append(names[i]).append('=').append(c.get(i));
        }
        if (null != marketData)
        {
            report.append(" books=").append(marketData.books().publicDigest())
                .append(" mdGaps=").append(marketData.books().gaps())
                .append(" mdRecoveries=").append(marketData.books().recoveries());
        }
        out.println(report);
        ledger.interval();
        final Histogram[] totals = ledger.totals();
        for (int i = 0; i < LatencyLedger.HOPS.length; i++)
        {
            out.println(String.format(Locale.ROOT, "REPORT hop index=%d count=%d p50=%d p90=%d p99=%d p999=%d max=%d", i,
                totals[i].getTotalCount(), totals[i].getValueAtPercentile(50), totals[i].getValueAtPercentile(90),
                totals[i].getValueAtPercentile(99), totals[i].getValueAtPercentile(99.9), totals[i].getMaxValue()));
        }
        out.flush();
        // Quiesced, not gone: the sessions stay up (no cancel-on-disconnect) until told to exit.
        final AgentRunner keepAlive = add(closeables, new AgentRunner(new BackoffIdleStrategy(), RoleMain::fail, null,
            agent));
        AgentRunner.startOnThread(keepAlive);
        exit.await();
        return 0;
    }

    private static int instrumentsOf(final EngineConfig config)
    {
        return config.instruments().size();
    }

    /** The clients' agent, to which a late market-data subscriber is added while it runs. */
    private static final class SwitchableAgent implements Agent
    {
        private final SimulatedClients clients;
        private volatile MarketDataClient marketData;

        SwitchableAgent(final SimulatedClients clients, final MarketDataClient marketData)
        {
            this.clients = clients;
            this.marketData = marketData;
        }

        void add(final MarketDataClient subscriber)
        {
            marketData = subscriber;
        }

        @Override
        public int doWork() throws Exception
        {
            final MarketDataClient subscriber = marketData;
            return clients.doWork() + (null == subscriber ? 0 : subscriber.doWork());
        }

        @Override
        public String roleName()
        {
            return "clients";
        }
    }

    private static void connect(final java.util.function.BooleanSupplier connected, final Agent agent,
        final String role) throws InterruptedException
    {
        final long deadline = System.nanoTime() + CONNECT_TIMEOUT_NS;
        while (!connected.getAsBoolean())
        {
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

    /** Drives an agent on this thread until it has had nothing to do for a while. */
    private static void quiesce(final Agent agent) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int quiet = 0;
        while (quiet < 300 && System.nanoTime() - deadline < 0)
        {
            final int work;
            try
            {
                work = agent.doWork();
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
            if (work == 0)
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

    private static String describe(final Agents.RunningAgent agent)
    {
        return (agent.backedOff() ? "backs off" : "spins") + (agent.core() >= 0 ? " on CPU " + agent.core() : ", not pinned");
    }

    /**
     * {@code quiesce}: stop and report, but stay connected; {@code stop} (or stdin closing): stop,
     * report and exit.
     */
    private static void awaitStopLines(final CountDownLatch stop, final CountDownLatch exit)
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = reader.readLine()))
            {
                if ("quiesce".equals(line.trim()))
                {
                    stop.countDown();
                }
                else if ("stop".equals(line.trim()))
                {
                    break;
                }
            }
        }
        catch (final java.io.IOException ignored)
        {
            // stdin closed: the parent is gone
        }
        stop.countDown();
        exit.countDown();
    }

    private static void fail(final Throwable throwable)
    {
        System.err.println("ringwire demo role: " + throwable);
    }

    private static <T extends AutoCloseable> T add(final List<AutoCloseable> closeables, final T closeable)
    {
        closeables.add(closeable);
        return closeable;
    }

    private static ExchangeLayout layout(final Map<String, String> options)
    {
        final int[] ports = ints(options.get("ports"));
        return new ExchangeLayout(options.get("provider"), options.get("host"), ports[0], ports[1], ports[2], ports[3],
            ports[4], ints(options.get("client-ports")), ints(options.getOrDefault("md-ports", "")));
    }

    private static int[] ints(final String list)
    {
        if (null == list || list.isBlank())
        {
            return new int[0];
        }
        final String[] parts = list.split(",");
        final int[] values = new int[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            values[i] = Integer.parseInt(parts[i].trim());
        }
        return values;
    }

    private static Map<String, String> parse(final String[] args)
    {
        final Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2)
        {
            if (!args[i].startsWith("--"))
            {
                throw new IllegalArgumentException("expected an option, got '" + args[i] + "'");
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }
}
