package io.ringwire.rdma.shm;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import org.agrona.IoUtil;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * Names, creation, mapping and deletion of the files of the shm provider. Every file a device
 * creates starts with {@code <pid>-<dev>}, so stale files of a dead process can be found by name.
 *
 * <p>Threading: stateless; setup and teardown paths only (these calls allocate and may block on I/O).
 */
final class ShmFiles
{
    /** Matches every file the provider creates; group 1 is the pid, group 2 the device id. */
    static final Pattern OWNED_FILE = Pattern.compile("^(\\d+)-(\\d+)(?:\\.ctl|-mr-\\d+\\.shm|-qp-\\d+\\.ring)$");

    private ShmFiles()
    {
    }

    static String controlFileName(final long pid, final int deviceId)
    {
        return pid + "-" + deviceId + ".ctl";
    }

    static String regionFileName(final long pid, final int deviceId, final int fileNumber)
    {
        return pid + "-" + deviceId + "-mr-" + fileNumber + ".shm";
    }

    static String ringFileName(final long pid, final int deviceId, final int queuePairNumber)
    {
        return pid + "-" + deviceId + "-qp-" + queuePairNumber + ".ring";
    }

    /**
     * Creates the shm directory, and its parents, unless it exists.
     *
     * @param directory the directory.
     * @throws RdmaException naming the directory and the property that chooses it, when it cannot be created.
     */
    static void createDirectory(final Path directory)
    {
        try
        {
            Files.createDirectories(directory);
        }
        catch (final IOException | SecurityException ex)
        {
            throw new RdmaException("cannot create shm directory " + directory + " (" + ex + "); set " +
                RdmaConfig.SHM_DIRECTORY_PROP + " to a writable directory, ideally on tmpfs such as /dev/shm", ex);
        }
    }

    /**
     * Creates a new zero-filled file of {@code length} bytes and maps it shared, read-write.
     *
     * @param file   must not exist.
     * @param length bytes.
     * @return the mapping.
     * @throws RdmaException when the file exists or cannot be created.
     */
    static MappedByteBuffer createAndMap(final Path file, final long length)
    {
        try (FileChannel channel = FileChannel.open(file, CREATE_NEW, READ, WRITE))
        {
            // Mapping past the end grows the file; on tmpfs the pages stay unallocated until touched.
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        catch (final IOException ex)
        {
            throw new RdmaException("cannot create shm file " + file + " of " + length + " bytes (" + ex +
                "); " + RdmaConfig.SHM_DIRECTORY_PROP + " must name a writable directory, ideally on tmpfs " +
                "such as /dev/shm, with room for the regions and rings", ex);
        }
    }

    /**
     * Maps an existing file shared, read-write, in full.
     *
     * @param file      to map.
     * @param minLength the least length the file must have.
     * @return the mapping.
     * @throws IOException when it does not exist, cannot be mapped, or is shorter than {@code minLength}.
     */
    static MappedByteBuffer mapExisting(final Path file, final long minLength) throws IOException
    {
        return mapExisting(file, minLength, false);
    }

    /**
     * Maps the first {@code length} bytes of an existing file shared, read-write.
     *
     * @param file   to map.
     * @param length bytes; the file must have at least that many.
     * @return the mapping.
     * @throws IOException when it does not exist, is too short, or cannot be mapped.
     */
    static MappedByteBuffer mapExistingRange(final Path file, final int length) throws IOException
    {
        return mapExisting(file, length, true);
    }

    private static MappedByteBuffer mapExisting(final Path file, final long minLength, final boolean onlyMinLength)
        throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, READ, WRITE))
        {
            final long size = channel.size();
            if (size < minLength)
            {
                throw new IOException(file + " has " + size + " bytes, expected at least " + minLength);
            }
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, onlyMinLength ? minLength : size);
        }
    }

    static void unmap(final MappedByteBuffer mapping)
    {
        if (null != mapping)
        {
            IoUtil.unmap(mapping);
        }
    }

    /**
     * @param file to delete.
     * @return true when this call deleted it.
     */
    static boolean deleteQuietly(final Path file)
    {
        try
        {
            return Files.deleteIfExists(file);
        }
        catch (final IOException ex)
        {
            return false;
        }
    }
}
