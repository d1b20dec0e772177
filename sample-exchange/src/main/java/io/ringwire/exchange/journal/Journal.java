package io.ringwire.exchange.journal;

import org.agrona.DirectBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.ringwire.exchange.journal.JournalFormat.CHECKSUM_OFFSET;
import static io.ringwire.exchange.journal.JournalFormat.HEADER_LENGTH;
import static io.ringwire.exchange.journal.JournalFormat.ORDER;
import static io.ringwire.exchange.journal.SegmentPreparer.ALLOCATION_BATCH;
import static io.ringwire.exchange.journal.SegmentPreparer.PAGE;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * The writer of an append-only journal of byte records in memory-mapped segment files (layout in
 * {@link JournalFormat}, files in {@link JournalDirectory}). The matching engine appends each
 * message it accepts here before it applies it.
 *
 * <p>Each record gets a sequence, its index from 0 across all segments; {@link #recordCount()}
 * is the sequence the next record gets. A record is written payload first, then its CRC32C, then
 * its length with release semantics, so it exists only once it is complete: a process killed
 * mid-append leaves at most one unfinished record at the tail, which readers report as a torn tail
 * and {@link #open} discards.
 *
 * <p>Durability. A record is in the kernel's page cache once {@link #append} returns, so a process
 * killed at any moment (SIGKILL included) loses nothing that append accepted: the kernel writes
 * the pages back whatever becomes of the process. A power loss or kernel crash can lose what the
 * kernel has not yet written back; {@link #force()} writes everything appended so far to the
 * storage device (msync and fsync), at the cost of waiting for it, and is the call to make where
 * power-loss durability matters (before acknowledging to a client, say, or periodically).
 *
 * <p>Segment files are sparse, and no store into the mapping is the first write of a page: the
 * writer has the file system give a page its blocks by writing zeros there through the file first,
 * ahead of the appends in its idle time ({@link #prepareAhead}, which also makes the next segment
 * under the name {@value #PREPARED_SEGMENT} for a roll to rename; {@link SegmentPreparer}), and in
 * an append that reaches past what was prepared, one batch of pages in one write. A full file
 * system is therefore an error of a write, at a known point: the append that finds no room is
 * refused ({@link #WRITE_FAILED}) with nothing written. A store into a page without blocks would
 * fault (SIGBUS), which the JVM raises as an {@link InternalError} in the append only while it runs
 * interpreted (compiled, later; inside the JDK's CRC32C stub, not at all: the process ends); with
 * every page allocated first, only a segment cut short under the journal by another hand can. That
 * holds on file systems that overwrite a page in place (ext4, XFS without shared extents, tmpfs);
 * a copy-on-write one (btrfs, ZFS) takes new blocks on every write fault, and can still fault.
 *
 * <p>Threading: one thread at a time appends, prepares and forces (single writer, no locks on the
 * append path); it may be another than the one that opened it, or than the one that closes it,
 * where the hand-over orders their memory (a thread started after the open, one joined before the
 * close). One process appends to a directory at a time ({@value JournalDirectory#LOCK_FILE} is
 * locked while it is open). The counters are plain fields for the writing thread; others may read
 * stale values.
 */
public final class Journal implements AutoCloseable
{
    /** {@link #append}: the payload is longer than {@link #maxPayloadLength()}; nothing written. */
    public static final long RECORD_TOO_LARGE = -1;
    /** {@link #append}: the offset or length is negative or outside the source buffer; nothing written. */
    public static final long INVALID_RANGE = -2;
    /**
     * {@link #append}: the record needed a new segment and it could not be created or mapped (the
     * directory was removed or made read-only, say; {@link #lastRollFailure()} says why); nothing
     * written. The next append tries again.
     */
    public static final long SEGMENT_ROLL_FAILED = -3;
    /** {@link #append}: the journal is closed; nothing written. */
    public static final long CLOSED = -4;
    /**
     * {@link #append}: the file system could not give the record its pages (full, over quota, an
     * I/O error; or the segment's channel, closed by an interrupt arriving during a write, could not
     * be opened again); nothing was written, and the tail is as it was. The next
     * append tries again. (Also, as far as the JVM lets it be caught, a page that faulted anyway, the
     * segment cut short under the journal: what was written of the record is then cleared again.)
     */
    public static final long WRITE_FAILED = -5;
    /** The next segment, made and touched ahead of the roll that renames it; never read. */
    public static final String PREPARED_SEGMENT = "segment-next.prepared";

    private static final System.Logger LOGGER = System.getLogger(Journal.class.getName());

    private final Path directory;
    private final int segmentLength;
    private final int maxPayloadLength;
    private final MappedSegment segment;
    private final LockFile lockFile;
    private final JournalDamage discardedTornTail;

    /** The current segment: pages are allocated through its file ahead of the stores into its mapping. */
    private SegmentFile current;
    /**
     * Bytes of the current segment from 0 whose pages have their blocks: written through the
     * mapping, or allocated by writing zeros through the file.
     */
    private int touchedUpTo;
    private final SegmentPreparer preparer;
    /** A roll failed: every append tries it again before it writes (see {@link #append}). */
    private boolean rollPending;
    private long segmentBaseSequence;
    private int tailOffset;
    private long nextSequence;
    /** Segments from this first sequence on may hold data not yet forced to the device. */
    private long unforcedFromBaseSequence;
    private long refusedAppends;
    private long failedRolls;
    private long failedWrites;
    private Exception lastRollFailure;
    private boolean closed;

    private Journal(final Path directory, final JournalDirectory.Metadata metadata, final long[] bases,
        final LockFile lockFile) throws IOException
    {
        this.directory = directory;
        this.lockFile = lockFile;
        this.segmentLength = metadata.segmentLength();
        this.maxPayloadLength = metadata.maxPayloadLength();
        this.segment = new MappedSegment(metadata);
        this.preparer = new SegmentPreparer(directory, segmentLength);
        segmentBaseSequence = 0 == bases.length ? 0 : bases[bases.length - 1];
        unforcedFromBaseSequence = 0 == bases.length ? 0 : bases[0];
        final Path file = JournalDirectory.segmentFile(directory, segmentBaseSequence);
        final long fileLength = Files.exists(file) ? Files.size(file) : 0;
        if (fileLength > segmentLength)
        {
            throw new IllegalStateException(file + " has " + fileLength + " bytes, more than the journal's " +
                "segment length " + segmentLength + " (" + JournalDirectory.METADATA_FILE + "): it is not a " +
                "segment of this journal");
        }
        // A crash's, never part of the journal; gone first, its blocks are room for the recovery's writes.
        Files.deleteIfExists(directory.resolve(PREPARED_SEGMENT));
        current = SegmentFile.open(file, segmentLength);
        try
        {
            segment.wrap(current.mapping(), (int)fileLength);
            discardedTornTail = recoverTail(file);
            segment.fileLength(segmentLength);
            touchedUpTo = tailOffset;
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            segment.unwrap();
            current.close();
            restoreLength(file, fileLength, ex);
            throw ex;
        }
    }

    /**
     * Gives a last segment that the open refused the length it had: the mapping grew it to the
     * segment length, and a file cut short is evidence the operator needs to repair it.
     */
    private static void restoreLength(final Path file, final long fileLength, final Throwable failure)
    {
        try (FileChannel channel = FileChannel.open(file, WRITE))
        {
            if (channel.size() > fileLength)
            {
                channel.truncate(fileLength);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            failure.addSuppressed(ex);
        }
    }

    /**
     * Opens the journal in the context's directory, creating it (and the directory) if absent, and
     * positions the writer after the last valid record. A torn last record (see
     * {@link JournalDamage}) is reported (logged, and kept in {@link #discardedTornTail()}) and zeroed.
     *
     * @param context concluded configuration.
     * @return the open journal.
     * @throws JournalCorruptException when the last segment holds a damaged record with valid records after it.
     * @throws IllegalStateException   when another process has the journal open, or its files do not fit together.
     * @throws UncheckedIOException    naming the file that cannot be created, read or mapped.
     */
    public static Journal open(final JournalContext context)
    {
        final Path directory = context.directory();
        LockFile lockFile = null;
        try
        {
            Files.createDirectories(directory);
            lockFile = LockFile.take(directory, JournalDirectory.LOCK_FILE,
                "the journal in " + directory + " is open for appending in this process (or being read by a " +
                    "replay's check): one writer at a time",
                "the journal in " + directory + " is open for appending elsewhere (" + JournalDirectory.LOCK_FILE +
                    " is locked, or a replay is checking it): one writer at a time");
            final long[] bases = JournalDirectory.segmentBases(directory);
            final JournalDirectory.Metadata metadata;
            if (Files.exists(directory.resolve(JournalDirectory.METADATA_FILE)))
            {
                metadata = JournalDirectory.readMetadata(directory);
            }
            else if (0 == bases.length)
            {
                metadata = new JournalDirectory.Metadata(context.segmentLength(), context.maxPayloadLength());
                JournalDirectory.writeMetadata(directory, metadata);
            }
            else
            {
                throw new IllegalStateException(directory + " holds segment files but no " +
                    JournalDirectory.METADATA_FILE + ": restore it (" + JournalDirectory.FORMAT_VERSION_KEY + "=" +
                    JournalFormat.FORMAT_VERSION + ", " + JournalDirectory.SEGMENT_LENGTH_KEY +
                    "=<the segment files' length>)");
            }
            return new Journal(directory, metadata, bases, lockFile);
        }
        catch (final IOException ex)
        {
            LockFile.closeQuietly(lockFile);
            throw new UncheckedIOException("cannot open the journal in " + directory + " (" + ex + ")", ex);
        }
        catch (final RuntimeException | Error ex)
        {
            LockFile.closeQuietly(lockFile);
            throw ex;
        }
    }

    /**
     * Appends one record. Allocation-free and lock-free, except when the record needs a new
     * segment (once per segment), which creates and maps a file. A record that reaches past the
     * pages {@link #prepareAhead} allocated allocates a batch of them first, with one write.
     *
     * @param buffer holding the payload.
     * @param offset where the payload starts in {@code buffer}.
     * @param length the payload's bytes, from 0 to {@link #maxPayloadLength()}.
     * @return the record's sequence (0 or more), or {@link #RECORD_TOO_LARGE}, {@link #INVALID_RANGE}
     *         (both counted in {@link #refusedAppends()}), {@link #SEGMENT_ROLL_FAILED} (counted in
     *         {@link #failedRolls()}), {@link #WRITE_FAILED} (counted in {@link #failedWrites()}) or
     *         {@link #CLOSED}.
     */
    public long append(final DirectBuffer buffer, final int offset, final int length)
    {
        if (closed)
        {
            return CLOSED;
        }
        if (length > maxPayloadLength)
        {
            refusedAppends++;
            return RECORD_TOO_LARGE;
        }
        if (offset < 0 || length < 0 || offset > buffer.capacity() - length)
        {
            refusedAppends++;
            return INVALID_RANGE;
        }
        final int recordLength = HEADER_LENGTH + length;
        final int alignedLength = JournalFormat.alignedLength(recordLength);
        // Once a roll failed, no record goes into the segment it left, however small: the failed
        // roll may have left the next segment's file, named for this record's sequence, and a
        // record here under that sequence would read, on the next open, as records missing.
        if ((rollPending || alignedLength > segmentLength - tailOffset) && !roll())
        {
            rollPending = true;
            return SEGMENT_ROLL_FAILED;
        }
        final int recordOffset = tailOffset;
        final int payloadOffset = recordOffset + HEADER_LENGTH;
        if (recordOffset + alignedLength > touchedUpTo && !allocate(recordOffset + alignedLength))
        {
            return WRITE_FAILED;
        }
        try
        {
            segment.buffer().putBytes(payloadOffset, buffer, offset, length);
            segment.buffer().putInt(recordOffset + CHECKSUM_OFFSET, segment.checksum(payloadOffset, length), ORDER);
            // The length goes last, with release: a reader of this mapping that sees it sees the payload
            // and checksum. A SIGKILL stops this thread between two stores, and what it stored so far
            // stays in the page cache: a record without its length is no record.
            JournalFormat.putLengthRelease(segment.buffer(), recordOffset, recordLength);
        }
        catch (final InternalError ex)
        {
            clearFrom(recordOffset, alignedLength);
            return writeRefused("a page of the segment faulted: was the file cut short?", ex);
        }
        tailOffset = recordOffset + alignedLength;
        return nextSequence++;
    }

    /**
     * Has the file system give the current segment's pages their blocks up to {@code end}, by
     * writing zeros through the file from the tail (past it the segment holds zeros): a full file
     * system answers the write with an error here, where a store into the mapping would fault.
     *
     * @return false when it refused (counted in {@link #failedWrites()}, logged).
     */
    private boolean allocate(final int end)
    {
        final int at = Math.max(touchedUpTo, tailOffset);
        final int to = Math.min(segmentLength, Math.max((end + PAGE - 1) & -PAGE, (at & -PAGE) + ALLOCATION_BATCH));
        try
        {
            current.writeZeros(preparer.zeros(), at, to - at);
            touchedUpTo = to;
            return true;
        }
        catch (final IOException ex)
        {
            // What the file system took before it refused has its blocks; a batch that fell short past
            // the record still leaves the record its pages.
            touchedUpTo = Math.max(at, (at + current.zerosWritten()) & -PAGE); // whole pages only
            if (touchedUpTo >= end)
            {
                return true;
            }
            writeRefused("a full file system?", ex);
            return false;
        }
    }

    /**
     * Counts and logs a refused append (the 1st, 2nd, 4th, 8th...: a full disk cannot flood the log).
     *
     * @return {@link #WRITE_FAILED}.
     */
    private long writeRefused(final String why, final Throwable cause)
    {
        failedWrites++;
        if (Long.bitCount(failedWrites) == 1)
        {
            LOGGER.log(System.Logger.Level.WARNING, "cannot write a journal record in " + directory + " (" + why +
                "); refused, " + failedWrites + " so far", cause);
        }
        return WRITE_FAILED;
    }

    /**
     * Zeroes what an append whose store faulted wrote (the segment cut short under the journal: its
     * pages were allocated first), page by page up to the first page that faults (the copy stopped
     * there, so nothing lies past it). Best effort: the JVM raises the fault in the append only
     * while it runs interpreted. Left behind, those bytes would lie
     * past the last record, and once a later record rolled to a new segment, recovery would read
     * them as damage inside the journal rather than a clean end.
     */
    private void clearFrom(final int from, final int length)
    {
        int at = from;
        final int end = from + length;
        while (at < end)
        {
            final int pageEnd = Math.min(end, (at & -PAGE) + PAGE);
            try
            {
                segment.buffer().setMemory(at, pageEnd - at, (byte)0);
            }
            catch (final InternalError ex)
            {
                return;
            }
            at = pageEnd;
        }
    }

    /**
     * Writes every record appended so far, and the directory entries of the segments, to the
     * storage device, and waits until it has: what survives a power loss or a kernel crash. Not
     * needed to survive the process's death, which the page cache covers. The first call after
     * {@link #open} also covers the segments earlier processes wrote. An interrupt pending on the
     * caller is set aside for it and left as it was.
     *
     * @throws IllegalStateException when the journal is closed.
     * @throws UncheckedIOException  naming the file the device refused.
     */
    public void force()
    {
        if (closed)
        {
            throw new IllegalStateException("journal " + directory + " is closed");
        }
        try
        {
            for (final long base : JournalDirectory.segmentBases(directory))
            {
                if (base >= unforcedFromBaseSequence && base < segmentBaseSequence)
                {
                    JournalDirectory.force(JournalDirectory.segmentFile(directory, base));
                }
            }
            current.mapping().force();
            JournalDirectory.force(directory);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot force the journal in " + directory + " to its device (" + ex + ")",
                ex);
        }
        unforcedFromBaseSequence = segmentBaseSequence;
    }

    /**
     * @return how many records the journal holds: the sequence the next append gets.
     */
    public long recordCount()
    {
        return nextSequence;
    }

    /**
     * @return the largest payload one record carries: as the journal was created with (at most the
     *         segment length less the header; see {@link JournalContext#MAX_PAYLOAD_LENGTH_PROP}).
     */
    public int maxPayloadLength()
    {
        return maxPayloadLength;
    }

    /**
     * @return bytes per segment file, as the journal was created with.
     */
    public int segmentLength()
    {
        return segmentLength;
    }

    /**
     * @return the journal directory.
     */
    public Path directory()
    {
        return directory;
    }

    /**
     * @return what {@link #open} found at the tail and discarded, or null when the tail was clean.
     */
    public JournalDamage discardedTornTail()
    {
        return discardedTornTail;
    }

    /**
     * @return appends refused for bad input ({@link #RECORD_TOO_LARGE}, {@link #INVALID_RANGE}).
     */
    public long refusedAppends()
    {
        return refusedAppends;
    }

    /**
     * @return appends that failed because a new segment could not be created ({@link #SEGMENT_ROLL_FAILED}).
     */
    public long failedRolls()
    {
        return failedRolls;
    }

    /**
     * @return appends refused because the file system did not give the record its pages (full, over
     *         quota, an I/O error), or a page faulted ({@link #WRITE_FAILED}).
     */
    public long failedWrites()
    {
        return failedWrites;
    }

    /**
     * @return refusals met preparing ahead of the appends (pages not allocated or touched, the next
     *         segment not made or not renamed), each logged: no record is refused for one, but the
     *         appends then allocate their own pages or make their own segment, slower and exposed
     *         to a full file system.
     */
    public long preparerFailures()
    {
        return preparer.failures();
    }

    /**
     * @return {@link #failedRolls}, {@link #failedWrites} and {@link #preparerFailures} together:
     *         what the file system refused the journal, for a role's report (read late from other
     *         threads).
     */
    public long failures()
    {
        return failedRolls + failedWrites + preparer.failures();
    }

    /**
     * @return why the last failed roll failed, or null.
     */
    public Exception lastRollFailure()
    {
        return lastRollFailure;
    }

    /**
     * Unmaps the segment and releases the directory. Does not force: see {@link #force()}.
     * Appends after this return {@link #CLOSED}.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        segment.unwrap();
        current.close();
        preparer.close();
        lockFile.close();
    }

    @Override
    public String toString()
    {
        return "Journal{" + directory + ", records=" + nextSequence + ", segment=" + segmentBaseSequence +
            ", tail=" + tailOffset + "}";
    }

    /**
     * Finds the end of the last segment's valid records and positions the writer there; zeroes a
     * torn record after them, so that its bytes cannot pass for part of a later record.
     */
    private JournalDamage recoverTail(final Path file) throws IOException
    {
        int offset = 0;
        long sequence = segmentBaseSequence;
        int outcome;
        while ((outcome = segment.check(offset)) > 0)
        {
            offset += JournalFormat.alignedLength(outcome);
            sequence++;
        }
        final JournalDamage damage = segment.damageAt(file, offset, sequence, outcome, true);
        if (null != damage)
        {
            if (JournalDamage.Kind.CORRUPT == damage.kind())
            {
                throw new JournalCorruptException(damage);
            }
            LOGGER.log(System.Logger.Level.WARNING, damage.message() + "; discarding it: appends continue at " +
                "sequence " + sequence);
            // Through the file: after a power loss those pages may be holes, which a store into the
            // mapping would have to allocate (a fault, on a full file system).
            current.writeZeros(preparer.zeros(), offset, segment.endOfNonZeroBytes(offset) - offset);
        }
        tailOffset = offset;
        nextSequence = sequence;
        return damage;
    }

    /**
     * Starts the next segment, named after the sequence of the record that did not fit.
     *
     * @return false when it could not be created or mapped (counted, and kept in {@link #lastRollFailure}).
     */
    private boolean roll()
    {
        final Path file = JournalDirectory.segmentFile(directory, nextSequence);
        final int preparedUpTo = preparer.nextTouchedUpTo();
        SegmentFile next = preparer.take(file);
        int nextTouchedUpTo = preparedUpTo;
        if (null == next)
        {
            nextTouchedUpTo = 0;
            try
            {
                next = SegmentFile.open(file, segmentLength);
            }
            catch (final IOException | RuntimeException ex)
            {
                failedRolls++;
                lastRollFailure = ex;
                return false;
            }
        }
        segment.unwrap();
        current.close();
        current = next;
        segment.wrap(next.mapping(), segmentLength);
        touchedUpTo = nextTouchedUpTo;
        preparer.rolled();
        segmentBaseSequence = nextSequence;
        tailOffset = 0;
        rollPending = false;
        return true;
    }

    /**
     * The writer's idle work ({@link SegmentPreparer}): prepares up to {@code maxPages} pages ahead
     * of the tail, so that the file system allocates them now rather than in an append, and once the
     * current segment is prepared to its end, makes the next one ({@value #PREPARED_SEGMENT}) and
     * prepares it.
     *
     * @param maxPages most pages to touch in this call.
     * @return pages touched, and 1 for a segment made.
     */
    public int prepareAhead(final int maxPages)
    {
        if (closed || preparer.stopped())
        {
            return 0;
        }
        touchedUpTo = Math.max(touchedUpTo, tailOffset);
        int work = 0;
        final int aheadTo = (int)Math.min(segmentLength, (long)tailOffset + SegmentPreparer.TOUCH_AHEAD);
        while (work < maxPages && touchedUpTo < aheadTo)
        {
            if (!preparer.touch(current, segment.buffer(), touchedUpTo))
            {
                return work;
            }
            touchedUpTo = Math.min(segmentLength, (touchedUpTo & -PAGE) + PAGE);
            work++;
        }
        if (work < maxPages && touchedUpTo == segmentLength)
        {
            work += preparer.prepareNext(maxPages - work);
        }
        return work;
    }
}
