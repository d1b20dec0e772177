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
 * unavailable-image handler so its partial bytes are dropped.
 *
 * <p>Threading: the polling thread. Allocates only when a session's message outgrows its buffer.
 */
public final class FragmentAssembler implements FragmentHandler
{
    private final FragmentHandler delegate;
    private final Int2ObjectHashMap<Builder> builders = new Int2ObjectHashMap<>();

    /**
     * @param delegate receives whole messages.
     */
    public FragmentAssembler(final FragmentHandler delegate)
    {
        this.delegate = delegate;
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
            builder.append(buffer, offset, length);
        }
        else if (null != builder && builder.active)
        {
            builder.append(buffer, offset, length);
            if ((flags & END_FLAG) != 0)
            {
                builder.active = false;
                delegate.onFragment(builder.buffer, 0, builder.length, header);
            }
        }
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
