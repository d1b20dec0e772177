package io.ringwire.exchange;

import io.ringwire.exchange.engine.EngineConfig;
import io.ringwire.exchange.engine.EngineOutput;
import io.ringwire.exchange.engine.JournaledEngine;
import io.ringwire.exchange.flow.OrderFlow;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ringwire exchange replay --journal DIR} prints the digest the engine reported for the
 * same journal, and refuses bad command lines with exit code 2.
 */
class ExchangeMainTest
{
    @TempDir
    Path directory;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(final String... args)
    {
        return ExchangeMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void replayPrintsTheDigestTheEngineReportedForItsJournal()
    {
        final OrderFlow flow = new OrderFlow(77, 3, 1, 10, 1_000, 20, 512);
        final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(3, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), 10_000, 50, 2_000);
        final String digest;
        try (JournaledEngine engine = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20))
        {
            final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
            for (int i = 0; i < 10_000; i++)
            {
                engine.accept(request, 0, flow.next(request, 0));
            }
            digest = engine.digest();
        }

        assertEquals(0, run("replay", "--journal", directory.toString()), err.toString(StandardCharsets.UTF_8));
        final String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("10000 records replayed"), printed);
        assertTrue(printed.contains("digest " + digest + "\n"), printed);
    }

    @Test
    void replayRefusesAJournalAnEngineIsAppendingToAndReadsItOnceTheEngineStops()
    {
        final OrderFlow flow = new OrderFlow(78, 2, 1, 10, 1_000, 20, 512);
        final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(2, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), 1_000, 50, 0);
        try (JournaledEngine engine = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20))
        {
            final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
            for (int i = 0; i < 100; i++)
            {
                engine.accept(request, 0, flow.next(request, 0));
            }
            assertEquals(1, run("replay", "--journal", directory.toString()));
            // Known without opening the lock file, whose close would drop the engine's lock on it.
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("an engine runs on the journal in " + directory +
                " in this process"),
                err.toString(StandardCharsets.UTF_8));
            assertEquals("", out.toString(StandardCharsets.UTF_8), "no digest of a prefix");
        }
        assertEquals(0, run("replay", "--journal", directory.toString()), err.toString(StandardCharsets.UTF_8));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("100 records replayed"));
    }

    @Test
    void badCommandLinesExitWithTwoAndSayWhy()
    {
        assertEquals(2, run());
        assertEquals(2, run("rewind"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown command 'rewind'"));
        assertEquals(2, run("replay"));
        assertEquals(2, run("replay", "--journal", directory.resolve("absent").toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("is not a directory"));
        assertEquals(2, run("replay", "--journal", ""));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--journal needs a directory, not a blank"));
        assertEquals(2, run("replay", "--journal", directory.toString(), "--journal", directory.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--journal is given twice"));
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing replayed");
        assertEquals(0, run("--help"));
    }
}
