package io.ringwire.exchange.engine;

import io.ringwire.exchange.book.RestingOrder;
import io.ringwire.exchange.journal.JournalDirectory;

import java.io.ByteArrayInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

/**
 * Snapshot files of an engine's state in its journal directory, {@code snapshot-<sequence>.bin}
 * where the sequence is the journal records applied. A snapshot is written to a temporary file,
 * forced to disk and renamed into place, and ends with a CRC32C of all its bytes, so a crash while
 * writing leaves either no new file or one that is detected as bad. Loading takes the newest file
 * that is whole; a bad one is reported and the next older one tried. The newest
 * {@link #KEPT} are kept.
 *
 * <p>Format (big-endian): magic {@code RWSNAP01}, the {@link EngineState} fields in order (the
 * instrument sequences and the digest chain with their lengths first), the order count and each
 * resting order's fields, then the CRC32C as an int.
 *
 * <p>Threading: the engine's thread (writing stalls it; snapshots are taken between requests).
 */
public final class EngineSnapshots
{
    /** Snapshots kept in the directory. */
    public static final int KEPT = 2;
    private static final long MAGIC = 0x52_57_53_4E_41_50_30_31L; // "RWSNAP01"
    private static final String PREFIX = "snapshot-";
    private static final String SUFFIX = ".bin";
    private static final String TEMPORARY = ".tmp";

    private static final System.Logger LOG = System.getLogger(EngineSnapshots.class.getName());

    private final Path directory;
    private final List<String> problems = new ArrayList<>();
    /** Leftovers that could not be deleted, each logged once (a snapshot is written every so many requests). */
    private final Set<Path> undeletable = new HashSet<>();

    /**
     * @param directory the journal directory.
     */
    public EngineSnapshots(final Path directory)
    {
        this.directory = directory;
    }

    /** @return what was wrong with snapshot files passed over by {@link #latest()}. */
    public List<String> problems()
    {
        return List.copyOf(problems);
    }

    /**
     * Writes a snapshot and removes the older ones but the newest {@link #KEPT} in all.
     *
     * @param state the state.
     * @return the file written.
     */
    public Path write(final EngineState state)
    {
        // Locale.ROOT: names sort and read by ASCII digits whatever the default locale's digits.
        final Path target = directory.resolve(String.format(Locale.ROOT, "%s%020d%s", PREFIX, state.journalSequence(),
            SUFFIX));
        final Path temporary = directory.resolve(target.getFileName() + TEMPORARY);
        // The JDK fails a file operation of an interrupted thread (an agent's, being closed, that
        // writes its last snapshot): a pending interrupt is set aside for the write and left as it was.
        final boolean interrupted = Thread.interrupted();
        try
        {
            final CRC32C crc = new CRC32C();
            try (OutputStream file = Files.newOutputStream(temporary);
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new CheckedOutputStream(file, crc), 1 << 16)))
            {
                writeState(out, state);
                out.flush();
                file.write(intBytes((int)crc.getValue()));
            }
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE))
            {
                channel.force(true);
            }
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            JournalDirectory.force(directory); // the rename itself, before the older snapshots go
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write snapshot " + target, ex);
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        deleteOlder(target);
        return target;
    }

    /**
     * Deletes the snapshots older than {@code written} but the newest {@link #KEPT} - 1 of them, and
     * temporary files killed writers left: housekeeping, so a failure is logged and the snapshot
     * written stands. Files named past {@code written} stay: {@link #latest()} passed them over as
     * damaged when the engine started from an older one, and counting them would delete the
     * snapshots recovery can use.
     */
    private void deleteOlder(final Path written)
    {
        final boolean interrupted = Thread.interrupted();
        try
        {
            final List<Path> older = files().stream().filter(path -> path.compareTo(written) < 0).toList();
            for (int i = 0; i < older.size() - (KEPT - 1); i++)
            {
                Files.deleteIfExists(older.get(i));
            }
            deleteLeftovers();
        }
        catch (final IOException | UncheckedIOException ex)
        {
            LOG.log(System.Logger.Level.WARNING, "engine snapshots: older snapshots beside " + written +
                " not deleted (it stands): " + ex.getMessage());
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * @return the newest whole snapshot, or empty when there is none (every bad one is in
     *         {@link #problems()}).
     */
    public Optional<EngineState> latest()
    {
        final List<Path> all = files();
        for (int i = all.size() - 1; i >= 0; i--)
        {
            final Path file = all.get(i);
            try
            {
                return Optional.of(read(file));
            }
            catch (final IOException | RuntimeException ex)
            {
                problems.add(file + ": " + ex.getMessage());
            }
        }
        return Optional.empty();
    }

    /**
     * Deletes temporary files that writers killed before their rename left behind: housekeeping,
     * so one it cannot delete stays (it is never read as a snapshot) and the snapshot just written
     * stands.
     */
    private void deleteLeftovers() throws IOException
    {
        try (Stream<Path> list = Files.list(directory))
        {
            for (final Path path : list.toList())
            {
                final String name = path.getFileName().toString();
                if (name.startsWith(PREFIX) && name.endsWith(SUFFIX + TEMPORARY) && Files.isRegularFile(path))
                {
                    try
                    {
                        Files.deleteIfExists(path);
                    }
                    catch (final IOException ex)
                    {
                        if (undeletable.add(path))
                        {
                            LOG.log(System.Logger.Level.WARNING, "engine snapshots: " + path +
                                " not deleted (never read as a snapshot): " + ex.getMessage());
                        }
                    }
                }
            }
        }
    }

    /** @return the snapshot files, oldest first. */
    public List<Path> files()
    {
        if (!Files.isDirectory(directory))
        {
            return List.of();
        }
        try (Stream<Path> list = Files.list(directory))
        {
            return list.filter(path ->
            {
                final String name = path.getFileName().toString();
                return name.startsWith(PREFIX) && name.endsWith(SUFFIX);
            }).sorted().toList();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot list " + directory, ex);
        }
    }

    private static EngineState read(final Path file) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(file);
        if (bytes.length < Long.BYTES + Integer.BYTES)
        {
            throw new IOException("too short to be a snapshot (" + bytes.length + " bytes)");
        }
        final int bodyLength = bytes.length - Integer.BYTES;
        final CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bodyLength);
        final int stored = ((bytes[bodyLength] & 0xFF) << 24) | ((bytes[bodyLength + 1] & 0xFF) << 16) |
            ((bytes[bodyLength + 2] & 0xFF) << 8) | (bytes[bodyLength + 3] & 0xFF);
        if ((int)crc.getValue() != stored)
        {
            throw new IOException("CRC32C mismatch: the file is damaged or was cut short");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, bodyLength)))
        {
            final EngineState state = readState(in);
            if (in.available() != 0)
            {
                throw new IOException(in.available() + " bytes after the state");
            }
            return state;
        }
        catch (final EOFException ex)
        {
            throw new IOException("the state ends before its fields do", ex);
        }
    }

    private static void writeState(final DataOutputStream out, final EngineState state) throws IOException
    {
        out.writeLong(MAGIC);
        out.writeLong(state.journalSequence());
        out.writeLong(state.lastExecId());
        out.writeLong(state.engineSequence());
        out.writeLong(state.streamSequence());
        out.writeInt(state.instrumentSequences().length);
        for (final long sequence : state.instrumentSequences())
        {
            out.writeLong(sequence);
        }
        out.writeInt(state.digestChain().length);
        out.write(state.digestChain());
        out.writeLong(state.digestBytes());
        out.writeLong(state.lastOrderId());
        out.writeLong(state.lastMatchId());
        out.writeLong(state.lastPriority());
        out.writeInt(state.orders().size());
        for (final RestingOrder order : state.orders())
        {
            out.writeLong(order.orderId());
            out.writeLong(order.clientOrderId());
            out.writeLong(order.account());
            out.writeInt(order.instrumentId());
            out.writeByte(order.side());
            out.writeByte(order.ordType());
            out.writeByte(order.timeInForce());
            out.writeByte(order.selfTradePrevention());
            out.writeBoolean(order.postOnly());
            out.writeLong(order.price());
            out.writeLong(order.quantity());
            out.writeLong(order.leaves());
            out.writeLong(order.shown());
            out.writeLong(order.peak());
            out.writeLong(order.filled());
            out.writeLong(order.priority());
        }
    }

    private static EngineState readState(final DataInputStream in) throws IOException
    {
        if (in.readLong() != MAGIC)
        {
            throw new IOException("not a RingWire engine snapshot (bad magic)");
        }
        final long journalSequence = in.readLong();
        final long lastExecId = in.readLong();
        final long engineSequence = in.readLong();
        final long streamSequence = in.readLong();
        final long[] instrumentSequences = new long[boundedCount(in.readInt(), 65_537, "instrument sequences")];
        for (int i = 0; i < instrumentSequences.length; i++)
        {
            instrumentSequences[i] = in.readLong();
        }
        // Exactly a chain's length: a shorter one would pass as whole here and fail the engine's
        // restore, aborting the start where the snapshot before it would have served.
        final int chainLength = in.readInt();
        if (chainLength != OutputDigest.LENGTH)
        {
            throw new IOException("a digest chain of " + chainLength + " bytes, not " + OutputDigest.LENGTH);
        }
        final byte[] chain = new byte[chainLength];
        in.readFully(chain);
        final long digestBytes = in.readLong();
        final long lastOrderId = in.readLong();
        final long lastMatchId = in.readLong();
        final long lastPriority = in.readLong();
        final int count = boundedCount(in.readInt(), Integer.MAX_VALUE, "orders");
        final List<RestingOrder> orders = new ArrayList<>(Math.min(count, 1 << 20));
        for (int i = 0; i < count; i++)
        {
            orders.add(new RestingOrder(in.readLong(), in.readLong(), in.readLong(), in.readInt(), in.readByte(),
                in.readByte(), in.readByte(), in.readByte(), in.readBoolean(), in.readLong(), in.readLong(), in.readLong(),
                in.readLong(), in.readLong(), in.readLong(), in.readLong()));
        }
        return new EngineState(journalSequence, lastExecId, engineSequence, streamSequence, instrumentSequences, chain,
            digestBytes, lastOrderId, lastMatchId, lastPriority, orders);
    }

    private static int boundedCount(final int count, final int max, final String what) throws IOException
    {
        if (count < 0 || count > max)
        {
            throw new IOException("implausible count of " + what + ": " + count);
        }
        return count;
    }

    private static byte[] intBytes(final int value)
    {
        return new byte[] { (byte)(value >>> 24), (byte)(value >>> 16), (byte)(value >>> 8), (byte)value };
    }
}
