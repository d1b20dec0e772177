package io.ringwire.exchange.journal;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The child of {@link JournalCutShortTest}, run interpreted (where the JVM raises a fault in a store
 * to a mapping as an {@link InternalError}): appends records, cuts the current segment's file short
 * at the end of the tail's page, appends a record that starts before the cut and reaches past it,
 * and checks that the append is refused, that the part it stored before the cut is zeroed (a reader
 * sees a clean end), that the file stays cut, and that the journal, opened again, recovers and
 * appends. Prints {@code OK records=<n>}; a failed check throws, and the JVM exits with its trace.
 *
 * <p>Arguments: the journal directory.
 */
final class JournalCutShortProcess
{
    private static final int SEGMENT_LENGTH = 64 * 1024;
    private static final int PAGE = 4096;
    private static final int RECORD = 1000;

    private JournalCutShortProcess()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        final Path directory = Path.of(args[0]);
        final JournalContext context = new JournalContext().directory(directory).segmentLength(SEGMENT_LENGTH)
            .conclude();
        final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(PAGE));
        for (int i = 0; i < PAGE; i++)
        {
            payload.putByte(i, (byte)(i * 31 + 7));
        }
        final long records;
        try (Journal journal = Journal.open(context))
        {
            // 12 records of 1,008 bytes: the tail lies 192 bytes before the end of the third page.
            long sequence = 0;
            while (sequence < 12)
            {
                check(journal.append(payload, 0, RECORD) == sequence, "append " + sequence);
                sequence++;
            }
            journal.prepareAhead(16); // its pages allocated past the cut, as a writer at work has them
            records = journal.recordCount();
            final Path file = JournalDirectory.segmentFile(directory, 0);
            final long cut = 3L * PAGE;
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
            {
                channel.truncate(cut);
            }

            check(journal.append(payload, 0, RECORD + 100) == Journal.WRITE_FAILED,
                "a record reaching past the cut is refused");
            check(journal.failedWrites() == 1, "the refusal is counted: " + journal.failedWrites());
            check(journal.recordCount() == records, "the refused record takes no sequence");
            check(Files.size(file) == cut, "the file stays cut: " + Files.size(file));
            final JournalReadResult read = new JournalReader(directory).readAll((s, buffer, offset, length) -> { });
            check(read.clean() && read.nextSequence() == records,
                "what the refused append stored before the cut is zeroed: " + read);
        }

        try (Journal journal = Journal.open(context))
        {
            check(journal.recordCount() == records, "reopened after the last record: " + journal.recordCount());
            check(journal.append(payload, 0, RECORD + 100) == records, "the journal appends again");
        }
        final JournalReadResult read = new JournalReader(directory).readAll((s, buffer, offset, length) -> { });
        check(read.clean() && read.nextSequence() == records + 1, "every record reads back: " + read);
        System.out.println("OK records=" + (records + 1));
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError(what);
        }
    }
}
