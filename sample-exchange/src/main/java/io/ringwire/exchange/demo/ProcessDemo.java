package io.ringwire.exchange.demo;

import io.ringwire.exchange.config.RoleFiles;
import io.ringwire.exchange.node.ExchangeLayout;
import io.ringwire.rdma.host.OnlineCpus;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code ringwire demo --processes}: the engine, the gateway, the market-data service and the
 * clients (with a market-data subscriber) each in a JVM of its own ({@link RoleMain}), started from
 * the config files and identity keys it writes for them ({@link RoleFiles}) as a deployment would;
 * this process starts them, prints their progress, stops them in order (clients first, so what is in
 * flight drains) and prints the summary from their reports.
 *
 * <p>Thread layout: the engine's process spins on the last online CPU; the gateway's spins,
 * unpinned; the market-data service's and the clients' back off. This process sleeps.
 */
final class ProcessDemo
{
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    /** Every role's liveness timeout (see {@link #run}). */
    private static final long LIVENESS_MS = 5_000;

    private ProcessDemo()
    {
    }

    static int run(final DemoOptions options, final PrintStream out, final PrintStream err)
    {
        final List<RoleProcess> roles = new ArrayList<>();
        Path shmDirectory = null;
        Path journal = options.journal();
        final boolean temporaryJournal = null == journal;
        final AtomicBoolean stopRequested = new AtomicBoolean();
        final CountDownLatch finished = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            // Ctrl-C or SIGTERM: the run stops its roles in order, summarises and deletes its files
            // (keys and tokens among them) before the JVM halts, which it does when this returns.
            stopRequested.set(true);
            try
            {
                // Past the ordered stop's own timeouts (a quiesce and four stops).
                finished.await(6 * STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }, "ringwire-demo-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try
        {
            shmDirectory = Files.createTempDirectory(Path.of(Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm" :
                System.getProperty("java.io.tmpdir")), "ringwire-demo-");
            // Absolute: the engine's config file, in a directory of its own, would resolve it against that.
            journal = temporaryJournal ? Files.createTempDirectory("ringwire-demo-journal-") : journal.toAbsolutePath();
            final ExchangeLayout layout = ExchangeLayout.onFreePorts(options.provider(), options.clients(), 1);
            final List<Integer> cpus = OnlineCpus.asList();
            final String engineCore = cpus.isEmpty() ? "" : String.valueOf(cpus.getLast());
            final Path files = shmDirectory.resolve("roles");
            // Five JVMs warm up at once, on as few as two cores with the engine spinning on one: a
            // role may pause for seconds at the start, and a liveness of 5 s does not take that for gone.
            final RoleFiles.Run run = ExchangeDemo.roleFiles(options.instruments(), options.clients(), options.rate(),
                options.seed(), journal, shmDirectory, engineCore, options.seconds()).withLivenessTimeoutMs(LIVENESS_MS);
            RoleFiles.writeCore(files, layout, run);
            final RoleProcess engine = start(roles, "engine", files.resolve("engine.conf"), out);
            final RoleProcess gateway = start(roles, "gateway", files.resolve("gateway.conf"), out);
            final RoleProcess marketData = start(roles, "marketdata", files.resolve("marketdata.conf"), out);
            final RoleProcess clients = start(roles, "clients", RoleFiles.writeClients(files.resolve("clients.conf"),
                layout, run, 0, options.clients(), 0, 0), out);
            out.println("ringwire demo --processes: " + options.provider() + ", " + options.clients() + " clients, " +
                options.instruments() + " instruments, " + options.rate() + " orders/s offered, " +
                (options.seconds() == 0 ? "until Ctrl-C" : options.seconds() + " s") + "; journal " + journal);
            out.println("processes: " + engine.awaitReady(READY_TIMEOUT).substring(6) + "; " +
                gateway.awaitReady(READY_TIMEOUT).substring(6) + "; " + marketData.awaitReady(READY_TIMEOUT).substring(6) +
                "; " + clients.awaitReady(READY_TIMEOUT).substring(6) + "; this one sleeps; roles' config files in " +
                files);
            final long startNs = System.nanoTime();
            final long endNs = options.seconds() == 0 ? Long.MAX_VALUE : startNs + TimeUnit.SECONDS.toNanos(options.seconds());
            long lastSent = 0;
            long lastAtNs = startNs;
            while (!stopRequested.get() && System.nanoTime() - endNs < 0 && roles.stream().allMatch(RoleProcess::isAlive))
            {
                Thread.sleep(Math.max(1, Math.min(1000, TimeUnit.NANOSECONDS.toMillis(endNs - System.nanoTime()))));
                final Map<String, String> progress = clients.progress();
                final long atNs = progress.isEmpty() ? lastAtNs : Long.parseLong(progress.get("atNs"));
                if (atNs != lastAtNs) // a new line: the clients' ticks and these reads are not in step
                {
                    final long sent = Long.parseLong(progress.get("sent"));
                    out.println(String.format(Locale.ROOT, "%6.1f s  %,10d orders/s  fills %s  rejects %s  " +
                        "order-to-ack p50 %s p99 %s", (atNs - startNs) / 1e9,
                        perSecond(sent - lastSent, atNs - lastAtNs),
                        progress.get("fills"), progress.get("rejects"), micros(progress.get("p50")),
                        micros(progress.get("p99"))));
                    lastSent = sent;
                    lastAtNs = atNs;
                }
            }
            final double seconds = (System.nanoTime() - startNs) / 1e9;
            // Clients first (what is in flight drains), then the engine while the sessions are still
            // up (its books before cancel-on-disconnect), then the rest.
            clients.quiesce(STOP_TIMEOUT);
            // A role that failed (an agent threw, a helper of the engine's failed) exits 1.
            final int roleExits = engine.stopAndWait(STOP_TIMEOUT) | gateway.stopAndWait(STOP_TIMEOUT) |
                marketData.stopAndWait(STOP_TIMEOUT) | clients.stopAndWait(STOP_TIMEOUT);
            final boolean passed = summary(out, seconds, engine, gateway, marketData, clients);
            if (0 != roleExits)
            {
                out.println("  roles             FAILED: a role exited with a failure (its output says which)");
            }
            return passed && 0 == roleExits ? 0 : 1;
        }
        catch (final IOException | RuntimeException ex)
        {
            err.println("ringwire demo --processes: " + ex.getMessage());
            return 1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return 1;
        }
        finally
        {
            for (final RoleProcess role : roles)
            {
                role.close();
            }
            ExchangeDemo.deleteQuietly(shmDirectory);
            if (temporaryJournal)
            {
                ExchangeDemo.deleteQuietly(journal);
            }
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException ignored)
            {
                // shutting down: the hook waits for finished
            }
            finished.countDown();
        }
    }

    private static RoleProcess start(final List<RoleProcess> roles, final String name, final Path config,
        final PrintStream out) throws IOException
    {
        final RoleProcess role = RoleProcess.start(name, config, out::println);
        roles.add(role);
        return role;
    }

    /** @return {@code count} over {@code elapsedNs} as a rate a second; 0 over no time. */
    static long perSecond(final long count, final long elapsedNs)
    {
        return elapsedNs <= 0 ? 0 : Math.round(count * 1e9 / elapsedNs);
    }

    private static String micros(final String nanos)
    {
        return null == nanos || nanos.startsWith("-") ? "-" :
            String.format(Locale.ROOT, "%.1f us", Long.parseLong(nanos) / 1000.0);
    }

    private static boolean summary(final PrintStream out, final double seconds, final RoleProcess engine,
        final RoleProcess gateway, final RoleProcess marketData, final RoleProcess clients)
    {
        final Map<String, String> e = engine.report("engine");
        final Map<String, String> x = gateway.report("gateway");
        final Map<String, String> m = marketData.report("marketdata");
        final Map<String, String> c = clients.report("clients");
        out.println();
        out.println(String.format(Locale.ROOT, "summary (%.1f s, four processes)", seconds));
        out.println("  requests sent     " + c.get("sent") + ": " + c.get("newOrders") + " new orders");
        out.println("  acknowledged      " + c.get("acks") + " new orders, " + c.get("duplicateAcks") + " twice");
        out.println("  fills             " + c.get("fills") + " reports, " + e.get("trades") + " trades; bought " +
            c.get("bought") + ", sold " + c.get("sold"));
        out.println("  rejected          " + c.get("rejects"));
        out.println("  gateway           " + x.get("forwarded") + " forwarded, " + x.get("logons") + " logons, " +
            x.get("malformed") + " malformed, " + x.get("throttled") + " throttled");
        out.println("  engine            " + e.get("applied") + " requests applied, last sequence " + e.get("sequence") +
            "; clients received " + c.get("sequences") + " sequenced reports, " + c.get("duplicateSequences") + " twice");
        out.println("  sessions          " + c.get("sessionsLost") + " lost and logged on again; " + x.get("repliesResent") +
            " replies resent, " + c.get("replyGaps") + " no longer kept, " + c.get("duplicateReplies") + " received again (dropped); " +
            c.get("dueWhileLost") + " requests fell due while lost (not sent, not in the latency from due time)");
        out.println("  market data       " + m.get("published") + " published; subscriber " + c.get("mdGaps") + " gaps, " +
            c.get("mdRecoveries") + " recoveries");
        out.println("  latency (us)                       count      p50      p90      p99    p99.9      max");
        final long[] negative = new long[LatencyLedger.HOPS.length];
        for (final Map<String, String> hop : clients.reports("hop"))
        {
            final int index = Integer.parseInt(hop.get("index"));
            out.println(String.format(Locale.ROOT, "    %-28s %9s %8s %8s %8s %8s %8s", LatencyLedger.HOPS[index],
                hop.get("count"), us(hop.get("p50")), us(hop.get("p90")), us(hop.get("p99")), us(hop.get("p999")),
                us(hop.get("max"))));
            negative[index] = null == hop.get("negative") ? 0 : Long.parseLong(hop.get("negative"));
        }
        final String negativeHops = LatencyLedger.negativeHops(negative);
        if (!negativeHops.isEmpty())
        {
            out.println("    read negative, not recorded: " + negativeHops);
        }
        final boolean booksEqual = null != e.get("books") && e.get("books").equals(c.get("books"));
        out.println("  books             " + (booksEqual ? "the subscriber's equal the engine's" :
            "DIFFERENT: engine " + e.get("books") + ", subscriber " + c.get("books")));
        out.println("  output digest     " + e.get("digest"));
        final boolean passed = booksEqual && "0".equals(c.get("duplicateAcks")) &&
            c.get("acks") != null && c.get("acks").equals(c.get("newOrders")) &&
            c.get("bought") != null && c.get("bought").equals(c.get("sold")) &&
            "0".equals(c.get("filledAndCanceled")) && "0".equals(c.get("duplicateSequences")) &&
            "0".equals(c.get("replyGaps")) && "none".equals(e.get("helperFailure")) &&
            c.get("sequences") != null && c.get("sequences").equals(e.get("sequence"));
        if (!"none".equals(e.get("helperFailure")))
        {
            out.println("  engine helpers    FAILED: " + e.get("helperFailure"));
        }
        out.println("  checks            " + (passed ? "passed" : "FAILED") + ": every new order acknowledged once, " +
            "as much bought as sold, no order both filled and canceled, every report once, the subscriber's books " +
            "equal the engine's");
        return passed;
    }

    private static String us(final String nanos)
    {
        return null == nanos ? "-" : String.format(Locale.ROOT, "%.1f", Long.parseLong(nanos) / 1000.0);
    }
}
