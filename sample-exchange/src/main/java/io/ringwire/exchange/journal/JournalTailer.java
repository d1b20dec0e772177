package io.ringwire.exchange.journal;

import org.agrona.IoUtil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import static io.ringwire.exchange.journal.JournalFormat.HEADER_LENGTH;

/**
 * Follows a journal while it is written, in this process or another: delivers, in sequence order,
 * the records below a limit the writer has published (the records it has finished), each checked
 * against its CRC32C. A record below the limit is whole, so the tailer never meets an append in
 * progress and never has to guess whether bytes without a length are a torn record or one being
 * written (that guess is {@link JournalReader}'s, on a journal nobody appends to).
 *
 * <p>The writer rolls to a new segment when a record does not fit the current one, so a record the
 * limit says exists, with no length where the tailer expects it, begins the segment named after
 * its sequence, which the tailer maps (read-only) and moves to.
 *
 * <p>Threading: one thread. {@link #poll} allocates nothing but when it moves to another segment.
 */
public final class JournalTailer implements AutoCloseable
{
    private final Path directory;
    private final int segmentLength;
    private final MappedSegment segment;
    private MappedByteBuffer mapping;
    private long nextSequence;
    private int offset;

    /**
     * @param directory    a journal directory.
     * @param fromSequence the first record to deliver: one the journal holds, or the next it will.
     * @throws IllegalArgumentException when the directory holds no journal.
     * @throws IllegalStateException    when the journal does not reach {@code fromSequence}.
     */
    public JournalTailer(final Path directory, final long fromSequence)
    {
        this.directory = directory;
        final JournalDirectory.Metadata metadata = JournalDirectory.readMetadata(directory);
        this.segmentLength = metadata.segmentLength();
        this.segment = new MappedSegment(metadata);
        final long[] bases = JournalDirectory.segmentBases(directory);
        final int index = JournalDirectory.segmentHolding(bases, fromSequence);
        nextSequence = index < 0 ? fromSequence : bases[index];
        if (index >= 0)
        {
            mapSegment(bases[index]);
            while (nextSequence < fromSequence)
            {
                final int length = segment.check(offset);
                if (length <= 0)
                {
                    close();
                    throw new IllegalStateException("the journal in " + directory + " ends at sequence " + nextSequence +
                        ", before " + fromSequence);
                }
                offset += JournalFormat.alignedLength(length);
                nextSequence++;
            }
        }
    }

    /**
     * Delivers the records from {@link #nextSequence()} up to, not including, {@code limit}.
     *
     * @param handler    takes them.
     * @param limit      the writer's published record count.
     * @param maxRecords most records to deliver in this call.
     * @return records delivered.
     * @throws IllegalStateException when a record below the limit is missing or damaged.
     */
    public int poll(final JournalRecordHandler handler, final long limit, final int maxRecords)
    {
        int delivered = 0;
        while (delivered < maxRecords && nextSequence < limit)
        {
            int length = null == mapping ? MappedSegment.END : segment.check(offset);
            if (length == MappedSegment.END)
            {
                mapSegment(nextSequence);
                length = segment.check(offset);
            }
            if (length <= 0)
            {
                throw new IllegalStateException("journal record " + nextSequence + " in " + directory + " is " +
                    (length == MappedSegment.END ? "missing" : "damaged (" + length + ")") + ", though the writer " +
                    "published " + limit + " records");
            }
            handler.onRecord(nextSequence, segment.buffer(), offset + HEADER_LENGTH, length - HEADER_LENGTH);
            offset += JournalFormat.alignedLength(length);
            nextSequence++;
            delivered++;
        }
        return delivered;
    }

    /**
     * @return the sequence of the next record to deliver.
     */
    public long nextSequence()
    {
        return nextSequence;
    }

    private void mapSegment(final long baseSequence)
    {
        final Path file = JournalDirectory.segmentFile(directory, baseSequence);
        final MappedByteBuffer next;
        try
        {
            next = JournalDirectory.map(file, FileChannel.MapMode.READ_ONLY, segmentLength);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot follow the journal into " + file + " (" + ex + ")", ex);
        }
        unmap();
        mapping = next;
        segment.wrap(next, segmentLength);
        offset = 0;
    }

    private void unmap()
    {
        if (null != mapping)
        {
            segment.unwrap();
            IoUtil.unmap(mapping);
            mapping = null;
        }
    }

    /** Unmaps the segment it reads. */
    @Override
    public void close()
    {
        unmap();
    }
}
