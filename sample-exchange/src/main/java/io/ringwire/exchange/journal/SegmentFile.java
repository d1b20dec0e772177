package io.ringwire.exchange.journal;

import org.agrona.IoUtil;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A segment file the journal's writer holds: its read-write mapping, and its channel, kept open,
 * through which the file system gives pages their blocks (zeros written ahead of the stores into
 * the mapping, so that a full file system refuses a write rather than faulting a store).
 *
 * <p>The JDK closes a file channel whose thread is interrupted in an operation on it. Each
 * operation here sets an interrupt pending on the writer aside for its call and leaves it as it
 * was; a channel an interrupt closed anyway (one arriving mid-write) is opened again, without
 * CREATE, at the next write: a file made anew under the name would not be the one mapped.
 *
 * <p>Threading: the journal's writer.
 */
final class SegmentFile
{
    private final MappedByteBuffer mapping;
    private FileChannel channel;
    private Path path;
    /** Bytes the last {@link #writeZeros} wrote, also when it failed part way. */
    private int zerosWritten;

    private SegmentFile(final Path path, final FileChannel channel, final MappedByteBuffer mapping)
    {
        this.path = path;
        this.channel = channel;
        this.mapping = mapping;
    }

    /**
     * Opens (creating it if absent) and maps a segment file read-write; mapping past its end grows
     * it, sparse.
     *
     * @param path   the file.
     * @param length bytes mapped from 0: the segment length.
     * @return the open segment file.
     * @throws IOException when it cannot be opened or mapped (nothing is left open).
     */
    static SegmentFile open(final Path path, final int length) throws IOException
    {
        final FileChannel channel = JournalDirectory.openSegment(path);
        final boolean interrupted = JournalDirectory.setInterruptAside();
        try
        {
            return new SegmentFile(path, channel, channel.map(FileChannel.MapMode.READ_WRITE, 0, length));
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            JournalDirectory.closeQuietly(channel);
            throw ex;
        }
        finally
        {
            JournalDirectory.restoreInterrupt(interrupted);
        }
    }

    /** @return the read-write mapping of the whole segment. */
    MappedByteBuffer mapping()
    {
        return mapping;
    }

    /** The file was renamed: a channel opened again opens it under its new name. */
    void movedTo(final Path newPath)
    {
        path = newPath;
    }

    /**
     * Writes {@code length} zeros at {@code offset} through the file, counting in
     * {@link #zerosWritten()} what it took, also when it fails part way.
     *
     * @param zeros a direct buffer of zeros, as many as one write takes.
     * @throws IOException when the file system refuses (full) or the file is gone; a
     *                     {@link java.nio.channels.ClosedChannelException} when an interrupt arriving
     *                     mid-write closed the channel (opened again at the next write).
     */
    void writeZeros(final ByteBuffer zeros, final int offset, final int length) throws IOException
    {
        zerosWritten = 0;
        final boolean interrupted = JournalDirectory.setInterruptAside();
        try
        {
            final FileChannel file = channel();
            while (zerosWritten < length)
            {
                zeros.clear().limit(Math.min(zeros.capacity(), length - zerosWritten));
                while (zeros.hasRemaining())
                {
                    zerosWritten += file.write(zeros, (long)offset + zerosWritten);
                }
            }
        }
        finally
        {
            JournalDirectory.restoreInterrupt(interrupted);
        }
    }

    /** @return bytes the last {@link #writeZeros} wrote (0 when its channel could not be opened again). */
    int zerosWritten()
    {
        return zerosWritten;
    }

    /** Unmaps the segment and closes its channel; the file stays. */
    void close()
    {
        IoUtil.unmap(mapping);
        JournalDirectory.closeQuietly(channel);
    }

    /** @return the channel, opened again when an interrupt of the writer closed it. */
    private FileChannel channel() throws IOException
    {
        if (!channel.isOpen())
        {
            channel = JournalDirectory.reopenSegment(path);
        }
        return channel;
    }
}
