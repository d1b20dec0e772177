package io.ringwire.exchange.demo;

import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.gateway.GatewayConfig;
import io.ringwire.exchange.gateway.RiskLimits;
import io.ringwire.exchange.gateway.SessionConfig;
import io.ringwire.exchange.journal.JournalDirectory;
import io.ringwire.exchange.config.RoleFiles;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.rdma.cm.Identity;
import io.ringwire.rdma.cm.PeerKey;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * {@code ringwire demo}: the sample exchange in one process, a thread per role group, every hop
 * over RingWire messaging on the provider picked (the embedded {@code shm} by default).
 *
 * <p>Thread layout: as {@link InProcessExchange} states; the main thread prints progress once a
 * second and sleeps.
 *
 * <p>Ctrl-C ends the run as its end would: the clients stop sending, what is in flight drains, the
 * roles close, the summary is printed and the temporary journal and shm files are removed.
 */
public final class ExchangeDemo
{
    private static final int MAX_ORDERS = 1 << 20;
    /**
     * The most client order ids all sessions of a run are given room for together: the gateway keeps
     * every id a session used, in tables of 16 to 32 bytes an id (up to 1 GiB at this size).
     */
    private static final int MAX_CLIENT_ORDER_IDS = 1 << 25;

    private final DemoOptions options;
    private final PrintStream out;
    private final PrintStream err;
    /** Set by Ctrl-C: the run ends as its end would. */
    private volatile boolean stopRequested;
    private final CountDownLatch finished = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private ExchangeDemo(final DemoOptions options, final PrintStream out, final PrintStream err)
    {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    /**
     * @param args the command line after {@code demo}.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * @return the exit code: 0 done, 1 failed, 2 bad command line.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final DemoOptions options;
        try
        {
            options = DemoOptions.parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("ringwire demo: " + ex.getMessage());
            err.print(DemoOptions.usage());
            return 2;
        }
        if (options.help())
        {
            out.print(DemoOptions.usage());
            return 0;
        }
        final boolean journalHeld;
        try
        {
            journalHeld = null != options.journal() && JournalDirectory.holdsSegments(options.journal());
        }
        catch (final UncheckedIOException | IllegalArgumentException ex)
        {
            // Unreadable, or holding a segment name no journal writes: not a directory to start in.
            err.println("ringwire demo: --journal " + options.journal() + " cannot be used: " + ex.getMessage());
            return 2;
        }
        if (journalHeld)
        {
            // Recovery would replay its records to the run's fresh clients, whose checks count
            // from an empty exchange: they could only fail.
            err.println("ringwire demo: --journal " + options.journal() + " holds a journal already; the demo " +
                "starts an exchange from nothing: name a new directory (ringwire exchange replay reads that one)");
            return 2;
        }
        if (options.processes())
        {
            return ProcessDemo.run(options, out, err);
        }
        return new ExchangeDemo(options, out, err).runInProcess();
    }

    /** The sessions of {@code clients} clients: ids 101 and up, accounts 1001 and up. */
    public static List<SessionConfig> sessions(final int clients)
    {
        final List<SessionConfig> sessions = new ArrayList<>(clients);
        for (int i = 0; i < clients; i++)
        {
            sessions.add(new SessionConfig(101 + i, "demo-token-" + (101 + i), 1001 + i));
        }
        return sessions;
    }

    /** The engine's configuration for a run of {@code instruments} instruments and {@code clients} clients. */
    public static EngineConfig engineConfig(final int instruments, final int clients)
    {
        final long min = SimulatedClients.minPrice();
        final int band = (int)(SimulatedClients.maxPrice() - min + 1);
        return new EngineConfig(EngineConfig.uniformInstruments(instruments, min, band), MAX_ORDERS, clients + 16,
            1_000_000);
    }

    /**
     * The gateway's configuration for a run: limits wide enough for the demo's flow to pass, a rate
     * limit of twice each client's share of {@code rate}, and room in each session for a client order
     * id per request of a run of {@code seconds} at its share of {@code rate}: the gateway refuses ids
     * past a session's room (CAPACITY_EXCEEDED), so a run longer than the room allows would measure
     * rejects from then on.
     *
     * @param seconds the run's length, warm-up included; 0 when unknown (until Ctrl-C): room for
     *                {@value #MAX_ORDERS} ids a session.
     */
    public static GatewayConfig gatewayConfig(final int clients, final long rate, final EngineConfig engine,
        final long seconds)
    {
        return gatewayConfigForShare(clients, sessionShare(clients, rate, 0, 0), engine, seconds);
    }

    /**
     * The gateway's configuration for {@code sessions} sessions, each sending at most
     * {@code sessionRate} requests a second: the limits of {@link #gatewayConfig}, sized for that
     * share. A run with FIX members gives every session the larger of the SBE clients' and the
     * members' shares ({@link #sessionShare}), so that neither is throttled at the other's.
     */
    public static GatewayConfig gatewayConfigForShare(final int sessions, final long sessionRate,
        final EngineConfig engine, final long seconds)
    {
        final List<InstrumentSpec> instruments = engine.instruments();
        final long[] reference = new long[instruments.size() + 1];
        java.util.Arrays.fill(reference, SimulatedClients.basePrice());
        return new GatewayConfig(sessions(sessions), instruments, reference,
            new RiskLimits(1_000_000, 1_000_000_000_000L, 5_000, MAX_ORDERS / Math.max(1, sessions)),
            (int)Math.min(Integer.MAX_VALUE, 2 * sessionRate + 1000), 10_000,
            idRoom(sessions, sessionRate * seconds * 5 / 4));
    }

    /**
     * @return the most requests a second one session sends in a run: {@code rate} spread over the
     *         SBE clients, or {@code fixRate} over the FIX members, whichever share is larger (each
     *         rounded up).
     */
    public static long sessionShare(final int clients, final long rate, final int fixClients, final long fixRate)
    {
        final long sbe = clients == 0 ? 0 : (rate + clients - 1) / clients;
        final long fix = fixClients == 0 ? 0 : (fixRate + fixClients - 1) / fixClients;
        return Math.max(sbe, fix);
    }

    /**
     * @return client order ids a session may use in a run of {@code seconds} at its share of
     *         {@code rate}, each request taking one, with a quarter more for a backlog's catching up;
     *         at least {@value #MAX_ORDERS}; the room a run's length asks for is capped at
     *         {@value #MAX_CLIENT_ORDER_IDS} over all sessions.
     */
    static int clientOrderIdsPerSession(final int clients, final long rate, final long seconds)
    {
        return idRoom(clients, sessionShare(Math.max(1, clients), rate, 0, 0) * seconds * 5 / 4);
    }

    private static int idRoom(final int clients, final long needed)
    {
        final int sessions = Math.max(1, clients);
        return (int)Math.max(MAX_ORDERS, Math.min(needed, MAX_CLIENT_ORDER_IDS / sessions));
    }

    /**
     * A messaging context of an in-process run: one process plays every role, so it holds every
     * identity of the layout (a fresh key each) and trusts each one's public key; each channel of the
     * layout names the identity its end proves and whom it accepts, so every link is keyed on its own
     * even here. Shm files go to a directory of the run.
     */
    public static MessagingContext context(final ExchangeLayout layout, final Path shmDirectory, final String cores)
    {
        final MessagingContext context = new MessagingContext()
            .cores(cores)
            .rdmaSettings(config -> config.shmDirectory(shmDirectory.toString()));
        final List<PeerKey> keys = new ArrayList<>();
        for (final String name : layout.identities())
        {
            final Identity identity = Identity.generate(name);
            context.identity(identity);
            keys.add(identity.peerKey());
        }
        return context.trust(keys).conclude();
    }

    /**
     * What the role files of a run of the demo say besides its layout.
     *
     * @param instruments  instruments.
     * @param clients      client sessions.
     * @param rate         orders a second over all clients.
     * @param seed         the flow's seed.
     * @param journal      the engine's journal.
     * @param shmDirectory the shm provider's directory.
     * @param engineCores  the engine's CPUs.
     * @param seconds      the run's length, for the gateway's room for client order ids
     *                     ({@link #gatewayConfig(int, long, EngineConfig, long)}; 0 when unknown).
     * @return the run.
     */
    public static RoleFiles.Run roleFiles(final int instruments, final int clients, final long rate, final long seed,
        final Path journal, final Path shmDirectory, final String engineCores, final long seconds)
    {
        final EngineConfig engine = engineConfig(instruments, clients);
        return new RoleFiles.Run(engine, gatewayConfig(clients, rate, engine, seconds), SimulatedClients.minPrice(),
            SimulatedClients.maxPrice(), journal, shmDirectory, engineCores, rate, seed, 2_000);
    }

    private int runInProcess()
    {
        final Thread hook = new Thread(() ->
        {
            stopRequested = true;
            try
            {
                // The stop at its longest, then the summary and the closes that remove the run's files.
                finished.await(InProcessExchange.STOP_LIMIT_MS + 10_000, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException ignored)
            {
                Thread.currentThread().interrupt();
            }
        }, "ringwire-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        final long fixRate = Math.min(DemoOptions.MAX_FIX_CLIENT_RATE,
            options.rate() / (options.clients() + options.fixClients()) + 1) * options.fixClients();
        try (InProcessExchange exchange = InProcessExchange.open(
            InProcessExchange.Run.of(options.provider(), options.clients(), options.instruments(), options.rate())
                .withFix(options.fixClients(), fixRate).withSeedAndJournal(options.seed(), options.journal())
                .forSeconds(options.seconds())))
        {
            out.println("ringwire demo: " + options.provider() + ", " + options.clients() + " clients, " +
                (options.fixClients() == 0 ? "" : options.fixClients() + " FIX members, ") +
                options.instruments() + " instruments, " + options.rate() + " orders/s offered, " +
                (options.seconds() == 0 ? "until Ctrl-C" : options.seconds() + " s") + "; journal " + exchange.journal());
            out.println("threads: " + exchange.start(this::onError) + "; progress: main thread, sleeping");
            final long startNs = System.nanoTime();
            final long endNs = options.seconds() == 0 ? Long.MAX_VALUE : startNs + TimeUnit.SECONDS.toNanos(options.seconds());
            final Progress progress = new Progress(exchange.clients()::counters, exchange.ledger(), out);
            while (!stopRequested && System.nanoTime() - endNs < 0 && null == failure.get())
            {
                final long sleepNs = Math.min(TimeUnit.SECONDS.toNanos(1) - (System.nanoTime() - startNs) %
                    TimeUnit.SECONDS.toNanos(1), endNs - System.nanoTime());
                TimeUnit.NANOSECONDS.sleep(Math.max(1, sleepNs));
                progress.print(System.nanoTime() - startNs);
            }
            final double elapsedS = (System.nanoTime() - startNs) / 1e9;
            final boolean interrupted = stopRequested;
            exchange.stop();
            final Summary summary = new Summary(exchange.clients().counters(), exchange.ledger(), exchange.engine(),
                exchange.gateway(), exchange.marketData(), exchange.marketDataClient(), exchange.fixClients());
            summary.print(out, elapsedS, interrupted);
            if (null != failure.get())
            {
                err.println("ringwire demo: a role failed: " + failure.get());
                return 1;
            }
            return summary.conserved() ? 0 : 1;
        }
        catch (final IOException ex)
        {
            err.println("ringwire demo: " + ex.getMessage());
            return 1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return 1;
        }
        catch (final RuntimeException ex)
        {
            err.println("ringwire demo: " + ex.getMessage());
            return 1;
        }
        finally
        {
            finished.countDown();
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException ignored)
            {
                // the JVM is shutting down: the hook is running and waits for finished
            }
        }
    }

    private void onError(final Throwable throwable)
    {
        failure.compareAndSet(null, throwable);
        err.println("ringwire demo: " + throwable);
    }

    public static void deleteQuietly(final Path directory)
    {
        if (null == directory || !Files.exists(directory))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final IOException | UncheckedIOException ignored)
        {
            // best effort: a temporary directory
        }
    }

    /** The live line: orders/s, fills, rejects and order-to-ack over the last second. */
    static final class Progress
    {
        private final Supplier<AtomicLongArray> counters;
        private final LatencyLedger ledger;
        private final PrintStream out;
        private long lastSent;
        private long lastNs;

        Progress(final Supplier<AtomicLongArray> counters, final LatencyLedger ledger, final PrintStream out)
        {
            this.counters = counters;
            this.ledger = ledger;
            this.out = out;
        }

        void print(final long elapsedNs)
        {
            final AtomicLongArray counters = this.counters.get();
            final long sent = counters.get(SimulatedClients.SENT);
            final double seconds = Math.max(1e-9, (elapsedNs - lastNs) / 1e9);
            final Histogram ack = ledger.interval()[LatencyLedger.ORDER_TO_ACK];
            out.println(String.format(Locale.ROOT, "%6.1f s  %,10.0f orders/s  fills %,d  rejects %,d  " +
                "order-to-ack p50 %s p99 %s", elapsedNs / 1e9, (sent - lastSent) / seconds,
                counters.get(SimulatedClients.FILLS), counters.get(SimulatedClients.REJECTS),
                micros(ack, 50), micros(ack, 99)));
            lastSent = sent;
            lastNs = elapsedNs;
        }
    }

    static String micros(final Histogram histogram, final double percentile)
    {
        return histogram.getTotalCount() == 0 ? "-" :
            String.format(Locale.ROOT, "%.1f us", histogram.getValueAtPercentile(percentile) / 1000.0);
    }
}
