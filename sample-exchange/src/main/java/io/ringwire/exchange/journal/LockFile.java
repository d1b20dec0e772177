package io.ringwire.exchange.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A lock file held by one opener in one process: the process's claim on it, the one channel open
 * on it, and the channel's lock. The claim comes before the channel, because closing any second
 * channel on the file would drop the process's lock (POSIX record locks); the claim goes back only
 * after the channel is closed. {@link #requireUnheld} checks a lock file the same way, holding it
 * only for the instant of the check.
 *
 * <p>Threading: taken and closed on one thread.
 */
public final class LockFile implements AutoCloseable
{
    /**
     * The lock files this process has claimed, by real path: every opener, and every check, claims
     * the file here first, so no second channel is ever opened on a file this process holds.
     */
    private static final Set<Path> CLAIMED_HERE = ConcurrentHashMap.newKeySet();

    private final FileChannel channel;
    private final FileLock lock;
    private final Path key;
    private boolean closed;

    private LockFile(final FileChannel channel, final FileLock lock, final Path key)
    {
        this.channel = channel;
        this.lock = lock;
        this.key = key;
    }

    /**
     * Creates the file if absent and takes its lock without waiting.
     *
     * @param directory     the directory holding the file (it exists).
     * @param file          the lock file's name.
     * @param heldHere      the refusal's message when another opener in this process holds the file.
     * @param heldElsewhere the refusal's message when another process holds its lock.
     * @return the lock, held until {@link #close}.
     * @throws IllegalStateException when the file is held, here or elsewhere.
     * @throws IOException           when the file cannot be resolved, opened or locked.
     */
    public static LockFile take(final Path directory, final String file, final String heldHere,
        final String heldElsewhere) throws IOException
    {
        final Path key = claim(directory, file, heldHere);
        FileChannel channel = null;
        try
        {
            channel = FileChannel.open(directory.resolve(file), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            final FileLock lock = tryLock(channel);
            if (null == lock)
            {
                throw new IllegalStateException(heldElsewhere);
            }
            return new LockFile(channel, lock, key);
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            release(channel, key);
            throw ex;
        }
    }

    /**
     * Refuses a directory whose lock file a holder has locked, here or in another process; a file
     * that is absent, or that this user may not open for writing (a copy, another user's), has no
     * lock to learn from. Takes the lock only for the instant of the check.
     *
     * @param directory     the directory holding the file.
     * @param file          the lock file's name.
     * @param heldHere      the refusal's message when an opener in this process holds the file.
     * @param heldElsewhere the refusal's message when another process holds its lock.
     * @throws IllegalStateException when the file is held.
     */
    public static void requireUnheld(final Path directory, final String file, final String heldHere,
        final String heldElsewhere)
    {
        final Path lockFile = directory.resolve(file);
        if (!Files.exists(lockFile))
        {
            return;
        }
        final Path key;
        try
        {
            key = claim(directory, file, heldHere);
        }
        catch (final IOException ex)
        {
            return; // gone since: no holder to find
        }
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE))
        {
            final FileLock lock = tryLock(channel);
            if (null == lock)
            {
                throw new IllegalStateException(heldElsewhere);
            }
            lock.release();
        }
        catch (final IOException ex)
        {
            // No lock to learn from; the reader's own checks stand.
        }
        finally
        {
            CLAIMED_HERE.remove(key);
        }
    }

    /** Releases the lock, closes the channel, then gives back the claim; a second close does nothing. */
    @Override
    public void close()
    {
        if (closed)
        {
            return; // a second close must not give back a claim a later opener holds
        }
        closed = true;
        try
        {
            lock.release();
        }
        catch (final IOException ignored)
        {
            // Closing the channel below releases it too.
        }
        release(channel, key);
    }

    /**
     * Closes a lock file that may not have been taken.
     *
     * @param lockFile the lock file, or null.
     */
    public static void closeQuietly(final LockFile lockFile)
    {
        if (null != lockFile)
        {
            lockFile.close();
        }
    }

    /**
     * Claims a lock file for one opener (or check) in this process, before it opens the file.
     *
     * @return the claim's key: the file's real path.
     * @throws IllegalStateException when another opener in this process has it: the file must not be opened then.
     * @throws IOException           when the directory cannot be resolved.
     */
    private static Path claim(final Path directory, final String file, final String heldHere) throws IOException
    {
        final Path key = directory.toRealPath().resolve(file);
        if (!CLAIMED_HERE.add(key))
        {
            throw new IllegalStateException(heldHere);
        }
        return key;
    }

    /** @return the lock, or null when another process, or another holder in this one, has it. */
    private static FileLock tryLock(final FileChannel channel) throws IOException
    {
        try
        {
            return channel.tryLock();
        }
        catch (final OverlappingFileLockException ex)
        {
            return null;
        }
    }

    private static void release(final FileChannel channel, final Path key)
    {
        JournalDirectory.closeQuietly(channel);
        CLAIMED_HERE.remove(key);
    }
}
