package io.ringwire.exchange.journal;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.ringwire.exchange.journal.JournalFormat.HEADER_LENGTH;

/**
 * Reads a journal's records in sequence order, from the start or from any sequence (the one after a
 * snapshot's, say), verifying each record's CRC32C before delivering it. Needs only the directory.
 *
 * <p>Reading ends at the end of the journal, or at the first bad record: a torn tail (the last
 * record, with nothing valid after it) is reported and not delivered; corruption (a bad record
 * with valid records after it, or a segment missing) is reported and reading stops there, because
 * skipping it would skip accepted messages. See {@link JournalDamage}. The result says which, and
 * where.
 *
 * <p>Segments are mapped read-only one at a time, and unmapped once read. Records are delivered
 * where they lie in the mapping, without copying or allocating per record.
 *
 * <p>Threading: one thread per reader. Read a journal no process is appending to: an append in
 * progress would look like a torn tail.
 */
public final class JournalReader
{
    private final Path directory;
    private final MappedSegment segment;
    private final int segmentLength;

    private long sequence;
    private long delivered;

    /**
     * @param directory a journal directory.
     * @throws IllegalArgumentException when it holds no journal, or one of another format.
     */
    public JournalReader(final Path directory)
    {
        this.directory = directory;
        final JournalDirectory.Metadata metadata = JournalDirectory.readMetadata(directory);
        this.segmentLength = metadata.segmentLength();
        this.segment = new MappedSegment(metadata);
    }

    /**
     * Delivers every record from the start.
     *
     * @param handler takes the records.
     * @return what was delivered and where reading ended.
     */
    public JournalReadResult readAll(final JournalRecordHandler handler)
    {
        return read(0, handler);
    }

    /**
     * Delivers every record from {@code fromSequence} on. The records before it are not read, except
     * those in the same segment, which are verified on the way.
     *
     * @param fromSequence the first sequence to deliver; beyond the end, nothing is delivered and the
     *                     result's {@link JournalReadResult#nextSequence()} says where the end is.
     * @param handler      takes the records.
     * @return what was delivered and where reading ended.
     * @throws UncheckedIOException naming a segment file that cannot be read.
     */
    public JournalReadResult read(final long fromSequence, final JournalRecordHandler handler)
    {
        if (fromSequence < 0)
        {
            throw new IllegalArgumentException("fromSequence=" + fromSequence + " is negative");
        }
        final long[] bases = JournalDirectory.segmentBases(directory);
        delivered = 0;
        if (0 == bases.length)
        {
            return new JournalReadResult(fromSequence, 0, 0, null);
        }
        int index = JournalDirectory.segmentHolding(bases, fromSequence);
        if (index < 0)
        {
            return new JournalReadResult(fromSequence, 0, fromSequence, new JournalDamage(JournalDamage.Kind.CORRUPT,
                JournalDirectory.segmentFile(directory, bases[0]), 0, fromSequence, "the journal's first segment " +
                "begins at sequence " + bases[0] + ": the records before it are missing"));
        }
        sequence = bases[index];
        for (; index < bases.length; index++)
        {
            final Path file = JournalDirectory.segmentFile(directory, bases[index]);
            if (bases[index] != sequence)
            {
                return new JournalReadResult(fromSequence, delivered, sequence, new JournalDamage(
                    JournalDamage.Kind.CORRUPT, file, 0, sequence, "this segment begins at sequence " + bases[index] +
                    ", but the segment before it ends at sequence " + (sequence - 1) + ": records are missing"));
            }
            final JournalDamage damage = readSegment(file, index == bases.length - 1, fromSequence, handler);
            if (null != damage)
            {
                return new JournalReadResult(fromSequence, delivered, sequence, damage);
            }
        }
        return new JournalReadResult(fromSequence, delivered, sequence, null);
    }

    /**
     * @return the journal directory.
     */
    public Path directory()
    {
        return directory;
    }

    /**
     * @return bytes per segment file.
     */
    public int segmentLength()
    {
        return segmentLength;
    }

    private JournalDamage readSegment(final Path file, final boolean lastSegment, final long fromSequence,
        final JournalRecordHandler handler)
    {
        final MappedByteBuffer mapping;
        final long fileLength;
        try
        {
            fileLength = Files.size(file);
            if (fileLength > segmentLength)
            {
                return new JournalDamage(JournalDamage.Kind.CORRUPT, file, segmentLength, sequence, "the file has " +
                    fileLength + " bytes, more than the journal's segment length " + segmentLength);
            }
            mapping = JournalDirectory.map(file, FileChannel.MapMode.READ_ONLY, (int)fileLength);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read journal segment " + file + " (" + ex + ")", ex);
        }
        try
        {
            segment.wrap(mapping, (int)fileLength);
            final UnsafeBuffer buffer = segment.buffer();
            int offset = 0;
            int outcome;
            while ((outcome = segment.check(offset)) > 0)
            {
                if (sequence >= fromSequence)
                {
                    handler.onRecord(sequence, buffer, offset + HEADER_LENGTH, outcome - HEADER_LENGTH);
                    delivered++;
                }
                sequence++;
                offset += JournalFormat.alignedLength(outcome);
            }
            return segment.damageAt(file, offset, sequence, outcome, lastSegment);
        }
        finally
        {
            segment.unwrap();
            IoUtil.unmap(mapping);
        }
    }
}
