package io.ringwire.messaging.protocol;

import org.agrona.MutableDirectBuffer;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;

/**
 * Checks the frame a receive completion announced against what the stream must hold next, over the
 * ring it lies in: a pure function of the ring's bytes, the position the frame must start at, the
 * completion's immediate (the frame length) and the session and stream every frame of the image
 * carries. It answers with the frame's kind, or with why it breaks the protocol; it changes nothing.
 *
 * <p>The checks, in order: the length is at least a length word and the frame fits before the end
 * of the ring ({@link #BAD_LENGTH}); the length word repeats the immediate ({@link #BAD_LENGTH});
 * the version is {@link FrameDescriptor#CURRENT_VERSION} ({@link #BAD_VERSION}); the type is known
 * ({@link #BAD_TYPE}); a frame other than PAD holds a whole header ({@link #BAD_LENGTH}), the image's
 * session and stream ({@link #BAD_SESSION}) and the expected position ({@link #BAD_POSITION}); a
 * frame marked {@link FrameDescriptor#CHECKSUM_FLAG} holds its trailer ({@link #BAD_LENGTH}) and its
 * CRC32C holds ({@link #BAD_CHECKSUM}), and where checksums are required every frame long enough
 * for a header and a trailer carries one ({@link #BAD_CHECKSUM}), so that no corrupted frame passes
 * for another kind (a data frame for a heartbeat or a PAD frame).
 *
 * <p>Threading: the image's polling thread; holds no state besides what it was built with (and the
 * checksum engine it makes the first time a frame carries a checksum). Allocation-free after that.
 */
public final class FrameReader
{
    /** A data frame: a message or one fragment of one. */
    public static final int DATA = TYPE_DATA;
    /** A PAD frame, to skip. */
    public static final int PAD = TYPE_PAD;
    /** A heartbeat, to skip. */
    public static final int HEARTBEAT = TYPE_HEARTBEAT;
    /**
     * The immediate is shorter than a length word, longer than the rest of the ring, other than the
     * length word, or shorter than a header in a frame that needs one.
     */
    public static final int BAD_LENGTH = -1;
    /** The frame is of a version other than {@link FrameDescriptor#CURRENT_VERSION}. */
    public static final int BAD_VERSION = -2;
    /** The frame's type is none this version knows. */
    public static final int BAD_TYPE = -3;
    /** The frame carries another session or stream than the image's. */
    public static final int BAD_SESSION = -4;
    /** The frame says it starts at another stream position than the one it lies at. */
    public static final int BAD_POSITION = -5;
    /** A data frame's CRC32C does not hold, or it has none where checksums are required. */
    public static final int BAD_CHECKSUM = -6;

    /** The shortest frame: a PAD frame of its length word alone, at the very end of the ring. */
    private static final int MIN_FRAME_LENGTH = 8;

    private final MutableDirectBuffer buffer;
    private final int capacity;
    private final int mask;
    private final long sessionStreamWord;
    private final boolean checksumsRequired;
    private FrameChecksum checksum;

    /**
     * A reader for a stream whose data frames need not carry checksums.
     *
     * @param buffer            the ring: its capacity, a power of two, is the ring's.
     * @param sessionStreamWord the {@link FrameDescriptor#sessionStreamWord} every frame of the
     *                          stream carries.
     */
    public FrameReader(final MutableDirectBuffer buffer, final long sessionStreamWord)
    {
        this(buffer, sessionStreamWord, false);
    }

    /**
     * @param buffer            the ring: its capacity, a power of two, is the ring's (in native
     *                          memory, for frames that carry checksums).
     * @param sessionStreamWord the {@link FrameDescriptor#sessionStreamWord} every frame of the
     *                          stream carries.
     * @param checksumsRequired whether every data frame must carry a checksum.
     */
    public FrameReader(final MutableDirectBuffer buffer, final long sessionStreamWord, final boolean checksumsRequired)
    {
        this.buffer = buffer;
        this.capacity = buffer.capacity();
        this.mask = capacity - 1;
        this.sessionStreamWord = sessionStreamWord;
        this.checksumsRequired = checksumsRequired;
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
     * @param position    the stream position the frame must start at: the image's position.
     * @param frameLength the length the completion announced (its immediate).
     * @return {@link #DATA}, {@link #PAD} or {@link #HEARTBEAT} for a frame that keeps the rules, or
     *         the negative code of the first rule it breaks.
     */
    public int read(final long position, final int frameLength)
    {
        final int offset = offset(position);
        if (frameLength < MIN_FRAME_LENGTH || frameLength > capacity || offset + alignedLength(frameLength) > capacity)
        {
            return BAD_LENGTH;
        }
        final long lengthWord = buffer.getLong(offset + FRAME_LENGTH_OFFSET, ORDER);
        if (FrameDescriptor.frameLength(lengthWord) != frameLength)
        {
            return BAD_LENGTH;
        }
        if (version(lengthWord) != CURRENT_VERSION)
        {
            return BAD_VERSION;
        }
        final short type = type(lengthWord);
        if (type != TYPE_PAD && type != TYPE_DATA && type != TYPE_HEARTBEAT)
        {
            return BAD_TYPE;
        }
        if (frameLength < HEADER_LENGTH)
        {
            return type == TYPE_PAD ? PAD : BAD_LENGTH;
        }
        final int checksummed = checkChecksum(offset, frameLength, flags(lengthWord));
        if (checksummed < 0)
        {
            return checksummed;
        }
        if (type == TYPE_PAD)
        {
            return PAD;
        }
        if (buffer.getLong(offset + SESSION_ID_OFFSET, ORDER) != sessionStreamWord)
        {
            return BAD_SESSION;
        }
        if (buffer.getLong(offset + POSITION_OFFSET, ORDER) != position)
        {
            return BAD_POSITION;
        }
        return type;
    }

    /** @return 0 when the frame's checksum holds or it needs none, else the code of the broken rule. */
    private int checkChecksum(final int offset, final int frameLength, final byte flags)
    {
        if ((flags & CHECKSUM_FLAG) == 0)
        {
            return checksumsRequired && frameLength >= HEADER_LENGTH + CHECKSUM_LENGTH ? BAD_CHECKSUM : 0;
        }
        if (frameLength < HEADER_LENGTH + CHECKSUM_LENGTH)
        {
            return BAD_LENGTH;
        }
        if (null == checksum)
        {
            checksum = new FrameChecksum(buffer);
        }
        return checksum.verify(offset, frameLength) ? 0 : BAD_CHECKSUM;
    }
}
