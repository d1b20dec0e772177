package io.ringwire.perf.oneway;

import io.ringwire.perf.PerfMain;
import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.output.ResultsWriter;
import io.ringwire.perf.rtt.RttOptions;
import io.ringwire.perf.testing.MiniJson;
import io.ringwire.perf.throughput.RatePlots;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.host.OnlineCpus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Short real runs of {@code ringwire perf oneway} and {@code throughput} over shm messaging, through
 * {@link PerfMain}: each message arrives and is counted, and the results directory holds its files
 * and the JSON its keys. No figure is checked against a target.
 */
class OneWayRunTest
{
    @TempDir
    private Path results;
    @TempDir
    private Path shmDirectory;

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    private static boolean shmPresent()
    {
        return RdmaProviders.all().stream().anyMatch(p -> p.name().equals(Transports.SHM));
    }

    @Test
    @SuppressWarnings("unchecked")
    void onewayOverShmMessagingRecordsEveryMessageAndWritesTheResultsDirectory() throws IOException
    {
        assumeTrue(shmPresent(), "the shm provider is not on the class path");

        final int exitCode = PerfMain.oneway(new String[] { "--provider", "shm", "--messages", "20000", "--warmup",
            "2000", "--json", "--out", results.toString(), "--shm-dir", shmDirectory.toString(),
            "--allow-oversubscribe" }, out, err, OnlineCpus.asList());

        assertEquals(0, exitCode, errBytes.toString(StandardCharsets.UTF_8));
        final Map<String, Object> json = (Map<String, Object>)MiniJson.parse(outBytes.toString(StandardCharsets.UTF_8));
        assertEquals("oneway", json.get("benchmark"));
        final List<Object> rows = (List<Object>)json.get("results");
        assertEquals(1, rows.size(), json.toString());
        final Map<String, Object> row = (Map<String, Object>)rows.getFirst();
        assertEquals("shm", row.get("provider"));
        assertEquals("messaging", row.get("api"));
        final Map<String, Object> latency = (Map<String, Object>)row.get("latency_ns");
        assertEquals(20_000.0, latency.get("count"));
        assertTrue((Double)latency.get("p50") <= (Double)latency.get("p99"), latency.toString());
        for (final String file : List.of(ResultsWriter.RESULTS_MD, ResultsWriter.SUMMARY_JSON,
            "oneway-shm-messaging.hdr", "oneway-shm-messaging.hgrm", "oneway-shm-messaging.png"))
        {
            assertTrue(Files.size(results.resolve(file)) > 0, file + " is written");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void throughputOverShmReportsEachSizeAndASweepWithItsPlotsLinked() throws IOException
    {
        assumeTrue(shmPresent(), "the shm provider is not on the class path");

        final int exitCode = PerfMain.throughput(new String[] { "--provider", "shm", "--sizes", "32,1024",
            "--seconds", "1", "--sweep-steps", "2", "--json", "--out", results.toString(), "--shm-dir",
            shmDirectory.toString(), "--allow-oversubscribe" }, out, err, OnlineCpus.asList());

        assertEquals(0, exitCode, errBytes.toString(StandardCharsets.UTF_8));
        final Map<String, Object> json = (Map<String, Object>)MiniJson.parse(outBytes.toString(StandardCharsets.UTF_8));
        assertEquals("throughput", json.get("benchmark"));
        final List<Object> floods = (List<Object>)json.get("floods");
        // Per size: messaging, then Aeron IPC raw and carrying the probe beside it (shm's baseline).
        assertEquals(6, floods.size(), json.toString());
        assertEquals(List.of("messaging", "aeron-ipc raw", "aeron-ipc probe", "messaging", "aeron-ipc raw",
            "aeron-ipc probe"), floods.stream().map(flood -> ((Map<String, Object>)flood).get("row")).toList());
        assertEquals(1024.0, ((Map<String, Object>)floods.get(3)).get("size"));
        for (final Object flood : floods)
        {
            final Map<String, Object> fields = (Map<String, Object>)flood;
            assertTrue(fields.keySet().containsAll(List.of("size", "messages", "bytes", "window_ns",
                "messages_per_second", "megabytes_per_second")), fields.toString());
            assertTrue((Double)fields.get("messages") > 0, fields.toString());
        }
        final List<Object> sweep = (List<Object>)json.get("sweep");
        assertTrue(!sweep.isEmpty() && sweep.size() <= 2, json.toString());
        assertEquals(10_000.0, ((Map<String, Object>)sweep.getFirst()).get("offered_rate"));
        assertTrue(((Map<String, Object>)sweep.getFirst()).keySet().containsAll(List.of("achieved_rate", "latency_ns",
            "due_latency_ns", "stopped_here")), sweep.toString());
        final String page = Files.readString(results.resolve(ResultsWriter.RESULTS_MD));
        for (final String plot : List.of(RatePlots.LATENCY_PLOT, RatePlots.THROUGHPUT_PLOT))
        {
            assertTrue(Files.size(results.resolve(plot)) > 0, plot + " is written");
            assertTrue(page.contains("](" + plot + ")"), plot + " is linked from results.md");
        }
        assertTrue(Files.size(results.resolve(ResultsWriter.SUMMARY_JSON)) > 0);
    }
}
