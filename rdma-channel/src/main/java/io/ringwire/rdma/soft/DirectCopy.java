package io.ringwire.rdma.soft;

import org.agrona.UnsafeApi;

/**
 * Copies between ranges of direct memory that the caller has already checked (a region's lkey and
 * bounds, a peer region's rkey and bounds): no second bounds check per buffer, and a small copy, a
 * trading message of a few dozen bytes, in 8-byte words inline rather than through
 * {@code Unsafe.copyMemory}'s call into a copy stub.
 *
 * <p>Threading: stateless.
 */
public final class DirectCopy
{
    /** Copies up to this many bytes inline; longer ones go through {@code Unsafe.copyMemory}. */
    public static final int INLINE_LIMIT = 128;

    private DirectCopy()
    {
    }

    /**
     * Copies {@code length} bytes between checked addresses of direct memory.
     *
     * @param from   address of the first byte read.
     * @param to     address of the first byte written.
     * @param length bytes, &gt;= 0.
     */
    public static void copy(final long from, final long to, final int length)
    {
        if (length > INLINE_LIMIT)
        {
            UnsafeApi.copyMemory(from, to, length);
            return;
        }
        int i = 0;
        for (; i <= length - Long.BYTES; i += Long.BYTES)
        {
            UnsafeApi.putLong(to + i, UnsafeApi.getLong(from + i));
        }
        for (; i < length; i++)
        {
            UnsafeApi.putByte(to + i, UnsafeApi.getByte(from + i));
        }
    }
}
