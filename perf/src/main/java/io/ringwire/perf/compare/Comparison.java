package io.ringwire.perf.compare;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.rtt.RttRatio;
import io.ringwire.perf.rtt.RttResult;

import java.util.List;

/**
 * One pair {@code ringwire perf compare} reads: a RingWire path beside what a user would pick
 * instead of it, judged by the ratio of their p50s within one round.
 *
 * @param provider the RingWire transport.
 * @param api      its path ({@link Transports#API_CHANNEL} or {@link Transports#API_MESSAGING}).
 * @param baseline the alternative's transport (always measured raw), or {@link #CHANNEL}: the same
 *                 provider's bare channel, for what messaging costs over it.
 */
public record Comparison(String provider, String api, String baseline)
{
    /**
     * perftest's {@code ib_write_lat}, the floor under {@code ibverbs} on the same device, run by
     * {@code compare} where perftest is installed ({@link IbWriteLat}).
     */
    public static final String IB_WRITE_LAT = "ib_write_lat";

    /** The provider's own channel row: the baseline of messaging's overhead over the channel. */
    public static final String CHANNEL = "channel";

    /**
     * Every pair, in the order compare runs them: shm's channel and messaging beside Aeron IPC (raw,
     * and carrying the same SBE probe through the same validation, the like-for-like one for
     * messaging); socket beside a raw NIO TCP ping-pong; roce beside NIO UDP and Aeron UDP; ibverbs
     * beside ib_write_lat; and each provider's messaging over its own channel.
     */
    public static final List<Comparison> ALL = List.of(
        new Comparison(Transports.SHM, Transports.API_CHANNEL, Transports.AERON_IPC),
        new Comparison(Transports.SHM, Transports.API_MESSAGING, Transports.AERON_IPC),
        new Comparison(Transports.SHM, Transports.API_MESSAGING, Transports.AERON_IPC_SBE),
        new Comparison(Transports.SOCKET, Transports.API_CHANNEL, Transports.NIO_TCP),
        new Comparison(Transports.ROCE, Transports.API_CHANNEL, Transports.NIO_UDP),
        new Comparison(Transports.ROCE, Transports.API_CHANNEL, Transports.AERON_UDP),
        new Comparison(Transports.IBVERBS, Transports.API_CHANNEL, IB_WRITE_LAT),
        new Comparison(Transports.SHM, Transports.API_MESSAGING, CHANNEL),
        new Comparison(Transports.SOCKET, Transports.API_MESSAGING, CHANNEL),
        new Comparison(Transports.ROCE, Transports.API_MESSAGING, CHANNEL),
        new Comparison(Transports.IBVERBS, Transports.API_MESSAGING, CHANNEL));

    /**
     * @return "shm / aeron-ipc", "shm messaging / aeron-ipc-sbe" (as {@link RttRatio#label()}).
     */
    public String label()
    {
        return new RttRatio(provider, api, baselineLabel(), 0, null).label();
    }

    private String baselineLabel()
    {
        return CHANNEL.equals(baseline) ? provider + " channel" : baseline;
    }

    /**
     * @param results one round's rows.
     * @return this pair's p50 ratio in them, not comparable where a row of it is no fair baseline on
     *         this host; null when either side is missing or the baseline's p50 is 0.
     */
    RttRatio readingIn(final List<RttResult> results)
    {
        return RttRatio.of(provider, api, baselineLabel(), find(results, provider, api),
            CHANNEL.equals(baseline) ? find(results, provider, Transports.API_CHANNEL) :
            find(results, baseline, Transports.API_RAW));
    }

    /**
     * @param results one round's rows.
     * @return this pair's p50 ratio in them, or {@link Double#NaN} when either side is missing or the
     *         baseline's p50 is 0.
     */
    double ratioIn(final List<RttResult> results)
    {
        final RttRatio reading = readingIn(results);
        return null == reading ? Double.NaN : reading.ratio();
    }

    private static RttResult find(final List<RttResult> results, final String provider, final String api)
    {
        for (final RttResult result : results)
        {
            if (result.provider().equals(provider) && result.api().equals(api))
            {
                return result;
            }
        }
        return null;
    }
}
