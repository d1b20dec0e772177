package io.ringwire.perf.host;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A count one thread writes each message and others read now and then, on a cache line of its own.
 * A plain {@code AtomicLong} lands beside whatever the control thread allocates next, which in a
 * flood is the other end's object: a line that one end writes each message and the other reads or
 * writes each message moves between their cores each message, and the flood then measures that
 * instead of the transport. The value sits in the middle of an array with a line of unused slots
 * either side.
 *
 * <p>Threading: one writer ({@link #lazySet}); any reader.
 */
public final class PaddedCount
{
    private static final int LONGS_PER_LINE = 8;
    private static final int VALUE = LONGS_PER_LINE;

    private final AtomicLongArray slots = new AtomicLongArray(2 * LONGS_PER_LINE + 1);

    /** @return the value, with acquire order. */
    public long get()
    {
        return slots.get(VALUE);
    }

    /** Sets the value with release order (no fence, as {@code AtomicLong.lazySet}). */
    public void lazySet(final long value)
    {
        slots.lazySet(VALUE, value);
    }
}
