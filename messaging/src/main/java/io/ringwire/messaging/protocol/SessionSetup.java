package io.ringwire.messaging.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What a publication and a subscription tell each other in the connection manager's application
 * data, besides the regions: a magic, a version, the stream id, the session id and the ring
 * capacity the publication writes with. The publication's REQ advertises its credit region; the
 * subscription's REP advertises the ring.
 *
 * <pre>
 *   0: int magic "RWMS" | 4: int version | 8: int streamId | 12: int sessionId | 16: int ringCapacity
 *  20: int flags        | 24: long initial position (where the subscriber's image starts reading)
 * </pre>
 *
 * <p>Flags, set by a subscription in its answer: {@link #FRAME_CHECKSUMS} when it wants every data
 * frame checksummed end to end (its transport does not verify integrity by itself);
 * {@link #MEMORY_LOG} when its ring is a memory log (the provider shares memory with the
 * publication: the publication writes frames with its own stores, line-aligned, committed by their
 * position word, and the subscription stores its credit straight into the publication's credit
 * region). Bits a receiver does not know are ignored, and a sender of an older build sends none.
 *
 * <p>Threading: an immutable value; encoding and decoding allocate (connection setup only).
 *
 * @param streamId        the stream.
 * @param sessionId       the publication's session.
 * @param ringCapacity    the ring's length in bytes.
 * @param initialPosition the stream position of the first frame this connection carries.
 * @param flags           {@link #FRAME_CHECKSUMS}, {@link #MEMORY_LOG}, or 0.
 */
public record SessionSetup(int streamId, int sessionId, int ringCapacity, long initialPosition, int flags)
{
    /** The subscription wants a CRC32C in every data frame (see {@link FrameDescriptor#CHECKSUM_FLAG}). */
    public static final int FRAME_CHECKSUMS = 1;
    /** The ring is a memory log (see {@link FrameDescriptor#LINE_ALIGNMENT}). */
    public static final int MEMORY_LOG = 2;

    /** "RWMS" as a little-endian int: the first field of every setup. */
    public static final int MAGIC = 0x524D5753;
    /**
     * The messaging protocol version this build speaks; a peer of another version is refused. 2: the
     * JOIN carries the connection's number ({@link JoinLayout}); 3: keepalives
     * ({@link FrameDescriptor#KEEPALIVE_IMMEDIATE}, {@link CreditLayout#PUBLICATION_BEAT_OFFSET}).
     */
    public static final int VERSION = 3;
    /** Bytes of an encoded setup. */
    public static final int LENGTH = 32;

    /**
     * A setup without flags.
     *
     * @param streamId        the stream.
     * @param sessionId       the publication's session.
     * @param ringCapacity    the ring's length in bytes.
     * @param initialPosition the stream position of the first frame this connection carries.
     */
    public SessionSetup(final int streamId, final int sessionId, final int ringCapacity, final long initialPosition)
    {
        this(streamId, sessionId, ringCapacity, initialPosition, 0);
    }

    /**
     * @return whether the subscription wants every data frame checksummed.
     */
    public boolean frameChecksums()
    {
        return (flags & FRAME_CHECKSUMS) != 0;
    }

    /**
     * @return whether the ring is a memory log.
     */
    public boolean memoryLog()
    {
        return (flags & MEMORY_LOG) != 0;
    }

    /**
     * @return this setup in the layout above, {@link #LENGTH} bytes.
     */
    public byte[] encode()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(MAGIC).putInt(VERSION).putInt(streamId).putInt(sessionId).putInt(ringCapacity).putInt(flags)
            .putLong(initialPosition);
        return buffer.array();
    }

    /**
     * @param data application data from the peer.
     * @return the setup.
     * @throws IllegalArgumentException when it is not a RingWire messaging setup of this version.
     */
    public static SessionSetup decode(final byte[] data)
    {
        if (null == data || data.length != LENGTH)
        {
            throw new IllegalArgumentException("not a RingWire messaging session setup (" +
                (null == data ? "none" : data.length + " bytes") + ")");
        }
        final ByteBuffer buffer = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        if (buffer.getInt() != MAGIC)
        {
            throw new IllegalArgumentException("not a RingWire messaging session setup (bad magic)");
        }
        final int version = buffer.getInt();
        if (version != VERSION)
        {
            throw new IllegalArgumentException("messaging protocol version " + version + " is not supported (this is " +
                VERSION + ")");
        }
        final int streamId = buffer.getInt();
        final int sessionId = buffer.getInt();
        final int ringCapacity = buffer.getInt();
        final int flags = buffer.getInt();
        return new SessionSetup(streamId, sessionId, ringCapacity, buffer.getLong(), flags);
    }
}
