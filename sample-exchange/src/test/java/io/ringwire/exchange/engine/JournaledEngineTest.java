package io.ringwire.exchange.engine;

import io.ringwire.codecs.trading.EngineCommandEncoder;
import io.ringwire.codecs.trading.EngineCommandType;
import io.ringwire.codecs.trading.MassCancelEncoder;
import io.ringwire.codecs.trading.MessageHeaderEncoder;
import io.ringwire.codecs.trading.NewOrderEncoder;
import io.ringwire.codecs.trading.OrdType;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TimeInForce;
import io.ringwire.exchange.flow.OrderFlow;
import io.ringwire.exchange.journal.JournalDirectory;
import io.ringwire.exchange.journal.JournalReader;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The journaled engine: the SNAPSHOT and DIGEST commands, a reopened engine that carries on where
 * it stopped, and a journal damaged before its end that the engine refuses to start on.
 */
class JournaledEngineTest
{
    @TempDir
    Path directory;

    private final OrderFlow flow = new OrderFlow(5, 2, 1, 8, 1_000, 20, 256);
    private final EngineConfig config = new EngineConfig(EngineConfig.uniformInstruments(2, flow.minPrice(),
        (int)(flow.maxPrice() - flow.minPrice() + 1)), 10_000, 50, 0);
    private final UnsafeBuffer request = new UnsafeBuffer(ByteBuffer.allocateDirect(256));

    @Test
    void theSnapshotAndDigestCommandsAreJournaledAndActedOn()
    {
        final List<String> digests = new ArrayList<>();
        try (JournaledEngine engine = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20))
        {
            engine.onDigest(digests::add);
            feed(engine, 1_000);
            assertEquals(EngineCommandEncoder.TEMPLATE_ID, engine.accept(request, 0, command(EngineCommandType.SNAPSHOT)));
            assertEquals(1, engine.snapshotsTaken());
            assertEquals(1, new EngineSnapshots(directory).files().size());
            engine.accept(request, 0, command(EngineCommandType.DIGEST));
            assertEquals(List.of(engine.digest()), digests);
        }
        assertEquals(2, digests.size(), "and once more at close");
        assertEquals(digests.get(0), JournaledEngine.replay(directory).digest(), "the replay links where the command did");
    }

    @Test
    void aReopenedEngineCarriesOnWhereItStopped()
    {
        final String digest;
        final String books;
        try (JournaledEngine engine = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 16))
        {
            feed(engine, 5_000);
        }
        try (JournaledEngine engine = JournaledEngine.open(directory, null, EngineOutput.NONE, 1 << 16))
        {
            assertEquals(5_000, engine.applied());
            feed(engine, 5_000);
            digest = engine.digest();
            books = engine.engine().booksDigest();
        }
        final OrderFlow again = new OrderFlow(5, 2, 1, 8, 1_000, 20, 256);
        final MatchingEngine straight = new MatchingEngine(config, EngineOutput.NONE);
        for (int i = 0; i < 10_000; i++)
        {
            straight.apply(request, 0, again.next(request, 0));
        }
        assertEquals(straight.digest().value(), digest);
        assertEquals(straight.booksDigest(), books);
    }

    @Test
    void aJournalDamagedBeforeItsEndIsRefusedRatherThanLoseAnAcceptedRequest() throws IOException
    {
        try (JournaledEngine engine = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20))
        {
            feed(engine, 1_000);
        }
        final Path segment;
        try (Stream<Path> files = Files.list(directory))
        {
            segment = files.filter(path -> path.getFileName().toString().endsWith(".journal")).findFirst().orElseThrow();
        }
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw"))
        {
            file.seek(20);
            final int value = file.read();
            file.seek(20);
            file.write(value ^ 0x01);
        }
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> JournaledEngine.open(directory, null, EngineOutput.NONE, 1 << 20));
        assertTrue(refused.getMessage().contains("damaged before its end"), refused.getMessage());
    }

    @Test
    void aJournalEndingBeforeTheNewestSnapshotIsRefusedWithItsBytesLeftAsTheyWere() throws IOException
    {
        final long snapshotAt = journalEndingInASnapshot(1_000);
        assertEquals(snapshotAt, new JournalReader(directory).readAll((sequence, buffer, offset, length) -> { })
            .nextSequence(), "the snapshot covers every record");
        final Path segment;
        try (Stream<Path> files = Files.list(directory))
        {
            segment = files.filter(path -> path.getFileName().toString().endsWith(".journal")).findFirst().orElseThrow();
        }
        // The last record's last byte flipped: a torn tail, one record short of the snapshot.
        final byte[] bytes = Files.readAllBytes(segment);
        int last = bytes.length - 1;
        while (bytes[last] == 0)
        {
            last--;
        }
        bytes[last] ^= 0x01;
        Files.write(segment, bytes);

        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> JournaledEngine.open(directory, null, EngineOutput.NONE, 1 << 20));
        assertTrue(refused.getMessage().contains("ends at record " + (snapshotAt - 1)) &&
            refused.getMessage().contains("newest snapshot is at record " + snapshotAt), refused.getMessage());
        assertArrayEquals(bytes, Files.readAllBytes(segment), "the torn record is still there to look at");
    }

    @Test
    void aSnapshotWithoutItsJournalIsRefusedAndTheDirectoryLeftAsItWas() throws IOException
    {
        final long snapshotAt = journalEndingInASnapshot(100);
        try (Stream<Path> files = Files.list(directory))
        {
            for (final Path file : files.toList())
            {
                final String name = file.getFileName().toString();
                if (name.endsWith(".journal") || name.equals(JournalDirectory.METADATA_FILE))
                {
                    Files.delete(file); // the journal lost, its snapshot and settings kept
                }
            }
        }
        final List<Path> before;
        try (Stream<Path> files = Files.list(directory))
        {
            before = files.sorted().toList();
        }

        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20));
        assertTrue(refused.getMessage().contains("snapshot at record " + snapshotAt) &&
            refused.getMessage().contains("no journal"), refused.getMessage());
        try (Stream<Path> files = Files.list(directory))
        {
            assertEquals(before, files.sorted().toList(), "no journal was created beside the snapshot");
        }
        assertThrows(IllegalStateException.class,
            () -> JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20), "refused the same way again");
    }

    @Test
    void anEngineKeepsItsLifeAcrossRestartsAndOneStartedFromNothingTakesANewOne() throws IOException
    {
        final List<Long> named = new ArrayList<>();
        final EngineOutput naming = new EngineOutput()
        {
            @Override
            public void engineLife(final long life)
            {
                named.add(life);
            }

            @Override
            public void executionReport(final DirectBuffer buffer, final int offset, final int length)
            {
                assertEquals(1, named.size() % 2, "the life is named before recovery's first report");
            }

            @Override
            public void marketData(final DirectBuffer buffer, final int offset, final int length)
            {
            }
        };
        final long first;
        try (JournaledEngine engine = JournaledEngine.open(directory, config, naming, 1 << 20))
        {
            first = engine.life();
            assertTrue(first > 0, "a positive life: " + first);
            feed(engine, 100);
        }
        assertEquals(Long.toString(first), JournalDirectory.readSettings(directory).get(JournaledEngine.LIFE_KEY));
        named.add(0L); // recovery's reports must follow the next naming, not this one
        try (JournaledEngine engine = JournaledEngine.open(directory, null, naming, 1 << 20))
        {
            assertEquals(first, engine.life(), "restarted on its journal: the same life");
            assertEquals(100, engine.applied());
        }
        assertEquals(List.of(first, 0L, first), named);

        // The journal's records and snapshots go (the settings stay): the engine starts from nothing.
        try (Stream<Path> files = Files.list(directory))
        {
            for (final Path file : files.toList())
            {
                final String name = file.getFileName().toString();
                if (name.endsWith(".journal") || name.startsWith("snapshot-"))
                {
                    Files.delete(file);
                }
            }
        }
        try (JournaledEngine engine = JournaledEngine.open(directory, null, EngineOutput.NONE, 1 << 20))
        {
            assertEquals(0, engine.applied());
            assertTrue(engine.life() > 0 && engine.life() != first, "a new life: " + engine.life());
        }
    }

    @Test
    void aRequestNamingAnotherEngineLifeIsNeitherJournaledNorApplied()
    {
        try (JournaledEngine engine = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20))
        {
            final long life = engine.life();
            // Its gateway serves the engine this one replaced (a new journal).
            assertEquals(JournaledEngine.OTHER_LIFE, engine.accept(request, 0, newOrder(1, life + 1)));
            assertEquals(0, engine.applied());
            new MassCancelEncoder().wrapAndApplyHeader(request, 0, new MessageHeaderEncoder()).clientOrderId(2).account(1)
                .instrumentId(0).sendingTime(1).receiveTime(1).engineLife(life + 2);
            assertEquals(JournaledEngine.OTHER_LIFE,
                engine.accept(request, 0, MessageHeaderEncoder.ENCODED_LENGTH + MassCancelEncoder.BLOCK_LENGTH));

            // This engine's life, or none (a gateway that has not heard one, or of a schema before lives).
            assertEquals(NewOrderEncoder.TEMPLATE_ID, engine.accept(request, 0, newOrder(3, life)));
            assertEquals(NewOrderEncoder.TEMPLATE_ID, engine.accept(request, 0, newOrder(4, 0)));
            final int length = newOrder(5, life + 1);
            new MessageHeaderEncoder().wrap(request, 0).version(4).blockLength(NewOrderEncoder.engineLifeEncodingOffset());
            assertTrue(!JournaledEngine.namesOtherLife(request, 0, length - Long.BYTES, life),
                "a version-4 request names no life, whatever bytes follow its block");
            assertEquals(NewOrderEncoder.TEMPLATE_ID, engine.accept(request, 0, length - Long.BYTES));
            assertEquals(3, engine.applied());
        }
        final List<Long> journaled = new ArrayList<>();
        assertTrue(new JournalReader(directory).readAll((sequence, buffer, offset, length) -> journaled.add(sequence))
            .clean());
        assertEquals(3, journaled.size(), "only the requests applied were journaled");
    }

    /** @return the length of a resting buy of one lot at the lowest price, naming {@code life}, in {@link #request}. */
    private int newOrder(final long clientOrderId, final long life)
    {
        return MessageHeaderEncoder.ENCODED_LENGTH + new NewOrderEncoder()
            .wrapAndApplyHeader(request, 0, new MessageHeaderEncoder()).clientOrderId(clientOrderId).account(1)
            .instrumentId(1).side(Side.BUY).ordType(OrdType.LIMIT).timeInForce(TimeInForce.DAY).price(flow.minPrice())
            .quantity(1).sendingTime(1).receiveTime(1).engineLife(life).encodedLength();
    }

    @Test
    void aJournalWhoseSettingsHaveNoLifeIsGivenOneAndABadOneIsRefusedNamingIt()
    {
        try (JournaledEngine engine = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20))
        {
            feed(engine, 10);
        }
        final Map<String, String> settings = new HashMap<>(JournalDirectory.readSettings(directory));
        settings.remove(JournaledEngine.LIFE_KEY); // as a journal made before lives were kept
        JournalDirectory.writeSettings(directory, settings);
        final long given;
        try (JournaledEngine engine = JournaledEngine.open(directory, null, EngineOutput.NONE, 1 << 20))
        {
            given = engine.life();
            assertTrue(given > 0);
            assertEquals(10, engine.applied());
        }
        assertEquals(Long.toString(given), JournalDirectory.readSettings(directory).get(JournaledEngine.LIFE_KEY));

        for (final String bad : List.of("-3", "0", "soon"))
        {
            settings.put(JournaledEngine.LIFE_KEY, bad);
            JournalDirectory.writeSettings(directory, settings);
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> JournaledEngine.open(directory, null, EngineOutput.NONE, 1 << 20));
            assertTrue(refused.getMessage().contains(JournaledEngine.LIFE_KEY + " must be a positive number: " + bad),
                refused.getMessage());
        }
    }

    /** @return the journal sequence of the snapshot an engine took after {@code requests} requests. */
    private long journalEndingInASnapshot(final int requests)
    {
        try (JournaledEngine engine = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20))
        {
            feed(engine, requests);
            engine.accept(request, 0, command(EngineCommandType.SNAPSHOT));
        }
        return new EngineSnapshots(directory).latest().orElseThrow().journalSequence();
    }

    @Test
    void aSecondEngineOnAJournalInUseIsRefusedBeforeItRecoversAnything()
    {
        final int[] replayed = { 0 };
        final EngineOutput counting = new EngineOutput()
        {
            @Override
            public void executionReport(final DirectBuffer buffer, final int offset, final int length)
            {
                replayed[0]++;
            }

            @Override
            public void marketData(final DirectBuffer buffer, final int offset, final int length)
            {
            }
        };
        try (JournaledEngine engine = JournaledEngine.recover(directory, config, EngineOutput.NONE, true))
        {
            final IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> JournaledEngine.open(directory, null, counting, 1 << 20));
            assertTrue(refused.getMessage().contains("another engine runs on the journal"), refused.getMessage());
            assertThrows(IllegalStateException.class, () -> JournaledEngine.recover(directory, null, counting, true));
        }
        try (JournaledEngine engine = JournaledEngine.open(directory, config, EngineOutput.NONE, 1 << 20))
        {
            feed(engine, 100);
            assertThrows(IllegalStateException.class, () -> JournaledEngine.open(directory, null, counting, 1 << 20));
            assertEquals(0, replayed[0], "the refused engine replayed nothing, so sent nothing");
        }
        try (JournaledEngine again = JournaledEngine.open(directory, null, counting, 1 << 20))
        {
            assertEquals(100, again.applied(), "closed, the journal is free for the next engine");
            assertTrue(replayed[0] > 0);
        }
    }

    @Test
    void aSnapshotWaitsUntilTheOutputItCoversHasLeftAndANewerSnapshotPointReplacesIt()
    {
        final boolean[] sent = { false };
        final EngineOutput holding = new EngineOutput()
        {
            @Override
            public void executionReport(final DirectBuffer buffer, final int offset, final int length)
            {
            }

            @Override
            public void marketData(final DirectBuffer buffer, final int offset, final int length)
            {
            }

            @Override
            public boolean isSent()
            {
                return sent[0];
            }
        };
        try (JournaledEngine engine = JournaledEngine.open(directory, config, holding, 1 << 20))
        {
            feed(engine, 100);
            engine.accept(request, 0, command(EngineCommandType.SNAPSHOT));
            assertEquals(0, engine.snapshotsTaken(), "reports up to the snapshot still wait to leave");
            assertEquals(0, engine.writePendingSnapshot());
            feed(engine, 100);
            engine.accept(request, 0, command(EngineCommandType.SNAPSHOT));
            assertEquals(0, engine.snapshotsTaken());

            sent[0] = true;
            assertEquals(1, engine.writePendingSnapshot());
            assertEquals(0, engine.writePendingSnapshot(), "written once");
            assertEquals(1, engine.snapshotsTaken(), "the newer point replaced the older");
            assertEquals(202, new EngineSnapshots(directory).latest().orElseThrow().journalSequence(),
                "the state at its point, not at the time it was written");
        }
    }

    private void feed(final JournaledEngine engine, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            assertTrue(engine.accept(request, 0, flow.next(request, 0)) > 0);
        }
    }

    private int command(final EngineCommandType type)
    {
        final EngineCommandEncoder encoder = new EngineCommandEncoder();
        encoder.wrapAndApplyHeader(request, 0, new MessageHeaderEncoder()).command(type).sendingTime(1).receiveTime(1);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }
}
