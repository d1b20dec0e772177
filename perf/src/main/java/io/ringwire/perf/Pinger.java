package io.ringwire.perf;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * The measuring side of a ping-pong: sends {@code warmup + messages} pings one at a time, waits for
 * each echo, and records the round trips after the warm-up into an HdrHistogram (3 significant
 * digits). Transports implement {@link #roundTrip(long)}.
 *
 * <p>Threading: the histogram and the counters are written by the pinger thread only and read by
 * the control thread after it joined the pinger.
 */
abstract class Pinger extends SpinningTask
{
    /** Largest round trip the histogram tracks; longer ones are recorded as this. */
    static final long HIGHEST_TRACKABLE_NS = TimeUnit.SECONDS.toNanos(10);
    /** Returned by {@link #roundTrip(long)} when it failed; {@link #failureDetail} says why. */
    static final long FAILED = -1;

    private final Histogram histogram = new Histogram(HIGHEST_TRACKABLE_NS, 3);
    /** The warm-up's round trips: recorded the same way, then ignored. */
    private final Histogram warmupHistogram = new Histogram(HIGHEST_TRACKABLE_NS, 3);
    private final long warmup;
    private final long messages;

    /** Why the last round trip failed; written on the failure path only. */
    protected String failureDetail;

    /**
     * For a pinger with no connection to watch.
     *
     * @param plan     where the thread runs and how it idles.
     * @param warmup   unrecorded round trips first.
     * @param messages recorded round trips.
     */
    Pinger(final ThreadPlan plan, final long warmup, final long messages)
    {
        this(plan, WatchedConnection.NONE, warmup, messages);
    }

    /**
     * @param plan     where the thread runs and how it idles.
     * @param watched  the connection to watch while waiting for an echo.
     * @param warmup   unrecorded round trips first.
     * @param messages recorded round trips.
     */
    Pinger(final ThreadPlan plan, final WatchedConnection watched, final long warmup, final long messages)
    {
        super("pinger", plan, watched);
        this.warmup = warmup;
        this.messages = messages;
    }

    @Override
    protected final String runLoop()
    {
        // The warm-up runs the very loop and recording code the measurement runs, into a histogram of
        // its own: so the JIT has compiled all of it before the window, and crossing into the window
        // takes no branch never taken before (a deoptimisation there recompiles inside the window,
        // and HotSpot allocates on the thread whose code it compiles).
        final String warmupFailure = roundTrips(0, warmup, warmupHistogram);
        if (null != warmupFailure)
        {
            return warmupFailure + " (warm-up)";
        }
        startMeasuring();
        final String failure = roundTrips(warmup, warmup + messages, histogram);
        stopMeasuring();
        return null != failure ? failure : finish();
    }

    /**
     * Round trips {@code from} (inclusive) to {@code to}, each recorded into {@code recorded}.
     *
     * @return null, or what failed.
     */
    private String roundTrips(final long from, final long to, final Histogram recorded)
    {
        long sequence = from;
        try
        {
            for (; sequence < to; sequence++)
            {
                final long roundTripNs = roundTrip(sequence);
                if (roundTripNs == FAILED)
                {
                    return "message " + sequence + ": " + failureDetail;
                }
                recorded.recordValue(Math.min(roundTripNs, HIGHEST_TRACKABLE_NS));
            }
        }
        catch (final IOException ex)
        {
            return "message " + sequence + ": I/O error: " + ex;
        }
        return null;
    }

    /**
     * Sends ping {@code sequence} (its sequence and send timestamp inside) and waits for its echo.
     * Must allocate nothing on success.
     *
     * @param sequence 0, 1, 2, ...
     * @return the round trip in ns, or {@link #FAILED} with {@link #failureDetail} set.
     * @throws IOException when a socket of a raw baseline fails.
     */
    protected abstract long roundTrip(long sequence) throws IOException;

    /**
     * Tells the ponger the run is over, after the last round trip.
     *
     * @return null when done, else what went wrong.
     */
    protected abstract String finish();

    /**
     * Ends the run as most transports do: one more round trip, carrying the sequence the ponger
     * echoes once more before it stops.
     *
     * @param stopSequence the transport's stop sequence.
     * @return null when the ponger echoed it, else what went wrong.
     */
    protected final String stopWith(final long stopSequence)
    {
        try
        {
            return roundTrip(stopSequence) == FAILED ? "stopping the ponger: " + failureDetail : null;
        }
        catch (final IOException ex)
        {
            return "stopping the ponger: " + ex;
        }
    }

    /**
     * Idles once while waiting for the ponger and, every {@link #CLOCK_CHECK_MASK} + 1 idle rounds
     * ({@link #idleUntilCheck()}), reads the clock: gives up when {@code startNs} is more than
     * {@link #PEER_SILENCE_TIMEOUT_NS} ago or a stop was requested.
     *
     * @param startNs when the wait began.
     * @param what    what did not happen, for {@link #failureDetail} ("no echo", ...).
     * @return true, with {@link #failureDetail} set, when the wait must end.
     */
    protected final boolean idleWhileWaiting(final long startNs, final String what)
    {
        if (!idleUntilCheck())
        {
            return false;
        }
        if (System.nanoTime() - startNs > PEER_SILENCE_TIMEOUT_NS)
        {
            failureDetail = what + " within " + PEER_SILENCE_TIMEOUT_NS / 1_000_000 + " ms" + watchDetail();
            return true;
        }
        if (stopRequested())
        {
            failureDetail = "stopped because the ponger failed";
            return true;
        }
        return false;
    }

    /**
     * Checks that an echo carries the ping's sequence and timestamp; sets {@link #failureDetail}
     * when not.
     *
     * @return true when it does.
     */
    protected final boolean echoMatches(final long sequence, final long sentNs, final long echoedSequence,
        final long echoedSentNs)
    {
        if (echoedSequence == sequence && echoedSentNs == sentNs)
        {
            return true;
        }
        failureDetail = "echo carries sequence " + echoedSequence + " and timestamp " + echoedSentNs +
            ", expected " + sequence + " and " + sentNs;
        return false;
    }

    /**
     * Checks an echo's length; sets {@link #failureDetail} when it is not the message's.
     *
     * @param echo     what the echo is, for the message ("an echo datagram").
     * @param length   its length.
     * @param expected the message's length.
     * @return true when they are the same.
     */
    protected final boolean echoLengthMatches(final String echo, final int length, final int expected)
    {
        if (length == expected)
        {
            return true;
        }
        failureDetail = echo + " of " + length + " bytes, expected " + expected;
        return false;
    }

    /**
     * @return the recorded round trips (read after the pinger thread ended).
     */
    final Histogram histogram()
    {
        return histogram;
    }
}
