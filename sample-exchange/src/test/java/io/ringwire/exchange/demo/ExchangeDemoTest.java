package io.ringwire.exchange.demo;

import io.ringwire.exchange.engine.JournaledEngine;
import io.ringwire.exchange.node.EngineThreads;
import io.ringwire.rdma.host.OnlineCpus;
import org.junit.jupiter.api.Test;
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
 * books equal to the engine's), the journal it leaves replays to the digest it printed; and the
 * clients, following their orders from their reports, send under 1% of their requests to orders
 * that are gone (UNKNOWN_ORDER).
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
        if (OnlineCpus.count() >= EngineThreads.DIGEST_THREAD_MIN_CPUS)
        {
            assertTrue(count(text, "\\(([0-9,]+) messages hashed off the engine's thread\\)") > 0,
                "the digest is kept on a thread of its own: " + text);
        }
        else
        {
            assertTrue(text.contains("(hashed on the engine's thread"), text);
        }
    }

    /**
     * The most clients the demo takes, in one process: every one connects and logs on (the gateway's
     * member endpoint has room for them all, the process's counters for all their streams, and the
     * endpoints answer a crowd of handshakes in time), and the checks pass.
     */
    @Test
    void theDemoAtItsMostClientsConnectsThemAllAndPassesItsChecks()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int code = ExchangeDemo.run(new String[]{ "--provider", "shm", "--seconds", "2", "--rate", "5000",
            "--clients", "64", "--instruments", "4", "--journal", journal.toString() },
            new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        final String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        assertTrue(text.contains("64 logons"), text);
        assertTrue(text.contains("checks            passed"), text);
    }

    /**
     * The clients follow their orders from their reports, so a cancel or replace misses only an
     * order that ended while it was on its way. How many do is the rate times the round trip: the
     * run offers a rate whose requests in flight stay few even where the round trip takes
     * milliseconds (a small machine shared with other work).
     */
    @Test
    void theClientsCancelsAndReplacesMissUnderOnePercentOfRequests()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int code = ExchangeDemo.run(new String[]{ "--provider", "shm", "--seconds", "3", "--rate", "1000",
            "--clients", "3", "--instruments", "4", "--journal", journal.toString() },
            new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        final String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        final long sent = count(text, "requests sent +([0-9,]+)");
        final long unknown = count(text, "UNKNOWN_ORDER +([0-9,]+)");
        assertTrue(sent > 1_000, text);
        assertTrue(unknown * 100 < sent, "the clients aim cancels and replaces at live orders: " + unknown +
            " of " + sent + " requests UNKNOWN_ORDER\n" + text);
    }

    /** @return the count the pattern's group reads in the text, 0 where the text has no such line. */
    private static long count(final String text, final String pattern)
    {
        final Matcher matcher = Pattern.compile(pattern).matcher(text);
        return matcher.find() ? Long.parseLong(matcher.group(1).replace(",", "")) : 0;
    }
}
