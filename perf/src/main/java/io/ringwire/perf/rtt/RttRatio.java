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
 */
public record RttRatio(String provider, String api, String baseline, double ratio)
{
    /**
     * @return "roce / nio-udp", "shm messaging / aeron-ipc", "shm messaging / channel".
     */
    public String label()
    {
        return provider + (Transports.API_MESSAGING.equals(api) ? " messaging" : "") + " / " + baseline;
    }
}
