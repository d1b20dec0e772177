package io.ringwire.messaging.protocol;

import org.agrona.DirectBuffer;

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
 * session and stream ({@link #BAD_SESSION}) and the expected position ({@link #BAD_POSITION}).
 *
 * <p>Threading: the image's polling thread; holds no state besides what it was built with.
 * Allocation-free.
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

    /** The shortest frame: a PAD frame of its length word alone, at the very end of the ring. */
    private static final int MIN_FRAME_LENGTH = 8;

    private final DirectBuffer buffer;
    private final int capacity;
    private final int mask;
    private final long sessionStreamWord;

    /**
     * @param buffer            the ring: its capacity, a power of two, is the ring's.
     * @param sessionStreamWord the {@link FrameDescriptor#sessionStreamWord} every frame of the
     *                          stream carries.
     */
    public FrameReader(final DirectBuffer buffer, final long sessionStreamWord)
    {
        this.buffer = buffer;
        this.capacity = buffer.capacity();
        this.mask = capacity - 1;
        this.sessionStreamWord = sessionStreamWord;
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
        if (type == TYPE_PAD)
        {
            return PAD;
        }
        if (type != TYPE_DATA && type != TYPE_HEARTBEAT)
        {
            return BAD_TYPE;
        }
        if (frameLength < HEADER_LENGTH)
        {
            return BAD_LENGTH;
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
}
