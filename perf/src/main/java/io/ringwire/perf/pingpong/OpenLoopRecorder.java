package io.ringwire.perf.pingpong;

import org.HdrHistogram.ValueRecorder;

/**
 * The accounting of an open-loop run ({@code rtt --rate R}): message {@code i} is due at
 * {@code start + i / R}, whether or not the previous echo has come back, and its latency is
 * measured from that due time, as Aeron's LoadTestRig stamps messages. A stall is then charged to
 * every message that was due during it, not only to the one that met it: the correction for
 * coordinated omission. The service time, from the actual send to the echo, goes to a histogram
 * of its own, so the two can be told apart.
 *
 * <p>A ping-pong has one message in flight, so the pinger cannot send a message before the
 * previous echo arrived: it sends each message when it is due or, when it is already late, at
 * once. Its due-time latency is then the time it waited to be sent plus its round trip. That is
 * what a client with a queue in front of a single connection sees; it does not show what the
 * transport does with several messages in flight.
 *
 * <p>Threading: the pinger thread only; the histograms are read after it was joined. Allocates
 * nothing.
 */
public final class OpenLoopRecorder
{
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long ratePerSecond;
    private final long highestTrackableNs;
    private final ValueRecorder dueTime;
    private final ValueRecorder serviceTime;
    private long startNs;

    /**
     * @param ratePerSecond      messages due per second, at least 1.
     * @param highestTrackableNs latencies above this are recorded as this.
     * @param dueTime            receives each message's latency from its due time.
     * @param serviceTime        receives each message's latency from its actual send.
     */
    OpenLoopRecorder(final long ratePerSecond, final long highestTrackableNs, final ValueRecorder dueTime,
        final ValueRecorder serviceTime)
    {
        if (ratePerSecond < 1)
        {
            throw new IllegalArgumentException("rate must be at least 1 message per second: " + ratePerSecond);
        }
        this.ratePerSecond = ratePerSecond;
        this.highestTrackableNs = highestTrackableNs;
        this.dueTime = dueTime;
        this.serviceTime = serviceTime;
    }

    /**
     * Starts the schedule: message 0 is due at {@code startNs}.
     *
     * @param startNs the clock's reading when the schedule begins.
     */
    void start(final long startNs)
    {
        this.startNs = startNs;
    }

    /**
     * @param index 0, 1, 2, ... counted from {@link #start(long)}; at most 10^9 times fewer than
     *              {@code Long.MAX_VALUE}, so the product cannot overflow.
     * @return when message {@code index} is due: start plus index / rate, never drifting by rounding.
     */
    long dueNs(final long index)
    {
        return startNs + index * NANOS_PER_SECOND / ratePerSecond;
    }

    /**
     * @param dueNs when the message is due.
     * @param nowNs the clock now.
     * @return when it is sent: when due, or now when it is already late.
     */
    static long sendNs(final long dueNs, final long nowNs)
    {
        return Math.max(dueNs, nowNs);
    }

    /**
     * Records one message.
     *
     * @param dueNs  when it was due.
     * @param sentNs when it was sent (not before {@code dueNs}).
     * @param echoNs when its echo arrived.
     * @return its latency from the due time, ns (before capping at the highest trackable value).
     */
    long record(final long dueNs, final long sentNs, final long echoNs)
    {
        final long fromDueNs = echoNs - dueNs;
        dueTime.recordValue(Math.min(fromDueNs, highestTrackableNs));
        serviceTime.recordValue(Math.min(echoNs - sentNs, highestTrackableNs));
        return fromDueNs;
    }
}
