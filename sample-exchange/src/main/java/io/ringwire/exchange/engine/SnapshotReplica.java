package io.ringwire.exchange.engine;

import io.ringwire.exchange.journal.JournalRecordHandler;
import io.ringwire.exchange.journal.JournalTailer;
import org.agrona.concurrent.Agent;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes the engine's snapshots off the engine's thread (LMAX's way): a replica of the engine,
 * restored from the newest snapshot, follows the journal ({@link JournalTailer}) up to the records
 * the live engine has applied and answered, applies each, digesting its own output, and at each
 * snapshot point writes the snapshot with the digest chain linked there: what the live engine would
 * have written at the same point. Writing allocates and forces the file to disk, here, on the
 * replica's thread, which may back off; the live engine neither allocates for it nor waits.
 *
 * <p>The limit is what the engine has applied and sent, not what the journal holds: a restart
 * replays the journal after the newest snapshot and sends that output again, so a snapshot must
 * never be ahead of what the engine sent, or the reports in between would be sent by no one. A
 * replica behind the engine only delays the next snapshot.
 *
 * <p>A snapshot that cannot be written is counted and passed over ({@link JournaledEngine}); a record
 * it cannot read stops it ({@link #failure()}), once, for its owner to tell.
 *
 * <p>Threading: its own (an agent's). Allocation-free but at a snapshot point and when it moves to
 * the next segment.
 */
public final class SnapshotReplica implements Agent, AutoCloseable
{
    private static final int RECORD_LIMIT = 4096;

    private final JournaledEngine replica;
    private final JournalTailer tailer;
    private final AtomicLong engineApplied;
    private final JournalRecordHandler onRecord;
    private volatile RuntimeException failure;

    /**
     * Restores the replica from the newest snapshot in {@code directory}. Open it once the live
     * engine has recovered.
     *
     * @param directory     the journal directory, with the engine's configuration in it.
     * @param engineApplied the journal records the live engine has applied and answered, which it
     *                      publishes after each.
     */
    public SnapshotReplica(final Path directory, final AtomicLong engineApplied)
    {
        this.replica = JournaledEngine.replica(directory);
        this.tailer = new JournalTailer(directory, replica.applied());
        this.engineApplied = engineApplied;
        this.onRecord = (sequence, buffer, offset, length) -> replica.applyJournaled(buffer, offset, length);
    }

    @Override
    public int doWork()
    {
        if (null != failure)
        {
            return 0;
        }
        try
        {
            return tailer.poll(onRecord, engineApplied.get(), RECORD_LIMIT);
        }
        catch (final RuntimeException ex)
        {
            // A record missing or damaged below the engine's count: the replica stops where it is
            // (its snapshots so far stay good) rather than apply around the hole or retry forever.
            failure = ex;
            throw ex;
        }
    }

    /** @return why the replica stopped following the journal, or null while it follows (any thread, late). */
    public RuntimeException failure()
    {
        return failure;
    }

    /** @return journal records the replica applied (read late from other threads). */
    public long applied()
    {
        return replica.applied();
    }

    /** @return snapshots written (read late from other threads). */
    public long snapshotsTaken()
    {
        return replica.snapshotsTaken();
    }

    /** @return snapshots that could not be written and were passed over (read late from other threads). */
    public long snapshotFailures()
    {
        return replica.snapshotFailures();
    }

    @Override
    public String roleName()
    {
        return "snapshots";
    }

    @Override
    public void close()
    {
        tailer.close();
    }
}
