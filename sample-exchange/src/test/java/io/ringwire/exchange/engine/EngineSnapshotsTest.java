package io.ringwire.exchange.engine;

import io.ringwire.exchange.flow.OrderFlow;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A snapshot holds the engine's whole state: an engine restored from one and fed the same requests
 * as the engine it was taken of sends the same bytes (same digest) and ends with the same books. A
 * damaged newest snapshot is reported and the one before it used.
 */
class EngineSnapshotsTest
{
    private static final int BEFORE = 200_000;
    private static final int AFTER = 200_000;

    @TempDir
    Path directory;

    /** Each test's engine, its flow of requests and a buffer for them. */
    private final OrderFlow flow = flow();
    private final MatchingEngine engine = new MatchingEngine(config(flow), EngineOutput.NONE);
    private final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private EngineSnapshots snapshots;

    @BeforeEach
    void snapshotsInTheTestsDirectory()
    {
        snapshots = new EngineSnapshots(directory);
    }

    @Test
    void anEngineRestoredFromASnapshotContinuesByteForByteLikeTheOriginal()
    {
        final EngineConfig config = config(flow);
        final MatchingEngine original = engine;
        feed(original, flow, request, BEFORE);
        original.digest().link();
        snapshots.write(original.state(BEFORE));

        final EngineState loaded = snapshots.latest().orElseThrow();
        assertEquals(BEFORE, loaded.journalSequence());
        assertTrue(loaded.orders().size() > 1000, "a snapshot of real books: " + loaded.orders().size() + " orders");
        final MatchingEngine restored = new MatchingEngine(config, EngineOutput.NONE);
        restored.restore(loaded);
        assertEquals(original.digest().value(), restored.digest().value());

        final OrderFlow twin = flow();
        twin.skip(BEFORE, request);
        for (int i = 0; i < AFTER; i++)
        {
            final int length = flow.next(request, 0);
            original.apply(request, 0, length);
            final int twinLength = twin.next(request, 0);
            restored.apply(request, 0, twinLength);
        }
        assertEquals(original.digest().value(), restored.digest().value(), "the same bytes sent after the snapshot");
        assertEquals(original.books().resting(), restored.books().resting(), "the same books");
        assertEquals(original.engineSequence(), restored.engineSequence());
    }

    @Test
    void aDamagedNewestSnapshotIsReportedAndTheOneBeforeItIsUsed() throws IOException
    {
        feedAndWrite(engine, flow, request, snapshots, 10_000, 10_000);
        final Path newest = feedAndWrite(engine, flow, request, snapshots, 10_000, 20_000);

        final byte[] bytes = Files.readAllBytes(newest);
        bytes[bytes.length / 2] ^= 0x10;
        Files.write(newest, bytes);
        final EngineState loaded = snapshots.latest().orElseThrow();
        assertEquals(10_000, loaded.journalSequence(), "the older, whole snapshot");
        assertEquals(1, snapshots.problems().size(), snapshots.problems().toString());
        assertTrue(snapshots.problems().get(0).contains("CRC32C"), snapshots.problems().toString());

        final Path truncated = directory.resolve("snapshot-00000000000000030000.bin");
        Files.write(truncated, List.of("not a snapshot"));
        final EngineSnapshots again = new EngineSnapshots(directory);
        assertEquals(10_000, again.latest().orElseThrow().journalSequence());
        assertNotEquals(0, again.problems().size());
    }

    @Test
    void aNewestSnapshotWhoseDigestChainIsNotWholeIsPassedOverForTheOneBeforeIt() throws IOException
    {
        feedAndWrite(engine, flow, request, snapshots, 1_000, 1_000);
        feed(engine, flow, request, 1_000);
        engine.digest().link();
        final EngineState state = engine.state(2_000);
        // Its CRC is sound (written as any snapshot is), its chain half a chain.
        snapshots.write(new EngineState(state.journalSequence(), state.lastExecId(), state.engineSequence(),
            state.streamSequence(), state.instrumentSequences(), Arrays.copyOf(state.digestChain(), 16),
            state.digestBytes(), state.lastOrderId(), state.lastMatchId(), state.lastPriority(), state.orders()));

        final EngineSnapshots reading = new EngineSnapshots(directory);
        final EngineState loaded = reading.latest().orElseThrow();
        assertEquals(1_000, loaded.journalSequence(), "the one before it");
        new MatchingEngine(config(flow), EngineOutput.NONE).restore(loaded);
        assertTrue(reading.problems().get(0).contains("a digest chain of 16 bytes"), reading.problems().toString());
    }

    @Test
    void aSnapshotWrittenBesideNewerDamagedOnesKeepsTheOneBeforeItAndRecoveryUsesTheNewWhole() throws IOException
    {
        final Path first = feedAndWrite(engine, flow, request, snapshots, 1_000, 1_000);
        // Two damaged snapshots named past what the engine writes next: the engine started from the first.
        Files.write(directory.resolve("snapshot-00000000000005000000.bin"), List.of("damaged"));
        Files.write(directory.resolve("snapshot-00000000000006000000.bin"), List.of("damaged"));
        final Path second = feedAndWrite(engine, flow, request, snapshots, 1_000, 2_000);

        assertTrue(Files.exists(first), "the snapshot before the one written is kept");
        assertTrue(Files.exists(second), "the snapshot written stands");
        assertEquals(2_000, new EngineSnapshots(directory).latest().orElseThrow().journalSequence());

        feedAndWrite(engine, flow, request, snapshots, 1_000, 3_000);
        assertFalse(Files.exists(first), "past the two newest whole ones, the oldest goes");
        assertEquals(4, snapshots.files().size(), snapshots.files().toString());
    }

    @Test
    void snapshotNamesAreAsciiDigitsWhateverTheDefaultLocale() throws IOException
    {
        final Locale before = Locale.getDefault(Locale.Category.FORMAT);
        final Locale arabicDigits = Locale.forLanguageTag("en-US-u-nu-arab");
        Locale.setDefault(Locale.Category.FORMAT, arabicDigits);
        try
        {
            assertNotEquals("7", String.format("%d", 7), "the locale writes other digits");
            final Path written = feedAndWrite(engine, flow, request, snapshots, 1_000, 1_000);
            assertEquals("snapshot-00000000000000001000.bin", written.getFileName().toString());
            assertEquals(1_000, snapshots.latest().orElseThrow().journalSequence());
        }
        finally
        {
            Locale.setDefault(Locale.Category.FORMAT, before);
        }
    }

    @Test
    void aTemporaryFileThatAKilledWriterLeftIsDeletedByTheNextWriteAndNeverRead() throws IOException
    {
        final Path leftover = directory.resolve("snapshot-00000000000000000500.bin.tmp");
        Files.write(leftover, List.of("half a snapshot"));
        assertTrue(snapshots.latest().isEmpty(), "a temporary file is not a snapshot");

        feedAndWrite(engine, flow, request, snapshots, 1_000, 1_000);
        assertFalse(Files.exists(leftover));
        assertEquals(1_000, snapshots.latest().orElseThrow().journalSequence());
    }

    @Test
    void aSnapshotIsWrittenByAThreadWithAnInterruptPendingAndTheInterruptStaysPending() throws IOException
    {
        feed(engine, flow, request, 1_000);
        engine.digest().link();
        Thread.currentThread().interrupt(); // an agent's thread being closed as it writes its last snapshot
        try
        {
            snapshots.write(engine.state(1_000));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is left pending for the thread's owner");
        }
        finally
        {
            Thread.interrupted();
        }
        assertEquals(1_000, snapshots.latest().orElseThrow().journalSequence());
    }

    private static OrderFlow flow()
    {
        return new OrderFlow(0x5A9L, 5, 1, 20, 5_000, 40, 2048);
    }

    private static EngineConfig config(final OrderFlow flow)
    {
        return new EngineConfig(EngineConfig.uniformInstruments(5, flow.minPrice(), (int)(flow.maxPrice() - flow.minPrice() + 1)),
            50_000, 100, 0);
    }

    /** Applies {@code count} requests, links the digest and writes a snapshot at {@code sequence}. */
    private static Path feedAndWrite(final MatchingEngine engine, final OrderFlow flow, final UnsafeBuffer request,
        final EngineSnapshots snapshots, final int count, final long sequence)
    {
        feed(engine, flow, request, count);
        engine.digest().link();
        return snapshots.write(engine.state(sequence));
    }

    private static void feed(final MatchingEngine engine, final OrderFlow flow, final UnsafeBuffer request, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            engine.apply(request, 0, flow.next(request, 0));
        }
    }
}
