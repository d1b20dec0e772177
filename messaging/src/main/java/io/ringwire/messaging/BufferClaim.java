package io.ringwire.messaging;

import io.ringwire.messaging.protocol.FrameDescriptor;
import org.agrona.MutableDirectBuffer;

/**
 * A frame claimed with {@link Publication#tryClaim}: encode the message (e.g. with an SBE encoder)
 * into {@link #buffer()} from {@link #offset()} for {@link #length()} bytes — that is registered
 * memory, sent as it lies — then {@link #commit()} (or {@link #abort()}). Reusable; allocation-free.
 *
 * <p>Threading: the publication's owning thread.
 */
public final class BufferClaim
{
    private Publication publication;
    private MutableDirectBuffer buffer;
    private int frameOffset;
    private int frameLength;

    void wrap(final Publication publication, final MutableDirectBuffer buffer, final int frameOffset,
        final int frameLength)
    {
        this.publication = publication;
        this.buffer = buffer;
        this.frameOffset = frameOffset;
        this.frameLength = frameLength;
    }

    /** @return the buffer to encode into. */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /** @return where the payload starts in {@link #buffer()}. */
    public int offset()
    {
        return frameOffset + FrameDescriptor.HEADER_LENGTH;
    }

    /** @return the payload length claimed. */
    public int length()
    {
        return frameLength - FrameDescriptor.HEADER_LENGTH;
    }

    /**
     * Sends the frame.
     *
     * @return the new stream position, or NOT_CONNECTED if every subscriber went away meanwhile.
     */
    public long commit()
    {
        return release().commitClaim(frameOffset, frameLength);
    }

    /**
     * Gives the claimed space up: it travels as padding, which subscribers skip.
     *
     * @return the new stream position.
     */
    public long abort()
    {
        return release().abortClaim(frameOffset, frameLength);
    }

    /**
     * Ends the claim: a claim is committed or aborted once.
     *
     * @return the publication that made it.
     * @throws IllegalStateException when there is no claim to end.
     */
    private Publication release()
    {
        final Publication owner = publication;
        publication = null;
        if (null == owner)
        {
            throw new IllegalStateException("nothing claimed, or already committed or aborted");
        }
        return owner;
    }
}
