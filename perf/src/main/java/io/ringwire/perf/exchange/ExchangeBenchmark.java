package io.ringwire.perf.exchange;

import io.ringwire.exchange.demo.ClientGroups;
import io.ringwire.exchange.demo.InProcessExchange;
import io.ringwire.exchange.demo.LatencyLedger;
import io.ringwire.exchange.demo.SimulatedClients;
import io.ringwire.perf.output.RecordedHistogram;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ringwire perf exchange}: runs the whole sample exchange in this process
 * ({@link InProcessExchange}) at a fixed offered rate, once per provider: a warm-up that is not
 * measured, then the measured seconds, with a progress line a second. Reports order-to-ack from
 * each order's due time (coordinated omission corrected) and from its send, and every hop of the
 * ledger, with what the acknowledgements were ({@link AckOutcomes}: accepted, or rejected by whom
 * and why) and each hop's count beside them. A run whose acknowledgements are mostly rejects is
 * reported as such, and the command fails ({@link #mostlyRejected}). The offered rate is the total
 * over all clients, each taking its share.
 *
 * <p>Thread layout: {@link InProcessExchange}'s; this thread sleeps.
 */
public final class ExchangeBenchmark
{
    private final ExchangeOptions options;
    private final PrintStream log;

    /** One provider's figures. */
    public record Result(String provider, long offered, double achieved, String threads, long acks, long unacked,
        Histogram[] hops, AckOutcomes outcomes, FixDoorFigures fix, long[] secondP50Ns, long sessionsLost,
        long dueWhileLost)
    {
        /** The share of the offered rate the clients must have sent for the rate to count as held. */
        static final double HELD = 0.99;
        /** A first measured second's p50 this many times the last's (and over 100 us) is a backlog. */
        static final int BACKLOG_FACTOR = 10;
        static final long BACKLOG_MIN_NS = 100_000;

        /** @return whether the clients sent at least {@value #HELD} of the offered rate. */
        public boolean rateHeld()
        {
            return achieved >= HELD * offered;
        }

        /**
         * @return whether the first measured second was still draining a backlog from before it (the
         *         start's, when the warm-up was too short): its p50 from due time over 100 us
         *         and {@value #BACKLOG_FACTOR} times the last second's.
         */
        public boolean backlogAtStart()
        {
            if (secondP50Ns.length < 2 || secondP50Ns[0] < 0 || secondP50Ns[secondP50Ns.length - 1] < 0)
            {
                return false;
            }
            final long first = secondP50Ns[0];
            return first > BACKLOG_MIN_NS && first > BACKLOG_FACTOR * secondP50Ns[secondP50Ns.length - 1];
        }

        /** A hop whose p50 is past this holds a queue: the work of any one hop is a few microseconds. */
        static final long QUEUE_MIN_NS = 100_000;
        /**
         * What takes from each hop of the path (client to gateway to client: the hops before
         * {@link LatencyLedger#ORDER_TO_ACK}), by its index in {@link LatencyLedger#HOPS}.
         */
        private static final String[] READERS = {
            "the gateway reading its clients' orders",
            "the gateway's thread itself (the hop is its work on one request: past 100 us the thread was held)",
            "the engine, or its journaller, taking the gateway's requests (the engine takes none while its " +
                "reports or its market-data feed wait)",
            "the engine's thread (the request's work, and where a journaller runs its hand-over; the engine " +
                "takes none while its reports or its market-data feed wait)",
            "the gateway reading the engine's reports",
            "the clients reading their replies" };

        static
        {
            if (READERS.length != LatencyLedger.ORDER_TO_ACK)
            {
                throw new IllegalStateException("a reader for each hop of the path: " + READERS.length + " for " +
                    LatencyLedger.ORDER_TO_ACK);
            }
        }

        /**
         * Where a rate stops: what feeds the first stage that does not keep up queues behind it (and
         * back-pressure carries the queue further upstream), so the queue ends at the hop that stage
         * takes from, and every hop after it moves at its own pace. A stage off the path that holds
         * the engine (the market-data service, through its feed) shows as the engine's.
         *
         * @return the index in {@link LatencyLedger#HOPS} of the last hop of the path (client to
         *         gateway to client) whose p50 is past {@link #QUEUE_MIN_NS}, or -1 where none is.
         */
        public int queueEndsAt()
        {
            for (int i = READERS.length - 1; i >= 0; i--)
            {
                if (hops[i].getTotalCount() > 0 && hops[i].getValueAtPercentile(50) > QUEUE_MIN_NS)
                {
                    return i;
                }
            }
            return -1;
        }

        /** @return what takes from a hop of the path. */
        static String readerOf(final int hop)
        {
            return READERS[hop];
        }

        /** @return per hop, the acknowledgements timed there. */
        public long[] hopCounts()
        {
            final long[] counts = new long[hops.length];
            for (int i = 0; i < hops.length; i++)
            {
                counts[i] = hops[i].getTotalCount();
            }
            return counts;
        }
    }

    /**
     * @param results the runs.
     * @return the providers whose acknowledgements were mostly rejects, in words; empty when none.
     */
    public static String mostlyRejected(final List<Result> results)
    {
        final StringBuilder text = new StringBuilder();
        for (final Result result : results)
        {
            if (0 == result.outcomes().acks())
            {
                text.append(text.isEmpty() ? "" : "; ").append(result.provider())
                    .append(": no acknowledgement arrived in the measured window");
            }
            else if (result.outcomes().mostlyRejected())
            {
                text.append(text.isEmpty() ? "" : "; ").append(String.format(Locale.ROOT,
                    "%s: %,d of %,d acknowledgements were rejects (%,d by the gateway, %,d by the engine)",
                    result.provider(), result.outcomes().rejected(), result.outcomes().acks(),
                    result.outcomes().rejectedByGateway(), result.outcomes().rejectedByEngine()));
            }
            final FixDoorFigures fix = result.fix();
            if (null != fix && fix.acks() > 0 && fix.rejects() * 2 > fix.acks())
            {
                // The FIX members' orders are acknowledgements of the run too: their door's figures
                // mean as little as the SBE members' when most are rejects.
                text.append(text.isEmpty() ? "" : "; ").append(String.format(Locale.ROOT,
                    "%s: %,d of the FIX members' %,d acknowledgements were rejects", result.provider(), fix.rejects(),
                    fix.acks()));
            }
        }
        return text.toString();
    }

    public ExchangeBenchmark(final ExchangeOptions options, final PrintStream log)
    {
        this.options = options;
        this.log = log;
    }

    public List<Result> run() throws Exception
    {
        final List<Result> results = new ArrayList<>();
        for (final String provider : options.providers())
        {
            results.add(run(provider));
        }
        return results;
    }

    private Result run(final String provider) throws Exception
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final boolean fixDoor = "fix".equals(options.door());
        try (InProcessExchange exchange = InProcessExchange.open(
            InProcessExchange.Run.of(provider, options.clients(), options.instruments(), options.rate())
                .withFix(fixDoor ? options.fixClients() : 0, options.fixRate())
                .withEngineThreads(options.engineThreads()).forSeconds(options.warmup() + options.seconds())))
        {
            final String threads = exchange.start(error -> failure.compareAndSet(null, error));
            log.println("exchange " + provider + ": " + threads);
            final ClientGroups clients = exchange.clients();
            final LatencyLedger ledger = exchange.ledger();
            sleepSeconds(options.warmup(), "warm-up", provider, clients, ledger, failure);
            ledger.reset();
            // One reading of every counter, so the acknowledgements and their outcomes agree.
            final AtomicLongArray countersBefore = copy(clients.counters());
            final long sentBefore = countersBefore.get(SimulatedClients.SENT);
            final long acksBefore = countersBefore.get(SimulatedClients.ACKS);
            final long newBefore = countersBefore.get(SimulatedClients.NEW_ORDERS);
            final FixDoorFigures.Start fixStart = fixDoor ?
                FixDoorFigures.Start.of(exchange.fixClients(), exchange.fixDoor()) : null;
            final long startNs = System.nanoTime();
            final long[] secondP50Ns = sleepSeconds(options.seconds(), "measured", provider, clients, ledger, failure);
            final double elapsed = (System.nanoTime() - startNs) / 1e9;
            final FixDoorFigures fix = fixDoor ? FixDoorFigures.since(fixStart, exchange.fixClients(),
                exchange.fixDoor(), options.fixClients(), options.fixRate()) : null;
            final long sent = clients.counters().get(SimulatedClients.SENT) - sentBefore;
            exchange.stop();
            if (null != failure.get())
            {
                throw new IllegalStateException("a role failed: " + failure.get(), failure.get());
            }
            ledger.interval();
            final Histogram[] totals = ledger.totals();
            final Histogram[] copies = new Histogram[totals.length];
            for (int i = 0; i < totals.length; i++)
            {
                copies[i] = totals[i].copy();
            }
            final AtomicLongArray countersAfter = copy(clients.counters());
            final long acks = countersAfter.get(SimulatedClients.ACKS) - acksBefore;
            final long unacked = Math.max(0, countersAfter.get(SimulatedClients.NEW_ORDERS) - newBefore - acks);
            return new Result(provider, options.rate(), sent / elapsed, threads, acks, unacked, copies,
                AckOutcomes.between(countersBefore, countersAfter), fix, secondP50Ns,
                countersAfter.get(SimulatedClients.SESSIONS_LOST) - countersBefore.get(SimulatedClients.SESSIONS_LOST),
                countersAfter.get(SimulatedClients.DUE_WHILE_LOST) - countersBefore.get(SimulatedClients.DUE_WHILE_LOST));
        }
    }

    /**
     * Sleeps a second at a time, printing each second's rate and order-to-ack percentiles.
     *
     * @return each second's p50 from due time, ns (-1 for a second without an acknowledgement).
     */
    private long[] sleepSeconds(final int seconds, final String phase, final String provider,
        final ClientGroups clients, final LatencyLedger ledger, final AtomicReference<Throwable> failure)
        throws InterruptedException
    {
        final long[] p50Ns = new long[seconds];
        Arrays.fill(p50Ns, -1);
        long lastSent = clients.total(SimulatedClients.SENT);
        for (int second = 1; second <= seconds && null == failure.get(); second++)
        {
            TimeUnit.SECONDS.sleep(1);
            final long sent = clients.total(SimulatedClients.SENT);
            final Histogram ack = ledger.interval()[LatencyLedger.ORDER_TO_ACK_FROM_DUE];
            p50Ns[second - 1] = ack.getTotalCount() == 0 ? -1 : ack.getValueAtPercentile(50);
            log.println(String.format(Locale.ROOT, "exchange %s %s %d/%d s: %,d orders/s, order-to-ack p50 %s p99 %s",
                provider, phase, second, seconds, sent - lastSent, us(ack, 50), us(ack, 99)));
            lastSent = sent;
        }
        return p50Ns;
    }

    /** @return the counters as they are now, apart from the clients' thread that goes on counting. */
    private static AtomicLongArray copy(final AtomicLongArray counters)
    {
        final AtomicLongArray copy = new AtomicLongArray(counters.length());
        for (int i = 0; i < counters.length(); i++)
        {
            copy.set(i, counters.get(i));
        }
        return copy;
    }

    private static String us(final Histogram histogram, final double percentile)
    {
        return histogram.getTotalCount() == 0 ? "-" : us(histogram.getValueAtPercentile(percentile));
    }

    private static String us(final long ns)
    {
        return String.format(Locale.ROOT, "%.1f us", ns / 1e3);
    }

    /**
     * @param results the runs.
     * @return each run's hops, one histogram each, for the results directory, grouped by provider.
     */
    public static List<RecordedHistogram> histograms(final List<Result> results)
    {
        final List<RecordedHistogram> histograms = new ArrayList<>();
        for (final Result result : results)
        {
            for (int i = 0; i < LatencyLedger.HOPS.length; i++)
            {
                final String hop = LatencyLedger.HOPS[i].replaceAll("[^A-Za-z0-9]+", "-").replaceAll("-$", "");
                histograms.add(new RecordedHistogram(result.provider() + "-" + hop, result.provider(),
                    result.provider() + ": " + LatencyLedger.HOPS[i], result.hops()[i]));
            }
        }
        return histograms;
    }

    public static String table(final List<Result> results)
    {
        final StringBuilder text = new StringBuilder();
        for (final Result result : results)
        {
            text.append(String.format(Locale.ROOT, "%s: %,d orders/s offered, %,.0f sent; %,d acknowledged (those " +
                "in flight when measuring stopped taken in the drain after it), %,d never%n  threads: %s%n",
                result.provider(), result.offered(), result.achieved(), result.acks(), result.unacked(),
                result.threads()));
            if (!result.rateHeld())
            {
                text.append(String.format(Locale.ROOT, "  RATE NOT HELD: the clients sent %,.0f a second of the %,d " +
                    "offered (%.0f%%); the backlog grew, and the latency below is mostly its queue%n", result.achieved(),
                    result.offered(), 100 * result.achieved() / result.offered()));
            }
            final int queue = result.queueEndsAt();
            if (queue >= 0)
            {
                text.append(String.format(Locale.ROOT, "  QUEUE ENDS AT \"%s\" (p50 %s; every later hop's under %s): " +
                    "what takes from it, %s, is the first stage that does not keep up%n", LatencyLedger.HOPS[queue],
                    us(result.hops()[queue].getValueAtPercentile(50)), us(Result.QUEUE_MIN_NS),
                    Result.readerOf(queue)));
            }
            if (result.sessionsLost() > 0 || result.dueWhileLost() > 0)
            {
                text.append(String.format(Locale.ROOT, "  SESSIONS LOST: %,d while measuring (a client found its " +
                    "session gone: cut off by the gateway as a slow consumer or as silent, or its connection lost; " +
                    "its orders were canceled and it logged on again); %,d orders fell due while a session was down " +
                    "and were never sent (counted at the logons that ended losses in these seconds; a session still " +
                    "down at the end adds none): the latency figures leave them out, and each schedule began again " +
                    "at its logon%n", result.sessionsLost(), result.dueWhileLost()));
            }
            if (result.backlogAtStart())
            {
                text.append(String.format(Locale.ROOT, "  BACKLOG FROM THE WARM-UP: order-to-ack p50 from due time %s " +
                    "in the first measured second, %s in the last; the percentiles below include a backlog draining " +
                    "(a longer --warmup leaves it out)%n", us(result.secondP50Ns()[0]),
                    us(result.secondP50Ns()[result.secondP50Ns().length - 1])));
            }
            text.append(result.outcomes().describe(result.hopCounts()));
            text.append("  latency (ns)                        count       p50       p90       p99     p99.9       max\n");
            for (int i = 0; i < LatencyLedger.HOPS.length; i++)
            {
                final Histogram h = result.hops()[i];
                text.append(String.format(Locale.ROOT, "    %-30s %9d %9s %9s %9s %9s %9s%n", LatencyLedger.HOPS[i],
                    h.getTotalCount(), cell(h, 50), cell(h, 90), cell(h, 99), cell(h, 99.9), cell(h, 100)));
            }
            text.append(null == result.fix() ? "" : result.fix().describe());
        }
        return text.toString();
    }

    public static String json(final List<Result> results)
    {
        final StringBuilder text = new StringBuilder("{\"benchmark\":\"exchange\",\"runs\":[");
        for (int r = 0; r < results.size(); r++)
        {
            final Result result = results.get(r);
            final Histogram due = result.hops()[LatencyLedger.ORDER_TO_ACK_FROM_DUE];
            text.append(r == 0 ? "" : ",").append(String.format(Locale.ROOT,
                "{\"provider\":\"%s\",\"offered_per_second\":%d,\"achieved_per_second\":%.0f,\"acks\":%d," +
                "\"never_acked\":%d,\"accepted\":%d,\"rejected_by_gateway\":%d,\"rejected_by_engine\":%d," +
                "\"reject_reasons\":%s,\"mostly_rejected\":%b,\"rate_held\":%b,\"queue_ends_at\":%s," +
                "\"sessions_lost\":%d,\"due_while_lost\":%d,\"backlog_at_start\":%b," +
                "\"second_p50_ns\":%s," +
                "\"p50_ns\":%s,\"p99_ns\":%s,\"p99_9_ns\":%s,\"threads\":\"%s\",\"hops\":[", result.provider(),
                result.offered(), result.achieved(), result.acks(), result.unacked(), result.outcomes().accepted(),
                result.outcomes().rejectedByGateway(), result.outcomes().rejectedByEngine(),
                reasonsJson(result.outcomes().rejectReasons()), result.outcomes().mostlyRejected(), result.rateHeld(),
                result.queueEndsAt() < 0 ? "null" : "\"" + LatencyLedger.HOPS[result.queueEndsAt()] + "\"",
                result.sessionsLost(), result.dueWhileLost(), result.backlogAtStart(),
                Arrays.toString(result.secondP50Ns()).replace(" ", ""), jsonValue(due, 50), jsonValue(due, 99),
                jsonValue(due, 99.9), result.threads()));
            for (int i = 0; i < LatencyLedger.HOPS.length; i++)
            {
                final Histogram h = result.hops()[i];
                text.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"hop\":\"%s\",\"count\":%d,\"p50_ns\":%s,\"p90_ns\":%s,\"p99_ns\":%s,\"p99_9_ns\":%s,\"max_ns\":%s}",
                    LatencyLedger.HOPS[i], h.getTotalCount(), jsonValue(h, 50), jsonValue(h, 90), jsonValue(h, 99),
                    jsonValue(h, 99.9), jsonValue(h, 100)));
            }
            text.append(']').append(null == result.fix() ? "" : ",\"fix\":" + result.fix().json()).append('}');
        }
        return text.append("]}").toString();
    }

    /** @return rejects by reason name as a JSON object (the names are the schema's, nothing to escape). */
    private static String reasonsJson(final Map<String, Long> reasons)
    {
        final StringBuilder text = new StringBuilder("{");
        for (final Map.Entry<String, Long> reason : reasons.entrySet())
        {
            text.append(text.length() == 1 ? "" : ",").append('"').append(reason.getKey()).append("\":")
                .append(reason.getValue());
        }
        return text.append('}').toString();
    }

    /** @return the percentile (100: the maximum) for the table, "-" for an empty histogram, not a 0 no one measured. */
    static String cell(final Histogram histogram, final double percentile)
    {
        return 0 == histogram.getTotalCount() ? "-" : Long.toString(value(histogram, percentile));
    }

    /** @return the percentile (100: the maximum) for the JSON, null for an empty histogram. */
    static String jsonValue(final Histogram histogram, final double percentile)
    {
        return 0 == histogram.getTotalCount() ? "null" : Long.toString(value(histogram, percentile));
    }

    private static long value(final Histogram histogram, final double percentile)
    {
        return percentile >= 100 ? histogram.getMaxValue() : histogram.getValueAtPercentile(percentile);
    }
}
