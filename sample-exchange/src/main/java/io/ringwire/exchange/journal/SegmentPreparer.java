package io.ringwire.exchange.journal;

import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The journal writer's work ahead of its appends, done in its idle time ({@link Journal#prepareAhead}):
 * pages get their blocks from the file system, by zeros written through the file, and are then
 * touched in the mapping, so that an append neither page-faults into a fresh page nor meets a full
 * file system as a fault; and the next segment is made, mapped and prepared the same way under
 * {@value Journal#PREPARED_SEGMENT}, so that a roll renames a file into place rather than making one.
 *
 * <p>A refusal (a full file system, a page that faults after it was allocated, a next segment that
 * cannot be made) stops the preparing until the next roll, logged: the appends then allocate their
 * pages themselves, and are refused while the file system stays full.
 *
 * <p>Threading: the journal's writer.
 */
final class SegmentPreparer
{
    static final int PAGE = 4096;
    /** How far ahead of the tail pages are prepared, and how much of the next segment at most. */
    static final int TOUCH_AHEAD = 4 << 20;
    /** Bytes an append that finds its pages unallocated allocates in one write. */
    static final int ALLOCATION_BATCH = 16 * PAGE;

    private static final System.Logger LOGGER = System.getLogger(Journal.class.getName());

    private final Path directory;
    private final int segmentLength;
    /**
     * Zeros, written ahead of the tail so that the file system gives pages their blocks now; an
     * append past what was prepared allocates this much at once.
     */
    private final ByteBuffer zeros = ByteBuffer.allocateDirect(ALLOCATION_BATCH);
    /** The next segment, made ahead of the roll; null when none is. */
    private SegmentFile next;
    private final UnsafeBuffer nextPages = new UnsafeBuffer(0, 0);
    /** Bytes of the next segment from 0 whose pages have their blocks and are mapped. */
    private int nextTouchedUpTo;
    /** Set when making the next segment or preparing a page failed; cleared by the next roll. */
    private boolean stopped;
    /** Refusals met ahead of the appends: pages not allocated or not touched, segments not made or not renamed. */
    private long failures;

    SegmentPreparer(final Path directory, final int segmentLength)
    {
        this.directory = directory;
        this.segmentLength = segmentLength;
    }

    /** @return zeros to write through a segment file: {@link #ALLOCATION_BATCH} of them. */
    ByteBuffer zeros()
    {
        return zeros;
    }

    /** @return refusals met preparing (each logged): the appends then allocate their pages or segment themselves. */
    long failures()
    {
        return failures;
    }

    /** @return whether preparing stopped after a refusal, until the next roll. */
    boolean stopped()
    {
        return stopped;
    }

    /**
     * Gives the page at {@code offset} its blocks, writing zeros from there to its end through the
     * file (past the tail a segment holds zeros), then touches it in the mapping.
     *
     * @param file  the segment, current or next.
     * @param pages its mapping.
     * @return false when it could not: an interrupt closed the channel (tried again next call), or
     *         the file system refused or the page faulted (preparing stops until the next roll).
     */
    boolean touch(final SegmentFile file, final UnsafeBuffer pages, final int offset)
    {
        try
        {
            final int pageEnd = Math.min(segmentLength, (offset & -PAGE) + PAGE);
            file.writeZeros(zeros, offset, pageEnd - offset);
        }
        catch (final ClosedChannelException ex)
        {
            return false; // an interrupt of the writer during the write: the channel is opened again next time
        }
        catch (final IOException ex)
        {
            stopped = true;
            failures++;
            LOGGER.log(System.Logger.Level.WARNING, "cannot allocate journal pages ahead in " + directory +
                " (a full file system?); preparing again after the next roll", ex);
            return false;
        }
        try
        {
            // An atomic add of 0 is a write that changes nothing: the page, which has its blocks now,
            // is mapped here rather than on an append's first store into it.
            pages.getAndAddInt(offset & ~(Integer.BYTES - 1), 0);
            return true;
        }
        catch (final InternalError ex)
        {
            stopped = true;
            failures++;
            LOGGER.log(System.Logger.Level.WARNING, "cannot touch journal pages ahead in " + directory +
                " (a page faulted after it was allocated: was the file cut short?); preparing again after " +
                "the next roll", ex);
            return false;
        }
    }

    /**
     * Makes the next segment when none is made, then prepares its pages up to {@link #TOUCH_AHEAD}:
     * the work once the current segment is prepared to its end.
     *
     * @param maxWork most pages to touch, less one when the segment is made.
     * @return pages touched, and 1 for the segment made.
     */
    int prepareNext(final int maxWork)
    {
        int work = 0;
        if (null == next)
        {
            next = make();
            if (null == next)
            {
                return work;
            }
            nextPages.wrap(next.mapping());
            nextTouchedUpTo = 0;
            work++;
        }
        while (work < maxWork && nextTouchedUpTo < TOUCH_AHEAD && nextTouchedUpTo < segmentLength)
        {
            if (!touch(next, nextPages, nextTouchedUpTo))
            {
                return work;
            }
            nextTouchedUpTo += PAGE;
            work++;
        }
        return work;
    }

    /**
     * @return bytes of the next segment from 0 whose pages are prepared: what {@link #take} hands
     *         over with it.
     */
    int nextTouchedUpTo()
    {
        return nextTouchedUpTo;
    }

    /**
     * A roll takes the next segment: renames it, when one was made, to {@code file}.
     *
     * @return the segment, or null when none was made or it could not be renamed (dropped, logged:
     *         the roll then makes its segment itself).
     */
    SegmentFile take(final Path file)
    {
        if (null == next)
        {
            return null;
        }
        SegmentFile taken = next;
        next = null;
        nextPages.wrap(0, 0);
        try
        {
            Files.move(directory.resolve(Journal.PREPARED_SEGMENT), file, StandardCopyOption.ATOMIC_MOVE);
            taken.movedTo(file);
        }
        catch (final IOException | RuntimeException ex)
        {
            failures++;
            LOGGER.log(System.Logger.Level.WARNING, "cannot rename the prepared segment in " + directory +
                "; making the next segment at the roll", ex);
            taken.close();
            taken = null;
        }
        return taken;
    }

    /** A roll is done: preparing, stopped by a refusal, starts again on the new segment. */
    void rolled()
    {
        stopped = false;
    }

    /** Closes and removes the next segment, when one was made. */
    void close()
    {
        if (null == next)
        {
            return;
        }
        nextPages.wrap(0, 0);
        next.close();
        next = null;
        try
        {
            Files.deleteIfExists(directory.resolve(Journal.PREPARED_SEGMENT));
        }
        catch (final IOException ex)
        {
            LOGGER.log(System.Logger.Level.WARNING, "cannot remove the prepared segment in " + directory, ex);
        }
    }

    /**
     * @return the next segment, mapped, or null when it cannot be made (logged; not tried again
     *         until the next roll, which makes its segment itself and reports its own failure).
     */
    private SegmentFile make()
    {
        try
        {
            final Path path = directory.resolve(Journal.PREPARED_SEGMENT);
            Files.deleteIfExists(path);
            return SegmentFile.open(path, segmentLength);
        }
        catch (final IOException | RuntimeException ex)
        {
            stopped = true;
            failures++;
            LOGGER.log(System.Logger.Level.WARNING, "cannot make the next journal segment in " + directory +
                " ahead of the roll", ex);
            return null;
        }
    }
}
