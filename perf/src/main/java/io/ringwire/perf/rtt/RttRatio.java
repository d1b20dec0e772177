package io.ringwire.perf.rtt;

/**
 * One p50 ratio read within one run: a path against the path it is judged by.
 *
 * @param provider the transport measured.
 * @param api      its path ({@link RttOptions#API_CHANNEL}, {@link RttOptions#API_MESSAGING} or
 *                 {@link RttOptions#API_RAW}).
 * @param baseline what it is judged against: a raw baseline's name, or {@link RttOptions#API_CHANNEL}
 *                 for messaging against the same provider's channel.
 * @param ratio    the path's p50 over the baseline's (1.07 is 7% slower).
 */
public record RttRatio(String provider, String api, String baseline, double ratio)
{
    /**
     * @return "roce / nio-udp", "shm messaging / aeron-ipc", "shm messaging / channel".
     */
    public String label()
    {
        return provider + (RttOptions.API_MESSAGING.equals(api) ? " messaging" : "") + " / " + baseline;
    }
}
