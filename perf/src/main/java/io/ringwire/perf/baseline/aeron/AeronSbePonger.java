package io.ringwire.perf.baseline.aeron;

import io.aeron.Publication;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.host.WatchedConnection;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.pingpong.ProbePonger;
import org.agrona.DirectBuffer;

/**
 * The ponger of the {@code aeron-ipc-sbe} baseline: RingWire messaging's ponger over Aeron IPC. Its
 * handler validates and decodes each probe ({@link LatencyProbeCodec}) and, still inside the poll,
 * claims, encodes and commits the echo on its own publication with the sequence, send timestamp and
 * padding unchanged, as rtt's messaging ponger does. Ends after echoing
 * {@link LatencyProbeCodec#STOP_SEQUENCE}.
 *
 * <p>Threading: the ponger thread only.
 */
public final class AeronSbePonger extends ProbePonger implements FragmentHandler
{
    private final AeronEnd end;
    private final AeronProbeWriter writer;

    /**
     * @param side          the ponger's publication and subscription, connected.
     * @param messageLength bytes per probe.
     * @param plan          where the thread runs and how it idles.
     */
    public AeronSbePonger(final AeronIpcSide side, final int messageLength, final ThreadPlan plan)
    {
        super(plan, WatchedConnection.NONE);
        this.end = new AeronEnd(side, this);
        this.writer = new AeronProbeWriter(side.publication, messageLength);
    }

    @Override
    protected int pollProbes()
    {
        return end.poll();
    }

    @Override
    protected String echo(final int length, final long sequence, final long sendNs, final DirectBuffer padding)
    {
        long result;
        while ((result = writer.tryWrite(length, sequence, sendNs, padding, padding.capacity())) < 0)
        {
            if (AeronEnd.refusedForGood(result) ||
                idleTooLong(echoed(), "probe"))
            {
                return "failed: " + Publication.errorString(result);
            }
        }
        return null;
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        onProbe(buffer, offset, length);
    }
}
