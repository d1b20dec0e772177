package io.ringwire.perf.path;

import io.ringwire.perf.PerfMain;
import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.rtt.RttOptions;
import io.ringwire.perf.testing.MiniJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ringwire perf path}: its options, and short real runs of every provider through both paths
 * on one thread, each reporting a positive cost per hop.
 */
class PathTest
{
    @TempDir
    Path shmDirectory;

    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    @Test
    void defaultsAreShmThroughBothPaths()
    {
        final PathOptions options = PathOptions.parse();

        assertEquals(List.of("shm"), options.providers());
        assertEquals(List.of(Transports.API_CHANNEL, Transports.API_MESSAGING), options.apis());
        assertEquals(32, options.size());
        assertEquals(PathOptions.DEFAULT_HOPS, options.hops());
        assertEquals(PathOptions.DEFAULT_REPETITIONS, options.repetitions());
    }

    @Test
    void theMedianOfAnEvenNumberOfRepetitionsIsTheMeanOfTheMiddleTwo()
    {
        final PathBenchmark.Result two = PathBenchmark.result("shm", "messaging", 32, 100, new double[]{ 20, 10 });
        assertEquals(15, two.medianNs(), 1e-9);
        assertEquals(10, two.lowestNs(), 1e-9);
        final PathBenchmark.Result three = PathBenchmark.result("shm", "messaging", 32, 100, new double[]{ 30, 10, 20 });
        assertEquals(20, three.medianNs(), 1e-9);
        assertEquals(3, three.repetitions());
    }

    @Test
    void badOptionsAreRefusedNamingTheOptionAndItsAllowedValues()
    {
        assertTrue(assertThrows(UsageException.class, () -> PathOptions.parse("--provider", "nio-tcp")).getMessage()
            .contains("allowed: shm, socket, roce"));
        assertTrue(assertThrows(UsageException.class, () -> PathOptions.parse("--hops", "10")).getMessage()
            .contains("--hops='10' is out of range; allowed: 1000 to"));
        assertTrue(assertThrows(UsageException.class, () -> PathOptions.parse("--size=8")).getMessage()
            .contains("--size='8' is out of range"));
        assertTrue(assertThrows(UsageException.class, () -> PathOptions.parse("--bogus")).getMessage()
            .contains("unknown option '--bogus'"));
        assertEquals(2, PerfMain.run(new String[] { "path", "--repetitions", "0" }, out, err));
        assertTrue(errBytes.toString(StandardCharsets.UTF_8).contains("ringwire perf path: --repetitions='0'"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyProviderRunsBothPathsOnOneThreadAndReportsAPositiveCostPerHop()
    {
        final int exitCode = PerfMain.run(new String[] { "path", "--provider", "shm,socket,roce", "--hops", "2000",
            "--repetitions", "2", "--json", "--shm-dir", shmDirectory.toString() }, out, err);

        assertEquals(0, exitCode, errBytes.toString(StandardCharsets.UTF_8));
        final Map<String, Object> json = (Map<String, Object>)MiniJson.parse(outBytes.toString(StandardCharsets.UTF_8));
        final List<Object> results = (List<Object>)json.get("results");
        assertEquals(6, results.size(), json.toString());
        int index = 0;
        for (final String provider : List.of("shm", "socket", "roce"))
        {
            for (final String api : List.of("channel", "messaging"))
            {
                final Map<String, Object> result = (Map<String, Object>)results.get(index++);
                assertEquals(provider, result.get("provider"));
                assertEquals(api, result.get("api"));
                assertEquals(2000.0, ((Number)result.get("hops")).doubleValue());
                final double median = ((Number)result.get("median_ns_per_hop")).doubleValue();
                final double lowest = ((Number)result.get("lowest_ns_per_hop")).doubleValue();
                assertTrue(lowest > 0 && lowest <= median, result.toString());
            }
        }
    }
}
