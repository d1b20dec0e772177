package io.ringwire.messaging.protocol;

import org.agrona.BitUtil;

import java.nio.ByteOrder;

/**
 * Layout of a frame in a subscriber's ring (little-endian), 8-byte aligned:
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |              frame length (header + payload, unaligned)       |  0
 *  +---------------+---------------+-------------------------------+
 *  |    version    |B|E|C| flags   |             type              |  4
 *  +---------------+---------------+-------------------------------+
 *  |                          session id                           |  8
 *  +---------------------------------------------------------------+
 *  |                          stream id                            | 12
 *  +---------------------------------------------------------------+
 *  |           position of this frame in the stream (64)           | 16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      payload ...                              | 24
 *  +---------------------------------------------------------------+
 *  |       CRC32C of header and payload (only with flag C)         |
 * </pre>
 *
 * B and E mark the first and last fragment of a message (both set: unfragmented). C
 * ({@link #CHECKSUM_FLAG}) marks a data frame that ends in a CRC32C of everything before it, header
 * included, counted in the frame length: an end-to-end check for transports that do not verify
 * every byte themselves (see {@link FrameChecksum}). A frame that does
 * not fit before the end of the ring is preceded by a PAD frame filling the rest of the ring, as in
 * Aeron. Over RDMA each frame, padding included, is written with one RDMA WRITE WITH IMMEDIATE
 * whose immediate is the frame length, so a receive completion means a whole frame is in place.
 * In a memory log (shm, see {@link LogReader}) frames start at multiples of {@link #LINE_ALIGNMENT}
 * instead, so a message of up to {@link #LINE_PAYLOAD} bytes and its header share one cache line,
 * and the position word, holding the bitwise complement of the position mixed with a salt of the
 * publication's session ({@link #logPositionWord}, {@link #logSalt}), is written last, with release
 * order: it is what the reader spins on, it tells a frame of this lap of the ring from what an
 * earlier lap left there (a header of another position, or a payload's bytes, which would have to
 * hold that exact salted word), and the zeros of a fresh ring never read as the frame at position 0.
 *
 * <p>Constants and pure functions only: usable from any thread.
 */
public final class FrameDescriptor
{
    /** Byte order of every header field. */
    public static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    /** Frames start at multiples of this. */
    public static final int ALIGNMENT = 8;
    /** Frames of a memory log start at multiples of this: a cache line. */
    public static final int LINE_ALIGNMENT = 64;
    /** Bytes of header before the payload. */
    public static final int HEADER_LENGTH = 24;
    /** The largest payload that shares a cache line with its header in a memory log. */
    public static final int LINE_PAYLOAD = LINE_ALIGNMENT - HEADER_LENGTH;
    /**
     * The immediate of a keepalive: a WRITE WITH IMMEDIATE of no bytes, which tells a subscriber its
     * publication lives while another subscriber's full ring holds every frame back (a frame's
     * immediate is its length, and a frame writes at least a length word). It takes a receive and
     * no ring space, and moves no position.
     */
    public static final int KEEPALIVE_IMMEDIATE = 0;

    /** Offset of the frame length (header plus payload, unaligned). */
    public static final int FRAME_LENGTH_OFFSET = 0;
    /** Offset of the frame format version byte. */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the BEGIN/END flags byte. */
    public static final int FLAGS_OFFSET = 5;
    /** Offset of the frame type. */
    public static final int TYPE_OFFSET = 6;
    /** Offset of the publication's session id. */
    public static final int SESSION_ID_OFFSET = 8;
    /** Offset of the stream id. */
    public static final int STREAM_ID_OFFSET = 12;
    /** Offset of the frame's stream position. */
    public static final int POSITION_OFFSET = 16;

    /** The frame format version every frame is written with, and the only one a reader accepts. */
    public static final byte CURRENT_VERSION = 1;
    /** First fragment of a message. */
    public static final byte BEGIN_FLAG = (byte)0x80;
    /** Last fragment of a message. */
    public static final byte END_FLAG = 0x40;
    /** An unfragmented message. */
    public static final byte UNFRAGMENTED = (byte)(BEGIN_FLAG | END_FLAG);
    /** A data frame whose last {@link #CHECKSUM_LENGTH} bytes are a CRC32C of the rest of it. */
    public static final byte CHECKSUM_FLAG = 0x20;
    /** Bytes of the CRC32C trailer of a checksummed frame. */
    public static final int CHECKSUM_LENGTH = 4;

    /** Application data. */
    public static final short TYPE_DATA = 1;
    /** Fills the end of the ring; skipped by subscribers. */
    public static final short TYPE_PAD = 2;
    /** Keeps an idle publication alive; carries no payload. */
    public static final short TYPE_HEARTBEAT = 3;

    private FrameDescriptor()
    {
    }

    /**
     * @param frameLength header plus payload.
     * @return the space the frame takes in the ring.
     */
    public static int alignedLength(final int frameLength)
    {
        return BitUtil.align(frameLength, ALIGNMENT);
    }

    /**
     * @param position a frame's stream position.
     * @param salt     the stream's {@link #logSalt}.
     * @return what the position word of a memory log's frame holds: the position's bitwise
     *         complement mixed with the salt, never 0 for a position of 0 or more (the complement's
     *         top bit is set, the salt's clear).
     */
    public static long logPositionWord(final long position, final long salt)
    {
        return ~position ^ salt;
    }

    /**
     * The salt of a memory log's position words: the session and stream, mixed (splitmix64's
     * finalizer) so that every bit depends on the publication's random session id. A payload
     * written into the ring passes for a later frame's position word only by holding that exact
     * word, which honest data does not by chance (and what a publication's own payload forges
     * lands in its own stream alone, which it could fill with any frame it likes); the reader
     * therefore never clears the lines a consumed frame's payload took, and the publisher takes
     * them back on its next lap without a store of the reader's in between.
     *
     * @param sessionStreamWord the stream's {@link #sessionStreamWord}.
     * @return the salt: a long whose top bit is clear.
     */
    public static long logSalt(final long sessionStreamWord)
    {
        long h = sessionStreamWord;
        h = (h ^ (h >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        h = (h ^ (h >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return (h ^ (h >>> 31)) & Long.MAX_VALUE;
    }

    /**
     * @param frameLength header plus payload.
     * @param alignment   {@link #ALIGNMENT} or {@link #LINE_ALIGNMENT}.
     * @return the space the frame takes in a ring of that alignment.
     */
    public static int alignedLength(final int frameLength, final int alignment)
    {
        return BitUtil.align(frameLength, alignment);
    }

    /**
     * The header's first 8 bytes as one little-endian word (frame length, version, flags, type), so
     * a header is written, and checked, in three 8-byte accesses rather than one per field.
     *
     * @param frameLength header plus payload.
     * @param version     the frame format version.
     * @param flags       BEGIN/END flags.
     * @param type        the frame type.
     * @return the word at {@link #FRAME_LENGTH_OFFSET}.
     */
    public static long lengthWord(final int frameLength, final byte version, final byte flags, final short type)
    {
        return (frameLength & 0xFFFF_FFFFL) | (version & 0xFFL) << 32 | (flags & 0xFFL) << 40 | (type & 0xFFFFL) << 48;
    }

    /**
     * @param lengthWord a {@link #lengthWord}.
     * @return its frame length.
     */
    public static int frameLength(final long lengthWord)
    {
        return (int)lengthWord;
    }

    /**
     * @param lengthWord a {@link #lengthWord}.
     * @return its frame format version.
     */
    public static byte version(final long lengthWord)
    {
        return (byte)(lengthWord >>> 32);
    }

    /**
     * @param lengthWord a {@link #lengthWord}.
     * @return its BEGIN/END flags.
     */
    public static byte flags(final long lengthWord)
    {
        return (byte)(lengthWord >>> 40);
    }

    /**
     * @param lengthWord a {@link #lengthWord}.
     * @return its frame type.
     */
    public static short type(final long lengthWord)
    {
        return (short)(lengthWord >>> 48);
    }

    /**
     * The header's second 8 bytes (session id, stream id) as one little-endian word.
     *
     * @param sessionId the publication's session.
     * @param streamId  the stream.
     * @return the word at {@link #SESSION_ID_OFFSET}.
     */
    public static long sessionStreamWord(final int sessionId, final int streamId)
    {
        return (sessionId & 0xFFFF_FFFFL) | (long)streamId << 32;
    }

    /**
     * @param ringCapacity the ring's length, a power of two.
     * @return the largest payload of one frame: an eighth of the ring, as Aeron's max frame per term,
     *         less the header and room for a checksum trailer, so that the limit does not change
     *         with whether a subscriber asks for checksums.
     */
    public static int maxPayloadLength(final int ringCapacity)
    {
        return ringCapacity / 8 - HEADER_LENGTH - CHECKSUM_LENGTH;
    }
}
