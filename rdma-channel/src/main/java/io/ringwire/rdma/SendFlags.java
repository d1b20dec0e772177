package io.ringwire.rdma;

/**
 * Flags of a send work request, with libibverbs' values ({@code IBV_SEND_*}).
 */
public final class SendFlags
{
    /** No flags: unsignaled, not inline. */
    public static final int NONE = 0;
    /** Produce a completion on the send CQ when the request completes successfully. Failed requests
     * always produce one, signaled or not. */
    public static final int SIGNALED = 1 << 1;
    /** Copy the payload at post time (up to the device's max inline size): the local buffer may be
     * reused as soon as the post returns, and no lkey is needed. */
    public static final int INLINE = 1 << 3;

    private SendFlags()
    {
    }

    /**
     * @param flags of a work request.
     * @return true when SIGNALED is set.
     */
    public static boolean isSignaled(final int flags)
    {
        return (flags & SIGNALED) != 0;
    }

    /**
     * @param flags of a work request.
     * @return true when INLINE is set.
     */
    public static boolean isInline(final int flags)
    {
        return (flags & INLINE) != 0;
    }
}
