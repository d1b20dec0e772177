package io.ringwire.rdma.shm;

import io.ringwire.rdma.host.ProcessIdentity;
import io.ringwire.rdma.host.RegularFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;


/**
 * Finds and deletes the files of shm devices whose owner is gone: a process that was killed before
 * it could close its device leaves its control file, regions and rings behind.
 *
 * <p>A file of this process's pid is stale when no live file of this process has its name: a dead
 * process that had the same pid left it, and one of its names may be the next a device here
 * creates. Pids are read as this process's pid namespace numbers them: the directory is not to be
 * shared across pid namespaces. A device {@code <pid>-<dev>} of another pid is stale when:
 * <ul>
 *   <li>no process with that pid runs (or it is a zombie);</li>
 *   <li>its control file records a start time and the running process with that pid has another
 *       (the pid was reused);</li>
 *   <li>its control file is gone while other files remain (a device creates its control file first
 *       and deletes it last, so these are leftovers);</li>
 *   <li>its control file is a link that dangles, or leads to what is no regular file, or to an open
 *       control file of this layout naming another pid or device (each: the link's descriptor
 *       number is another process's now, the pid reused).</li>
 * </ul>
 * A control file that cannot be opened for another reason (another user's) counts as live.
 * A control file still being created (start time 0) counts as live.
 *
 * <p>Threading: setup path of a device, any control thread; allocates and does I/O.
 */
final class ShmStaleFiles
{
    private ShmStaleFiles()
    {
    }

    /**
     * Deletes stale files in {@code directory}.
     *
     * @param directory the shm directory.
     * @param ownPid    this process's pid.
     * @return how many files were deleted.
     * @throws IOException when the directory cannot be listed.
     */
    static int sweep(final Path directory, final long ownPid) throws IOException
    {
        final Map<String, List<Path>> filesByDevice = new HashMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory))
        {
            for (final Path entry : entries)
            {
                final Matcher matcher = ShmFiles.OWNED_FILE.matcher(entry.getFileName().toString());
                if (matcher.matches())
                {
                    filesByDevice.computeIfAbsent(matcher.group(1) + "-" + matcher.group(2), k -> new ArrayList<>())
                        .add(entry);
                }
            }
        }

        final Map<Long, Boolean> processAlive = new HashMap<>();
        int deleted = 0;
        for (final Map.Entry<String, List<Path>> device : filesByDevice.entrySet())
        {
            final String key = device.getKey();
            final int dash = key.indexOf('-');
            final long pid;
            final int deviceId;
            try
            {
                pid = Long.parseLong(key.substring(0, dash));
                deviceId = Integer.parseInt(key.substring(dash + 1));
            }
            catch (final NumberFormatException ex)
            {
                continue; // digits too long for a pid: not ours
            }
            final boolean thisPid = pid == ownPid;
            if (thisPid || isStale(directory, pid, deviceId, processAlive))
            {
                for (final Path file : device.getValue())
                {
                    if (thisPid ? ShmFiles.deleteIfNotCreatedHere(file) : ShmFiles.deleteQuietly(file))
                    {
                        deleted++;
                    }
                }
            }
        }
        return deleted;
    }

    private static boolean isStale(final Path directory, final long pid, final int deviceId,
        final Map<Long, Boolean> processAlive)
    {
        if (!processAlive.computeIfAbsent(pid, p -> ProcessIdentity.isAlive(p, ProcessIdentity.UNKNOWN_START_TIME)))
        {
            return true;
        }
        final Path controlFile = directory.resolve(ShmFiles.controlFileName(pid, deviceId));
        final ByteBuffer header = ByteBuffer.allocate(ShmDeviceControl.DEVICE_ID_OFFSET + Integer.BYTES)
            .order(ByteOrder.nativeOrder());
        try
        {
            if (!readHeader(controlFile, header))
            {
                return false; // shorter than the header: still being created
            }
        }
        catch (final NoSuchFileException | RegularFiles.NotRegularFileException ex)
        {
            // No control file; or its link dangles, or leads to what no device makes: the pid is
            // another process's now.
            return true;
        }
        catch (final IOException ex)
        {
            // There but not to be opened here (another user's process, say): not known to be stale.
            return !Files.exists(controlFile, LinkOption.NOFOLLOW_LINKS);
        }
        final long recordedStartTime = header.getLong(ShmDeviceControl.OWNER_START_TIME_OFFSET);
        if (recordedStartTime == ProcessIdentity.UNKNOWN_START_TIME)
        {
            return false; // being created, or its owner could not tell its start time
        }
        if (Files.isSymbolicLink(controlFile) && namesAnotherDevice(header, pid, deviceId))
        {
            // The link leads into the descriptors of the process that has the pid now, to a
            // control file of its own. Read once more: the header is not read atomically, and one
            // being written may show its state before its owner.
            header.clear();
            try
            {
                if (readHeader(controlFile, header) && namesAnotherDevice(header, pid, deviceId))
                {
                    return true;
                }
            }
            catch (final IOException ex)
            {
                return false; // judged on the next sweep
            }
        }
        final long actualStartTime = ProcessIdentity.startTime(pid);
        return actualStartTime != ProcessIdentity.UNKNOWN_START_TIME && actualStartTime != recordedStartTime;
    }

    /**
     * @return whether the header is an open control file of this layout whose owner, pid and
     *         device id both written, is not {@code pid}'s device {@code deviceId}.
     */
    private static boolean namesAnotherDevice(final ByteBuffer header, final long pid, final int deviceId)
    {
        final long ownerPid = header.getLong(ShmDeviceControl.OWNER_PID_OFFSET);
        final int ownerDeviceId = header.getInt(ShmDeviceControl.DEVICE_ID_OFFSET);
        return header.getLong(ShmDeviceControl.MAGIC_OFFSET) == ShmDeviceControl.MAGIC &&
            header.getInt(ShmDeviceControl.VERSION_OFFSET) == ShmDeviceControl.VERSION &&
            header.getInt(ShmDeviceControl.STATE_OFFSET) == ShmDeviceControl.STATE_OPEN &&
            ownerPid != 0 && ownerDeviceId != 0 && (ownerPid != pid || ownerDeviceId != deviceId);
    }

    /**
     * @return false when the file is shorter than the header.
     */
    private static boolean readHeader(final Path controlFile, final ByteBuffer header) throws IOException
    {
        try (FileChannel channel = ShmFiles.openForReading(controlFile))
        {
            return RegularFiles.readFully(channel, header);
        }
    }
}
