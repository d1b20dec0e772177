package io.ringwire.messaging.protocol;

import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

import java.nio.ByteOrder;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;

/**
 * Lays frames out in a ring as {@link FrameDescriptor} describes them, as Aeron's
 * {@code ExclusiveTermAppender} does in a term: over a plain buffer whose capacity is the ring's, at
 * the offset a stream position maps to. It knows nothing of how a frame then travels.
 *
 * <p>The caller owns the stream position: each append takes the position the ring is written up
 * to and returns the position its frame starts at. Where a frame does not fit before the end of the
 * ring, a PAD frame fills the rest of the ring and the frame starts at offset 0, so a returned
 * position greater than the one given means a PAD frame of the difference lies in between; the
 * position after the frame is the returned one plus {@link FrameDescriptor#alignedLength} of the
 * frame.
 *
 * <p>A frame is published by {@link #commit}: its position word, written last with release order,
 * is the one a memory log's reader spins on, so a reader that sees it sees the whole frame. A PAD
 * frame the padding rule needs is committed by the call that writes it.
 *
 * <p>The header's words are written straight to the ring's memory, not through the buffer's
 * bounds-checked setters: a header's offset is a position masked to the ring, and the padding rule
 * keeps every frame, and the length word of a PAD frame shorter than a header, inside it.
 *
 * <p>Threading: one writing thread. Allocation-free.
 */
public final class FrameAppender
{
    private static final boolean NATIVE_IS_ORDER = ByteOrder.nativeOrder() == ORDER;

    private final AtomicBuffer buffer;
    /** The ring's bytes, for the header's words: its array (null off-heap) and the address of its first byte. */
    private final byte[] array;
    private final long address;
    private final int capacity;
    private final int mask;
    private final int alignment;
    /** A memory log: line-aligned frames whose position word holds {@link FrameDescriptor#logPositionWord}. */
    private final boolean memoryLog;
    /** The session and stream word whose {@link FrameDescriptor#logSalt} is {@link #salt}. */
    private long saltedWord;
    private long salt = logSalt(0);

    /**
     * An appender of 8-byte aligned frames, for rings an RDMA WRITE fills.
     *
     * @param buffer the ring: its capacity, a power of two of at least 8 headers, is the ring's.
     * @throws IllegalArgumentException when the capacity is not such a power of two.
     */
    public FrameAppender(final AtomicBuffer buffer)
    {
        this(buffer, false);
    }

    /**
     * @param buffer    the ring: its capacity, a power of two of at least 8 headers, is the ring's.
     * @param memoryLog true for a memory log: frames start on cache lines
     *                  ({@link FrameDescriptor#LINE_ALIGNMENT}) and the position word holds
     *                  {@link FrameDescriptor#logPositionWord}.
     * @throws IllegalArgumentException when the capacity is not such a power of two.
     */
    public FrameAppender(final AtomicBuffer buffer, final boolean memoryLog)
    {
        final int alignment = memoryLog ? LINE_ALIGNMENT : ALIGNMENT;
        this.memoryLog = memoryLog;
        final int capacity = buffer.capacity();
        if (!BitUtil.isPowerOfTwo(capacity) || maxPayloadLength(capacity) < 0 || capacity < 8 * alignment)
        {
            throw new IllegalArgumentException("a ring of " + capacity + " bytes is not a power of two of at least " +
                8 * Math.max(HEADER_LENGTH, alignment));
        }
        this.buffer = buffer;
        this.array = buffer.byteArray();
        this.address = buffer.addressOffset();
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.alignment = alignment;
    }

    /** @return where frames start: multiples of this. */
    public int alignment()
    {
        return alignment;
    }

    /**
     * @param frameLength header plus payload.
     * @return the space the frame takes in this ring.
     */
    public int alignedLength(final int frameLength)
    {
        return FrameDescriptor.alignedLength(frameLength, alignment);
    }

    /** @return the ring the frames are written into. */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /** @return the ring's length in bytes. */
    public int capacity()
    {
        return capacity;
    }

    /**
     * @param position a stream position.
     * @return where it lies in the ring.
     */
    public int offset(final long position)
    {
        return (int)position & mask;
    }

    /**
     * The padding rule: a frame that does not fit before the end of the ring is preceded by a PAD
     * frame filling the rest of it.
     *
     * @param position    where the ring is written up to.
     * @param frameLength header plus payload of the frame to append.
     * @return the length of the PAD frame the frame needs before it, or 0 when it fits.
     */
    public int padding(final long position, final int frameLength)
    {
        final int offset = offset(position);
        return offset + alignedLength(frameLength) > capacity ? capacity - offset : 0;
    }

    /**
     * Publishes a frame whose header and payload are in place: writes its position word (in a memory
     * log, {@link FrameDescriptor#logPositionWord}, salted for the session and stream) with release
     * order, so every byte written before is visible to a reader that sees it. Nothing is read from
     * the ring.
     *
     * @param framePosition     where the frame starts, as {@link #claim} returned it.
     * @param sessionStreamWord the publication's {@link FrameDescriptor#sessionStreamWord}, as its
     *                          header holds it.
     */
    public void commit(final long framePosition, final long sessionStreamWord)
    {
        final long word = memoryLog ? logPositionWord(framePosition, salt(sessionStreamWord)) : framePosition;
        UnsafeApi.putLongRelease(array, address + offset(framePosition) + POSITION_OFFSET,
            NATIVE_IS_ORDER ? word : Long.reverseBytes(word));
    }

    /**
     * @return the salt of a session and stream word; the last one is kept, as a publication's word
     *         changes only when it starts a new session.
     */
    private long salt(final long sessionStreamWord)
    {
        if (sessionStreamWord != saltedWord)
        {
            saltedWord = sessionStreamWord;
            salt = logSalt(sessionStreamWord);
        }
        return salt;
    }

    /**
     * Claims a frame: writes and commits any PAD frame the {@link #padding} rule needs, then the
     * frame's header but its position word (the payload is the caller's to write, after the header;
     * {@link #commit} publishes the frame).
     *
     * @param position          where the ring is written up to.
     * @param frameLength       header plus payload, at least {@link FrameDescriptor#HEADER_LENGTH}.
     * @param flags             BEGIN/END flags.
     * @param type              the frame type.
     * @param sessionStreamWord the publication's {@link FrameDescriptor#sessionStreamWord}.
     * @return the position the frame starts at: {@code position}, or the end of the ring after a PAD
     *         frame.
     */
    public long claim(final long position, final int frameLength, final byte flags, final short type,
        final long sessionStreamWord)
    {
        final int padding = padding(position, frameLength);
        if (padding != 0)
        {
            writeHeader(position, padding, UNFRAGMENTED, TYPE_PAD, sessionStreamWord);
            if (padding >= HEADER_LENGTH)
            {
                commit(position, sessionStreamWord);
            }
        }
        final long framePosition = position + padding;
        writeHeader(framePosition, frameLength, flags, type, sessionStreamWord);
        return framePosition;
    }

    /**
     * Appends a data frame (a whole message, or one fragment of one) with its payload copied in, and
     * commits it (a checksum trailer, which covers the position word, is signed after).
     *
     * @param position          where the ring is written up to.
     * @param flags             BEGIN/END flags.
     * @param source            holding the payload.
     * @param sourceOffset      of the payload.
     * @param length            of the payload, at most {@link FrameDescriptor#maxPayloadLength}.
     * @param trailerLength     bytes after the payload the frame holds for its checksum:
     *                          {@link FrameDescriptor#CHECKSUM_LENGTH} when {@code flags} carry
     *                          {@link FrameDescriptor#CHECKSUM_FLAG}, else 0 (the caller signs it).
     * @param sessionStreamWord the publication's {@link FrameDescriptor#sessionStreamWord}.
     * @return the position the frame starts at (see {@link #claim}).
     */
    public long appendData(final long position, final byte flags, final DirectBuffer source, final int sourceOffset,
        final int length, final int trailerLength, final long sessionStreamWord)
    {
        final long framePosition = claim(position, HEADER_LENGTH + length + trailerLength, flags, TYPE_DATA,
            sessionStreamWord);
        buffer.putBytes(offset(framePosition) + HEADER_LENGTH, source, sourceOffset, length);
        commit(framePosition, sessionStreamWord);
        return framePosition;
    }

    /**
     * Appends a heartbeat, a header alone, and commits it.
     *
     * @param position          where the ring is written up to.
     * @param sessionStreamWord the publication's {@link FrameDescriptor#sessionStreamWord}.
     * @return the position the frame starts at (see {@link #claim}).
     */
    public long appendHeartbeat(final long position, final long sessionStreamWord)
    {
        final long framePosition = claim(position, HEADER_LENGTH, UNFRAGMENTED, TYPE_HEARTBEAT, sessionStreamWord);
        commit(framePosition, sessionStreamWord);
        return framePosition;
    }

    /**
     * Turns a claimed frame into a PAD frame of the same length, which subscribers skip; the caller
     * commits it.
     *
     * @param framePosition     where the claimed frame starts, as {@link #claim} returned it.
     * @param frameLength       the claimed frame's length.
     * @param sessionStreamWord the publication's {@link FrameDescriptor#sessionStreamWord}.
     */
    public void abort(final long framePosition, final int frameLength, final long sessionStreamWord)
    {
        writeHeader(framePosition, frameLength, UNFRAGMENTED, TYPE_PAD, sessionStreamWord);
    }

    /**
     * Writes a header of the current version at the offset of {@code framePosition} but its position
     * word, which {@link #commit} writes: the length word always, the session and stream where the
     * frame is long enough to hold them (a PAD frame at the very end of an 8-byte aligned ring may be
     * 8 or 16 bytes long, and then has neither).
     */
    private void writeHeader(final long framePosition, final int frameLength, final byte flags, final short type,
        final long sessionStreamWord)
    {
        final int frameOffset = offset(framePosition);
        putWord(frameOffset + FRAME_LENGTH_OFFSET, lengthWord(frameLength, CURRENT_VERSION, flags, type));
        if (frameLength >= HEADER_LENGTH)
        {
            putWord(frameOffset + SESSION_ID_OFFSET, sessionStreamWord);
        }
    }

    /** Writes a header word in the log's byte order, with no ordering of its own. */
    private void putWord(final int offset, final long word)
    {
        UnsafeApi.putLong(array, address + offset, NATIVE_IS_ORDER ? word : Long.reverseBytes(word));
    }
}
