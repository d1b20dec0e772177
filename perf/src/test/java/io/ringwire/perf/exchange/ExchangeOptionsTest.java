package io.ringwire.perf.exchange;

import io.ringwire.exchange.node.EngineThreads;
import io.ringwire.perf.PerfMain;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.output.ResultsWriter;
import io.ringwire.perf.output.RunOutputTest;
import io.ringwire.rdma.host.OnlineCpus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExchangeOptionsTest
{
    @Test
    void theDefaultsMeasureShmAtAHundredThousandOrdersASecond()
    {
        final ExchangeOptions options = ExchangeOptions.parse(new String[0]);
        assertEquals(List.of("shm"), options.providers());
        assertEquals(100_000, options.rate());
        assertEquals(10, options.seconds());
        assertEquals(5, options.warmup());
        assertEquals(EngineThreads.forCpus(OnlineCpus.count()), options.engineThreads());
        assertEquals(new EngineThreads(true, false, true),
            ExchangeOptions.parse(new String[]{ "--engine-threads", "journaller,replica" }).engineThreads());
        final ExchangeOptions joined = ExchangeOptions.parse("--rate=2_000", "--provider=socket,shm", "-h");
        assertEquals(2_000, joined.rate(), "--name=value, as every perf command takes");
        assertEquals(List.of("socket", "shm"), joined.providers());
        assertTrue(joined.help());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--provider tcp|--provider 'tcp' is not a provider; allowed: shm, socket, roce, ibverbs",
        "--rate 10|--rate='10' is out of range; allowed: 1000 to 10000000",
        "--seconds 0|--seconds='0' is out of range; allowed: 1 to 3600",
        "--clients x|--clients='x' is not a number",
        "--warmup|--warmup needs a value",
        "--out --json|--out needs a value",
        "--out=|--out needs a directory",
        "--provider shm,shm|--provider lists 'shm' twice",
        "--json=yes|--json takes no value",
        "--fast|unknown option '--fast'",
        "--door tcp|--door takes sbe or fix",
        "--fix-rate 0|--fix-rate='0' is out of range",
        "--fix-clients 4|--fix-clients needs --door fix",
        "--fix-rate 500 --door sbe|--fix-rate needs --door fix",
        "--engine-threads journaler|--engine-threads takes auto, none, or any of" })
    void aBadOptionIsRefusedNamingIt(final String args, final String message)
    {
        final UsageException refused = assertThrows(UsageException.class, () -> ExchangeOptions.parse(args.split(" ")));
        assertTrue(refused.getMessage().startsWith(message), refused.getMessage());
    }

    @Test
    void aShortRunThroughTheWholeExchangeWithTheJournallerForcedPrintsTheJsonKeysAndEveryHopAndWritesItsResults(
        @TempDir final Path results) throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = PerfMain.exchange(new String[]{ "--rate", "2000", "--seconds", "1", "--warmup", "1", "--json",
            "--engine-threads", "journaller,digest,replica", "--out", results.toString() },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        final String json = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        for (final String key : List.of("\"provider\":\"shm\"", "\"offered_per_second\":2000", "\"p50_ns\":",
            "\"p99_ns\":", "\"p99_9_ns\":", "\"hop\":\"in engine\"", "\"hop\":\"order to ack (from due time)\"",
            "\"accepted\":", "\"rejected_by_gateway\":", "\"rejected_by_engine\":", "\"mostly_rejected\":false"))
        {
            assertTrue(json.contains(key), key + " in " + json);
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("measured 1/1 s"), "a progress line a second");
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("applies what a journaller"),
            "the layout says the journaller runs: " + err);
        for (final String file : List.of("shm-in-engine.hdr", "shm-order-to-ack-from-due-time.hgrm", "shm.png",
            ResultsWriter.SUMMARY_JSON))
        {
            assertTrue(Files.size(results.resolve(file)) > 0, file + " is written");
        }
        RunOutputTest.assertLinksEveryFile(results,
            Files.readString(results.resolve(ResultsWriter.RESULTS_MD), StandardCharsets.UTF_8));
    }

    @Test
    void theFixDoorRunsBesideTheSbeClientsAndReportsItsOrderToAckAndStages(@TempDir final Path results)
        throws IOException
    {
        final ExchangeOptions options = ExchangeOptions.parse(new String[]{ "--door", "fix", "--fix-rate", "300" });
        assertEquals("fix", options.door());
        assertEquals(1, options.fixClients());
        assertEquals(300, options.fixRate());
        assertEquals("sbe", ExchangeOptions.parse(new String[0]).door());

        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = PerfMain.exchange(new String[]{ "--rate", "2000", "--seconds", "2", "--warmup", "1", "--door",
            "fix", "--fix-rate", "200", "--out", results.toString() },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        final String table = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8) + table);
        assertTrue(table.contains("FIX door: 1 member(s), 200 requests/s offered"), table);
        assertTrue(table.contains("FIX order to ack (from send)"), table);
        for (final String stage : io.ringwire.exchange.fix.FixDoor.STAGES)
        {
            assertTrue(table.contains(stage), stage + " in " + table);
        }
        assertTrue(table.contains("order to ack (from due time)"), "the SBE door's hops beside it: " + table);
    }

    @Test
    void aBadCommandLineExitsTwo()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, PerfMain.exchange(new String[]{ "--rate", "fast" }, System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--rate='fast' is not a number"));
    }
}
