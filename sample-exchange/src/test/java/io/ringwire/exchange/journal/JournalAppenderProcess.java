package io.ringwire.exchange.journal;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child of {@link JournalKillTest}: opens the journal, says {@code OPENED next=<n>}, then
 * appends {@link JournalKillTest#RECORDS}' records one after another, printing
 * {@code APPENDED <sequence>} after each append returned, until it is killed. It exits by itself
 * when its stdin ends (the test JVM is gone) or after {@code maxRecords}, so it never outlives a
 * dying test or fills the disk.
 *
 * <p>Arguments: journal directory, segment length, records to append at most.
 */
final class JournalAppenderProcess
{
    private JournalAppenderProcess()
    {
    }

    public static void main(final String[] args)
    {
        final Path directory = Path.of(args[0]);
        final int segmentLength = Integer.parseInt(args[1]);
        final long maxRecords = Long.parseLong(args[2]);
        exitWhenStdinEnds();

        final PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)),
            false, StandardCharsets.US_ASCII);
        final JournalContext context = new JournalContext().directory(directory).segmentLength(segmentLength)
            .conclude();
        try (Journal journal = Journal.open(context))
        {
            out.println("OPENED next=" + journal.recordCount());
            out.flush();
            for (long appended = 0; appended < maxRecords; appended++)
            {
                final long sequence = journal.recordCount();
                final long result = JournalKillTest.RECORDS.append(journal, sequence);
                if (result != sequence)
                {
                    out.println("FAILED sequence=" + sequence + " result=" + result + " " + journal.lastRollFailure());
                    out.flush();
                    System.exit(1);
                }
                out.println("APPENDED " + result);
                out.flush();
            }
        }
        out.println("DONE");
        out.flush();
    }

    private static void exitWhenStdinEnds()
    {
        final Thread watcher = new Thread(() ->
        {
            try
            {
                while (System.in.read() >= 0)
                {
                    // the test sends nothing; only the end matters
                }
            }
            catch (final IOException ignore)
            {
                // the pipe broke: the test is gone too
            }
            Runtime.getRuntime().halt(3);
        }, "stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }
}
