package io.ringwire.exchange.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The child of {@link JournalFullFileSystemTest}, run on a small file system of its own: for each
 * round, opens a journal, fills the file system but for a little room, appends (preparing ahead
 * after each append) until a record finds no room, checks that record is refused with nothing
 * written and refused again, frees the room, appends on across segment rolls, and reads every record
 * back, with segments larger than the room left and smaller. Enough rounds that the JIT compiles
 * the append. Prints {@code OK rounds=<n> refused=<n>}; a
 * failed check throws, and the JVM exits with its trace.
 *
 * <p>Arguments: the file system's directory, rounds.
 */
final class JournalFullFileSystemProcess
{
    /** Segments larger than the room (preparing never reaches the next) and smaller (it does, and rolls meet the full file system). */
    private static final int[] SEGMENT_LENGTHS = { 64 * 1024, 16 * 1024 };
    /** Left free once the file system is full: a few pages. */
    private static final int ROOM = 24 * 1024;
    private static final TestRecords RECORDS = new TestRecords(0x5EED_F011L, 200, 3000, 50);

    private JournalFullFileSystemProcess()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        final Path root = Path.of(args[0]);
        final int rounds = Integer.parseInt(args[1]);
        long refused = 0;
        for (int round = 0; round < rounds; round++)
        {
            refused += round(root.resolve("journal-" + round), root.resolve("ballast"),
                SEGMENT_LENGTHS[round % SEGMENT_LENGTHS.length]);
        }
        System.out.println("OK rounds=" + rounds + " refused=" + refused);
    }

    private static long round(final Path directory, final Path ballast, final int segmentLength) throws IOException
    {
        final JournalContext context = new JournalContext().directory(directory).segmentLength(segmentLength)
            .conclude();
        final long total;
        final long refused;
        try (Journal journal = Journal.open(context))
        {
            fillButRoom(ballast);
            long sequence = 0;
            long result;
            while ((result = RECORDS.append(journal, sequence)) == sequence)
            {
                sequence++;
                journal.prepareAhead(2);
            }
            check(result == Journal.WRITE_FAILED, "the record that found no room is refused: " + result);
            check(sequence > 0 && journal.recordCount() == sequence, "appended " + sequence + ", counted " +
                journal.recordCount());
            check(RECORDS.append(journal, sequence) == Journal.WRITE_FAILED, "refused again while full");
            refused = journal.failedWrites();
            check(refused == 2, "both refusals counted: " + refused);

            Files.delete(ballast);
            final long segmentsBefore = JournalDirectory.segmentBases(directory).length;
            while (JournalDirectory.segmentBases(directory).length < segmentsBefore + 2)
            {
                check(RECORDS.append(journal, sequence) == sequence, "room again: record " + sequence);
                sequence++;
                journal.prepareAhead(2);
            }
            total = sequence;
        }
        final VerifyingHandler handler = new VerifyingHandler(RECORDS, 0);
        final JournalReadResult result = new JournalReader(directory).readAll(handler);
        check(result.clean(), "read back clean: " + result);
        handler.assertDelivered(total);
        try (Stream<Path> files = Files.walk(directory))
        {
            for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
            {
                Files.delete(file);
            }
        }
        return refused;
    }

    /** Writes the ballast until the file system is full, then gives {@link #ROOM} of it back. */
    private static void fillButRoom(final Path ballast) throws IOException
    {
        final ByteBuffer chunk = ByteBuffer.allocate(4096);
        try (FileChannel file = FileChannel.open(ballast, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING))
        {
            try
            {
                while (true)
                {
                    chunk.clear();
                    file.write(chunk);
                }
            }
            catch (final IOException full)
            {
                // no space left on the device
            }
            file.truncate(Math.max(0, file.size() - ROOM));
        }
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError(what);
        }
    }
}
