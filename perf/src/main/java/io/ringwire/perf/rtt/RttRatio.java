package io.ringwire.perf.rtt;

import io.ringwire.perf.cli.Transports;
/**
 * One p50 ratio read within one run: a path against the path it is judged by.
 *
 * @param provider the transport measured.
 * @param api      its path ({@link Transports#API_CHANNEL}, {@link Transports#API_MESSAGING} or
 *                 {@link Transports#API_RAW}).
 * @param baseline what it is judged against: a raw baseline's name, or {@link Transports#API_CHANNEL}
 *                 for messaging against the same provider's channel.
 * @param ratio    the path's p50 over the baseline's (1.07 is 7% slower).
 * @param notComparableReason why the two are no fair pair on this host, or null when they are one.
 */
public record RttRatio(String provider, String api, String baseline, double ratio, String notComparableReason)
{
    /**
     * Reads a ratio from two rows of one run.
     *
     * @param provider the transport measured.
     * @param api      its path.
     * @param baseline what it is judged against, as the label names it.
     * @param path     the measured row, or null when it did not run.
     * @param judgedBy the row it is judged against, or null when it did not run.
     * @return the ratio, not comparable where either row is no fair baseline here; null when a row is
     *         missing or the baseline's p50 is 0.
     */
    public static RttRatio of(final String provider, final String api, final String baseline, final RttResult path,
        final RttResult judgedBy)
    {
        if (null == path || null == judgedBy || judgedBy.p50() <= 0)
        {
            return null;
        }
        return new RttRatio(provider, api, baseline, (double)path.p50() / judgedBy.p50(),
            null != judgedBy.notComparableReason() ? judgedBy.notComparableReason() : path.notComparableReason());
    }

    /**
     * @return whether the two are a fair pair on this host.
     */
    public boolean comparable()
    {
        return null == notComparableReason;
    }

    /**
     * @return "roce / nio-udp", "shm messaging / aeron-ipc", "shm messaging / channel".
     */
    public String label()
    {
        return provider + (Transports.API_MESSAGING.equals(api) ? " messaging" : "") + " / " + baseline;
    }
}
