package io.ringwire.messaging.protocol;

import org.agrona.MutableDirectBuffer;

import static io.ringwire.messaging.protocol.FrameDescriptor.CHECKSUM_FLAG;
import static io.ringwire.messaging.protocol.FrameDescriptor.CHECKSUM_LENGTH;
import static io.ringwire.messaging.protocol.FrameDescriptor.FLAGS_OFFSET;
import static io.ringwire.messaging.protocol.FrameDescriptor.HEADER_LENGTH;
import static io.ringwire.messaging.protocol.FrameDescriptor.ORDER;
import static io.ringwire.messaging.protocol.FrameDescriptor.TYPE_DATA;
import static io.ringwire.messaging.protocol.FrameDescriptor.TYPE_OFFSET;

/**
 * The publishing side of frame checksums over a staging ring: whether frames leave with a CRC32C
 * trailer ({@link #checksums}), the trailer length and flag a publisher lays frames out with while
 * they do, and {@link #sign} for every frame before it leaves.
 *
 * <p>Threading: the publisher's owning thread. Allocation-free after construction.
 */
public final class FrameSigner
{
    private final MutableDirectBuffer frames;
    private final FrameChecksum checksum;
    private int trailerLength;
    private byte flag;

    /**
     * @param frames the staging ring, in native memory.
     */
    public FrameSigner(final MutableDirectBuffer frames)
    {
        this.frames = frames;
        this.checksum = new FrameChecksum(frames);
    }

    /**
     * @param wanted whether frames from now on carry a checksum (a connected subscriber wants them).
     */
    public void checksums(final boolean wanted)
    {
        trailerLength = wanted ? CHECKSUM_LENGTH : 0;
        flag = wanted ? CHECKSUM_FLAG : 0;
    }

    /**
     * @return the bytes a data frame ends with after its payload: {@link FrameDescriptor#CHECKSUM_LENGTH}
     *         while frames carry checksums, else 0.
     */
    public int trailerLength()
    {
        return trailerLength;
    }

    /**
     * @return {@link FrameDescriptor#CHECKSUM_FLAG} while frames carry checksums, else 0: or'ed into
     *         a data frame's flags.
     */
    public byte flag()
    {
        return flag;
    }

    /**
     * Signs a frame before it leaves: a data frame laid out with its trailer, and, while frames carry
     * checksums, any other frame long enough to end in one (a PAD frame, a heartbeat), so that no
     * corrupted frame can pass for another kind. Only a PAD frame at the very end of the ring, too
     * short for a header and a trailer, travels unsigned.
     *
     * @param frameOffset where the frame starts in the ring.
     * @param frameLength its length, trailer included.
     */
    public void sign(final int frameOffset, final int frameLength)
    {
        final byte flags = frames.getByte(frameOffset + FLAGS_OFFSET);
        if ((flags & CHECKSUM_FLAG) == 0)
        {
            if (0 == trailerLength || frameLength < HEADER_LENGTH + CHECKSUM_LENGTH ||
                frames.getShort(frameOffset + TYPE_OFFSET, ORDER) == TYPE_DATA)
            {
                return;
            }
            frames.putByte(frameOffset + FLAGS_OFFSET, (byte)(flags | CHECKSUM_FLAG));
        }
        checksum.sign(frameOffset, frameLength);
    }
}
