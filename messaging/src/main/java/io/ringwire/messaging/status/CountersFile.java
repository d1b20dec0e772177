package io.ringwire.messaging.status;

import io.ringwire.messaging.MessagingContext;
import io.ringwire.rdma.host.ProcessIdentity;
import io.ringwire.rdma.host.RegularFiles;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A process's counters in a memory-mapped file, {@code <dir>/<pid>.counters}, laid out as agrona's
 * {@link CountersManager} (metadata then values), so {@code ringwire stat} in another process reads
 * them live, like AeronStat:
 *
 * <pre>
 *   0: long magic "RWCOUNTS" | 8: int version | 12: int pid | 16: long start time (epoch ms)
 *  24: int metadata length | 28: int values length | ... up to 64: header
 *  64: metadata (COUNTERS x 512 bytes) | then: values (COUNTERS x 128 bytes)
 * </pre>
 *
 * <p>Threading: counters are allocated and freed under a lock (control path); each counter is then
 * written by one thread with release stores and read by anyone.
 */
public final class CountersFile
{
    static final long MAGIC = 0x53544E554F435752L; // "RWCOUNTS" little-endian
    static final int VERSION = 1;
    static final int HEADER_LENGTH = 64;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int PID_OFFSET = 12;
    static final int START_TIME_OFFSET = 16;
    static final int METADATA_LENGTH_OFFSET = 24;
    static final int VALUES_LENGTH_OFFSET = 28;
    /**
     * The owner's start in clock ticks since boot ({@link ProcessIdentity#startTime}), which names
     * it with its pid; 0 where unknown, and the pid alone then names it.
     */
    static final int OWNER_START_TICKS_OFFSET = 32;
    /**
     * Counters one process holds at once: some 40 per publication or subscription (its own and its
     * device's), so an exchange in one process with 64 clients (two streams each, and the gateway's
     * reply stream to each) needs over 7,000. The file is sparse: a page takes memory once a counter
     * on it is allocated.
     */
    static final int COUNTERS = 32_768;
    static final int METADATA_LENGTH = COUNTERS * CountersReader.METADATA_LENGTH;
    static final int VALUES_LENGTH = COUNTERS * CountersReader.COUNTER_LENGTH;
    /** Suffix of counters files. */
    public static final String SUFFIX = ".counters";

    private static final Map<Path, CountersFile> BY_DIRECTORY = new HashMap<>();

    private final Path file;
    private final MappedByteBuffer mapped;
    private final CountersManager manager;
    private int users;

    private CountersFile(final Path directory)
    {
        try
        {
            Files.createDirectories(directory);
            removeFilesOfDeadProcesses(directory);
            file = directory.resolve(ProcessHandle.current().pid() + SUFFIX);
            final long length = HEADER_LENGTH + METADATA_LENGTH + VALUES_LENGTH;
            try (FileChannel channel = FileChannel.open(file, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE,
                java.nio.file.StandardOpenOption.TRUNCATE_EXISTING))
            {
                mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create the counters file in " + directory + " (" +
                MessagingContext.COUNTERS_DIR_PROP + ")", ex);
        }
        final UnsafeBuffer header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        header.putInt(VERSION_OFFSET, VERSION);
        header.putInt(PID_OFFSET, (int)ProcessHandle.current().pid());
        header.putLong(START_TIME_OFFSET, System.currentTimeMillis());
        header.putLong(OWNER_START_TICKS_OFFSET, ProcessIdentity.startTime(ProcessHandle.current().pid()));
        header.putInt(METADATA_LENGTH_OFFSET, METADATA_LENGTH);
        header.putInt(VALUES_LENGTH_OFFSET, VALUES_LENGTH);
        manager = new CountersManager(new UnsafeBuffer(mapped, HEADER_LENGTH, METADATA_LENGTH),
            new UnsafeBuffer(mapped, HEADER_LENGTH + METADATA_LENGTH, VALUES_LENGTH));
        header.putLongRelease(MAGIC_OFFSET, MAGIC); // readers trust the file once the magic is there
    }

    private static void removeFilesOfDeadProcesses(final Path directory) throws IOException
    {
        try (var files = Files.list(directory))
        {
            for (final Path path : (Iterable<Path>)files::iterator)
            {
                final String name = path.getFileName().toString();
                if (!name.endsWith(SUFFIX))
                {
                    continue;
                }
                try
                {
                    final long pid = Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
                    if (pid != ProcessHandle.current().pid() && !isOwnerAlive(pid, startTicksOf(path)))
                    {
                        Files.deleteIfExists(path);
                    }
                }
                catch (final NumberFormatException ignore)
                {
                    // not ours
                }
            }
        }
    }

    /**
     * @param pid        the pid a counters file names.
     * @param startTicks the start its header gives ({@link #OWNER_START_TICKS_OFFSET}), or
     *                   {@link ProcessIdentity#UNKNOWN_START_TIME}.
     * @return whether that pid's process is alive and is the one that wrote the file: a pid the
     *         kernel gave again since names a process with another start.
     */
    static boolean isOwnerAlive(final long pid, final long startTicks)
    {
        return ProcessIdentity.isAlive(pid, startTicks);
    }

    /** @return the owner's start a counters file's header gives, or {@link ProcessIdentity#UNKNOWN_START_TIME}. */
    private static long startTicksOf(final Path file)
    {
        try (FileChannel channel = RegularFiles.openForReading(file))
        {
            final ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.nativeOrder());
            return RegularFiles.readFully(channel, header) && header.getLong(MAGIC_OFFSET) == MAGIC ?
                header.getLong(OWNER_START_TICKS_OFFSET) : ProcessIdentity.UNKNOWN_START_TIME;
        }
        catch (final IOException ex)
        {
            return ProcessIdentity.UNKNOWN_START_TIME; // unreadable: judged by its pid alone
        }
    }

    /**
     * The process's counters file in this directory, created on first use. One directory is one
     * file, however its path is spelled ({@code a/./b}, a link to it): two would truncate, and then
     * delete, each other's.
     */
    static synchronized CountersFile acquire(final Path directory)
    {
        final Path real;
        try
        {
            Files.createDirectories(directory);
            real = directory.toRealPath();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create the counters directory " + directory + " (" +
                MessagingContext.COUNTERS_DIR_PROP + ")", ex);
        }
        final CountersFile countersFile = BY_DIRECTORY.computeIfAbsent(real, CountersFile::new);
        countersFile.users++;
        return countersFile;
    }

    static synchronized void release(final CountersFile countersFile)
    {
        if (--countersFile.users == 0)
        {
            BY_DIRECTORY.values().remove(countersFile);
            IoUtil.unmap(countersFile.mapped);
            try
            {
                Files.deleteIfExists(countersFile.file);
            }
            catch (final IOException ignore)
            {
                // a stale file is removed by the next process to use the directory
            }
        }
    }

    AtomicCounter newCounter(final String label)
    {
        synchronized (CountersFile.class)
        {
            return manager.newCounter(label);
        }
    }

    void free(final AtomicCounter counter)
    {
        synchronized (CountersFile.class)
        {
            counter.close();
        }
    }

    /**
     * @return the reader over this process's counters (for tests).
     */
    CountersReader reader()
    {
        return manager;
    }
}
