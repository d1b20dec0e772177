package io.ringwire.messaging.protocol;

import org.agrona.BitUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

import java.nio.ByteOrder;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;

/**
 * Reads a memory log, the ring a {@link FrameAppender} of a memory log writes with plain stores
 * (shm): frames start on cache lines, and a frame is there once the position word at its offset
 * holds its position's {@link FrameDescriptor#logPositionWord}, salted for the stream, which the
 * appender's commit writes last, with release order. {@link #next} reads that word with acquire
 * order, so a reader that sees it sees every byte of the frame; a header whose position word is not
 * yet written (a torn frame, still being written) is never read. What an earlier lap of the ring
 * left at the offset holds an older position, and the payload a consumed frame left in its later
 * lines would have to hold the exact salted word ({@link FrameDescriptor#logSalt}), so neither
 * passes for a frame and the reader writes nothing into the ring.
 *
 * <p>The checks on a committed frame: the length holds a header and fits before the end of the ring,
 * the version is {@link FrameDescriptor#CURRENT_VERSION}, the type is known, and the frame carries
 * the stream's session and stream. A checksum trailer is the caller's to verify.
 *
 * <p>The header's words are read straight from the ring's memory, not through the buffer's
 * bounds-checked getters: every offset is a position masked to the ring, on a line, so a header
 * lies inside it, and a subscriber polls these words for every frame.
 *
 * <p>Threading: the image's polling thread. Allocation-free; pure over the ring's bytes.
 */
public final class LogReader
{
    /** {@link #next}: no frame is committed at the position yet. */
    public static final long NONE = 0;
    /** {@link #next}: the frame committed at the position breaks the stream's rules. */
    public static final long BROKEN = -1;

    private static final boolean NATIVE_IS_ORDER = ByteOrder.nativeOrder() == ORDER;
    private static final long VERSION_BITS_MASK = 0xFF_0000_0000L;
    private static final long CURRENT_VERSION_BITS = (long)CURRENT_VERSION << 32;

    /** Held so that a mapping behind the ring stays reachable while this reads its memory by address. */
    private final AtomicBuffer ring;
    /** The ring's bytes: its array (null off-heap) and the address of its first byte. */
    private final byte[] array;
    private final long address;
    private final int capacity;
    private final int mask;
    private final long sessionStreamWord;
    private final long salt;

    /**
     * @param ring              the memory log: its capacity, a power of two, is the ring's.
     * @param sessionStreamWord the {@link FrameDescriptor#sessionStreamWord} every frame carries.
     */
    public LogReader(final AtomicBuffer ring, final long sessionStreamWord)
    {
        if (!BitUtil.isPowerOfTwo(ring.capacity()) || ring.capacity() < 8 * LINE_ALIGNMENT)
        {
            throw new IllegalArgumentException("a memory log of " + ring.capacity() +
                " bytes is not a power of two of at least " + 8 * LINE_ALIGNMENT);
        }
        this.ring = ring;
        this.array = ring.byteArray();
        this.address = ring.addressOffset();
        this.capacity = ring.capacity();
        this.mask = capacity - 1;
        this.sessionStreamWord = sessionStreamWord;
        this.salt = logSalt(sessionStreamWord);
    }

    /**
     * @param position where the next frame starts: a multiple of {@link FrameDescriptor#LINE_ALIGNMENT}.
     * @return the length word of the frame committed there ({@link FrameDescriptor#lengthWord}: its
     *         length is the low 32 bits, its flags {@link FrameDescriptor#flags}, its type the top 16
     *         bits), {@link #NONE} when none is committed there yet, or {@link #BROKEN} when the
     *         committed frame breaks the rules. Neither sentinel is a valid length word.
     */
    public long next(final long position)
    {
        final int offset = (int)position & mask;
        final long word = UnsafeApi.getLongVolatile(array, address + offset + POSITION_OFFSET);
        if ((NATIVE_IS_ORDER ? word : Long.reverseBytes(word)) != logPositionWord(position, salt))
        {
            return NONE;
        }
        final long lengthWord = word(offset + FRAME_LENGTH_OFFSET);
        final int frameLength = (int)lengthWord;
        final int type = (int)(lengthWord >>> 48);
        if (frameLength < HEADER_LENGTH || frameLength > capacity - offset ||
            (lengthWord & VERSION_BITS_MASK) != CURRENT_VERSION_BITS ||
            ((type - TYPE_DATA) & 0xFFFF) > TYPE_HEARTBEAT - TYPE_DATA ||
            word(offset + SESSION_ID_OFFSET) != sessionStreamWord)
        {
            return BROKEN;
        }
        return lengthWord;
    }

    /**
     * Consumes the frame at the position once it is handled. Nothing is written into the ring: a
     * later lap's frame is told from what this one left by its salted position word alone.
     *
     * @param position    where the frame starts.
     * @param frameLength its length, as {@link #next} gave it.
     * @return the position after it.
     */
    public long consume(final long position, final int frameLength)
    {
        return position + alignedLength(frameLength, LINE_ALIGNMENT);
    }

    /** A header word in the log's byte order, read with no ordering of its own. */
    private long word(final int offset)
    {
        final long word = UnsafeApi.getLong(array, address + offset);
        return NATIVE_IS_ORDER ? word : Long.reverseBytes(word);
    }
}
