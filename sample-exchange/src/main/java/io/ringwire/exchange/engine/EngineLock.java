package io.ringwire.exchange.engine;

import io.ringwire.exchange.journal.LockFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One live engine per journal directory, held from before recovery to close. The journal's own
 * lock is taken only when its writer opens it, after recovery; without this one a second engine
 * started on a directory in use would replay the journal, send the replay to its gateway and
 * rewrite the snapshots before finding the journal taken. Replicas read without it; a replay
 * checks that no engine holds it.
 *
 * <p>Threading: taken and released on the control thread.
 */
final class EngineLock implements AutoCloseable
{
    /** The file in the journal directory that the live engine holds locked. */
    static final String FILE = "engine.lock";

    private final LockFile file;

    private EngineLock(final LockFile file)
    {
        this.file = file;
    }

    /**
     * @param directory the journal directory (created when new).
     * @return the lock, held until {@link #close}.
     * @throws IllegalStateException when another engine holds it.
     */
    static EngineLock take(final Path directory)
    {
        try
        {
            Files.createDirectories(directory);
            return new EngineLock(LockFile.take(directory, FILE,
                "another engine runs on the journal in " + directory + " (" + FILE +
                    " is held in this process, or a replay is checking it): one engine per journal",
                "another engine runs on the journal in " + directory + " (" + FILE +
                    " is locked, or a replay is checking it): one engine per journal"));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot lock the journal in " + directory + " for its engine", ex);
        }
    }

    @Override
    public void close()
    {
        file.close();
    }
}
