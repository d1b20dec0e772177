package io.ringwire.messaging.system;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The self-checking messages of the system tests. Everything about message {@code sequence} of
 * publisher {@code source} follows from (seed, source, sequence): its length and every byte, so a
 * receiver in another process regenerates and compares it byte for byte; it also carries its own
 * sequence, length and a checksum, so a message cut short or overwritten is recognised even
 * without regenerating it.
 *
 * <pre>
 *   0: int sequence | 4: int length (whole message) | 8: int source (publisher) | 12: int zero
 *  16: long checksum of bytes 0..15 and 24..length
 *  24: content: the little-endian words mix(base + i), the last one cut to the length
 * </pre>
 *
 * <p>Encoding and verifying allocate nothing (the zero-allocation test runs them on its measured
 * threads).
 */
final class TestMessages
{
    static final int SEQUENCE_OFFSET = 0;
    static final int LENGTH_OFFSET = 4;
    static final int SOURCE_OFFSET = 8;
    static final int CHECKSUM_OFFSET = 16;
    static final int HEADER_LENGTH = 24;

    static final int VALID = 0;
    static final int TOO_SHORT = -1;
    static final int LENGTH_MISMATCH = -2;
    static final int CHECKSUM_MISMATCH = -3;
    static final int CONTENT_MISMATCH = -4;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    /** Sizes of mixed traffic: mostly 24 B..1 KiB, some 1..4 KiB, a few up to 8 KiB. */
    static final int SIZES_MIXED = 0;
    /** Sizes of small traffic: 24 B..256 B. */
    static final int SIZES_SMALL = 1;

    private TestMessages()
    {
    }

    /** SplitMix64's finaliser: a cheap, well-mixed function of a long. */
    static long mix(final long value)
    {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static long base(final long seed, final int source, final int sequence)
    {
        return mix(seed * GOLDEN + mix(((long)source << 32) ^ (sequence & 0xFFFF_FFFFL)));
    }

    /**
     * @param sizes    {@link #SIZES_MIXED} or {@link #SIZES_SMALL}.
     * @param seed     the run's seed.
     * @param source   the publisher.
     * @param sequence the message.
     * @return the message's length in bytes.
     */
    static int lengthOf(final int sizes, final long seed, final int source, final int sequence)
    {
        final long random = mix(base(seed, source, sequence) ^ 0x5DEECE66DL);
        final int bucket = (int)(random & 1023);
        final long rest = random >>> 10;
        if (sizes == SIZES_SMALL)
        {
            return HEADER_LENGTH + (int)(rest % 233);
        }
        if (bucket < 973)
        {
            return HEADER_LENGTH + (int)(rest % (1024 - HEADER_LENGTH + 1));
        }
        if (bucket < 1013)
        {
            return 1025 + (int)(rest % (4096 - 1025 + 1));
        }
        return 4097 + (int)(rest % (8192 - 4097 + 1));
    }

    /**
     * Writes message {@code sequence} of {@code source}.
     *
     * @return {@code length}.
     */
    static int encode(final MutableDirectBuffer buffer, final int offset, final int length, final long seed,
        final int source, final int sequence)
    {
        buffer.putInt(offset + SEQUENCE_OFFSET, sequence, ORDER);
        buffer.putInt(offset + LENGTH_OFFSET, length, ORDER);
        buffer.putInt(offset + SOURCE_OFFSET, source, ORDER);
        buffer.putInt(offset + 12, 0, ORDER);
        final long base = base(seed, source, sequence);
        int position = HEADER_LENGTH;
        long word = 0;
        for (; position + 8 <= length; position += 8, word++)
        {
            buffer.putLong(offset + position, mix(base + word), ORDER);
        }
        if (position < length)
        {
            final long last = mix(base + word);
            for (int i = 0; position + i < length; i++)
            {
                buffer.putByte(offset + position + i, (byte)(last >>> (8 * i)));
            }
        }
        buffer.putLong(offset + CHECKSUM_OFFSET, checksum(buffer, offset, length), ORDER);
        return length;
    }

    /**
     * @return the checksum of the message's bytes 0..15 and 24..length.
     */
    static long checksum(final DirectBuffer buffer, final int offset, final int length)
    {
        long hash = 0x243F6A8885A308D3L;
        hash = mix(hash ^ buffer.getLong(offset, ORDER));
        hash = mix(hash ^ buffer.getLong(offset + 8, ORDER));
        int position = HEADER_LENGTH;
        for (; position + 8 <= length; position += 8)
        {
            hash = mix(hash ^ buffer.getLong(offset + position, ORDER));
        }
        long last = 0;
        for (int i = 0; position + i < length; i++)
        {
            last |= (buffer.getByte(offset + position + i) & 0xFFL) << (8 * i);
        }
        return mix(hash ^ last ^ length);
    }

    /**
     * Checks a delivered message against its own header and checksum and, byte for byte, against
     * what (seed, its source, its sequence) say it must be.
     *
     * @param length the length the handler was given.
     * @return {@link #VALID} or a negative reason (see {@link #describe}).
     */
    static int verify(final DirectBuffer buffer, final int offset, final int length, final long seed)
    {
        if (length < HEADER_LENGTH)
        {
            return TOO_SHORT;
        }
        if (buffer.getInt(offset + LENGTH_OFFSET, ORDER) != length)
        {
            return LENGTH_MISMATCH;
        }
        if (buffer.getLong(offset + CHECKSUM_OFFSET, ORDER) != checksum(buffer, offset, length))
        {
            return CHECKSUM_MISMATCH;
        }
        final long base = base(seed, sourceOf(buffer, offset), sequenceOf(buffer, offset));
        int position = HEADER_LENGTH;
        long word = 0;
        for (; position + 8 <= length; position += 8, word++)
        {
            if (buffer.getLong(offset + position, ORDER) != mix(base + word))
            {
                return CONTENT_MISMATCH;
            }
        }
        if (position < length)
        {
            final long last = mix(base + word);
            for (int i = 0; position + i < length; i++)
            {
                if (buffer.getByte(offset + position + i) != (byte)(last >>> (8 * i)))
                {
                    return CONTENT_MISMATCH;
                }
            }
        }
        return VALID;
    }

    static int sequenceOf(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + SEQUENCE_OFFSET, ORDER);
    }

    static int sourceOf(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + SOURCE_OFFSET, ORDER);
    }

    static int embeddedLengthOf(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + LENGTH_OFFSET, ORDER);
    }

    /**
     * @param reason from {@link #verify}.
     * @return its name.
     */
    static String describe(final int reason)
    {
        return switch (reason)
        {
            case VALID -> "valid";
            case TOO_SHORT -> "shorter than the 24-byte test header";
            case LENGTH_MISMATCH -> "delivered length differs from the embedded length";
            case CHECKSUM_MISMATCH -> "checksum mismatch";
            case CONTENT_MISMATCH -> "content differs from what the seed generates";
            default -> "reason " + reason;
        };
    }
}
