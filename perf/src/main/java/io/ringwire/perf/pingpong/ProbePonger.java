package io.ringwire.perf.pingpong;

import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.host.WatchedConnection;
import org.agrona.DirectBuffer;

/**
 * A ponger that echoes SBE {@code LatencyProbe}s, whatever carries them (RingWire messaging,
 * Aeron): busy-polls ({@link #pollProbes}); its fragment handler validates and decodes each probe
 * ({@link #onProbe}) and, still inside the poll, echoes it with the sequence, send timestamp and
 * padding unchanged ({@link #echo}). Ends after echoing {@link LatencyProbeCodec#STOP_SEQUENCE}.
 *
 * <p>Threading: the ponger thread only; the handler runs on it inside the poll.
 */
public abstract class ProbePonger extends SpinningTask
{
    private final LatencyProbeCodec codec = new LatencyProbeCodec();

    // Written by the fragment handler (inside poll) and the loop, both on the ponger thread.
    private long received;
    private boolean stopReceived;
    private String error;

    /**
     * @param plan    where the thread runs and how it idles.
     * @param watched the connection to watch while waiting for a probe.
     */
    protected ProbePonger(final ThreadPlan plan, final WatchedConnection watched)
    {
        super("ponger", plan, watched);
    }

    @Override
    protected final String runLoop()
    {
        while (true)
        {
            if (pollProbes() == 0 && idleTooLong(received, "probe"))
            {
                return idleFailure();
            }
            if (null != error)
            {
                return error;
            }
            if (stopReceived)
            {
                return null;
            }
        }
    }

    /**
     * Polls the carrier once; its fragment handler passes each fragment to {@link #onProbe}.
     *
     * @return fragments handled, 0 when there was nothing.
     */
    protected abstract int pollProbes();

    /**
     * Sends the echo of a probe. Must allocate nothing on success.
     *
     * @param length   the probe's length.
     * @param sequence its sequence.
     * @param sendNs   its send timestamp.
     * @param padding  its padding, as decoded.
     * @return null, or why the echo could not be sent.
     */
    protected abstract String echo(int length, long sequence, long sendNs, DirectBuffer padding);

    /**
     * A probe was decoded, before its echo: where a ponger that measures itself opens and closes
     * its window. Does nothing by default.
     *
     * @param sequence the probe's sequence.
     */
    protected void beforeEcho(final long sequence)
    {
    }

    /**
     * Validates, decodes and echoes one probe, from the carrier's fragment handler.
     *
     * @param buffer the fragment's buffer.
     * @param offset where the probe starts.
     * @param length its length.
     */
    protected final void onProbe(final DirectBuffer buffer, final int offset, final int length)
    {
        final int decoded = codec.decode(buffer, offset, length);
        if (decoded < 0)
        {
            error = "probe " + received + " refused: " + LatencyProbeCodec.describe(decoded);
            return;
        }
        final long sequence = codec.sequence();
        beforeEcho(sequence);
        final String failure = echo(length, sequence, codec.sendTimestampNs(), codec.padding());
        if (null != failure)
        {
            error = "echo of probe " + sequence + ": " + failure;
            return;
        }
        received++;
        stopReceived = sequence == LatencyProbeCodec.STOP_SEQUENCE;
    }

    /**
     * @return probes echoed, the stop probe included (read after the ponger thread ended).
     */
    public final long echoed()
    {
        return received;
    }
}
