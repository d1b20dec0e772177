package io.ringwire.perf.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OptionReaderTest
{
    @Test
    void aValueComesAfterTheEqualsSignOrIsTheNextArgumentWhichItThenTakes()
    {
        final OptionReader option = new OptionReader("--size=64", "--shm-dir", "/tmp/x y", "--json");

        assertTrue(option.next());
        assertEquals("--size", option.name());
        assertEquals("64", option.value("bytes"));
        assertTrue(option.next());
        assertEquals("--shm-dir", option.name());
        assertEquals("/tmp/x y", option.value("a directory"));
        assertTrue(option.next());
        assertEquals("--json", option.name());
        assertTrue(option.flag());
        assertFalse(option.next());
    }

    @Test
    void anOutputDirectoryThatCannotTakeTheResultsIsRefusedBeforeTheRun(@TempDir final Path directory)
        throws IOException
    {
        final Path file = Files.createFile(directory.resolve("results.md"));
        assertEquals(directory.resolve("new/run").toString(),
            next("--out", directory.resolve("new/run").toString()).outputDirectory("perf/results"));
        assertEquals(directory.toString(), next("--out", directory.toString()).outputDirectory("perf/results"));
        final UsageException aFile = assertThrows(UsageException.class,
            () -> next("--out", file.toString()).outputDirectory("perf/results"));
        assertTrue(aFile.getMessage().contains("is not a directory"), aFile.getMessage());
        final UsageException underAFile = assertThrows(UsageException.class,
            () -> next("--out", file.resolve("run").toString()).outputDirectory("perf/results"));
        assertTrue(underAFile.getMessage().contains(file + " is not a directory"), underAFile.getMessage());
        assertEquals("--out needs a directory, e.g. perf/results", assertThrows(UsageException.class,
            () -> next("--out", " ").outputDirectory("perf/results")).getMessage());
    }

    @Test
    void helpIsNotedWhereverItStandsAndPassedOver()
    {
        final OptionReader option = new OptionReader("-h", "--json", "--help");

        assertTrue(option.next());
        assertEquals("--json", option.name());
        assertFalse(option.next());
        assertTrue(option.helpAsked());
    }

    @Test
    void anOptionGivenTwiceIsRefusedWhicheverWayItIsWritten()
    {
        final OptionReader option = new OptionReader("--size=64", "--json", "--size", "32");
        assertTrue(option.next());
        assertEquals("64", option.value("bytes"));
        assertTrue(option.next());
        assertEquals("--size is given twice", assertThrows(UsageException.class, option::next).getMessage());
        final OptionReader help = new OptionReader("--help", "-h", "--json");
        assertTrue(help.next(), "help, which passes over, may be asked twice");
    }

    @Test
    void numbersAreParsedBySettingsAndRefusedNamingTheOptionAndTheRange()
    {
        assertEquals(1_000_000, next("--messages", "1_000_000").number("a count", 1, 2_000_000, "round trips"));
        assertEquals("--messages='0' is out of range; allowed: 1 to 9 round trips", assertThrows(UsageException.class,
            () -> next("--messages", "0").number("a count", 1, 9, "round trips")).getMessage());
        assertEquals("--messages='x' is not a number; allowed: 1 to 9 round trips", assertThrows(UsageException.class,
            () -> next("--messages=x").number("a count", 1, 9, "round trips")).getMessage());
        assertEquals("--messages needs a value: a count", assertThrows(UsageException.class,
            () -> next("--messages", "--json").number("a count", 1, 9, "round trips")).getMessage());
    }

    @Test
    void aNameListKeepsItsOrderAndRefusesANameNotAllowedOrListedTwice()
    {
        final List<String> allowed = List.of("shm", "socket", "roce");

        assertEquals(List.of("roce", "shm"), next("--provider", "ROCE, shm").names(allowed, "is not allowed", "shm"));
        assertTrue(assertThrows(UsageException.class, () -> next("--provider=tcp").names(allowed, "is not allowed",
            "shm")).getMessage().startsWith("--provider 'tcp' is not allowed; allowed: shm, socket, roce"));
        assertEquals("--provider lists 'shm' twice in 'shm,shm'", assertThrows(UsageException.class,
            () -> next("--provider", "shm,shm").names(allowed, "is not allowed", "shm")).getMessage());
    }

    @Test
    void aFlagGivenAValueAndAnUnknownOptionAreRefusedByName()
    {
        assertEquals("--json takes no value (got 'yes')",
            assertThrows(UsageException.class, () -> next("--json=yes").flag()).getMessage());
        assertEquals("unknown option '--bogus=1'; allowed: --json", next("--bogus=1").unknown("--json").getMessage());
    }

    private static OptionReader next(final String... args)
    {
        final OptionReader option = new OptionReader(args);
        assertTrue(option.next());
        return option;
    }
}
