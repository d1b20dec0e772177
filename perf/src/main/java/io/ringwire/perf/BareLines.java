package io.ringwire.perf;

import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The memory of the {@code bare} baseline: two message slots on their own cache lines (each slot
 * rounded up to 128 bytes, so adjacent-line prefetch does not couple them), the ping at 0 and the
 * echo after it. The first 8 bytes of a slot are the message's sequence, written last with release
 * order; the rest of the message ({@code --size} bytes in all) is written before it. In one process
 * the slots are in a direct buffer; across two they are in a file the ponger process creates in the
 * shm directory and the pinger maps.
 *
 * <p>Threading: the pinger writes only the ping slot and the ponger only the echo slot.
 */
final class BareLines implements AutoCloseable
{
    /** Offset of the sequence in a slot. */
    static final int SEQUENCE_OFFSET = 0;
    /** Sequence of the last ping; the ponger echoes it and ends. */
    static final long STOP_SEQUENCE = Long.MIN_VALUE;
    /** Sequence a slot holds before any message. */
    static final long NO_SEQUENCE = -1;
    private static final int SLOT_ALIGNMENT = 128;

    private final UnsafeBuffer buffer;
    private final int messageLength;
    private final int slotLength;
    private final MappedByteBuffer mapped;
    private final Path file;

    private BareLines(final ByteBuffer memory, final int messageLength, final MappedByteBuffer mapped, final Path file)
    {
        this.messageLength = messageLength;
        this.slotLength = slotLength(messageLength);
        this.buffer = new UnsafeBuffer(memory, 0, 2 * slotLength);
        this.mapped = mapped;
        this.file = file;
    }

    private static int slotLength(final int messageLength)
    {
        return BitUtil.align(Math.max(messageLength, Long.BYTES), SLOT_ALIGNMENT);
    }

    /**
     * @param messageLength bytes per message (at least the 8-byte sequence is sent).
     * @return both slots in this process's memory, aligned to 128 bytes.
     */
    static BareLines inProcess(final int messageLength)
    {
        final int length = 2 * slotLength(messageLength);
        final ByteBuffer memory = ByteBuffer.allocateDirect(length + SLOT_ALIGNMENT).alignedSlice(SLOT_ALIGNMENT);
        final BareLines lines = new BareLines(memory, messageLength, null, null);
        lines.reset();
        return lines;
    }

    /**
     * Creates the shared file (the ponger process does; it deletes it on close).
     *
     * @param directory     where (the shm directory).
     * @param messageLength bytes per message.
     * @return the slots, mapped.
     * @throws IOException when the file cannot be created or mapped.
     */
    static BareLines create(final Path directory, final int messageLength) throws IOException
    {
        Files.createDirectories(directory);
        final Path file = directory.resolve("rtt-bare-" + ProcessHandle.current().pid() + ".map");
        Files.deleteIfExists(file);
        final MappedByteBuffer mapped = IoUtil.mapNewFile(file.toFile(), 2L * slotLength(messageLength));
        final BareLines lines = new BareLines(mapped, messageLength, mapped, file);
        lines.reset();
        return lines;
    }

    /**
     * Maps the file the ponger process created (the pinger does; it leaves the file to its creator).
     *
     * @param file          the file.
     * @param messageLength bytes per message.
     * @return the slots, mapped.
     * @throws IOException when the file is missing or too short.
     */
    static BareLines map(final Path file, final int messageLength) throws IOException
    {
        final File path = file.toFile();
        if (!path.isFile() || path.length() < 2L * slotLength(messageLength))
        {
            throw new IOException("bare: " + file + " is missing or shorter than two " + slotLength(messageLength) +
                "-byte slots");
        }
        final MappedByteBuffer mapped = IoUtil.mapExistingFile(path, "bare ping-pong slots");
        return new BareLines(mapped, messageLength, mapped, null);
    }

    private void reset()
    {
        buffer.putLongVolatile(pingOffset() + SEQUENCE_OFFSET, NO_SEQUENCE);
        buffer.putLongVolatile(echoOffset() + SEQUENCE_OFFSET, NO_SEQUENCE);
    }

    /** @return the shared memory. */
    UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** @return bytes per message. */
    int messageLength()
    {
        return messageLength;
    }

    /** @return the offset of the ping slot. */
    int pingOffset()
    {
        return 0;
    }

    /** @return the offset of the echo slot. */
    int echoOffset()
    {
        return slotLength;
    }

    /** @return the mapped file, or null in one process. */
    Path file()
    {
        return file;
    }

    @Override
    public void close()
    {
        if (null != mapped)
        {
            IoUtil.unmap(mapped);
        }
        if (null != file)
        {
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException ex)
            {
                // Best effort: a file left behind is named by pid and overwritten by the next run.
            }
        }
    }
}
