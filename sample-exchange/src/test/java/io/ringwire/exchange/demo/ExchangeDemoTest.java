package io.ringwire.exchange.demo;

import io.ringwire.exchange.engine.JournaledEngine;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The in-process demo end to end on real transports: every role over RingWire messaging, the
 * summary's checks (each new order acknowledged once, fills balanced, the market-data subscriber's
 * books equal to the engine's), and the journal it leaves replays to the digest it printed.
 */
class ExchangeDemoTest
{
    @TempDir
    Path journal;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "shm", "socket" })
    void aShortDemoPassesItsChecksAndItsJournalReplaysToTheDigestItPrinted(final String provider)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int code = ExchangeDemo.run(new String[]{ "--provider", provider, "--seconds", "2", "--rate", "5000",
            "--clients", "3", "--instruments", "4", "--journal", journal.toString() },
            new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        final String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        assertTrue(text.contains("checks            passed"), text);
        assertTrue(text.contains("orders/s"), "a progress line: " + text);
        final Matcher digest = Pattern.compile("output digest +([0-9a-f]{64})").matcher(text);
        assertTrue(digest.find(), text);
        assertTrue(Files.exists(journal), "--journal keeps the journal");
        assertEquals(digest.group(1), JournaledEngine.replay(journal).digest(),
            "the journal replays to the digest the demo printed");
    }
}
