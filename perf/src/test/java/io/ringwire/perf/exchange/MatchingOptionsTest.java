package io.ringwire.perf.exchange;

import io.ringwire.perf.cli.UsageException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MatchingOptionsTest
{
    @Test
    void noOptionsRunOneAndAHundredInstrumentsWithExchangeCoresSizes()
    {
        final MatchingOptions options = MatchingOptions.parse();

        assertEquals(3_000_000, options.orders());
        assertEquals(List.of(1, 100), options.instruments());
        assertEquals(1_000, options.bookOrders());
        assertEquals(5, options.rounds());
        assertEquals(1_000_000, options.rate());
        assertEquals(1, options.seed());
        assertFalse(options.json());
        assertFalse(options.help());
    }

    @Test
    void everyOptionIsParsedInBothSpellingsAndInstrumentsPicksOneCase()
    {
        final MatchingOptions spaced = MatchingOptions.parse("--orders", "2_000", "--instruments", "100", "--book",
            "50", "--rounds", "3", "--rate", "500000", "--seed", "42", "--json");
        final MatchingOptions joined = MatchingOptions.parse("--orders=2000", "--instruments=100", "--book=50",
            "--rounds=3", "--rate=500000", "--seed=42", "--json");

        for (final MatchingOptions options : List.of(spaced, joined))
        {
            assertEquals(2_000, options.orders());
            assertEquals(List.of(100), options.instruments());
            assertEquals(50, options.bookOrders());
            assertEquals(3, options.rounds());
            assertEquals(500_000, options.rate());
            assertEquals(42, options.seed());
            assertTrue(options.json());
        }
    }

    @Test
    void badOptionsAreRefusedNamingTheOptionAndItsAllowedValues()
    {
        assertEquals("--orders='99' is out of range; allowed: 100 to 10000000 requests",
            assertThrows(UsageException.class, () -> MatchingOptions.parse("--orders", "99")).getMessage());
        assertEquals("--instruments='0' is out of range; allowed: 1 to 1000 instruments",
            assertThrows(UsageException.class, () -> MatchingOptions.parse("--instruments=0")).getMessage());
        assertEquals("--instruments='1,100' is not a number; allowed: 1 to 1000 instruments",
            assertThrows(UsageException.class, () -> MatchingOptions.parse("--instruments", "1,100")).getMessage());
        assertTrue(assertThrows(UsageException.class, () -> MatchingOptions.parse("--rate", "10")).getMessage()
            .startsWith("--rate='10' is out of range; allowed: 1000 to 100000000"));
        assertTrue(assertThrows(UsageException.class, () -> MatchingOptions.parse("--out", " ")).getMessage()
            .startsWith("--out needs a directory"), "a blank one would name the working directory");
        assertEquals("--json takes no value (got 'yes')",
            assertThrows(UsageException.class, () -> MatchingOptions.parse("--json=yes")).getMessage());
        assertEquals("unknown option '--size'; allowed: --orders, --instruments, --book, --rounds, --rate, --seed, " +
            "--json, --out, --help", assertThrows(UsageException.class, () -> MatchingOptions.parse("--size")).getMessage());
    }

    @Test
    void helpIsNotedAndTheUsageNamesEveryOption()
    {
        assertTrue(MatchingOptions.parse("--orders", "1000", "-h").help());
        final String usage = MatchingOptions.usage();

        assertTrue(usage.startsWith("usage: ringwire perf matching"), usage);
        for (final String option : List.of("--orders", "--instruments", "--book", "--rounds", "--rate", "--seed",
            "--json", "--out", "--help"))
        {
            assertTrue(usage.contains("  " + option + " "), option + " missing from:\n" + usage);
        }
    }
}
