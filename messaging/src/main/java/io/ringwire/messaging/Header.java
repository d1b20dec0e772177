package io.ringwire.messaging;

import org.agrona.DirectBuffer;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;

/**
 * Flyweight over the header of the frame a {@link FragmentHandler} is given. Valid only during the
 * call. Allocation-free.
 */
public final class Header
{
    private DirectBuffer buffer;
    private int frameOffset;
    /**
     * What the position word is XORed with to give the position: in a memory log, which stores the
     * complement salted ({@link io.ringwire.messaging.protocol.FrameDescriptor#logPositionWord}),
     * the salt's complement; else 0.
     */
    private long positionWordMask;
    /**
     * The image's, not the frame's: the frame's field lies in memory its publisher may write again
     * after the frame was checked, and a subscriber attributes bytes by session.
     */
    private int sessionId;
    private int streamId;

    /**
     * @param memoryLog         whether the buffer is a memory log (its position words hold the
     *                          complement, salted).
     * @param sessionStreamWord the stream's {@link io.ringwire.messaging.protocol.FrameDescriptor#sessionStreamWord}.
     */
    void wrap(final DirectBuffer buffer, final int frameOffset, final boolean memoryLog, final long sessionStreamWord)
    {
        this.buffer = buffer;
        this.frameOffset = frameOffset;
        this.positionWordMask = memoryLog ? ~logSalt(sessionStreamWord) : 0L;
        this.sessionId = (int)sessionStreamWord;
        this.streamId = (int)(sessionStreamWord >>> 32);
    }

    /** Moves to another frame of the buffer already wrapped. */
    void frameOffset(final int frameOffset)
    {
        this.frameOffset = frameOffset;
    }

    /** @return the frame's session id (one per publication connection): its image's, which the frame was checked to carry. */
    public int sessionId()
    {
        return sessionId;
    }

    /** @return the stream id: its image's, which the frame was checked to carry. */
    public int streamId()
    {
        return streamId;
    }

    /** @return the stream position of this frame's start. */
    public long position()
    {
        return buffer.getLong(frameOffset + POSITION_OFFSET, ORDER) ^ positionWordMask;
    }

    /** @return BEGIN/END flags. */
    public byte flags()
    {
        return buffer.getByte(frameOffset + FLAGS_OFFSET);
    }

    /** @return header plus payload bytes. */
    public int frameLength()
    {
        return buffer.getInt(frameOffset + FRAME_LENGTH_OFFSET, ORDER);
    }
}
