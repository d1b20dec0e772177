package io.ringwire.exchange.demo;

import io.ringwire.exchange.config.RoleConfig;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.exchange.node.RunFlag;
import io.ringwire.messaging.MessagingContext;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CompositeAgent;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The {@code clients} role of {@link RoleMain}: the simulated clients of the role's sessions, and
 * the market-data subscriber where the layout has one (from the start, or joining late), on one
 * thread that backs off. It prints {@code PROGRESS} once a second until {@code quiesce} or
 * {@code stop}, then stops sending, waits for the replies in flight, prints its {@code REPORT}
 * lines, and keeps its sessions up until told to exit, printing {@code HELD} once a second (its
 * logons and lost sessions so far: a parent sees the sessions come back to a gateway started again).
 */
final class ClientsRole
{
    private ClientsRole()
    {
    }

    /**
     * Runs the role until {@code exit} (after {@code stop} has ended its sending).
     *
     * @param failures where its agents' failures go (the caller turns any into exit status 1).
     * @return its exit status: 0.
     */
    static int run(final MessagingContext context, final RoleConfig config, final RunFlag running,
        final CountDownLatch stop, final CountDownLatch exit, final List<AutoCloseable> closeables,
        final PrintStream out, final RoleFailures failures)
        throws InterruptedException
    {
        final ExchangeLayout layout = config.layout();
        final EngineConfig engineConfig = config.engine();
        final List<SessionConfig> sessions = config.sessions();
        final int marketDataIndex = layout.marketDataClients().isEmpty() ? -1 : 0;
        final long marketDataJoinMs = config.marketDataJoinAfterMs();
        final LatencyLedger ledger = new LatencyLedger();
        final SimulatedClients clients = RoleMain.add(closeables, new SimulatedClients(context, layout, sessions, 0,
            engineConfig.instruments().size(), config.rate(), config.seed(), ledger, running));
        MarketDataClient marketData = null;
        if (marketDataIndex >= 0 && marketDataJoinMs == 0)
        {
            marketData = RoleMain.add(closeables, new MarketDataClient(context, layout, marketDataIndex, engineConfig,
                ledger, running));
            final MarketDataClient subscriber = marketData;
            RoleMain.connect(() -> clients.isConnected() && subscriber.isConnected(),
                new CompositeAgent(clients, subscriber), "clients", stop);
        }
        else
        {
            RoleMain.connect(clients::isConnected, new CompositeAgent(clients), "clients", stop);
        }
        final SwitchableAgent agent = new SwitchableAgent(clients, marketData);
        // A third thread on a small machine: it backs off, leaving the cores to engine and exchange.
        final AgentRunner runner = RoleMain.add(closeables, new AgentRunner(new BackoffIdleStrategy(), failures,
            null, agent));
        AgentRunner.startOnThread(runner);
        out.println("READY clients sessions " + sessions.getFirst().sessionId() + " to " +
            sessions.getLast().sessionId() + " (backs off, not pinned)");
        out.flush();
        marketData = reportProgress(context, config, clients, marketData, agent, ledger, running, stop, closeables,
            out);
        clients.stopSending();
        drainReplies(clients);
        runner.close();
        final MarketDataClient subscriberAtEnd = marketData;
        RoleMain.settle(agent, () -> carried(clients.counters()) +
            (null == subscriberAtEnd ? 0 : subscriberAtEnd.books().applied()));
        printReport(clients.counters(), marketData, ledger, out);
        // Quiesced, not gone: the sessions stay up (no cancel-on-disconnect) until told to exit.
        final AgentRunner keepAlive = RoleMain.add(closeables, new AgentRunner(new BackoffIdleStrategy(),
            failures, null, agent));
        AgentRunner.startOnThread(keepAlive);
        final AtomicLongArray c = clients.counters();
        while (!exit.await(1, TimeUnit.SECONDS))
        {
            out.println("HELD atNs=" + System.nanoTime() + " loggedOn=" + c.get(SimulatedClients.LOGGED_ON) +
                " sessionsLost=" + c.get(SimulatedClients.SESSIONS_LOST));
            out.flush();
        }
        return 0;
    }

    /**
     * Prints the clients' progress each second until told to stop, and adds the late market-data
     * subscriber once the flow has run for its join delay.
     *
     * @param joined the market-data subscriber that joined at the start, or null.
     * @return the market-data subscriber, or null when none joined.
     */
    private static MarketDataClient reportProgress(final MessagingContext context, final RoleConfig config,
        final SimulatedClients clients, final MarketDataClient joined, final SwitchableAgent agent,
        final LatencyLedger ledger, final RunFlag running, final CountDownLatch stop,
        final List<AutoCloseable> closeables, final PrintStream out)
        throws InterruptedException
    {
        final ExchangeLayout layout = config.layout();
        final boolean subscribes = !layout.marketDataClients().isEmpty();
        final long marketDataJoinMs = config.marketDataJoinAfterMs();
        MarketDataClient marketData = joined;
        // A late subscriber's clock starts at the first acknowledgement: before it the feed may not
        // have begun (logons can take seconds on a loaded machine), and a subscriber that sees the
        // feed from its first change has nothing to recover.
        long flowStartNs = 0;
        long nextNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (!stop.await(Math.max(1, nextNs - System.nanoTime()), TimeUnit.NANOSECONDS))
        {
            nextNs += TimeUnit.SECONDS.toNanos(1);
            if (0 == flowStartNs && clients.counters().get(SimulatedClients.ACKS) > 0)
            {
                flowStartNs = System.nanoTime();
            }
            if (subscribes && null == marketData && 0 != flowStartNs && System.nanoTime() - flowStartNs >=
                TimeUnit.MILLISECONDS.toNanos(marketDataJoinMs))
            {
                marketData = RoleMain.add(closeables, new MarketDataClient(context, layout, 0, config.engine(), ledger,
                    running));
                agent.add(marketData); // a late joiner: it starts mid-stream and recovers from snapshots
            }
            final Histogram ack = ledger.interval()[LatencyLedger.ORDER_TO_ACK];
            final AtomicLongArray c = clients.counters();
            // atNs: the monotonic clock, which every process on the host shares, so a reader's rates
            // are over the interval between these lines, not between its own reads.
            out.println("PROGRESS atNs=" + System.nanoTime() + " sent=" + c.get(SimulatedClients.SENT) +
                " fills=" + c.get(SimulatedClients.FILLS) +
                " rejects=" + c.get(SimulatedClients.REJECTS) + " loggedOn=" + c.get(SimulatedClients.LOGGED_ON) +
                " p50=" + (ack.getTotalCount() == 0 ? -1 :
                ack.getValueAtPercentile(50)) + " p99=" + (ack.getTotalCount() == 0 ? -1 : ack.getValueAtPercentile(99)) +
                (null == marketData ? "" : " mdRecoveries=" + marketData.books().recoveries())); // read late
            out.flush();
        }
        return marketData;
    }

    /**
     * Waits while replies in flight arrive (the clients' agent still runs): until every new order is
     * answered, or a bound for a reply that will not come (its session was lost).
     */
    private static void drainReplies(final SimulatedClients clients) throws InterruptedException
    {
        final long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Thread.sleep(200);
        while (clients.counters().get(SimulatedClients.ACKS) < clients.counters().get(SimulatedClients.NEW_ORDERS) &&
            System.nanoTime() - drainDeadline < 0)
        {
            Thread.sleep(50);
        }
    }

    /** The clients' REPORT line (their counts, the subscriber's books) and a REPORT line per latency hop. */
    private static void printReport(final AtomicLongArray c, final MarketDataClient marketData,
        final LatencyLedger ledger, final PrintStream out)
    {
        final StringBuilder report = new StringBuilder("REPORT clients");
        final String[] names = { "sent", "newOrders", "acks", "duplicateAcks", "fills", "bought", "sold", "rejects",
            "cancels", "reports", "unsent", "loggedOn", "sequences", "duplicateSequences", "maxSequence",
            "filledAndCanceled" };
        for (int i = 0; i < names.length; i++)
        {
            report.append(' ').append(names[i]).append('=').append(c.get(i));
        }
        report.append(" replyGaps=").append(c.get(SimulatedClients.REPLY_GAPS))
            .append(" duplicateReplies=").append(c.get(SimulatedClients.DUPLICATE_REPLIES))
            .append(" malformedReplies=").append(c.get(SimulatedClients.MALFORMED_REPLIES))
            .append(" sessionsLost=").append(c.get(SimulatedClients.SESSIONS_LOST))
            .append(" unansweredAcrossHold=").append(c.get(SimulatedClients.UNANSWERED_ACROSS_HOLD))
            .append(" unansweredAcrossLoss=").append(c.get(SimulatedClients.UNANSWERED_ACROSS_LOSS))
            .append(" uncheckedSequences=").append(c.get(SimulatedClients.UNCHECKED_SEQUENCES))
            .append(" dueWhileLost=").append(c.get(SimulatedClients.DUE_WHILE_LOST));
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
            out.println(String.format(Locale.ROOT,
                "REPORT hop index=%d count=%d p50=%d p90=%d p99=%d p999=%d max=%d negative=%d", i,
                totals[i].getTotalCount(), totals[i].getValueAtPercentile(50), totals[i].getValueAtPercentile(90),
                totals[i].getValueAtPercentile(99), totals[i].getValueAtPercentile(99.9), totals[i].getMaxValue(),
                ledger.negative(i)));
        }
        out.flush();
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

    /** @return every one of the clients' counters, added up: it moves with anything they read. */
    private static long carried(final AtomicLongArray counters)
    {
        long sum = 0;
        for (int i = 0; i < counters.length(); i++)
        {
            sum += counters.get(i);
        }
        return sum;
    }
}
