package io.ringwire.exchange.demo;

import io.ringwire.exchange.journal.Journal;
import io.ringwire.exchange.journal.JournalContext;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DemoOptionsTest
{
    @Test
    void withoutArgumentsTheDemoRunsTenSecondsOnShmInOneProcess()
    {
        final DemoOptions options = DemoOptions.parse(new String[0]);
        assertEquals("shm", options.provider());
        assertEquals(10, options.seconds());
        assertFalse(options.processes());
        assertNull(options.journal());
        assertFalse(options.help());
    }

    @Test
    void everyOptionIsTaken()
    {
        final DemoOptions options = DemoOptions.parse(new String[]{ "--provider", "roce", "--seconds", "0",
            "--clients", "8", "--instruments", "100", "--rate", "200_000", "--processes", "--journal", "/tmp/j",
            "--seed", "42" });
        assertEquals("roce", options.provider());
        assertEquals(0, options.seconds());
        assertEquals(8, options.clients());
        assertEquals(100, options.instruments());
        assertEquals(200_000, options.rate());
        assertTrue(options.processes());
        assertEquals(Path.of("/tmp/j"), options.journal());
        assertEquals(42, options.seed());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--provider tcp|--provider must be one of",
        "--seconds -1|--seconds must be 0 to",
        "--clients 0|--clients must be 1 to 64",
        "--clients 65|--clients must be 1 to 64",
        "--instruments 10001|--instruments must be 1 to 10000",
        "--rate 0|--rate must be 1 to",
        "--rate fast|--rate needs a whole number, not 'fast'",
        "--seconds|--seconds needs a value",
        "--seconds --clients 2|--seconds needs a value",
        "--verbose|unknown argument '--verbose'" })
    void aBadArgumentIsRefusedWithAMessageThatNamesIt(final String args, final String message)
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> DemoOptions.parse(args.split(" ")));
        assertTrue(refused.getMessage().startsWith(message), refused.getMessage());
    }

    @Test
    void aBlankJournalOrOneARoleFileCannotHoldIsRefused()
    {
        final IllegalArgumentException blank = assertThrows(IllegalArgumentException.class,
            () -> DemoOptions.parse(new String[]{ "--journal", "" }));
        assertEquals("--journal needs a directory, not a blank", blank.getMessage());
        final IllegalArgumentException comment = assertThrows(IllegalArgumentException.class,
            () -> DemoOptions.parse(new String[]{ "--processes", "--journal", "/tmp/run #1" }));
        assertTrue(comment.getMessage().contains("cannot go into the engine's role file"), comment.getMessage());
        assertEquals(Path.of("/tmp/run #1"), DemoOptions.parse(new String[]{ "--journal", "/tmp/run #1" }).journal(),
            "in one process no file carries it");
        assertEquals(Path.of("/tmp/run#1"),
            DemoOptions.parse(new String[]{ "--processes", "--journal", "/tmp/run#1" }).journal(),
            "a '#' inside a token is part of it");
    }

    @Test
    void anOptionGivenTwiceIsRefusedRatherThanTheLastTaken()
    {
        final IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
            () -> DemoOptions.parse(new String[]{ "--rate", "1000", "--seconds", "1", "--rate", "9000" }));
        assertEquals("--rate is given twice", twice.getMessage());
    }

    @Test
    void aJournalDirectoryThatHoldsAJournalIsRefusedBeforeAnythingStarts(@TempDir final Path directory)
    {
        try (Journal journal = Journal.open(new JournalContext().directory(directory).conclude()))
        {
            assertEquals(0, journal.append(new UnsafeBuffer(new byte[8]), 0, 8));
        }
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = ExchangeDemo.run(new String[]{ "--journal", directory.toString() },
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("holds a journal already"),
            err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aBadArgumentExitsWithCodeTwoAndTheUsageBeforeAnythingStarts()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = ExchangeDemo.run(new String[]{ "--clients", "none" },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        final String text = err.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("ringwire demo: --clients needs a whole number, not 'none'"), text);
        assertTrue(text.contains("usage: ringwire demo"), text);
    }

    @Test
    void aJournalDirectoryHoldingAFileNamedAsNoSegmentIsRefusedWithAMessageNotATrace(@TempDir final Path directory)
        throws Exception
    {
        Files.createFile(directory.resolve("segment-99999999999999999999.journal"));
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = ExchangeDemo.run(new String[]{ "--journal", directory.toString() },
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("ringwire demo: --journal " + directory +
            " cannot be used: "), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpPrintsTheUsageAndExitsZero()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, ExchangeDemo.run(new String[]{ "--help" }, new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--processes"));
    }
}
