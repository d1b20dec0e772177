package io.ringwire.perf;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.output.ResultsWriter;
import io.ringwire.perf.output.RunOutputTest;
import io.ringwire.perf.rtt.RttOptions;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class PerfMainTest
{
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    @TempDir
    private Path results;

    private String out()
    {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err()
    {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aBadOptionExitsWithCodeTwoAndTheMessageOnStderr()
    {
        final int exitCode = PerfMain.run(new String[] { "rtt", "--processes", "7" }, out, err);

        assertEquals(2, exitCode);
        assertTrue(err().contains("--processes='7' is not allowed; allowed: 1"), err());
        assertEquals("", out());
    }

    @Test
    void anUnknownBenchmarkExitsWithCodeTwoNamingTheAllowedOnes()
    {
        assertEquals(2, PerfMain.run(new String[] { "nosuch" }, out, err));
        assertTrue(err().contains("unknown benchmark 'nosuch'; allowed: rtt"), err());
    }

    @Test
    void helpPrintsTheUsageAndExitsWithZero()
    {
        assertEquals(0, PerfMain.run(new String[] { "rtt", "--help" }, out, err));
        assertTrue(out().startsWith("usage: ringwire perf rtt"), out());
    }

    @Test
    void oneCpuIsRefusedWithCodeTwoWithoutAllowOversubscribe()
    {
        final int exitCode = PerfMain.rtt(new String[] { "--provider", "nio-tcp", "--messages", "10" }, out, err,
            List.of(0));

        assertEquals(2, exitCode);
        assertTrue(err().contains("refusing to run 2 spinning threads"), err());
        assertTrue(err().contains("--allow-oversubscribe"), err());
        assertEquals("", out());
    }

    @Test
    void oneCpuRunsWithAllowOversubscribeAndSaysSo()
    {
        final int exitCode = PerfMain.rtt(new String[] { "--provider", "nio-tcp", "--messages", "200", "--warmup",
            "100", "--allow-oversubscribe", "--out", results.toString() }, out, err, List.of(0));

        assertEquals(0, exitCode, err());
        assertTrue(err().contains("warning: 2 spinning threads on 1 online CPU(s)"), err());
        assertTrue(out().contains("nio-tcp"), out());
    }

    @Test
    void anRttRunWritesItsResultsDirectoryToOut() throws IOException
    {
        assumeTrue(RdmaProviders.all().stream().anyMatch(p -> p.name().equals(Transports.SHM)),
            "the shm provider is not on the class path");

        final int exitCode = PerfMain.run(new String[] { "rtt", "--provider", "shm", "--messages", "20000",
            "--warmup", "5000", "--out", results.toString() }, out, err);

        assertEquals(0, exitCode, err());
        assertTrue(err().contains("rtt: results in " + results.resolve(ResultsWriter.RESULTS_MD)), err());
        for (final String file : List.of("shm-channel.hdr", "shm-channel.hgrm", "shm-channel.png",
            "shm-messaging.hdr", "shm-messaging.hgrm", "shm-messaging.png", ResultsWriter.ALL_PLOT,
            ResultsWriter.SUMMARY_JSON, ResultsWriter.RESULTS_MD))
        {
            assertTrue(Files.size(results.resolve(file)) > 0, file + " is written");
        }
        final String page = Files.readString(results.resolve(ResultsWriter.RESULTS_MD), StandardCharsets.UTF_8);
        RunOutputTest.assertLinksEveryFile(results, page);
        assertTrue(page.contains(out().stripTrailing()), "results.md holds the printed table:\n" + page);
    }

    @Test
    void anUnavailableProviderIsRefusedBeforeAnythingRuns()
    {
        final int exitCode = PerfMain.rtt(
            new String[] { "--provider", "nio-tcp,shm", "--shm-dir", "/proc/no-such-dir" }, out, err, List.of(0, 1));

        assertEquals(2, exitCode);
        assertTrue(err().contains("--provider shm"), err());
        assertTrue(!err().contains("rtt: nio-tcp"), "nothing ran: " + err());
    }

    @Test
    void ibverbsWithoutAnRdmaDeviceIsRefusedWithTheProvidersReason()
    {
        final String reason = RdmaProviders.byName("ibverbs").unavailableReason(new RdmaConfig().provider("ibverbs"));
        assumeTrue(null != reason, "this machine has an RDMA device");

        final int exitCode = PerfMain.rtt(new String[] { "--provider", "ibverbs" }, out, err, List.of(0, 1));

        assertEquals(2, exitCode);
        assertTrue(err().contains("--provider ibverbs is unavailable here: " + reason), err());
        assertEquals("", out());
    }
}
