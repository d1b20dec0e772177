package io.ringwire.exchange.demo;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The demo's latency histograms: one per hop of an order's round trip, read from the ledger every
 * acknowledgement carries (all times on one host's {@link io.ringwire.exchange.ExchangeClock}, whose
 * processes agree to tens of nanoseconds), plus order-to-ack
 * from the client's send and from the time the order was due (coordinated omission: a stall is
 * charged to every order behind it), and gateway-in to market data.
 *
 * <p>Threading: the clients' threads (one per client group) and the market-data subscriber's
 * record, at once where they run apart (HdrHistogram's {@link Recorder} takes several writers;
 * allocation-free); any one other thread takes interval or total views.
 */
public final class LatencyLedger
{
    /**
     * The hops, in the order an order and its acknowledgement take them. "in engine" runs from the
     * request taken off the gateway's stream to its first report: the journal's append is in it
     * either way, on the engine's thread or, where one runs, on the journaller's before the hand-over.
     */
    public static final String[] HOPS = {
        "client to gateway", "in gateway", "gateway to engine", "in engine", "engine to gateway",
        "gateway to client", "order to ack", "order to ack (from due time)", "gateway in to market data" };
    /** Index of order-to-ack in {@link #HOPS}. */
    public static final int ORDER_TO_ACK = 6;
    /** Index of order-to-ack from the due time. */
    public static final int ORDER_TO_ACK_FROM_DUE = 7;
    /** Index of gateway-in to market data. */
    public static final int TO_MARKET_DATA = 8;

    private static final long HIGHEST_NS = 60_000_000_000L;

    private final Recorder[] recorders = new Recorder[HOPS.length];
    private final Histogram[] totals = new Histogram[HOPS.length];
    private Histogram[] intervals = new Histogram[HOPS.length];
    /**
     * Per hop, readings whose end came before their start: two processes' clocks apart by more than
     * the hop (a wall-clock step between their starts). Counted rather than recorded, so that they
     * neither vanish nor pass for fast hops.
     */
    private final AtomicLongArray negative = new AtomicLongArray(HOPS.length);

    /** Creates empty histograms. */
    public LatencyLedger()
    {
        for (int i = 0; i < HOPS.length; i++)
        {
            recorders[i] = new Recorder(HIGHEST_NS, 3);
            totals[i] = new Histogram(HIGHEST_NS, 3);
        }
    }

    /**
     * Records one acknowledgement's ledger. An absent hop (a time left 0) is skipped; a negative one
     * is counted ({@link #negative(int)}).
     */
    public void recordAck(final long clientSend, final long gatewayIn, final long gatewayOut, final long engineIn,
        final long engineOut, final long gatewayReply, final long received, final long due)
    {
        record(0, clientSend, gatewayIn);
        record(1, gatewayIn, gatewayOut);
        record(2, gatewayOut, engineIn);
        record(3, engineIn, engineOut);
        record(4, engineOut, gatewayReply);
        record(5, gatewayReply, received);
        record(ORDER_TO_ACK, clientSend, received);
        record(ORDER_TO_ACK_FROM_DUE, due, received);
    }

    /** Records the time from the gateway's receipt of an order to its market data's arrival. */
    public void recordMarketData(final long gatewayIn, final long received)
    {
        record(TO_MARKET_DATA, gatewayIn, received);
    }

    private void record(final int hop, final long from, final long to)
    {
        if (from > 0 && to > 0)
        {
            if (to >= from)
            {
                recorders[hop].recordValue(Math.min(to - from, HIGHEST_NS));
            }
            else
            {
                negative.incrementAndGet(hop);
            }
        }
    }

    /** @return readings of the hop (an index into {@link #HOPS}) that ended before they began. */
    public long negative(final int hop)
    {
        return negative.get(hop);
    }

    /** @return the hops that read negative, as "name count" pairs, or an empty string where none did. */
    public String negativeHops()
    {
        final long[] counts = new long[HOPS.length];
        for (int i = 0; i < HOPS.length; i++)
        {
            counts[i] = negative.get(i);
        }
        return negativeHops(counts);
    }

    /**
     * @param counts readings that read negative, by hop (an index into {@link #HOPS}).
     * @return the hops with any, as "name count" pairs, or an empty string where none had.
     */
    public static String negativeHops(final long[] counts)
    {
        final StringBuilder hops = new StringBuilder();
        for (int i = 0; i < HOPS.length; i++)
        {
            if (counts[i] > 0)
            {
                hops.append(hops.isEmpty() ? "" : ", ").append(HOPS[i]).append(' ').append(counts[i]);
            }
        }
        return hops.toString();
    }

    /**
     * Moves what was recorded since the last call into the totals, and returns it.
     *
     * @return per hop, the values recorded since the last call.
     */
    public synchronized Histogram[] interval()
    {
        for (int i = 0; i < HOPS.length; i++)
        {
            intervals[i] = recorders[i].getIntervalHistogram(intervals[i]);
            totals[i].add(intervals[i]);
        }
        return intervals;
    }

    /** Forgets everything recorded so far (the end of a warm-up). Any one thread but the recorder's. */
    public synchronized void reset()
    {
        interval();
        for (int i = 0; i < HOPS.length; i++)
        {
            totals[i].reset();
            negative.set(i, 0);
        }
    }

    /**
     * @return per hop, everything recorded (call {@link #interval()} first to take in the latest).
     */
    public synchronized Histogram[] totals()
    {
        return totals;
    }
}
