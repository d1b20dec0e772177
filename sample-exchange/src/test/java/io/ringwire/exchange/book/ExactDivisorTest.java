package io.ringwire.exchange.book;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ExactDivisorTest
{
    private static final long[] DIVISORS = { 1, 2, 3, 5, 7, 8, 10, 12, 25, 64, 100, 1000, 1024, 3 << 20, 1_000_000_007L,
        (1L << 40) * 3, Long.MAX_VALUE, 1L << 62 };
    private static final long[] EDGES = { 0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1 };

    @Test
    void dividesAgreesWithTheRemainderForEdgesMultiplesAndRandomValues()
    {
        final SplittableRandom random = new SplittableRandom(26);
        for (final long divisor : DIVISORS)
        {
            final ExactDivisor exact = new ExactDivisor(divisor);
            for (final long value : EDGES)
            {
                assertAgrees(exact, value);
            }
            for (int i = 0; i < 20_000; i++)
            {
                final long multiple = divisor * (random.nextLong() / Math.max(1, divisor));
                assertAgrees(exact, multiple);
                assertAgrees(exact, multiple + 1);
                assertAgrees(exact, multiple - 1);
                assertAgrees(exact, random.nextLong());
                assertAgrees(exact, random.nextLong(-100_000, 100_000));
            }
        }
    }

    @Test
    void quotientOfAMultipleIsTheQuotient()
    {
        final SplittableRandom random = new SplittableRandom(27);
        for (final long divisor : DIVISORS)
        {
            final ExactDivisor exact = new ExactDivisor(divisor);
            for (int i = 0; i < 20_000; i++)
            {
                final long quotient = random.nextLong() / Math.max(1, divisor);
                assertEquals(quotient, exact.quotientOfMultiple(quotient * divisor), divisor + " * " + quotient);
            }
        }
    }

    @Test
    void aDivisorBelowOneIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new ExactDivisor(0));
        assertThrows(IllegalArgumentException.class, () -> new ExactDivisor(-5));
    }

    private static void assertAgrees(final ExactDivisor exact, final long value)
    {
        assertEquals(value % exact.divisor() == 0, exact.divides(value), value + " by " + exact.divisor());
    }
}
