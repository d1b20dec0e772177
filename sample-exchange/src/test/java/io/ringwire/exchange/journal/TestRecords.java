package io.ringwire.exchange.journal;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Deterministic records for journal tests: record {@code n}'s payload is a slice of a block of
 * pseudo-random bytes, its length and place in the block following from the seed and {@code n}
 * alone. A test (or a test and a child process) can thus check any record it reads back without
 * keeping what it wrote, and appending one costs no more than the append itself. Lengths are mostly
 * small (0 included), with every {@code largeEvery}th record large.
 */
final class TestRecords
{
    private static final int BLOCK_LENGTH = 1 << 20;

    private final long seed;
    private final int smallMax;
    private final int largeMax;
    private final int largeEvery;
    private final UnsafeBuffer block;

    /**
     * @param seed       chooses the bytes, the lengths and the slices.
     * @param smallMax   the longest small record.
     * @param largeMax   the longest large record.
     * @param largeEvery every this many records, one is large (between {@code smallMax} and {@code largeMax}).
     */
    TestRecords(final long seed, final int smallMax, final int largeMax, final int largeEvery)
    {
        this.seed = seed;
        this.smallMax = smallMax;
        this.largeMax = largeMax;
        this.largeEvery = largeEvery;
        this.block = new UnsafeBuffer(ByteBuffer.allocateDirect(BLOCK_LENGTH + largeMax));
        for (int i = 0; i < block.capacity() - Long.BYTES; i += Long.BYTES)
        {
            block.putLong(i, mix(seed + i));
        }
    }

    /**
     * @return the bytes every payload is a slice of.
     */
    DirectBuffer block()
    {
        return block;
    }

    /**
     * @param sequence a record's sequence.
     * @return where its payload starts in {@link #block()}.
     */
    int offset(final long sequence)
    {
        return (int)((mix(seed ^ sequence) >>> 1) % BLOCK_LENGTH);
    }

    /**
     * @param sequence a record's sequence.
     * @return its payload length.
     */
    int length(final long sequence)
    {
        final long key = mix(seed + sequence) >>> 1;
        if (sequence % largeEvery == largeEvery - 1)
        {
            return smallMax + (int)(key % (largeMax - smallMax + 1));
        }
        return (int)(key % (smallMax + 1));
    }

    /**
     * Appends record {@code sequence}.
     *
     * @param journal  where.
     * @param sequence which record.
     * @return what {@link Journal#append} returned.
     */
    long append(final Journal journal, final long sequence)
    {
        return journal.append(block, offset(sequence), length(sequence));
    }

    /**
     * @param sequence which record.
     * @param buffer   holding a payload.
     * @param offset   where it starts.
     * @param length   its length.
     * @return null when it is record {@code sequence}'s payload, else what differs.
     */
    String mismatch(final long sequence, final DirectBuffer buffer, final int offset, final int length)
    {
        if (length != length(sequence))
        {
            return "record " + sequence + " has " + length + " bytes, expected " + length(sequence);
        }
        final int expectedOffset = offset(sequence);
        for (int i = 0; i < length; i++)
        {
            if (buffer.getByte(offset + i) != block.getByte(expectedOffset + i))
            {
                return "record " + sequence + " differs at payload byte " + i + " of " + length;
            }
        }
        return null;
    }

    private static long mix(final long value)
    {
        long z = value + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
