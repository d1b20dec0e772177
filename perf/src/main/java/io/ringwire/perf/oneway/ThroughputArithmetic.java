package io.ringwire.perf.oneway;

/**
 * The arithmetic of rates, in one place so the table, the JSON and the tests agree: messages per
 * second and megabytes per second (1 MB = 10^6 bytes) over a window measured in nanoseconds.
 */
public final class ThroughputArithmetic
{
    /** Bytes in a megabyte, as the rates are reported. */
    static final double BYTES_PER_MB = 1_000_000.0;
    private static final double NANOS_PER_SECOND = 1_000_000_000.0;

    private ThroughputArithmetic()
    {
    }

    /**
     * @param count  things counted in the window.
     * @param windowNs the window, ns.
     * @return count per second; 0 for an empty window.
     */
    public static double perSecond(final long count, final long windowNs)
    {
        return windowNs <= 0 ? 0 : count * NANOS_PER_SECOND / windowNs;
    }

    /**
     * @param bytes    bytes counted in the window.
     * @param windowNs the window, ns.
     * @return megabytes (10^6 bytes) per second; 0 for an empty window.
     */
    public static double megabytesPerSecond(final long bytes, final long windowNs)
    {
        return perSecond(bytes, windowNs) / BYTES_PER_MB;
    }
}
