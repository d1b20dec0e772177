package io.ringwire.perf.rtt;

import io.ringwire.perf.output.ProgressLine;
import io.ringwire.perf.pingpong.Pinger;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * What the control thread does for a running pinger at each of its waits: the progress line, and
 * once a second closing the interval of the pinger's histograms for the interval log.
 *
 * <p>Threading: the control thread only.
 */
final class PingerWatch
{
    /** Length of one interval of the {@code .hdr} log. */
    static final long INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);

    private final Pinger pinger;
    private final ProgressLine progress;
    private long nextIntervalNs;

    /**
     * Called just before the pinger's thread starts.
     *
     * @param label  the row ("shm channel").
     * @param pinger the pinger to watch.
     * @param log    where the progress line goes.
     */
    PingerWatch(final String label, final Pinger pinger, final PrintStream log)
    {
        this.pinger = pinger;
        this.progress = new ProgressLine(label, "round trips", pinger.total(), log);
        this.nextIntervalNs = System.nanoTime() + INTERVAL_NS;
    }

    /**
     * One wait of the control thread is over: prints progress and closes an interval when due.
     */
    void tick()
    {
        progress.update(pinger.completed());
        final long nowNs = System.nanoTime();
        if (nowNs >= nextIntervalNs)
        {
            pinger.closeIntervals();
            nextIntervalNs = nowNs + INTERVAL_NS;
        }
    }

    /**
     * The pinger's thread has ended: closes the last interval.
     */
    void finish()
    {
        pinger.closeIntervals();
    }
}
