package io.ringwire.perf.rtt;

/**
 * The latencies a row reports, in nanoseconds: its round trips ({@code RttResult}), or in an open loop
 * its latencies from each message's due time ({@code RttDueTime}), so that the table and the JSON
 * give both alike.
 */
public interface RttPercentiles
{
    /** @return median. */
    long p50();

    /** @return 90th percentile. */
    long p90();

    /** @return 99th percentile. */
    long p99();

    /** @return 99.9th percentile. */
    long p99_9();

    /** @return 99.99th percentile. */
    long p99_99();

    /** @return largest. */
    long max();

    /** @return arithmetic mean. */
    double mean();
}
