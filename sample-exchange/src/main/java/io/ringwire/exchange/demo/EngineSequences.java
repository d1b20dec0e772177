package io.ringwire.exchange.demo;

import java.util.Arrays;

/**
 * The engine sequences of the reports a clients process received, each to be taken once: a bit per
 * sequence in a window of {@link #WINDOW} behind the highest received, which slides as higher ones
 * arrive, so a run of any length is checked (a fixed table would stop counting at its end). The
 * clients' reports are apart by far less than the window: a sequence older than it is only taken
 * as received, unchecked, and counted as such.
 *
 * <p>Threading: the clients' one thread. Allocation-free after construction.
 */
final class EngineSequences
{
    /** Sequences the window holds: a bit each, 16 MiB. */
    static final int WINDOW = 1 << 27;
    /** {@link #onSequence}: received for the first time. */
    static final int FIRST = 0;
    /** {@link #onSequence}: received before. */
    static final int DUPLICATE = 1;
    /** {@link #onSequence}: older than the window, taken as received without a check. */
    static final int UNCHECKED = 2;
    /** {@link #onSequence}: not a sequence (0 or less: a report that carries none). */
    static final int NONE = 3;

    private final long[] bits;
    private final long mask;
    /** The highest sequence received; every slot above the window's start belongs to its sequence. */
    private long highest;

    EngineSequences()
    {
        this(WINDOW);
    }

    /** @param window sequences the window holds, a power of two and a multiple of 64 (tests: small). */
    EngineSequences(final int window)
    {
        if (Integer.bitCount(window) != 1 || window < 64)
        {
            throw new IllegalArgumentException("window " + window + ": a power of two, at least 64");
        }
        bits = new long[window / 64];
        mask = window - 1;
    }

    /**
     * @param sequence a report's engine sequence.
     * @return {@link #FIRST}, {@link #DUPLICATE}, {@link #UNCHECKED} or {@link #NONE}.
     */
    int onSequence(final long sequence)
    {
        if (sequence <= 0)
        {
            return NONE;
        }
        final long window = mask + 1;
        if (sequence > highest)
        {
            // The slots the window now leaves behind are the new sequences': empty them first.
            final long gap = sequence - highest;
            if (gap >= window)
            {
                Arrays.fill(bits, 0);
            }
            else
            {
                for (long cleared = highest + 1, left = gap; left > 0; cleared++, left--)
                {
                    bits[slotWord(cleared)] &= ~slotBit(cleared);
                }
            }
            highest = sequence;
        }
        else if (sequence <= highest - window)
        {
            return UNCHECKED;
        }
        final int word = slotWord(sequence);
        final long bit = slotBit(sequence);
        if ((bits[word] & bit) != 0)
        {
            return DUPLICATE;
        }
        bits[word] |= bit;
        return FIRST;
    }

    /** @return the highest sequence received, 0 before any. */
    long highest()
    {
        return highest;
    }

    private int slotWord(final long sequence)
    {
        return (int)((sequence & mask) >>> 6);
    }

    private static long slotBit(final long sequence)
    {
        return 1L << (sequence & 63);
    }
}
