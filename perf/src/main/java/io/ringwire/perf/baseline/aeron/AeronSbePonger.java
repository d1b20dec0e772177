package io.ringwire.perf.baseline.aeron;

import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.ringwire.perf.host.SpinningTask;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.rtt.MessagingPonger;
import org.agrona.DirectBuffer;

/**
 * The ponger of the {@code aeron-ipc-sbe} baseline: RingWire messaging's ponger over Aeron IPC. Its
 * handler validates and decodes each probe ({@link LatencyProbeCodec}) and, still inside the poll,
 * claims, encodes and commits the echo on its own publication with the sequence, send timestamp and
 * padding unchanged, as {@link MessagingPonger} does. Ends after echoing
 * {@link LatencyProbeCodec#STOP_SEQUENCE}.
 *
 * <p>Threading: the ponger thread only.
 */
public final class AeronSbePonger extends SpinningTask implements FragmentHandler
{
    private final Subscription subscription;
    private final AeronProbeWriter writer;
    private final LatencyProbeCodec codec = new LatencyProbeCodec();
    /** Reassembles a probe longer than Aeron's MTU; allocation-free once its buffer has grown. */
    private final FragmentAssembler assembler = new FragmentAssembler(this);

    // Ponger thread only (the handler runs inside poll).
    private long received;
    private boolean stopReceived;
    private String error;

    /**
     * @param side          the ponger's publication and subscription, connected.
     * @param messageLength bytes per probe.
     * @param plan          where the thread runs and how it idles.
     */
    public AeronSbePonger(final AeronIpcSide side, final int messageLength, final ThreadPlan plan)
    {
        super("ponger", plan);
        this.subscription = side.subscription;
        this.writer = new AeronProbeWriter(side.publication, messageLength);
    }

    @Override
    protected String runLoop()
    {
        while (true)
        {
            if (subscription.poll(assembler, AeronIpcSide.FRAGMENT_LIMIT) == 0 && idleTooLong(received, "probe"))
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

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final int decoded = codec.decode(buffer, offset, length);
        if (decoded < 0)
        {
            error = "probe " + received + " refused: " + LatencyProbeCodec.describe(decoded);
            return;
        }
        final long sequence = codec.sequence();
        final DirectBuffer padding = codec.padding();
        long result;
        while ((result = writer.tryWrite(length, sequence, codec.sendTimestampNs(), padding, padding.capacity())) < 0)
        {
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED ||
                idleTooLong(received, "probe"))
            {
                error = "echo of probe " + sequence + " failed: " + Publication.errorString(result);
                return;
            }
        }
        received++;
        stopReceived = sequence == LatencyProbeCodec.STOP_SEQUENCE;
    }
}
