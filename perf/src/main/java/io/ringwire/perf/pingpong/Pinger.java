package io.ringwire.perf.pingpong;

import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.host.WatchedConnection;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The measuring side of a ping-pong: sends {@code warmup + messages} pings one at a time, waits for
 * each echo, and records the round trips after the warm-up into an HdrHistogram (3 significant
 * digits). Transports implement {@link #roundTrip(long)}.
 *
 * <p>Threading: the histogram and the counters are written by the pinger thread only and read by
 * the control thread after it joined the pinger; {@link #completed()} alone is read while it runs,
 * for the progress line, and is published with a release store (a plain store on x86).
 */
public abstract class Pinger extends SpinningTask
{
    /** Largest round trip the histogram tracks; longer ones are recorded as this. */
    public static final long HIGHEST_TRACKABLE_NS = TimeUnit.SECONDS.toNanos(10);
    /** Returned by {@link #roundTrip(long)} when it failed; {@link #failureDetail} says why. */
    public static final long FAILED = -1;

    private final IntervalHistogram histogram = new IntervalHistogram(HIGHEST_TRACKABLE_NS, 3);
    /** The warm-up's round trips: recorded the same way, then ignored. */
    private final IntervalHistogram warmupHistogram = new IntervalHistogram(HIGHEST_TRACKABLE_NS, 3);
    /** Open loop only: each message's latency from when it was due ({@link OpenLoopRecorder}). */
    private final IntervalHistogram dueTimeHistogram = new IntervalHistogram(HIGHEST_TRACKABLE_NS, 3);
    private final IntervalHistogram warmupDueTimeHistogram = new IntervalHistogram(HIGHEST_TRACKABLE_NS, 3);
    private final long warmup;
    private final long messages;

    /** Messages due per second in an open loop, 0 for a closed loop; set before the thread starts. */
    private long ratePerSecond;

    private static final VarHandle COMPLETED;

    static
    {
        try
        {
            COMPLETED = MethodHandles.lookup().findVarHandle(Pinger.class, "completed", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** Round trips done, warm-up included; see {@link #completed()}. */
    @SuppressWarnings("unused")
    private long completed;

    /** Why the last round trip failed; written on the failure path only. */
    protected String failureDetail;

    /**
     * For a pinger with no connection to watch.
     *
     * @param plan     where the thread runs and how it idles.
     * @param warmup   unrecorded round trips first.
     * @param messages recorded round trips.
     */
    protected Pinger(final ThreadPlan plan, final long warmup, final long messages)
    {
        this(plan, WatchedConnection.NONE, warmup, messages);
    }

    /**
     * @param plan     where the thread runs and how it idles.
     * @param watched  the connection to watch while waiting for an echo.
     * @param warmup   unrecorded round trips first.
     * @param messages recorded round trips.
     */
    protected Pinger(final ThreadPlan plan, final WatchedConnection watched, final long warmup, final long messages)
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
        // Both open-loop recorders are made here, so the measured window allocates nothing.
        final OpenLoopRecorder warmupRecorder = ratePerSecond > 0 ?
            new OpenLoopRecorder(ratePerSecond, HIGHEST_TRACKABLE_NS, warmupDueTimeHistogram, warmupHistogram) : null;
        final OpenLoopRecorder recorder = ratePerSecond > 0 ?
            new OpenLoopRecorder(ratePerSecond, HIGHEST_TRACKABLE_NS, dueTimeHistogram, histogram) : null;
        final String warmupFailure = null != warmupRecorder ? openLoopRoundTrips(0, warmup, warmupRecorder) :
            roundTrips(0, warmup, warmupHistogram);
        if (null != warmupFailure)
        {
            return warmupFailure + " (warm-up)";
        }
        histogram.reset();
        dueTimeHistogram.reset();
        histogram.whole().setStartTimeStamp(System.currentTimeMillis());
        dueTimeHistogram.whole().setStartTimeStamp(histogram.whole().getStartTimeStamp());
        startMeasuring();
        final String failure = null != recorder ? openLoopRoundTrips(warmup, warmup + messages, recorder) :
            roundTrips(warmup, warmup + messages, histogram);
        stopMeasuring();
        histogram.whole().setEndTimeStamp(System.currentTimeMillis());
        dueTimeHistogram.whole().setEndTimeStamp(histogram.whole().getEndTimeStamp());
        return null != failure ? failure : finish();
    }

    /**
     * Round trips {@code from} (inclusive) to {@code to}, each recorded into {@code recorded}.
     *
     * @return null, or what failed.
     */
    private String roundTrips(final long from, final long to, final IntervalHistogram recorded)
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
                COMPLETED.setRelease(this, sequence + 1);
            }
        }
        catch (final IOException ex)
        {
            return "message " + sequence + ": I/O error: " + ex;
        }
        return null;
    }

    /**
     * Round trips {@code from} (inclusive) to {@code to} in an open loop: each is sent when due on
     * a schedule of {@link #ratePerSecond} that starts now, or at once when the previous echo came
     * back after it was due; {@link OpenLoopRecorder} explains the accounting. The service time
     * is the transport's round trip; the send time is read just before it, so the due-time latency
     * leaves out only the few nanoseconds between that read and the transport's own stamp.
     *
     * @return null, or what failed.
     */
    private String openLoopRoundTrips(final long from, final long to, final OpenLoopRecorder recorder)
    {
        recorder.start(System.nanoTime());
        long sequence = from;
        try
        {
            for (; sequence < to; sequence++)
            {
                final long dueNs = recorder.dueNs(sequence - from);
                long nowNs = System.nanoTime();
                while (nowNs < dueNs)
                {
                    idle();
                    nowNs = System.nanoTime();
                }
                final long roundTripNs = roundTrip(sequence);
                if (roundTripNs == FAILED)
                {
                    return "message " + sequence + ": " + failureDetail;
                }
                recorder.record(dueNs, nowNs, nowNs + roundTripNs);
                COMPLETED.setRelease(this, sequence + 1);
            }
        }
        catch (final IOException ex)
        {
            return "message " + sequence + ": I/O error: " + ex;
        }
        return null;
    }

    /**
     * @return round trips done so far, warm-up included: safe to read from any thread while the
     *         pinger runs.
     */
    public final long completed()
    {
        return (long) COMPLETED.getAcquire(this);
    }

    /**
     * @return round trips the pinger does in all, warm-up included.
     */
    public final long total()
    {
        return warmup + messages;
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
     * @return the recorded round trips (read after the pinger thread ended): in an open loop, each
     *         one's service time, from its actual send.
     */
    public final Histogram histogram()
    {
        return histogram.whole();
    }

    /**
     * Closes the current interval of the measured histograms: called by the control thread once a
     * second while the pinger runs, and once after it ended.
     */
    public final void closeIntervals()
    {
        histogram.closeInterval();
        if (ratePerSecond > 0)
        {
            dueTimeHistogram.closeInterval();
        }
    }

    /**
     * @return the measured round trips (service times in an open loop) per closed interval.
     */
    public final List<Histogram> intervals()
    {
        return histogram.intervals();
    }

    /**
     * @return in an open loop, the due-time latencies per closed interval; empty in a closed loop.
     */
    public final List<Histogram> dueTimeIntervals()
    {
        return ratePerSecond > 0 ? dueTimeHistogram.intervals() : List.of();
    }

    /**
     * Makes the run an open loop: messages are due at {@code ratePerSecond}, each timed from when
     * it was due as well as from its send. Called before the thread starts (its start orders the
     * write).
     *
     * @param ratePerSecond messages due per second; 0 keeps the closed loop.
     */
    public final void openLoopAt(final long ratePerSecond)
    {
        this.ratePerSecond = ratePerSecond;
    }

    /**
     * @return in an open loop, each measured message's latency from its due time (read after the
     *         pinger thread ended); null in a closed loop.
     */
    public final Histogram dueTimeHistogram()
    {
        return ratePerSecond > 0 ? dueTimeHistogram.whole() : null;
    }
}
