package io.ringwire.exchange.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code demo --processes} stopped from outside (SIGTERM; Ctrl-C takes the same hook): it stops its
 * roles in order, prints the summary, and deletes the run's directory with every role's key and
 * token; a relative {@code --journal} is where the user's working directory puts it.
 */
class ProcessDemoStopTest
{
    @TempDir
    Path directory;

    @Test
    void aTerminatedProcessDemoSummarisesDeletesItsKeysAndKeepsARelativeJournalWhereAsked() throws Exception
    {
        // Its output goes to a file: Process.destroy closes this side's pipes.
        final Path output = directory.resolve("demo.out");
        final Process demo = new ProcessBuilder(RoleProcess.javaCommand(List.of(), ExchangeDemo.class.getName(),
            "--processes", "--seconds", "0", "--clients", "1", "--rate", "500", "--journal", "kept-journal"))
            .directory(directory.toFile()).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!Files.readString(output).contains("orders/s  fills"))
            {
                assertTrue(System.nanoTime() < deadline && demo.isAlive(), "the demo runs: " + Files.readString(output));
                Thread.sleep(50);
            }
            final String processes = Files.readAllLines(output).stream()
                .filter(line -> line.startsWith("processes: ")).findFirst().orElseThrow();
            final String marker = "roles' config files in ";
            final Path files = Path.of(processes.substring(processes.lastIndexOf(marker) + marker.length()).trim());
            assertTrue(Files.isDirectory(files.resolve("keys")), "the run's keys: " + files);

            demo.destroy();
            assertTrue(demo.waitFor(120, TimeUnit.SECONDS), "the demo ends: " + Files.readString(output));

            final String printed = Files.readString(output);
            assertTrue(printed.contains("\nsummary ("), "a summary: " + printed);
            assertTrue(printed.contains("checks            passed"), printed);
            assertFalse(Files.exists(files), "the run's keys and tokens are deleted: " + files);
            try (Stream<Path> journal = Files.list(directory.resolve("kept-journal")))
            {
                assertTrue(journal.anyMatch(file -> file.getFileName().toString().endsWith(".journal")),
                    "the journal in the working directory, kept");
            }
        }
        finally
        {
            demo.destroyForcibly();
        }
    }
}
