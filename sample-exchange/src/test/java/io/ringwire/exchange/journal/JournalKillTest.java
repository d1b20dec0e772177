package io.ringwire.exchange.journal;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A journal written by a process that is SIGKILLed at a random moment loses nothing it reported
 * appended. Each round starts a child JVM ({@link JournalAppenderProcess}) on the same journal,
 * lets it report a random number of appends, waits a random fraction of a few milliseconds, and
 * SIGKILLs it. The journal then holds every record the child reported, byte-exact, in order,
 * without a gap, at most one more it appended but did not get to report, and after them at most
 * one torn record (an append the kill cut short), never corruption. The next round's child must
 * start right after the last good record.
 *
 * <p>Records are mostly small with every fourth one up to 64 KiB, and segments are 256 KiB, so
 * the child spends much of its time inside appends and rolls segments often. Only some kills land
 * mid-append (the writer allocates a record's pages through the file before it stores the record,
 * so the stores themselves are short): rounds go on past {@link #MIN_ROUNDS} until
 * {@link #TORN_TAILS_WANTED} found a torn record, up to {@link #MAX_ROUNDS}, and at least one must
 * have, or the test proved nothing about them.
 */
@Tag("system")
class JournalKillTest
{
    /** The records every child appends, record {@code n} always the same. */
    static final TestRecords RECORDS = new TestRecords(0x5EED_3003L, 200, 64 * 1024, 4);

    private static final long SEED = 0x5EED_3004L;
    private static final int MIN_ROUNDS = 6;
    /** Rounds go on past {@link #MIN_ROUNDS} until this many found a torn record, up to {@link #MAX_ROUNDS}. */
    private static final int TORN_TAILS_WANTED = 2;
    private static final int MAX_ROUNDS = 160;
    private static final int SEGMENT_LENGTH = 256 * 1024;
    private static final int MIN_REPORTS_BEFORE_KILL = 100;
    private static final int MAX_REPORTS_BEFORE_KILL = 1500;
    private static final long MAX_KILL_DELAY_NS = TimeUnit.MILLISECONDS.toNanos(3);
    /** A child stops by itself after this many appends, whatever happens to the test. */
    private static final long MAX_RECORDS_PER_CHILD = 200_000;

    @TempDir
    Path directory;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void everyRecordReportedBeforeASigkillIsThereByteExactWithAtMostOneTornRecordAfter() throws IOException
    {
        final Path journal = directory.resolve("journal");
        final Random random = new Random(SEED);
        final List<String> rounds = new ArrayList<>();
        long recordsBefore = 0;
        int tornTails = 0;
        for (int round = 1; round <= MIN_ROUNDS || (round <= MAX_ROUNDS && tornTails < TORN_TAILS_WANTED); round++)
        {
            final int reportsBeforeKill = MIN_REPORTS_BEFORE_KILL +
                random.nextInt(MAX_REPORTS_BEFORE_KILL - MIN_REPORTS_BEFORE_KILL + 1);
            final long killDelayNs = random.nextLong(MAX_KILL_DELAY_NS);
            final long lastReported = runAndKill(journal, round, recordsBefore, reportsBeforeKill, killDelayNs);

            final VerifyingHandler handler = new VerifyingHandler(RECORDS, 0);
            final JournalReadResult result = new JournalReader(journal).readAll(handler);
            final String context = "round " + round + " (child reported up to sequence " + lastReported + "): " +
                result;
            assertFalse(result.corrupt(), context);
            handler.assertDelivered(result.nextSequence());
            assertTrue(result.nextSequence() > lastReported, "a reported record is missing; " + context);
            assertTrue(result.nextSequence() <= lastReported + 2,
                "more than one record appended but not reported; " + context);
            if (result.tornTail())
            {
                tornTails++;
                assertEquals(result.nextSequence(), result.damage().sequence(), context);
            }
            rounds.add(context);
            recordsBefore = result.nextSequence();
        }
        System.out.println(String.join("\n", rounds));
        assertTrue(tornTails > 0, "no kill in " + rounds.size() + " rounds landed inside an append, so nothing " +
            "was learnt about torn records:\n" + String.join("\n", rounds));
    }

    /**
     * Starts a child on the journal, waits for {@code reportsBeforeKill} of its reports and then
     * {@code killDelayNs}, SIGKILLs it, and reads what it reported before it died.
     *
     * @return the last sequence the child reported appended.
     */
    private long runAndKill(final Path journal, final int round, final long recordsBefore,
        final int reportsBeforeKill, final long killDelayNs) throws IOException
    {
        final Path stderr = directory.resolve("child-" + round + ".stderr");
        final Process child = start(journal, stderr);
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(),
            StandardCharsets.US_ASCII)))
        {
            final String opened = nextLine(lines, child, stderr);
            assertEquals("OPENED next=" + recordsBefore, opened,
                "round " + round + ": the child must append right after the last good record");
            long lastReported = recordsBefore - 1;
            for (int reports = 0; reports < reportsBeforeKill; reports++)
            {
                lastReported = expectAppended(nextLine(lines, child, stderr), lastReported);
            }
            // Killing on a report's arrival would always catch the child just after a print; a
            // random pause puts the kill anywhere in its cycle.
            LockSupport.parkNanos(killDelayNs);
            // SIGKILL through the process handle: Process.destroyForcibly sends the same signal but
            // also closes this end of the child's stdout, losing the reports still in the pipe.
            assertTrue(child.toHandle().destroyForcibly(), "SIGKILL could not be sent");
            assertTrue(child.waitFor(10, TimeUnit.SECONDS), "child still alive 10 s after SIGKILL");
            for (String line = lines.readLine(); null != line; line = lines.readLine())
            {
                lastReported = expectAppended(line, lastReported);
            }
            assertEquals(137, child.exitValue(), "the child died of SIGKILL (128 + 9)");
            return lastReported;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        finally
        {
            child.destroyForcibly();
        }
    }

    private static long expectAppended(final String line, final long lastReported)
    {
        assertEquals("APPENDED " + (lastReported + 1), line, "the child reports each sequence in turn");
        return lastReported + 1;
    }

    private static String nextLine(final BufferedReader lines, final Process child, final Path stderr)
        throws IOException
    {
        final String line = lines.readLine();
        if (null == line)
        {
            fail("the child ended before it was killed; its stderr:\n" + Files.readString(stderr));
        }
        assertFalse(line.startsWith("FAILED"), line);
        return line;
    }

    /** Starts {@link JournalAppenderProcess} in a JVM like this one ({@link ChildJvm}). */
    private static Process start(final Path journal, final Path stderr)
    {
        final List<String> command = ChildJvm.command(JournalAppenderProcess.class, journal.toString(),
            Integer.toString(SEGMENT_LENGTH), Long.toString(MAX_RECORDS_PER_CHILD));
        try
        {
            final Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
            assertNotNull(process);
            return process;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start the child: " + command, ex);
        }
    }
}
