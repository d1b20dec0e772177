package io.ringwire.messaging;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.collections.Int2ObjectHashMap;

import static io.ringwire.messaging.protocol.FrameDescriptor.BEGIN_FLAG;
import static io.ringwire.messaging.protocol.FrameDescriptor.END_FLAG;

/**
 * Reassembles fragmented messages per session and hands the delegate whole messages only (an
 * unfragmented one passes straight through, in place). A message whose publication dies before its
 * last fragment is never delivered: register {@link #freeSessionBuffer} as the subscription's
 * unavailable-image handler so its partial bytes are dropped. A message that grows past the
 * assembler's largest (a publication's largest message is half its ring) is dropped and counted,
 * so a peer that sends fragments without end cannot grow the buffer without bound.
 *
 * <p>Threading: the polling thread. Allocates only when a session's message outgrows its buffer.
 */
public final class FragmentAssembler implements FragmentHandler
{
    /** The largest message by default: half the largest ring a subscription takes by default. */
    public static final int DEFAULT_MAX_MESSAGE_LENGTH = 32 << 20;

    private final FragmentHandler delegate;
    private final int maxMessageLength;
    private final Int2ObjectHashMap<Builder> builders = new Int2ObjectHashMap<>();
    private long oversizedMessages;

    /**
     * @param delegate receives whole messages, up to {@link #DEFAULT_MAX_MESSAGE_LENGTH} bytes.
     */
    public FragmentAssembler(final FragmentHandler delegate)
    {
        this(delegate, DEFAULT_MAX_MESSAGE_LENGTH);
    }

    /**
     * @param delegate         receives whole messages.
     * @param maxMessageLength the largest message it assembles (half the largest ring the
     *                         subscription takes); a longer one is dropped and counted.
     */
    public FragmentAssembler(final FragmentHandler delegate, final int maxMessageLength)
    {
        if (maxMessageLength < 1)
        {
            throw new IllegalArgumentException("largest message must be positive: " + maxMessageLength);
        }
        this.delegate = delegate;
        this.maxMessageLength = maxMessageLength;
    }

    /** @return messages dropped for growing past the largest. */
    public long oversizedMessages()
    {
        return oversizedMessages;
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final byte flags = header.flags();
        if ((flags & (BEGIN_FLAG | END_FLAG)) == (BEGIN_FLAG | END_FLAG))
        {
            delegate.onFragment(buffer, offset, length, header);
            return;
        }
        final int sessionId = header.sessionId();
        Builder builder = builders.get(sessionId);
        if ((flags & BEGIN_FLAG) != 0)
        {
            if (null == builder)
            {
                builder = new Builder();
                builders.put(sessionId, builder);
            }
            builder.reset();
            append(builder, buffer, offset, length);
        }
        else if (null != builder && builder.active)
        {
            if (!append(builder, buffer, offset, length))
            {
                return;
            }
            if ((flags & END_FLAG) != 0)
            {
                builder.active = false;
                delegate.onFragment(builder.buffer, 0, builder.length, header);
            }
        }
    }

    private boolean append(final Builder builder, final DirectBuffer buffer, final int offset, final int length)
    {
        if (length > maxMessageLength - builder.length)
        {
            builder.active = false; // its remaining fragments are dropped until the next BEGIN
            oversizedMessages++;
            return false;
        }
        builder.append(buffer, offset, length);
        return true;
    }

    /**
     * Drops a session's partial message (use as the unavailable-image handler).
     *
     * @param sessionId of the image that ended.
     */
    public void freeSessionBuffer(final int sessionId)
    {
        builders.remove(sessionId);
    }

    /** One session's message under construction. */
    private static final class Builder
    {
        final ExpandableDirectByteBuffer buffer = new ExpandableDirectByteBuffer(4096);
        int length;
        boolean active;

        void reset()
        {
            length = 0;
            active = true;
        }

        void append(final DirectBuffer source, final int offset, final int fragmentLength)
        {
            buffer.putBytes(length, source, offset, fragmentLength);
            length += fragmentLength;
        }
    }
}
