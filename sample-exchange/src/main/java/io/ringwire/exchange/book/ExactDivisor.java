package io.ringwire.exchange.book;

/**
 * Division by a fixed positive divisor (a tick or a lot size) without a divide instruction: a
 * 64-bit division takes tens of cycles and cannot overlap with the work around it, while a
 * request is checked against its instrument's tick and lot on every order.
 *
 * <p>The divisor is split into {@code odd * 2^shift}. A multiple of it has {@code shift} low zero
 * bits, and its quotient is the rest times the inverse of {@code odd} modulo 2^64 (an odd number
 * has one, so the product is exact for every multiple). For a number that is not a multiple that
 * product lands outside the range of quotients a multiple can have, which is what
 * {@link #divides} checks (Granlund and Montgomery's test, "Division by invariant integers using
 * multiplication", 1994, section 9).
 *
 * <p>Immutable; any thread. Allocation-free.
 */
public final class ExactDivisor
{
    private final long divisor;
    private final int shift;
    private final long lowBits;
    private final long inverse;
    private final long lowestQuotient;
    private final long highestQuotient;

    /**
     * @param divisor at least 1.
     */
    public ExactDivisor(final long divisor)
    {
        if (divisor < 1)
        {
            throw new IllegalArgumentException("a divisor must be at least 1: " + divisor);
        }
        this.divisor = divisor;
        this.shift = Long.numberOfTrailingZeros(divisor);
        this.lowBits = (1L << shift) - 1;
        final long odd = divisor >>> shift;
        this.inverse = inverseOfOdd(odd);
        this.lowestQuotient = Long.MIN_VALUE / odd;
        this.highestQuotient = Long.MAX_VALUE / odd;
    }

    /** @return the divisor. */
    public long divisor()
    {
        return divisor;
    }

    /**
     * @param value any value.
     * @return whether {@code value} is a multiple of the divisor ({@code value % divisor == 0}).
     */
    public boolean divides(final long value)
    {
        if ((value & lowBits) != 0)
        {
            return false;
        }
        final long quotient = (value >> shift) * inverse;
        return quotient >= lowestQuotient && quotient <= highestQuotient;
    }

    /**
     * @param multiple a multiple of the divisor (see {@link #divides}); for any other value the
     *                 result means nothing.
     * @return {@code multiple / divisor}.
     */
    public long quotientOfMultiple(final long multiple)
    {
        return (multiple >> shift) * inverse;
    }

    /** The inverse of an odd number modulo 2^64, by Newton's iteration (each step doubles the bits). */
    private static long inverseOfOdd(final long odd)
    {
        long inverse = odd; // right in the low 3 bits: odd * odd == 1 (mod 8)
        for (int i = 0; i < 5; i++)
        {
            inverse *= 2 - odd * inverse;
        }
        return inverse;
    }

    @Override
    public String toString()
    {
        return "ExactDivisor{" + divisor + "}";
    }
}
