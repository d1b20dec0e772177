package io.ringwire.messaging;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import static io.ringwire.messaging.protocol.FrameDescriptor.HEADER_LENGTH;

/**
 * A frame claimed with {@link Publication#tryClaim}: encode the message (e.g. with an SBE encoder)
 * into {@link #buffer()} from {@link #offset()} for {@link #length()} bytes — that is registered
 * memory, sent as it lies — then {@link #commit()} (or {@link #abort()}). As Aeron's, the buffer is a
 * view of the claimed frame alone, its header first, so the payload starts at the header's length
 * and an encoder that runs past the claim meets the view's bounds rather than the next frame.
 * Reusable; allocation-free.
 *
 * <p>Threading: the publication's owning thread.
 */
public final class BufferClaim
{
    private final UnsafeBuffer frame = new UnsafeBuffer(0, 0);
    private Publication publication;

    void wrap(final Publication publication, final DirectBuffer ring, final int frameOffset, final int frameLength)
    {
        this.publication = publication;
        frame.wrap(ring, frameOffset, frameLength);
    }

    /**
     * Points the claim's buffer at nothing: its publication closed and gave the frame up, and the
     * memory behind it may be unmapped. A write into it then meets the view's bounds where agrona
     * checks them (its default); with the checks turned off it faults, as a write into the
     * unmapped ring would.
     */
    void detach()
    {
        frame.wrap(0L, 0);
    }

    /**
     * @return the claimed frame to encode into; valid until the claim is committed or aborted, or
     *         the publication closes.
     */
    public MutableDirectBuffer buffer()
    {
        return frame;
    }

    /** @return where the payload starts in {@link #buffer()}: after the frame's header. */
    public int offset()
    {
        return HEADER_LENGTH;
    }

    /** @return the payload length claimed. */
    public int length()
    {
        return frame.capacity() - HEADER_LENGTH;
    }

    /**
     * Sends the frame.
     *
     * @return the new stream position, NOT_CONNECTED if every subscriber went away meanwhile, or
     *         CLOSED if the publication closed first (the close gave the claim up: nothing is sent).
     */
    public long commit()
    {
        return release().commitClaim(frame.capacity());
    }

    /**
     * Gives the claimed space up: it travels as padding, which subscribers skip.
     *
     * @return the new stream position, or CLOSED if the publication closed first (and gave it up).
     */
    public long abort()
    {
        return release().abortClaim(frame.capacity());
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
