package io.ringwire.messaging.protocol;

import org.agrona.MutableDirectBuffer;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import static io.ringwire.messaging.protocol.FrameDescriptor.CHECKSUM_LENGTH;
import static io.ringwire.messaging.protocol.FrameDescriptor.ORDER;

/**
 * The CRC32C a checksummed data frame ends with ({@link FrameDescriptor#CHECKSUM_FLAG}), over one
 * ring's memory: computed over the frame's header and payload where they lie, with the JDK's
 * intrinsic CRC32C, and stored little-endian in the frame's last {@link FrameDescriptor#CHECKSUM_LENGTH}
 * bytes.
 *
 * <p>Threading: one thread per instance (the ring's writer or reader). Allocation-free after
 * construction.
 */
public final class FrameChecksum
{
    private final CRC32C crc = new CRC32C();
    private final MutableDirectBuffer ring;
    /** The ring's memory as a direct buffer, the form the intrinsic takes; positioned per frame. */
    private final ByteBuffer view;

    /**
     * @param ring a ring over native memory (a registered region's buffer).
     * @throws IllegalArgumentException when the buffer is not over native memory.
     */
    @SuppressWarnings("restricted")
    public FrameChecksum(final MutableDirectBuffer ring)
    {
        if (null != ring.byteArray())
        {
            throw new IllegalArgumentException("a frame checksum needs a ring in native memory");
        }
        this.ring = ring;
        this.view = MemorySegment.ofAddress(ring.addressOffset()).reinterpret(ring.capacity()).asByteBuffer();
    }

    /**
     * Writes the checksum of the frame at {@code frameOffset} into its trailer.
     *
     * @param frameOffset where the frame starts in the ring.
     * @param frameLength the frame's length, trailer included.
     */
    public void sign(final int frameOffset, final int frameLength)
    {
        final int covered = frameLength - CHECKSUM_LENGTH;
        ring.putInt(frameOffset + covered, compute(frameOffset, covered), ORDER);
    }

    /**
     * @param frameOffset where the frame starts in the ring.
     * @param frameLength the frame's length, trailer included.
     * @return whether the trailer holds the checksum of the rest of the frame.
     */
    public boolean verify(final int frameOffset, final int frameLength)
    {
        final int covered = frameLength - CHECKSUM_LENGTH;
        return covered >= 0 && ring.getInt(frameOffset + covered, ORDER) == compute(frameOffset, covered);
    }

    private int compute(final int offset, final int length)
    {
        crc.reset();
        view.limit(offset + length).position(offset);
        crc.update(view);
        return (int)crc.getValue();
    }
}
