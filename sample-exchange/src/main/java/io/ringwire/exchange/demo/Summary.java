package io.ringwire.exchange.demo;

import io.ringwire.codecs.trading.RejectReason;
import io.ringwire.exchange.engine.EngineCounters;
import io.ringwire.exchange.fix.FixClients;
import io.ringwire.exchange.gateway.GatewayCounters;
import io.ringwire.exchange.marketdata.MarketDataBooks;
import io.ringwire.exchange.marketdata.PublicBookDigest;
import io.ringwire.exchange.node.EngineNode;
import io.ringwire.exchange.node.EngineThreads;
import io.ringwire.exchange.node.GatewayNode;
import io.ringwire.exchange.node.MarketDataNode;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The end of a demo run: what the clients sent and heard, what the gateway and engine did, the
 * latency of every hop, whether the market-data subscriber's books equal the engine's, and the
 * checks a run must pass: every new order acknowledged exactly once, as much bought as sold.
 */
final class Summary
{
    private final AtomicLongArray clients;
    private final LatencyLedger ledger;
    private final EngineNode engine;
    private final GatewayNode gateway;
    private final MarketDataNode marketData;
    private final MarketDataClient subscriber;
    private final String engineBooks;
    private final String subscriberBooks;
    /** The FIX door's members, or null. */
    private final FixClients fix;

    Summary(final AtomicLongArray clients, final LatencyLedger ledger, final EngineNode engine, final GatewayNode gateway,
        final MarketDataNode marketData, final MarketDataClient subscriber, final FixClients fix)
    {
        this.fix = fix;
        this.clients = clients;
        this.ledger = ledger;
        this.engine = engine;
        this.gateway = gateway;
        this.marketData = marketData;
        this.subscriber = subscriber;
        this.engineBooks = PublicBookDigest.of(engine.engine().engine().books());
        this.subscriberBooks = subscriber.books().publicDigest();
    }

    /**
     * @return true when every order was acknowledged once, fills balance, the books agree, and the
     *         engine's helpers (journaller, digest, replica) ran through.
     */
    boolean conserved()
    {
        return clientsConserved(clients, null == fix ? new AtomicLongArray(FixClients.LOGONS + 1) : fix.counters()) &&
            engineBooks.equals(subscriberBooks) && null == engine.backgroundFailure();
    }

    /**
     * The clients' side of the checks, the same the process demo makes from the clients' REPORT.
     *
     * @param clients the simulated clients' counters.
     * @param fix     the FIX members' counters (zeros without them).
     * @return true when every new order was acknowledged once, no order was reported both filled
     *         and canceled, no engine report came twice, no reply was lost, and fills balance.
     */
    static boolean clientsConserved(final AtomicLongArray clients, final AtomicLongArray fix)
    {
        return clients.get(SimulatedClients.DUPLICATE_ACKS) == 0 &&
            clients.get(SimulatedClients.ACKS) == clients.get(SimulatedClients.NEW_ORDERS) &&
            clients.get(SimulatedClients.FILLED_AND_CANCELED) == 0 &&
            clients.get(SimulatedClients.DUPLICATE_SEQUENCES) == 0 &&
            clients.get(SimulatedClients.REPLY_GAPS) == 0 &&
            fix.get(FixClients.DUPLICATE_ACKS) == 0 && fix.get(FixClients.ACKS) == fix.get(FixClients.NEW_ORDERS) &&
            clients.get(SimulatedClients.BOUGHT) + fix.get(FixClients.BOUGHT) ==
                clients.get(SimulatedClients.SOLD) + fix.get(FixClients.SOLD);
    }

    void print(final PrintStream out, final double seconds, final boolean interrupted)
    {
        final long sent = clients.get(SimulatedClients.SENT);
        out.println();
        out.println(String.format(Locale.ROOT, "summary (%.1f s%s)", seconds, interrupted ? ", stopped by Ctrl-C" : ""));
        out.println(String.format(Locale.ROOT, "  requests sent     %,d (%,.0f/s): %,d new orders, the rest cancels, " +
            "replaces and mass cancels", sent, sent / Math.max(seconds, 1e-9), clients.get(SimulatedClients.NEW_ORDERS)));
        out.println(String.format(Locale.ROOT, "  acknowledged      %,d new orders, %,d twice", clients.get(SimulatedClients.ACKS),
            clients.get(SimulatedClients.DUPLICATE_ACKS)));
        final EngineCounters counters = engine.engine().engine().counters();
        out.println(String.format(Locale.ROOT, "  fills             %,d reports, %,d trades; bought %,d, sold %,d",
            clients.get(SimulatedClients.FILLS), counters.trades(), clients.get(SimulatedClients.BOUGHT),
            clients.get(SimulatedClients.SOLD)));
        out.println(String.format(Locale.ROOT, "  canceled          %,d reports", clients.get(SimulatedClients.CANCELS)));
        if (clients.get(SimulatedClients.FILLED_AND_CANCELED) + clients.get(SimulatedClients.DUPLICATE_SEQUENCES) > 0)
        {
            out.println(String.format(Locale.ROOT, "  WRONG             %,d orders reported both filled and canceled, " +
                "%,d engine reports received twice", clients.get(SimulatedClients.FILLED_AND_CANCELED),
                clients.get(SimulatedClients.DUPLICATE_SEQUENCES)));
        }
        if (clients.get(SimulatedClients.SESSIONS_LOST) > 0)
        {
            out.println(String.format(Locale.ROOT, "  sessions          %,d lost and logged on again; %,d replies resent, " +
                "%,d no longer kept, %,d received again (dropped)", clients.get(SimulatedClients.SESSIONS_LOST),
                gateway.gateway().counters().repliesResent(), clients.get(SimulatedClients.REPLY_GAPS),
                clients.get(SimulatedClients.DUPLICATE_REPLIES)));
            out.println(String.format(Locale.ROOT, "                    %,d new orders unanswered that went into a " +
                "lost session, %,d sent across a hold of the clients' thread",
                clients.get(SimulatedClients.UNANSWERED_ACROSS_LOSS),
                clients.get(SimulatedClients.UNANSWERED_ACROSS_HOLD)));
            // Orders due while the session was down are never sent: the latency from due time below
            // leaves those stalls out, and says how many here.
            out.println(String.format(Locale.ROOT, "                    %,d requests fell due while a session was lost: " +
                "not sent, so not in the latency from due time", clients.get(SimulatedClients.DUE_WHILE_LOST)));
        }
        out.println(String.format(Locale.ROOT, "  rejected          %,d", clients.get(SimulatedClients.REJECTS)));
        for (final RejectReason reason : RejectReason.values())
        {
            if (reason == RejectReason.NULL_VAL)
            {
                continue;
            }
            final long count = clients.get(SimulatedClients.REJECT_REASONS + reason.value());
            if (count > 0)
            {
                out.println(String.format(Locale.ROOT, "    %-26s %,d (%.2f%% of requests)", reason.name(), count,
                    100.0 * count / Math.max(1, sent)));
            }
        }
        if (null != fix)
        {
            final AtomicLongArray f = fix.counters();
            final Histogram ack = fix.orderToAck();
            out.println(String.format(Locale.ROOT, "  FIX members       %,d requests sent, %,d new orders, %,d acknowledged " +
                "(%,d twice); %,d fills, bought %,d, sold %,d; %,d canceled, %,d rejected, %,d cancel rejects",
                f.get(FixClients.SENT), f.get(FixClients.NEW_ORDERS), f.get(FixClients.ACKS),
                f.get(FixClients.DUPLICATE_ACKS), f.get(FixClients.FILLS), f.get(FixClients.BOUGHT),
                f.get(FixClients.SOLD), f.get(FixClients.CANCELS), f.get(FixClients.REJECTS),
                f.get(FixClients.CANCEL_REJECTS)));
            out.println(String.format(Locale.ROOT, "    FIX order to ack (us)    %,9d %8s %8s %8s %8s", ack.getTotalCount(),
                us(ack, 50), us(ack, 90), us(ack, 99), us(ack, 99.9)));
        }
        final GatewayCounters gatewayCounters = gateway.gateway().counters();
        out.println(String.format(Locale.ROOT, "  gateway           %,d forwarded, %,d logons, %,d malformed, %,d throttled, " +
            "%,d cancel-on-disconnect", gatewayCounters.forwarded(), gatewayCounters.logons(), gatewayCounters.malformed(),
            gatewayCounters.throttled(), gatewayCounters.cancelOnDisconnects()) + sessionsLost(gatewayCounters));
        out.println(String.format(Locale.ROOT, "  engine            %,d requests applied, %,d execution reports, " +
            "%,d market-data messages, %,d refused", counters.applied(), counters.executionReports(),
            counters.marketDataMessages(), engine.refused()));
        final MarketDataBooks books = subscriber.books();
        out.println(String.format(Locale.ROOT, "  market data       %,d published, %,d snapshot parts; subscriber: %,d applied, " +
            "%,d gaps, %,d recoveries, %,d snapshot requests", marketData.published(), marketData.snapshotParts(),
            books.applied(), books.gaps(), books.recoveries(), subscriber.snapshotRequests()));
        out.println("  books             engine " + engineBooks.substring(0, 16) + ", subscriber " +
            subscriberBooks.substring(0, 16) + (engineBooks.equals(subscriberBooks) ? " (equal)" : " (DIFFERENT)"));
        out.println("  latency (us)                       count      p50      p90      p99    p99.9      max");
        ledger.interval(); // takes in what was recorded since the last progress line
        final Histogram[] totals = ledger.totals();
        for (int i = 0; i < LatencyLedger.HOPS.length; i++)
        {
            final Histogram histogram = totals[i];
            out.println(String.format(Locale.ROOT, "    %-28s %,9d %8s %8s %8s %8s %8s", LatencyLedger.HOPS[i],
                histogram.getTotalCount(), us(histogram, 50), us(histogram, 90), us(histogram, 99), us(histogram, 99.9),
                histogram.getTotalCount() == 0 ? "-" : String.format(Locale.ROOT, "%.1f", histogram.getMaxValue() / 1e3)));
        }
        final String negativeHops = ledger.negativeHops();
        if (!negativeHops.isEmpty())
        {
            out.println("    read negative, not recorded: " + negativeHops);
        }
        final String digest = engine.digest(); // settles the digest's thread first
        out.println("  output digest     " + digest + (engine.threads().digest() ? " (" + engine.digestedMessages() +
            " messages hashed off the engine's thread)" : " (hashed on the engine's thread: " +
            EngineThreads.DIGEST_THREAD_MIN_CPUS + " CPUs or more hash on a thread of their own)"));
        if (null != engine.backgroundFailure())
        {
            final long dropped = engine.digestWritesDropped();
            out.println("  engine helpers    FAILED: " + engine.backgroundFailure() +
                (dropped > 0 ? " (" + dropped + " writes to the digest's thread dropped after)" : ""));
        }
        out.println("  checks            " + (conserved() ? "passed" : "FAILED") + ": every new order acknowledged once, " +
            "no order both filled and canceled, no report twice, as much bought as sold" + (null == fix ? "" : " (over both doors)") + ", the subscriber's books equal the " +
            "engine's, the engine's helpers ran through");
    }

    private static String us(final Histogram histogram, final double percentile)
    {
        return histogram.getTotalCount() == 0 ? "-" :
            String.format(Locale.ROOT, "%.1f", histogram.getValueAtPercentile(percentile) / 1e3);
    }

    /** Why sessions were lost, when any was: each loss owes the engine a cancel-on-disconnect. */
    private static String sessionsLost(final GatewayCounters counters)
    {
        final long lost = counters.heartbeatTimeouts() + counters.transportLosses() + counters.slowConsumerDisconnects() +
            counters.sessionsUnreachable() + counters.logouts();
        if (0 == lost)
        {
            return "";
        }
        return String.format(Locale.ROOT, " (sessions lost: %,d heartbeat timeouts, %,d transports gone, " +
            "%,d slow readers, %,d unreachable, %,d logouts)", counters.heartbeatTimeouts(), counters.transportLosses(),
            counters.slowConsumerDisconnects(), counters.sessionsUnreachable(), counters.logouts());
    }
}
