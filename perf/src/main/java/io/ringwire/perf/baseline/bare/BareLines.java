package io.ringwire.perf.baseline.bare;

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
 * The memory of the {@code bare} and {@code bare-notified} baselines: two message slots on their
 * own cache lines (each slot rounded up to 128 bytes, so adjacent-line prefetch does not couple
 * them), the ping at 0 and the echo after it. The first 8 bytes of a slot are the message's
 * sequence; the rest of the message ({@code --size} bytes in all) is written before it.
 *
 * <p>{@code bare}: the sequence is written last, with release order, and the other side spins on
 * it: one cache line per message, the floor under any shared-memory transport.
 *
 * <p>{@code bare-notified}: after the message, a notification (the message's count, with release
 * order) goes into the next 64-byte slot of a ring of {@value #NOTIFICATION_SLOTS} per direction,
 * which the other side spins on before it reads the message: the data is placed, then a separate
 * line says so, the shape of every WRITE WITH IMMEDIATE (data into the peer's region, then a
 * completion) with no queue pair, check or completion queue around it. Its floor is the floor of
 * shm's channel.
 *
 * <p>In one process the memory is a direct buffer; across two it is a file the ponger process
 * creates in the shm directory and the pinger maps.
 *
 * <p>Threading: the pinger writes only the ping slot and ring, the ponger only the echo ones.
 */
public final class BareLines implements AutoCloseable
{
    /** Offset of the sequence in a slot. */
    static final int SEQUENCE_OFFSET = 0;
    /** Sequence of the last ping; the ponger echoes it and ends. */
    static final long STOP_SEQUENCE = Long.MIN_VALUE;
    /** Sequence a slot holds before any message. */
    static final long NO_SEQUENCE = -1;
    /** Notification slots per direction ({@code bare-notified}), one cache line each. */
    static final int NOTIFICATION_SLOTS = 64;
    private static final int SLOT_ALIGNMENT = 128;
    private static final int NOTIFICATION_SLOT_LENGTH = BitUtil.CACHE_LINE_LENGTH;
    private static final int RING_LENGTH = NOTIFICATION_SLOTS * NOTIFICATION_SLOT_LENGTH;

    private final UnsafeBuffer buffer;
    private final int messageLength;
    private final int slotLength;
    private final boolean notified;
    private final MappedByteBuffer mapped;
    private final Path file;

    private BareLines(final ByteBuffer memory, final int messageLength, final boolean notified,
        final MappedByteBuffer mapped, final Path file)
    {
        this.messageLength = messageLength;
        this.slotLength = slotLength(messageLength);
        this.notified = notified;
        this.buffer = new UnsafeBuffer(memory, 0, length(messageLength, notified));
        this.mapped = mapped;
        this.file = file;
    }

    private static int slotLength(final int messageLength)
    {
        return BitUtil.align(Math.max(messageLength, Long.BYTES), SLOT_ALIGNMENT);
    }

    private static int length(final int messageLength, final boolean notified)
    {
        return 2 * slotLength(messageLength) + (notified ? 2 * RING_LENGTH : 0);
    }

    /**
     * @param messageLength bytes per message (at least the 8-byte sequence is sent).
     * @param notified      {@code bare-notified}'s layout, with a notification ring per direction.
     * @return the memory in this process, aligned to 128 bytes.
     */
    public static BareLines inProcess(final int messageLength, final boolean notified)
    {
        final int length = length(messageLength, notified);
        final ByteBuffer memory = ByteBuffer.allocateDirect(length + SLOT_ALIGNMENT).alignedSlice(SLOT_ALIGNMENT);
        final BareLines lines = new BareLines(memory, messageLength, notified, null, null);
        lines.reset();
        return lines;
    }

    /**
     * Creates the shared file (the ponger process does; it deletes it on close).
     *
     * @param directory     where (the shm directory).
     * @param messageLength bytes per message.
     * @param notified      {@code bare-notified}'s layout.
     * @return the slots, mapped.
     * @throws IOException when the file cannot be created or mapped.
     */
    public static BareLines create(final Path directory, final int messageLength, final boolean notified) throws IOException
    {
        Files.createDirectories(directory);
        final Path file = directory.resolve("rtt-bare-" + ProcessHandle.current().pid() + ".map");
        Files.deleteIfExists(file);
        final MappedByteBuffer mapped = IoUtil.mapNewFile(file.toFile(), length(messageLength, notified));
        final BareLines lines = new BareLines(mapped, messageLength, notified, mapped, file);
        lines.reset();
        return lines;
    }

    /**
     * Maps the file the ponger process created (the pinger does; it leaves the file to its creator).
     *
     * @param file          the file.
     * @param messageLength bytes per message.
     * @param notified      {@code bare-notified}'s layout.
     * @return the slots, mapped.
     * @throws IOException when the file is missing or too short.
     */
    public static BareLines map(final Path file, final int messageLength, final boolean notified) throws IOException
    {
        final File path = file.toFile();
        if (!path.isFile() || path.length() < length(messageLength, notified))
        {
            throw new IOException("bare: " + file + " is missing or shorter than the " +
                length(messageLength, notified) + " bytes of the ping-pong's slots");
        }
        final MappedByteBuffer mapped = IoUtil.mapExistingFile(path, "bare ping-pong slots");
        return new BareLines(mapped, messageLength, notified, mapped, null);
    }

    private void reset()
    {
        buffer.putLongVolatile(pingOffset() + SEQUENCE_OFFSET, NO_SEQUENCE);
        buffer.putLongVolatile(echoOffset() + SEQUENCE_OFFSET, NO_SEQUENCE);
        // Notification rings start zeroed (a new mapping or direct buffer): no count is 0.
    }

    /**
     * Makes the message in a slot visible to the other side: its sequence with release order
     * ({@code bare}), or its sequence and then the notification of its count ({@code bare-notified}).
     * The rest of the message must be in the slot already.
     *
     * @param slotOffset {@link #pingOffset()} or {@link #echoOffset()}.
     * @param count      messages this side sent before this one.
     * @param sequence   the message's sequence.
     */
    void publish(final int slotOffset, final long count, final long sequence)
    {
        if (notified)
        {
            buffer.putLong(slotOffset + SEQUENCE_OFFSET, sequence);
            buffer.putLongRelease(notificationOffset(slotOffset, count), count + 1);
        }
        else
        {
            buffer.putLongRelease(slotOffset + SEQUENCE_OFFSET, sequence);
        }
    }

    /**
     * Whether the other side's next message is in a slot. Spin on it; then read the message.
     *
     * @param slotOffset   {@link #pingOffset()} or {@link #echoOffset()}.
     * @param count        messages already received from that slot.
     * @param lastSequence the sequence of the last one ({@link #NO_SEQUENCE} before the first).
     * @return true when message {@code count} is there.
     */
    boolean arrived(final int slotOffset, final long count, final long lastSequence)
    {
        if (notified)
        {
            return buffer.getLongAcquire(notificationOffset(slotOffset, count)) == count + 1;
        }
        return buffer.getLongAcquire(slotOffset + SEQUENCE_OFFSET) != lastSequence;
    }

    private int notificationOffset(final int slotOffset, final long count)
    {
        final int ring = 2 * slotLength + (slotOffset == pingOffset() ? 0 : RING_LENGTH);
        return ring + (int)(count & (NOTIFICATION_SLOTS - 1)) * NOTIFICATION_SLOT_LENGTH;
    }

    /** @return the shared memory. */
    UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** @return bytes of a message after its sequence, copied before the sequence is published. */
    int payloadLength()
    {
        return Math.max(0, messageLength - Long.BYTES);
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
    public Path file()
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
