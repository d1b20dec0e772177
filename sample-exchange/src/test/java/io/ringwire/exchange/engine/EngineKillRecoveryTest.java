package io.ringwire.exchange.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A real engine process, killed with SIGKILL at random points and restarted each time from its
 * journal and snapshots, ends with exactly the books and the output digest of a run never
 * interrupted, and never restarts behind a request it reported applied. The same journal replayed
 * from its first record (what {@code ringwire exchange replay} does) gives that digest too.
 */
class EngineKillRecoveryTest
{
    private static final long SEED = 0xC0FFEEL;
    private static final long TOTAL = 1_500_000;
    private static final long SNAPSHOT_INTERVAL = 100_000;
    private static final int KILLS = 20;

    @TempDir
    Path directory;

    @Test
    void anEngineKilledAtRandomPointsRecoversToTheBooksAndDigestOfAnUninterruptedRun() throws Exception
    {
        final String reference = runToEnd(directory.resolve("uninterrupted"));

        final Path journal = directory.resolve("killed");
        final SplittableRandom random = new SplittableRandom(SEED);
        int kills = 0;
        Run run;
        long reportedBefore = 0;
        do
        {
            run = start(journal);
            assertTrue(run.readyApplied >= reportedBefore, "restart " + kills + " recovered " + run.readyApplied +
                " requests, but " + reportedBefore + " were reported applied before the kill");
            if (kills < KILLS)
            {
                Thread.sleep(random.nextInt(10, 250));
                run.process.destroyForcibly();
                run.process.waitFor(30, TimeUnit.SECONDS);
                run.reader.join(10_000);
                if (null == run.doneLine.get())
                {
                    kills++;
                    reportedBefore = Math.max(reportedBefore, run.lastApplied.get());
                }
            }
            else
            {
                assertTrue(run.process.waitFor(120, TimeUnit.SECONDS), "the last run never finished");
                run.reader.join(10_000);
            }
        }
        while (null == run.doneLine.get());

        assertTrue(kills >= KILLS, "only " + kills + " kills landed before the run finished");
        assertEquals(reference, run.doneLine.get(), "books and digest after " + kills + " kills");

        final JournaledEngine.Replay replay = JournaledEngine.replay(journal);
        assertEquals(TOTAL, replay.records());
        assertTrue(reference.contains("digest=" + replay.digest() + " "), "replay's digest " + replay.digest() +
            " against " + reference);
        assertTrue(reference.endsWith("books=" + replay.booksDigest()), "replay's books");
    }

    private String runToEnd(final Path journal) throws Exception
    {
        final Run run = start(journal);
        assertTrue(run.process.waitFor(120, TimeUnit.SECONDS), "the uninterrupted run never finished");
        run.reader.join(10_000);
        assertNotNull(run.doneLine.get(), "the uninterrupted run printed no DONE");
        return run.doneLine.get();
    }

    private Run start(final Path journal) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!argument.startsWith("-agentlib") && !argument.startsWith("-javaagent"))
            {
                command.add(argument);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(EngineKillProcess.class.getName());
        command.add(journal.toString());
        command.add(Long.toString(SEED));
        command.add(Long.toString(TOTAL));
        command.add(Long.toString(SNAPSHOT_INTERVAL));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final AtomicLong lastApplied = new AtomicLong();
        final AtomicReference<String> done = new AtomicReference<>();
        final AtomicReference<String> ready = new AtomicReference<>();
        final List<String> output = new CopyOnWriteArrayList<>();
        final Thread reader = Thread.ofPlatform().daemon().start(() ->
        {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = lines.readLine()) != null)
                {
                    if (line.startsWith("READY "))
                    {
                        ready.set(line);
                    }
                    else if (line.startsWith("APPLIED "))
                    {
                        lastApplied.set(Long.parseLong(line.substring(8).trim()));
                    }
                    else if (line.startsWith("DONE "))
                    {
                        done.set(line);
                    }
                    else
                    {
                        System.out.println("[engine] " + line);
                        output.add(line);
                    }
                }
            }
            catch (final IOException ex)
            {
                // the process died
            }
        });
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (null == ready.get() && process.isAlive() && System.nanoTime() < deadline)
        {
            Thread.sleep(1);
        }
        if (null == ready.get())
        {
            // What refused to start, for a look at its bytes: the journal as the restart found it.
            final Path kept = Path.of("target", "engine-kill-recovery-" + System.currentTimeMillis());
            copyTree(journal, kept);
            fail("the engine process never became ready; the journal is kept in " + kept.toAbsolutePath() +
                "; its output:\n" + String.join("\n", output.subList(Math.max(0, output.size() - 20), output.size())));
        }
        final long readyApplied = Long.parseLong(ready.get().substring("READY applied=".length()).trim());
        return new Run(process, reader, readyApplied, lastApplied, done);
    }

    private static void copyTree(final Path from, final Path to) throws IOException
    {
        try (Stream<Path> paths = Files.walk(from))
        {
            for (final Path path : (Iterable<Path>)paths::iterator)
            {
                final Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path))
                {
                    Files.createDirectories(target);
                }
                else
                {
                    Files.copy(path, target);
                }
            }
        }
    }

    private record Run(Process process, Thread reader, long readyApplied, AtomicLong lastApplied,
        AtomicReference<String> doneLine)
    {
    }
}
