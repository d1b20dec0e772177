package io.ringwire.perf.output;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * The live progress line of a long run, on stderr so stdout keeps only the result: once a second,
 * how many of the run's messages are done, the time so far and the rate since the last line. Runs
 * that end within {@link #QUIET_NS} print nothing, so short runs and tests stay terse.
 *
 * <p>Threading: used by the control thread that waits for a run, never by a measured thread; the
 * count it is given is whatever that thread last published.
 */
public final class ProgressLine
{
    /** Runs shorter than this print no progress. */
    public static final long QUIET_NS = TimeUnit.SECONDS.toNanos(2);
    /** Time between two lines. */
    public static final long EVERY_NS = TimeUnit.SECONDS.toNanos(1);

    private final String label;
    private final String unit;
    private final long total;
    private final PrintStream out;
    private final long startNs;
    private long nextNs;
    private long lastNs;
    private long lastDone;
    private int lines;
    private final StringBuilder line = new StringBuilder(128);

    /**
     * Starts the clock.
     *
     * @param label what runs ("shm channel").
     * @param unit  what {@code done} counts ("round trips").
     * @param total how many the run does in all, warm-up included.
     * @param out   where the lines go.
     */
    public ProgressLine(final String label, final String unit, final long total, final PrintStream out)
    {
        this(label, unit, total, out, System.nanoTime());
    }

    ProgressLine(final String label, final String unit, final long total, final PrintStream out, final long startNs)
    {
        this.label = label;
        this.unit = unit;
        this.total = total;
        this.out = out;
        this.startNs = startNs;
        this.nextNs = startNs + QUIET_NS;
        this.lastNs = startNs;
    }

    /**
     * Prints a line when one is due and the run is not finished.
     *
     * @param done how many are done so far.
     */
    public void update(final long done)
    {
        update(done, System.nanoTime());
    }

    /**
     * @param done  how many are done so far.
     * @param nowNs the time now.
     * @return whether a line was printed.
     */
    boolean update(final long done, final long nowNs)
    {
        if (nowNs < nextNs || done >= total)
        {
            return false;
        }
        final double rate = nowNs > lastNs ? (done - lastDone) * 1e9 / (nowNs - lastNs) : 0;
        // Built by hand rather than with String.format, which allocates tens of kilobytes a line:
        // over a long run in a small heap that alone would bring the collection the run is to show
        // it does without.
        line.setLength(0);
        line.append(label).append(": ");
        appendGrouped(line, done).append(" of ");
        appendGrouped(line, total).append(' ').append(unit).append(" (").append(Math.round(100.0 * done / total))
            .append("%), ").append(Math.round((nowNs - startNs) / 1e9)).append(" s, ");
        appendGrouped(line, Math.round(rate)).append("/s").append(System.lineSeparator());
        out.append(line);
        lastNs = nowNs;
        lastDone = done;
        nextNs = nowNs + EVERY_NS;
        lines++;
        return true;
    }

    /**
     * Appends {@code value} with a comma between groups of three digits, as {@code %,d} does in
     * the root locale.
     */
    static StringBuilder appendGrouped(final StringBuilder out, final long value)
    {
        if (value < 0)
        {
            out.append('-');
            return appendGrouped(out, -value);
        }
        if (value < 1000)
        {
            return out.append(value);
        }
        appendGrouped(out, value / 1000).append(',');
        final long group = value % 1000;
        if (group < 100)
        {
            out.append('0');
        }
        if (group < 10)
        {
            out.append('0');
        }
        return out.append(group);
    }

    /**
     * @return lines printed so far.
     */
    public int lines()
    {
        return lines;
    }
}
