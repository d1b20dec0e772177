package io.ringwire.messaging;

/**
 * What a {@link FragmentHandler} is told of the frame it is given, as the frame's image checked it.
 * Valid only during the call. Allocation-free.
 */
public final class Header
{
    /**
     * The image's, not the frame's: the frame's field lies in memory its publisher may write again
     * after the frame was checked, and a subscriber attributes bytes by session.
     */
    private int sessionId;
    private int streamId;
    /**
     * The frame's flags, length and position as its image checked and acted on them, for the same
     * reason: a handler that branched on the ring's fields (an assembler on BEGIN and END) could
     * otherwise disagree with the image about where a message starts and ends.
     */
    private byte flags;
    private int frameLength;
    private long position;

    /** @param sessionStreamWord the image's {@link io.ringwire.messaging.protocol.FrameDescriptor#sessionStreamWord}. */
    void stream(final long sessionStreamWord)
    {
        this.sessionId = (int)sessionStreamWord;
        this.streamId = (int)(sessionStreamWord >>> 32);
    }

    /** Moves to the next frame handed over, with what its image read of it. */
    void frame(final byte flags, final int frameLength, final long position)
    {
        this.flags = flags;
        this.frameLength = frameLength;
        this.position = position;
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
        return position;
    }

    /** @return BEGIN/END flags. */
    public byte flags()
    {
        return flags;
    }

    /** @return header plus payload bytes. */
    public int frameLength()
    {
        return frameLength;
    }
}
