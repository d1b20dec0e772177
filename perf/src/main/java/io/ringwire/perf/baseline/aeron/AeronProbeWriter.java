package io.ringwire.perf.baseline.aeron;

import io.aeron.ExclusivePublication;
import io.aeron.logbuffer.BufferClaim;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes an SBE {@code LatencyProbe} to an Aeron publication the way RingWire messaging's pinger and
 * ponger write one to theirs: claimed in the log ({@code tryClaim}), encoded in place and committed,
 * so the {@code aeron-ipc-sbe} baseline does the same work per message as shm messaging. A probe
 * longer than one claim can hold (Aeron's MTU less its header) is encoded into a buffer and offered,
 * which is what Aeron requires for a message it fragments.
 *
 * <p>Threading: one thread. Allocation-free after construction.
 */
final class AeronProbeWriter
{
    private final ExclusivePublication publication;
    private final BufferClaim claim = new BufferClaim();
    private final LatencyProbeCodec codec = new LatencyProbeCodec();
    private final UnsafeBuffer fragmented;

    /**
     * @param publication   where probes go.
     * @param messageLength bytes per probe.
     */
    AeronProbeWriter(final ExclusivePublication publication, final int messageLength)
    {
        this.publication = publication;
        this.fragmented = AeronIpcSide.messageBuffer(messageLength);
    }

    /**
     * Tries once to write a probe.
     *
     * @param length          the probe's length.
     * @param sequence        its sequence.
     * @param sendTimestampNs the pinger's clock before it claimed.
     * @param padding         its padding bytes.
     * @param paddingLength   how many.
     * @return the new position, or Aeron's negative code ({@code BACK_PRESSURED}, ...).
     */
    long tryWrite(final int length, final long sequence, final long sendTimestampNs, final DirectBuffer padding,
        final int paddingLength)
    {
        if (length <= publication.maxPayloadLength())
        {
            final long position = publication.tryClaim(length, claim);
            if (position > 0)
            {
                codec.encode(claim.buffer(), claim.offset(), sequence, sendTimestampNs, 0, padding, 0, paddingLength);
                claim.commit();
            }
            return position;
        }
        codec.encode(fragmented, 0, sequence, sendTimestampNs, 0, padding, 0, paddingLength);
        return publication.offer(fragmented, 0, length);
    }
}
