package io.ringwire.exchange.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A lock file held by one opener in one process: the process's claim on it
 * ({@link JournalDirectory#claimHere}), the one channel open on it, and the channel's lock.
 * The claim comes before the channel, because closing any second channel on the file would drop
 * the process's lock; the claim goes back only after the channel is closed.
 *
 * <p>Threading: taken and closed on one thread.
 */
public final class LockFile implements AutoCloseable
{
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
        final Path key = JournalDirectory.lockKey(directory, file);
        if (!JournalDirectory.claimHere(key))
        {
            throw new IllegalStateException(heldHere);
        }
        FileChannel channel = null;
        try
        {
            channel = FileChannel.open(directory.resolve(file), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            final FileLock lock = JournalDirectory.tryLock(channel);
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

    private static void release(final FileChannel channel, final Path key)
    {
        JournalDirectory.closeQuietly(channel);
        JournalDirectory.releaseHere(key);
    }
}
