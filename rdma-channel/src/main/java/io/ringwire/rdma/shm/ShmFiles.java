package io.ringwire.rdma.shm;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import org.agrona.IoUtil;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;


/**
 * Names, creation, mapping and deletion of the files of the shm provider. Every file a device
 * creates starts with {@code <pid>-<dev>}, so stale files of a dead process can be found by name.
 * Each is a memory file sealed against shrinking, named by a link ({@link SealedFiles}); a file
 * of a peer is mapped only when it carries that seal.
 *
 * <p>Threading: any thread; a name of this process is made, deleted, or judged and deleted by a
 * sweep, under one lock with its record in the map of descriptors, so a sweep never takes a name
 * another thread is making. Setup and teardown paths only (these calls allocate and may block on I/O).
 */
final class ShmFiles
{
    /** Matches every file the provider creates; group 1 is the pid, group 2 the device id. */
    static final Pattern OWNED_FILE = Pattern.compile("^(\\d+)-(\\d+)(?:\\.ctl|-mr-\\d+\\.shm|-qp-\\d+\\.ring)$");

    /** The descriptors of the files this process created and has not deleted, by name (pid and device in it). */
    private static final Map<String, Integer> OPEN_FILES = new HashMap<>();
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final int GROUP_OR_OTHERS_WRITE = 0022;
    /** Guards {@link #OPEN_FILES} with the names it records. */
    private static final Object NAMES = new Object();

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
     * Creates the shm directory, and its parents, unless it exists; the directory itself for its
     * owner alone. An existing one must be this process's user's and writable by no one else: its
     * names are where peers find each other's files, and whoever could write there could put links
     * to other files in their place, or take names first.
     *
     * @param directory the directory.
     * @throws RdmaException naming the directory and the property that chooses it, when it cannot be
     *                       created or is another user's or writable by others.
     */
    static void createDirectory(final Path directory)
    {
        try
        {
            if (!Files.isDirectory(directory))
            {
                if (null != directory.getParent())
                {
                    Files.createDirectories(directory.getParent());
                }
                try
                {
                    Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                }
                catch (final FileAlreadyExistsException ex)
                {
                    // Another process made it meanwhile: checked below like any existing one.
                }
            }
            checkOwnedAlone(directory);
        }
        catch (final IOException | SecurityException | UnsupportedOperationException ex)
        {
            throw new RdmaException("cannot create shm directory " + directory + " (" + ex + "); set " +
                RdmaConfig.SHM_DIRECTORY_PROP + " to a writable directory, ideally on tmpfs such as /dev/shm", ex);
        }
    }

    private static void checkOwnedAlone(final Path directory) throws IOException
    {
        final Path status = Path.of("/proc/self/status");
        if (!Files.exists(status))
        {
            return; // not Linux: memory files refuse to open anyway
        }
        final String why;
        if (Files.isSymbolicLink(directory))
        {
            why = "a link";
        }
        else if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS))
        {
            why = "not a directory";
        }
        else
        {
            final int ownUser = effectiveUser(status);
            final int owner = (Integer)Files.getAttribute(directory, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            final int mode = (Integer)Files.getAttribute(directory, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            why = owner != ownUser ? "user " + owner + "'s, not this process's (" + ownUser + ")" :
                (mode & GROUP_OR_OTHERS_WRITE) != 0 ? "writable by others (mode " + Integer.toOctalString(mode & 0777) +
                ")" : null;
        }
        if (null != why)
        {
            throw new RdmaException("shm directory " + directory + " is " + why + ": its names are where peers find " +
                "each other's files; set " + RdmaConfig.SHM_DIRECTORY_PROP + " to a directory of this user's that " +
                "only it may write (created for it when missing)");
        }
    }

    /** @return the process's effective user id, from its status ("Uid: real effective saved fs"). */
    private static int effectiveUser(final Path status) throws IOException
    {
        for (final String line : Files.readAllLines(status, StandardCharsets.ISO_8859_1))
        {
            if (line.startsWith("Uid:"))
            {
                // Unsigned, as the kernel has it: an id past 2^31 reads as the int the owner's does.
                return Integer.parseUnsignedInt(line.substring(4).trim().split("\\s+")[1]);
            }
        }
        throw new IOException("no Uid line in " + status);
    }

    /**
     * Creates a new zero-filled memory file of {@code length} bytes that no process can shrink (see
     * {@link SealedFiles}), names it {@code file} and maps it shared, read-write. Its descriptor
     * stays open until {@link #deleteQuietly} deletes the name.
     *
     * @param file   must not exist.
     * @param length bytes.
     * @return the mapping.
     * @throws RdmaException when the file exists or cannot be created.
     */
    static MappedByteBuffer createAndMap(final Path file, final long length)
    {
        final String name = key(file);
        SealedFiles.Created created = null;
        boolean named = false;
        try
        {
            created = SealedFiles.create(name, length);
            synchronized (NAMES)
            {
                if (OPEN_FILES.containsKey(name))
                {
                    // A name of this process still live (a queue pair number come round again).
                    throw new FileAlreadyExistsException(file.toString(), null, "a file of this process");
                }
                OPEN_FILES.put(name, created.fd());
                try
                {
                    Files.createSymbolicLink(file, Path.of("/proc/" + ProcessHandle.current().pid() + "/fd/" +
                        created.fd()));
                    named = true;
                }
                finally
                {
                    if (!named)
                    {
                        OPEN_FILES.remove(name);
                    }
                }
            }
            return created.mapping();
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new RdmaException("cannot create shm file " + file + " of " + length + " bytes (" + ex +
                "); " + RdmaConfig.SHM_DIRECTORY_PROP + " must name a writable directory, ideally on tmpfs " +
                "such as /dev/shm, and the memory must be there for the regions and rings", ex);
        }
        finally
        {
            if (!named && null != created)
            {
                unmap(created.mapping());
                SealedFiles.close(created.fd());
            }
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
        try (FileChannel channel = SealedFiles.openSealed(file))
        {
            final long size = channel.size();
            if (size < minLength)
            {
                throw new IOException(file + " has " + size + " bytes, expected at least " + minLength);
            }
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, onlyMinLength ? minLength : size);
        }
    }

    /**
     * Opens a file of the shm directory, read-only, to read a few bytes of it, whatever its seals.
     *
     * @param file to open.
     * @return the channel.
     * @throws java.nio.file.NoSuchFileException when there is no such file, or its link dangles.
     * @throws IOException                       when it cannot be opened, or is not a regular file.
     */
    static FileChannel openForReading(final Path file) throws IOException
    {
        return SealedFiles.openForReading(file);
    }

    /**
     * Deletes a file named with this process's pid unless this process created that name and has
     * not deleted it: a dead process that had the same pid left it.
     *
     * @param file a file of the shm directory named with this process's pid.
     * @return true when this call deleted it.
     */
    static boolean deleteIfNotCreatedHere(final Path file)
    {
        synchronized (NAMES)
        {
            if (OPEN_FILES.containsKey(key(file)))
            {
                return false;
            }
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

    /**
     * A process's names differ from each other, whatever their directories: each holds its pid and
     * a device id of its own, and a name still live is not made again.
     */
    private static String key(final Path file)
    {
        return file.getFileName().toString();
    }

    static void unmap(final MappedByteBuffer mapping)
    {
        if (null != mapping)
        {
            IoUtil.unmap(mapping);
        }
    }

    /**
     * Deletes a file's name and, for a file this process created, closes its descriptor: the memory
     * lives on in the mappings still held, here and in peers.
     *
     * @param file to delete.
     * @return true when this call deleted it.
     */
    static boolean deleteQuietly(final Path file)
    {
        final boolean deleted;
        final Integer fd;
        synchronized (NAMES)
        {
            try
            {
                deleted = Files.deleteIfExists(file);
            }
            catch (final IOException ex)
            {
                // The name stays, so its descriptor does too: a closed one's number would be the next
                // file's, and the name would lead a peer there.
                return false;
            }
            fd = OPEN_FILES.remove(key(file));
        }
        if (null != fd)
        {
            SealedFiles.close(fd);
        }
        return deleted;
    }
}
