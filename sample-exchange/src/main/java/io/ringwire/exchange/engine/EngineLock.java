package io.ringwire.exchange.engine;

import io.ringwire.exchange.journal.JournalDirectory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One live engine per journal directory, held from before recovery to close. The journal's own
 * lock is taken only when its writer opens it, after recovery; without this one a second engine
 * started on a directory in use would replay the journal, send the replay to its gateway and
 * rewrite the snapshots before finding the journal taken. Replicas and replays read without it.
 *
 * <p>Threading: taken and released on the control thread.
 */
final class EngineLock implements AutoCloseable
{
    /** The file in the journal directory that the live engine holds locked. */
    static final String FILE = "engine.lock";

    private final FileChannel channel;
    private final FileLock lock;
    /** The file's claim in this process ({@link JournalDirectory#claimHere}), given back at close. */
    private final Path key;
    private boolean closed;

    private EngineLock(final FileChannel channel, final FileLock lock, final Path key)
    {
        this.channel = channel;
        this.lock = lock;
        this.key = key;
    }

    /**
     * @param directory the journal directory (created when new).
     * @return the lock, held until {@link #close}.
     * @throws IllegalStateException when another engine holds it.
     */
    static EngineLock take(final Path directory)
    {
        FileChannel channel = null;
        Path claimed = null;
        try
        {
            Files.createDirectories(directory);
            final Path key = JournalDirectory.lockKey(directory, FILE);
            if (!JournalDirectory.claimHere(key))
            {
                // Not opened a second time: closing that channel would drop this process's lock.
                throw new IllegalStateException("another engine runs on the journal in " + directory + " (" + FILE +
                    " is held in this process): one engine per journal");
            }
            claimed = key;
            channel = FileChannel.open(directory.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            final FileLock lock = JournalDirectory.tryLock(channel);
            if (null == lock)
            {
                throw new IllegalStateException("another engine runs on the journal in " + directory + " (" + FILE +
                    " is locked): one engine per journal");
            }
            return new EngineLock(channel, lock, key);
        }
        catch (final IOException ex)
        {
            release(channel, claimed);
            throw new UncheckedIOException("cannot lock the journal in " + directory + " for its engine", ex);
        }
        catch (final RuntimeException | Error ex)
        {
            release(channel, claimed);
            throw ex;
        }
    }

    /** Closes the channel, then gives back this process's claim on the file. */
    private static void release(final FileChannel channel, final Path claimed)
    {
        closeQuietly(channel);
        if (null != claimed)
        {
            JournalDirectory.releaseHere(claimed);
        }
    }

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

    private static void closeQuietly(final FileChannel channel)
    {
        try
        {
            if (null != channel)
            {
                channel.close();
            }
        }
        catch (final IOException ignored)
        {
            // Nothing more to release.
        }
    }
}
