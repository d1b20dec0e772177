package io.ringwire.perf.jmh;

import io.ringwire.perf.PerfMain;
import io.ringwire.perf.testing.ChildJvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code ringwire perf jmh}'s exit code, from a child JVM (JMH's command line ends its JVM when a run
 * fails): a benchmark that throws fails the run, unless the caller asked JMH to go on with
 * {@code -foe false}. {@code FrameBenchmark.append} throws with a payload longer than its 4 KiB
 * source buffer.
 */
@Tag("system")
class JmhExitCodeTest
{
    private static final long RUN_TIMEOUT_S = 120;
    private static final List<String> SHORT_RUN = List.of("-f", "0", "-wi", "0", "-i", "1", "-r", "100ms");

    @TempDir
    Path directory;

    @Test
    void aBenchmarkThatThrowsFailsTheRun() throws Exception
    {
        final Run run = jmh(List.of("-p", "payloadLength=5000", "FrameBenchmark.append"));
        assertEquals(1, run.exitCode, run.output);
        assertTrue(run.output.contains("IndexOutOfBoundsException"), run.output);
    }

    @Test
    void aBenchmarkThatThrowsLeavesTheRunGoingWhenTheCallerSaysSo() throws Exception
    {
        final Run run = jmh(List.of("-foe", "false", "-p", "payloadLength=5000", "FrameBenchmark.append"));
        assertEquals(0, run.exitCode, run.output);
        assertTrue(run.output.contains("IndexOutOfBoundsException"), run.output);
    }

    @Test
    void aBenchmarkThatRunsExitsZero() throws Exception
    {
        final Run run = jmh(List.of("-p", "payloadLength=64", "FrameBenchmark.append"));
        assertEquals(0, run.exitCode, run.output);
        assertTrue(run.output.contains("FrameBenchmark.append"), run.output);
    }

    private record Run(int exitCode, String output)
    {
    }

    private Run jmh(final List<String> benchmarkArguments) throws Exception
    {
        final List<String> command = new ArrayList<>(ChildJvm.javaWithThisJvmsOptions());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(PerfMain.class.getName());
        command.add("jmh");
        command.addAll(SHORT_RUN);
        command.addAll(benchmarkArguments);
        final Path output = directory.resolve("output");
        final Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(output.toFile()).start();
        if (!process.waitFor(RUN_TIMEOUT_S, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            fail("perf jmh " + benchmarkArguments + " ran past " + RUN_TIMEOUT_S + " s:\n" +
                Files.readString(output, StandardCharsets.UTF_8));
        }
        return new Run(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }
}
