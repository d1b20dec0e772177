package io.ringwire.exchange.demo;

import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.fix.FixClients;
import io.ringwire.exchange.fix.FixDoor;
import io.ringwire.exchange.gateway.GatewayConfig;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.EngineNode;
import io.ringwire.exchange.node.EngineThreads;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.exchange.node.GatewayNode;
import io.ringwire.exchange.node.LoopbackPorts;
import io.ringwire.exchange.node.MarketDataNode;
import io.ringwire.exchange.node.RunFlag;
import io.ringwire.messaging.Agents;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.rdma.host.OnlineCpus;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.LangUtil;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.CompositeAgent;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The whole sample exchange in this process, every hop over RingWire messaging: the engine with its
 * journal, the gateway, the market-data service, simulated clients and a market-data subscriber.
 * The demo and the exchange benchmark run it.
 *
 * <p>Thread layout: {@link ThreadLayout}'s for the online CPUs, printed by {@link #start}: the engine
 * spins on a core of its own (the last online CPU), the other roles' groups on the next ones down,
 * the clients in as many groups as {@link ThreadLayout#clientGroups} gives, each spinning on a core
 * of its own; the engine's journaller, digest and replica threads as {@link EngineNode} says. On
 * up to three CPUs every role but the engine shares one spinning thread (two threads busy-waiting
 * on one CPU hand work to each other only when the scheduler switches them, every few
 * milliseconds; one thread hands it over at once). No role ever waits on another (see
 * {@link io.ringwire.exchange.node.Outbound}), so roles may share a thread.
 */
public final class InProcessExchange implements AutoCloseable
{
    private static final long CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);
    private static final long DRAIN_NS = TimeUnit.MILLISECONDS.toNanos(300);
    private static final long DRAIN_LIMIT_NS = TimeUnit.SECONDS.toNanos(5);
    private static final long SETTLED_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long the FIX clients may take to get their last answers at {@link #stop}. */
    private static final long FIX_QUIESCE_MS = 5_000;
    /** The longest {@link #stop} takes: the FIX clients' quiesce, the drain, and two settles at their limit. */
    static final long STOP_LIMIT_MS = FIX_QUIESCE_MS + TimeUnit.NANOSECONDS.toMillis(DRAIN_NS + 2 * DRAIN_LIMIT_NS);
    private static final long BUILD_POLL_NS = TimeUnit.MILLISECONDS.toNanos(20);

    private final RunFlag running = new RunFlag();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<Agents.RunningAgent> agents = new ArrayList<>();
    private final LatencyLedger ledger = new LatencyLedger();
    private final Path shmDirectory;
    private final Path journal;
    private final boolean temporaryJournal;
    private final List<Integer> cpus = OnlineCpus.asList();
    private final ThreadLayout threadLayout;
    private final int clientGroups;
    private static final String FIX_COMP_ID = "RINGWIRE";

    private MessagingContext context;
    private EngineNode engine;
    private GatewayNode gateway;
    private MarketDataNode marketData;
    private MarketDataClient marketDataClient;
    private ClientGroups clients;
    /** Members trading through the gateway's FIX door, or null. */
    private FixClients fixClients;
    /** The gateway's FIX door, or null. */
    private FixDoor door;

    private InProcessExchange(final Path journal, final ThreadLayout threadLayout, final int clientGroups)
        throws IOException
    {
        this.threadLayout = threadLayout;
        this.clientGroups = clientGroups;
        this.shmDirectory = Files.createTempDirectory(Path.of(Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm" :
            System.getProperty("java.io.tmpdir")), "ringwire-demo-");
        this.temporaryJournal = null == journal;
        this.journal = temporaryJournal ? Files.createTempDirectory("ringwire-demo-journal-") : journal;
    }

    /**
     * What an in-process exchange runs: its transport, its members and their flow.
     *
     * @param provider      the transport of every hop.
     * @param clients       simulated clients.
     * @param fixClients    simulated FIX members (QuickFIX/J initiators) trading through the gateway's
     *                      FIX door, each a session of its own after the clients'; 0 opens no door.
     * @param fixRate       requests a second over all FIX members.
     * @param instruments   instruments.
     * @param rate          orders a second over all clients.
     * @param seed          the flow's seed.
     * @param journal       the journal directory, or null for a temporary one removed at close.
     * @param engineThreads which of the engine's work runs on threads of its own.
     * @param seconds       how long the clients will send, warm-up included, or 0 when unknown: each
     *                      session's room for client order ids is sized for it
     *                      ({@link ExchangeDemo#gatewayConfigForShare(int, long, EngineConfig, long)}).
     */
    public record Run(String provider, int clients, int fixClients, long fixRate, int instruments, long rate,
        long seed, Path journal, EngineThreads engineThreads, long seconds)
    {
        /**
         * A run of SBE clients only, seed 1, a temporary journal, the engine's threads chosen for the
         * online CPUs, its length unknown.
         */
        public static Run of(final String provider, final int clients, final int instruments, final long rate)
        {
            return new Run(provider, clients, 0, 0, instruments, rate, 1, null,
                EngineThreads.forCpus(OnlineCpus.count()), 0);
        }

        /** This run with {@code fixClients} FIX members sending {@code fixRate} requests a second in all. */
        public Run withFix(final int fixClients, final long fixRate)
        {
            return new Run(provider, clients, fixClients, fixRate, instruments, rate, seed, journal, engineThreads,
                seconds);
        }

        /** This run with the flow's seed and the journal directory given (null: a temporary one). */
        public Run withSeedAndJournal(final long seed, final Path journal)
        {
            return new Run(provider, clients, fixClients, fixRate, instruments, rate, seed, journal, engineThreads,
                seconds);
        }

        /** This run with the engine's helper threads given rather than taken from the CPUs. */
        public Run withEngineThreads(final EngineThreads engineThreads)
        {
            return new Run(provider, clients, fixClients, fixRate, instruments, rate, seed, journal, engineThreads,
                seconds);
        }

        /** This run, its clients sending for {@code seconds}, warm-up included (0: unknown). */
        public Run forSeconds(final long seconds)
        {
            return new Run(provider, clients, fixClients, fixRate, instruments, rate, seed, journal, engineThreads,
                seconds);
        }
    }

    /**
     * Opens every role of a run, connects them, and opens the engine's journal. Nothing runs yet.
     * The thread layout and the client groups are those {@link ThreadLayout} gives the online CPUs.
     *
     * @param run what runs.
     * @return the exchange, connected.
     * @throws IOException when the temporary directories cannot be made.
     */
    public static InProcessExchange open(final Run run) throws IOException, InterruptedException
    {
        final int cpus = OnlineCpus.count();
        return open(run, ThreadLayout.forCpus(cpus), ThreadLayout.clientGroups(cpus, run.clients()));
    }

    /**
     * As {@link #open(Run)}, in a thread layout and with client groups given rather than taken from
     * the CPUs (tests of the layouts a small machine does not choose).
     *
     * @param threadLayout how the roles share threads.
     * @param clientGroups groups the clients are dealt into, 1 to the run's clients.
     */
    static InProcessExchange open(final Run run, final ThreadLayout threadLayout, final int clientGroups)
        throws IOException, InterruptedException
    {
        if (clientGroups < 1 || clientGroups > run.clients())
        {
            throw new IllegalArgumentException(clientGroups + " client groups for " + run.clients() + " clients");
        }
        final InProcessExchange exchange = new InProcessExchange(run.journal(), threadLayout, clientGroups);
        try
        {
            exchange.openRoles(run);
            return exchange;
        }
        catch (final RuntimeException | InterruptedException ex)
        {
            exchange.close();
            throw ex;
        }
    }

    private void openRoles(final Run run) throws InterruptedException
    {
        final int clientCount = run.clients();
        final int instruments = run.instruments();
        final int sessionCount = clientCount + run.fixClients();
        final ExchangeLayout layout = ExchangeLayout.onFreePorts(run.provider(), sessionCount, 1);
        context = ExchangeDemo.context(layout, shmDirectory, cores());
        final EngineConfig engineConfig = ExchangeDemo.engineConfig(instruments, sessionCount);
        engine = add(new EngineNode(context, layout, journal, engineConfig, running, EngineNode.JOURNAL_SEGMENT,
            run.engineThreads()));
        final GatewayConfig gatewayConfig = ExchangeDemo.gatewayConfigForShare(sessionCount,
            ExchangeDemo.sessionShare(clientCount, run.rate(), run.fixClients(), run.fixRate()), engineConfig,
            run.seconds());
        final DoorSetup fix = run.fixClients() == 0 ? null : fixDoor(gatewayConfig, clientCount);
        door = null == fix ? null : fix.door();
        gateway = add(new GatewayNode(context, layout, gatewayConfig, running, door));
        marketData = add(new MarketDataNode(context, layout, engineConfig, running));
        marketDataClient = add(new MarketDataClient(context, layout, 0, engineConfig, ledger, running));
        final List<SessionConfig> sessions = ExchangeDemo.sessions(clientCount);
        final List<SimulatedClients> groups = new ArrayList<>(clientGroups);
        final long rate = run.rate();
        for (int group = 0; group < clientGroups; group++)
        {
            final int from = ClientGroups.firstClientOf(clientGroups, clientCount, group);
            final int to = ClientGroups.firstClientOf(clientGroups, clientCount, group + 1);
            groups.add(add(new SimulatedClients(context, layout, sessions.subList(from, to), from, instruments,
                rate * to / clientCount - rate * from / clientCount, run.seed(), ledger, running)));
        }
        clients = new ClientGroups(groups);
        if (null != fix)
        {
            door.start();
            fixClients = add(new FixClients(fix.address(), FIX_COMP_ID, fix.logins(), instruments,
                gatewayConfig.referencePrices()[1], run.fixRate(), run.seed() + 1));
            fixClients.connect();
        }
        connect();
        // The roles' threads start later: recovery's wait for the gateway drives them from here.
        engine.open(() -> gateway.doWork() + marketData.doWork() + marketDataClient.doWork() + clients.pollOnly());
    }

    /** A FIX door, where it listens, and its members' logons. */
    private record DoorSetup(FixDoor door, InetSocketAddress address, List<FixClients.Login> logins)
    {
    }

    /** The door's members: the sessions after the SBE clients', SenderCompID {@code FIX<session id>}. */
    private static DoorSetup fixDoor(final GatewayConfig gatewayConfig, final int firstIndex)
    {
        final List<SessionConfig> sessions = gatewayConfig.sessions();
        final List<FixDoor.Member> members = new ArrayList<>();
        final List<FixClients.Login> logins = new ArrayList<>();
        for (int i = firstIndex; i < sessions.size(); i++)
        {
            final FixDoor.Member member = new FixDoor.Member(i, sessions.get(i), "FIX" + sessions.get(i).sessionId());
            members.add(member);
            logins.add(new FixClients.Login(member.senderCompId(), member.session().token()));
        }
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", LoopbackPorts.pick());
        return new DoorSetup(new FixDoor(address, FIX_COMP_ID, null, members,
            gatewayConfig.maxClientOrderIdsPerSession()), address, logins);
    }

    private Agent agentOf(final ThreadLayout.Role role)
    {
        return switch (role)
        {
            case ENGINE -> engine;
            case GATEWAY -> gateway;
            case MARKET_DATA -> marketData;
            case CLIENTS -> clients.groups().size() == 1 ? clients.groups().getFirst() :
                new CompositeAgent(clients.groups());
            case MARKET_DATA_SUBSCRIBER -> marketDataClient;
        };
    }

    /** The cores agents take, best first: the last online CPU for the engine, then down, one per group. */
    private String cores()
    {
        final StringBuilder list = new StringBuilder();
        int spinning = 0;
        for (final List<ThreadLayout.Role> group : threadLayout.groups())
        {
            spinning += group.equals(List.of(ThreadLayout.Role.CLIENTS)) ? clientGroups : 1;
        }
        for (int i = cpus.size() - 1; i >= Math.max(0, cpus.size() - spinning); i--)
        {
            list.append(list.isEmpty() ? "" : ",").append(cpus.get(i));
        }
        return list.toString();
    }

    private void connect() throws InterruptedException
    {
        final long deadline = System.nanoTime() + CONNECT_TIMEOUT_NS;
        while (!(engine.isConnected() && gateway.isConnected() && gateway.clientsConnected() && marketData.isConnected() &&
            marketDataClient.isConnected() && clients.isConnected() && (null == fixClients || fixClients.isConnected())))
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("the roles did not connect within " +
                    TimeUnit.NANOSECONDS.toSeconds(CONNECT_TIMEOUT_NS) + " s: engine " + engine.isConnected() +
                    ", gateway " + gateway.isConnected() + ", market data " + marketData.isConnected() +
                    ", market-data subscriber " + marketDataClient.isConnected() + ", clients " + clients.isConnected() +
                    (null == fixClients ? "" : ", FIX members " + fixClients.isConnected()));
            }
            if (drive() == 0)
            {
                Thread.sleep(1);
            }
        }
    }

    private int drive()
    {
        return engine.doWork() + gateway.doWork() + marketData.doWork() + marketDataClient.doWork() +
            clients.pollOnly();
    }

    /**
     * Starts the roles' threads; the clients start sending.
     *
     * @param errorHandler told of any role's failure.
     * @return the thread layout, in words.
     */
    public String start(final ErrorHandler errorHandler)
    {
        final List<String> names = new ArrayList<>();
        for (final List<ThreadLayout.Role> group : threadLayout.groups())
        {
            if (group.equals(List.of(ThreadLayout.Role.CLIENTS)))
            {
                // A thread per client group, each spinning on a core of its own.
                for (int i = 0; i < clients.groups().size(); i++)
                {
                    agents.add(Agents.start(context, clients.groups().get(i), errorHandler));
                    names.add(clients.groups().size() == 1 ? ThreadLayout.words(group) : "clients group " + (i + 1) +
                        " of " + clients.groups().size() + " (" + clients.groups().get(i).clientCount() + " clients)");
                }
                continue;
            }
            final Agent[] members = new Agent[group.size()];
            for (int i = 0; i < members.length; i++)
            {
                members[i] = agentOf(group.get(i));
            }
            agents.add(Agents.start(context, members.length == 1 ? members[0] : new CompositeAgent(members),
                errorHandler));
            names.add(ThreadLayout.words(group));
        }
        if (null != fixClients)
        {
            fixClients.startSending();
        }
        final StringBuilder text = new StringBuilder(cpus.size() + " CPUs; ");
        for (int i = 0; i < agents.size(); i++)
        {
            final Agents.RunningAgent agent = agents.get(i);
            text.append(i == 0 ? "" : "; ").append(names.get(i))
                .append(agent.backedOff() ? " backs off" : " spins")
                .append(agent.core() >= 0 ? " on CPU " + agent.core() : ", not pinned");
        }
        text.append("; the engine ").append(RoleMain.engineHelpers(engine));
        if (null != fixClients)
        {
            text.append("; the gateway polls the FIX door, whose QuickFIX/J acceptor reads on a thread of its own, " +
                "and the FIX members read and send on two more (blocking, sleeping: none spins)");
        }
        return text.toString();
    }

    /**
     * Ends the run: the clients stop sending, what is in flight arrives while the roles still run,
     * then their threads stop and this thread drains what is left, until nothing has moved for
     * {@link #SETTLED_NS}. The clients keep their sessions alive meanwhile (heartbeats), so a long
     * drain never costs a session.
     */
    public void stop() throws InterruptedException
    {
        clients.stopSending();
        if (null != fixClients)
        {
            fixClients.quiesce(FIX_QUIESCE_MS);
        }
        TimeUnit.NANOSECONDS.sleep(DRAIN_NS);
        for (int i = agents.size() - 1; i >= 0; i--)
        {
            agents.get(i).close();
        }
        agents.clear();
        settle();
        // The journal may hold what the output held back past the drain's limit: applied now, so
        // the summary's digest is the one replay gives for this journal.
        if (engine.finishJournaled() > 0)
        {
            settle();
        }
        running.stop();
    }

    /**
     * Drives every role on this thread until what they carried has not moved for
     * {@link #SETTLED_NS}, or for {@link #DRAIN_LIMIT_NS} at most. Idle duty cycles cannot tell the
     * end: heartbeats and status messages come every few milliseconds for ever.
     */
    private void settle() throws InterruptedException
    {
        final long deadline = System.nanoTime() + DRAIN_LIMIT_NS;
        long carried = carried();
        long movedNs = System.nanoTime();
        for (long nowNs = movedNs; nowNs - movedNs < SETTLED_NS && nowNs - deadline < 0; nowNs = System.nanoTime())
        {
            if (drive() == 0)
            {
                Thread.sleep(0, 100_000);
            }
            final long now = carried();
            if (now != carried)
            {
                carried = now;
                movedNs = System.nanoTime();
            }
        }
    }

    /** @return what the roles carried so far, added up: requests forwarded and applied, reports read, updates applied. */
    private long carried()
    {
        return gateway.gateway().counters().forwarded() + engine.engine().engine().counters().applied() +
            clients.total(SimulatedClients.REPORTS) + marketDataClient.books().applied();
    }

    /** @return the journal directory. */
    public Path journal()
    {
        return journal;
    }

    /** @return the latency ledger the clients and the market-data subscriber record into. */
    public LatencyLedger ledger()
    {
        return ledger;
    }

    /** @return the engine's role. */
    public EngineNode engine()
    {
        return engine;
    }

    /** @return the gateway's role. */
    public GatewayNode gateway()
    {
        return gateway;
    }

    /** @return the market-data service. */
    public MarketDataNode marketData()
    {
        return marketData;
    }

    /** @return the market-data subscriber. */
    public MarketDataClient marketDataClient()
    {
        return marketDataClient;
    }

    /** @return the gateway's FIX door, or null when there is none. */
    public FixDoor fixDoor()
    {
        return door;
    }

    /** @return the members trading through the FIX door, or null when there are none. */
    public FixClients fixClients()
    {
        return fixClients;
    }

    /** @return the simulated clients, in their groups. */
    public ClientGroups clients()
    {
        return clients;
    }

    /**
     * Keeps a role to close, and polls every role built so far for a moment: each answers the
     * connection requests of the roles built after it as it would in a process of its own, rather
     * than after the whole exchange is built (seconds on a cold JVM, longer than a handshake may wait).
     */
    private <T extends AutoCloseable> T add(final T closeable)
    {
        closeables.add(closeable);
        final long endNs = System.nanoTime() + BUILD_POLL_NS;
        do
        {
            for (final AutoCloseable built : closeables)
            {
                if (built instanceof SimulatedClients group)
                {
                    group.pollOnly();
                }
                else if (built instanceof Agent role)
                {
                    try
                    {
                        role.doWork();
                    }
                    catch (final Exception ex)
                    {
                        LangUtil.rethrowUnchecked(ex);
                    }
                }
            }
        }
        while (System.nanoTime() - endNs < 0);
        return closeable;
    }

    @Override
    public void close()
    {
        for (final Agents.RunningAgent agent : agents)
        {
            CloseHelper.quietClose(agent);
        }
        agents.clear();
        for (int i = closeables.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(closeables.get(i));
        }
        closeables.clear();
        ExchangeDemo.deleteQuietly(shmDirectory);
        if (temporaryJournal)
        {
            ExchangeDemo.deleteQuietly(journal);
        }
    }
}
