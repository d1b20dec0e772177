package io.ringwire.perf.compare;

import io.ringwire.perf.PerfMain;
import io.ringwire.perf.testing.MiniJson;
import io.ringwire.rdma.host.OnlineCpus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One short real {@code perf compare} on shm against aeron-ipc only: it runs shm's channel and
 * messaging and aeron-ipc in each round, reads both ratios per round, and writes the same JSON to
 * --out as to stdout. No latency thresholds.
 */
class CompareRunTest
{
    @TempDir
    Path directory;

    @Test
    @SuppressWarnings("unchecked")
    void compareShmWithAeronIpcReadsBothRatiosInEachRound() throws Exception
    {
        final Path outFile = directory.resolve("compare.json");
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exitCode = PerfMain.compare(new String[] { "--pairs", "shm/aeron-ipc", "--messages", "300",
            "--warmup", "200", "--rounds", "2", "--json", "--allow-oversubscribe", "--shm-dir",
            directory.resolve("shm").toString(), "--out", outFile.toString() },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
            OnlineCpus.asList());
        assertEquals(0, exitCode, err::toString);
        final String json = out.toString(StandardCharsets.UTF_8);
        assertEquals(json, Files.readString(outFile), "--out holds what stdout printed");
        final Map<String, Object> root = (Map<String, Object>)MiniJson.parse(json);
        final List<Map<String, Object>> rows = (List<Map<String, Object>>)root.get("rows");
        assertEquals(List.of("shm channel", "shm messaging", "aeron-ipc raw"),
            rows.stream().map(row -> row.get("provider") + " " + row.get("api")).toList());
        final List<Map<String, Object>> ratios = (List<Map<String, Object>>)root.get("ratios");
        assertEquals(List.of("shm / aeron-ipc", "shm messaging / aeron-ipc"),
            ratios.stream().map(ratio -> ratio.get("label")).toList());
        for (final Map<String, Object> ratio : ratios)
        {
            assertEquals(2, ((List<Object>)ratio.get("values")).size(), "one reading per round");
            assertTrue((Double)ratio.get("median") > 0, ratio.toString());
        }
    }
}
