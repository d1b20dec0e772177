package io.ringwire.exchange.engine;

import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.exchange.journal.JournalReadResult;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshots off the engine's thread: a replica on a thread of its own follows the journal while the
 * live engine takes requests, writes the snapshots the engine no longer writes, never goes past
 * what the engine published as applied, and a restart from its newest snapshot and the journal after
 * it reaches the live engine's books and output digest.
 */
class SnapshotReplicaTest
{
    private static final int REQUESTS = 40_000;
    private static final long INTERVAL = 5_000;

    @TempDir
    Path directory;

    private final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));

    @Test
    void aSnapshotTheReplicaTakesWhileTheEngineRunsRestoresToTheSameBooks() throws Exception
    {
        final OrderFlow flow = new OrderFlow(31, 4, 1, 16, 10_000, 20, 1024);
        final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(4, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), 50_000, 100, INTERVAL);
        final AtomicLong published = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final String liveBooks;
        final String liveDigest;
        final long replicaSnapshots;
        try (JournaledEngine live = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20, false);
            SnapshotReplica replica = new SnapshotReplica(directory, published))
        {
            final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(), failure::set, null, replica);
            AgentRunner.startOnThread(runner);
            try
            {
                for (int i = 0; i < REQUESTS; i++)
                {
                    assertTrue(live.accept(request, 0, flow.next(request, 0)) > 0, "request " + i);
                    published.lazySet(live.applied());
                }
                awaitAtLeast(replica::applied, REQUESTS);
            }
            finally
            {
                runner.close();
            }
            assertNull(failure.get(), "the replica failed");
            assertEquals(REQUESTS, replica.applied());
            assertEquals(0, live.snapshotsTaken(), "the engine wrote no snapshot itself");
            replicaSnapshots = replica.snapshotsTaken();
            liveBooks = live.engine().booksDigest();
            liveDigest = live.digest();
        }
        assertEquals(REQUESTS / INTERVAL, replicaSnapshots, "a snapshot at every interval");

        try (JournaledEngine restored = JournaledEngine.open(directory, null, EngineOutput.NONE, 1 << 20))
        {
            final JournalReadResult replayed = restored.recovery();
            assertTrue(replayed.recordsDelivered() < INTERVAL, "the restart began at the replica's newest snapshot: " +
                replayed);
            assertEquals(REQUESTS, restored.applied());
            assertEquals(liveBooks, restored.engine().booksDigest(), "the same books");
            assertEquals(liveDigest, restored.digest(), "the same output digest");
        }
    }

    @Test
    void theReplicaStopsAtWhatTheEngineHasAppliedNotAtTheJournalsEnd() throws Exception
    {
        final OrderFlow flow = new OrderFlow(32, 2, 1, 16, 10_000, 20, 1024);
        final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(2, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), 50_000, 100, 1_000);
        final AtomicLong published = new AtomicLong();
        try (JournaledEngine live = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20, false);
            SnapshotReplica replica = new SnapshotReplica(directory, published))
        {
            for (int i = 0; i < 5_000; i++)
            {
                assertTrue(live.accept(request, 0, flow.next(request, 0)) > 0, "request " + i);
            }
            published.set(3_500);
            while (replica.doWork() > 0)
            {
                assertTrue(replica.applied() <= 3_500, "past the published count: " + replica.applied());
            }
            assertEquals(3_500, replica.applied());
            assertEquals(3, replica.snapshotsTaken(), "snapshots at 1000, 2000 and 3000 only");
        }
    }

    @Test
    void aSnapshotTheReplicaCannotWriteIsPassedOverAndNoRecordIsAppliedTwice() throws Exception
    {
        final OrderFlow flow = new OrderFlow(33, 2, 1, 16, 10_000, 20, 1024);
        final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(2, flow.minPrice(),
            (int)(flow.maxPrice() - flow.minPrice() + 1)), 50_000, 100, 1_000);
        // A directory where the snapshot at record 1000 would be written first: that write fails.
        Files.createDirectories(directory.resolve(String.format("snapshot-%020d.bin.tmp", 1_000)).resolve("in-the-way"));
        final AtomicLong published = new AtomicLong();
        final String liveBooks;
        final String liveDigest;
        try (JournaledEngine live = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20, false);
            SnapshotReplica replica = new SnapshotReplica(directory, published))
        {
            for (int i = 0; i < 3_500; i++)
            {
                assertTrue(live.accept(request, 0, flow.next(request, 0)) > 0, "request " + i);
            }
            published.set(live.applied());
            while (replica.doWork() > 0)
            {
                assertTrue(replica.applied() <= 3_500, "past the published count: " + replica.applied());
            }
            assertEquals(3_500, replica.applied(), "every record applied once");
            assertEquals(1, replica.snapshotFailures(), "the snapshot at 1000 was not written");
            assertEquals(2, replica.snapshotsTaken(), "those at 2000 and 3000 were");
            assertNull(replica.failure());
            liveBooks = live.engine().booksDigest();
            liveDigest = live.digest();
        }
        try (JournaledEngine restored = JournaledEngine.open(directory, null, EngineOutput.NONE, 1 << 20))
        {
            assertEquals(3_000, restored.recovery().fromSequence(), "the restart began at the snapshot at 3000");
            assertEquals(liveBooks, restored.engine().booksDigest(), "the same books");
            assertEquals(liveDigest, restored.digest(), "the same output digest");
        }
    }

    private static void awaitAtLeast(final LongSupplier value, final long target) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (value.getAsLong() < target)
        {
            assertTrue(System.nanoTime() - deadline < 0, "the replica reached " + value.getAsLong() + " of " + target);
            Thread.sleep(1);
        }
    }
}
