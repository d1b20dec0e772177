package io.ringwire.exchange.journal;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Appending, reopening and reading back an undamaged journal, and the writer's refusals.
 */
class JournalTest
{
    private static final int SEGMENT_LENGTH = 4096;

    private final TestRecords records = new TestRecords(0x5EED_1001L, 200, SEGMENT_LENGTH - 8, 97);
    private final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(SEGMENT_LENGTH));

    @TempDir
    Path directory;

    @Test
    void recordsReadBackByteExactInOrderAcrossSegmentRolls()
    {
        final long count = 3000;
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, count);
            assertEquals(count, journal.recordCount());
        }

        final long[] bases = JournalDirectory.segmentBases(directory);
        assertTrue(bases.length > 20, "3000 records of up to a segment each roll many 4 KiB segments: " +
            bases.length);
        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        final JournalReadResult result = new JournalReader(directory).readAll(handler);
        handler.assertDelivered(count);
        assertTrue(result.clean(), result.toString());
        assertEquals(count, result.recordsDelivered());
        assertEquals(count, result.nextSequence());
        assertEquals(count - 1, result.lastSequenceDelivered());
    }

    @Test
    void forcingTheSegmentsBelowASequenceStartsWhereTheLastForceLeftOff() throws IOException
    {
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 300);
        }
        final long[] bases = JournalDirectory.segmentBases(directory);
        assertTrue(bases.length > 3, "several segments: " + bases.length);
        final long below = bases[2] + 1; // a record in the third segment
        assertEquals(bases[2], JournalDirectory.forceSegments(directory, 0, below), "the third is the last forced");
        assertEquals(bases[2], JournalDirectory.forceSegments(directory, bases[2], below), "it may grow: again");
        assertEquals(bases[bases.length - 1], JournalDirectory.forceSegments(directory, bases[2], 300));
        assertEquals(bases[2], JournalDirectory.forceSegments(directory, bases[2], bases[2]),
            "none below: where to start next is unchanged");
    }

    @Test
    void aJournalWrittenUnderALocaleWithOtherDigitsNamesItsSegmentsInAsciiAndReadsBack()
    {
        final Locale before = Locale.getDefault(Locale.Category.FORMAT);
        Locale.setDefault(Locale.Category.FORMAT, Locale.forLanguageTag("en-US-u-nu-arab"));
        try
        {
            assertNotEquals("7", String.format("%d", 7), "the locale writes other digits");
            try (Journal journal = Journal.open(context()))
            {
                appendRecords(journal, 0, 300);
            }
            assertTrue(JournalDirectory.segmentBases(directory).length > 3, "the segments are found by name");
            final VerifyingHandler handler = new VerifyingHandler(records, 0);
            final JournalReadResult result = new JournalReader(directory).readAll(handler);
            assertTrue(result.clean(), result.toString());
            handler.assertDelivered(300);
        }
        finally
        {
            Locale.setDefault(Locale.Category.FORMAT, before);
        }
    }

    @Test
    void aReopenedJournalHoldsItsRecordsAndAppendsAfterTheLast()
    {
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 700);
            journal.force();
        }
        try (Journal journal = Journal.open(context()))
        {
            assertEquals(700, journal.recordCount());
            assertNull(journal.discardedTornTail());
            appendRecords(journal, 700, 1500);
        }

        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        final JournalReadResult result = new JournalReader(directory).readAll(handler);
        assertTrue(result.clean(), result.toString());
        handler.assertDelivered(1500);
    }

    @Test
    void aLastSegmentLeftEmptyByAnInterruptedRollEndsTheJournalCleanlyAndTakesTheNextRecords() throws IOException
    {
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 300);
        }
        final Path empty = JournalDirectory.segmentFile(directory, 300);
        Files.createFile(empty);

        final JournalReadResult before = new JournalReader(directory).readAll((sequence, buffer, offset, length) -> { });
        assertTrue(before.clean(), before.toString());
        assertEquals(300, before.nextSequence());
        try (Journal journal = Journal.open(context()))
        {
            assertEquals(300, journal.recordCount());
            appendRecords(journal, 300, 310);
        }
        assertEquals(SEGMENT_LENGTH, Files.size(empty), "the writer took the empty segment and mapped it whole");
        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        final JournalReadResult after = new JournalReader(directory).readAll(handler);
        assertTrue(after.clean(), after.toString());
        handler.assertDelivered(310);
    }

    @Test
    void readingFromASequenceDeliversThatRecordAndEveryLaterOneOnly()
    {
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 1000);
        }
        final JournalReader reader = new JournalReader(directory);

        final VerifyingHandler fromMiddle = new VerifyingHandler(records, 613);
        final JournalReadResult middle = reader.read(613, fromMiddle);
        fromMiddle.assertDelivered(387);
        assertEquals(387, middle.recordsDelivered());
        assertEquals(999, middle.lastSequenceDelivered());

        final VerifyingHandler fromEnd = new VerifyingHandler(records, 1000);
        final JournalReadResult end = reader.read(1000, fromEnd);
        fromEnd.assertDelivered(0);
        assertEquals(-1, end.lastSequenceDelivered());
        assertEquals(1000, end.nextSequence());
        assertTrue(end.clean(), end.toString());
    }

    @Test
    void emptyAndSegmentSizedPayloadsAreRecordsAndOneByteMoreIsRefusedAndCounted()
    {
        try (Journal journal = Journal.open(context()))
        {
            assertEquals(SEGMENT_LENGTH - 8, journal.maxPayloadLength());
            assertEquals(0, journal.append(payload, 0, 0));
            assertEquals(1, journal.append(payload, 0, journal.maxPayloadLength()));
            assertEquals(Journal.RECORD_TOO_LARGE, journal.append(payload, 0, journal.maxPayloadLength() + 1));
            assertEquals(Journal.INVALID_RANGE, journal.append(payload, -1, 8));
            assertEquals(Journal.INVALID_RANGE, journal.append(payload, SEGMENT_LENGTH - 4, 8));
            assertEquals(Journal.INVALID_RANGE, journal.append(payload, 0, -1));
            assertEquals(4, journal.refusedAppends());
            assertEquals(2, journal.append(payload, 0, 0));
            assertEquals(3, journal.recordCount());
        }

        final int[] lengths = new int[3];
        final JournalReadResult result = new JournalReader(directory).readAll(
            (sequence, buffer, offset, length) -> lengths[(int)sequence] = length);
        assertTrue(result.clean(), result.toString());
        assertEquals(3, result.recordsDelivered());
        assertEquals(0, lengths[0]);
        assertEquals(SEGMENT_LENGTH - 8, lengths[1]);
        assertEquals(0, lengths[2]);
    }

    @Test
    void appendsAfterCloseReturnClosedAndWriteNothing()
    {
        final Journal journal = Journal.open(context());
        assertEquals(0, journal.append(payload, 0, 16));
        journal.close();

        assertEquals(Journal.CLOSED, journal.append(payload, 0, 16));
        assertEquals(1, new JournalReader(directory).readAll((sequence, buffer, offset, length) -> { })
            .recordsDelivered());
    }

    @Test
    void aSecondWriterOnTheSameDirectoryIsRefused()
    {
        try (Journal journal = Journal.open(context()))
        {
            final IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> Journal.open(context()));
            assertTrue(refused.getMessage().contains("one writer at a time"), refused.getMessage());
            assertEquals(0, journal.append(payload, 0, 8));
        }
        try (Journal reopened = Journal.open(context()))
        {
            assertEquals(1, reopened.recordCount());
        }
    }

    @Test
    void anExistingJournalKeepsTheSegmentLengthItWasCreatedWith()
    {
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 10);
        }
        final JournalContext larger = new JournalContext().directory(directory).segmentLength(1 << 20).conclude();
        try (Journal journal = Journal.open(larger))
        {
            assertEquals(SEGMENT_LENGTH, journal.segmentLength());
            assertEquals(10, journal.recordCount());
        }
        assertEquals(SEGMENT_LENGTH, new JournalReader(directory).segmentLength());
    }

    @Test
    void aDeclaredLargestPayloadRefusesLongerAppendsAndAnExistingJournalKeepsTheOneItWasCreatedWith()
        throws IOException
    {
        try (Journal journal = Journal.open(new JournalContext().directory(directory).segmentLength(SEGMENT_LENGTH)
            .maxPayloadLength(100).conclude()))
        {
            assertEquals(100, journal.maxPayloadLength());
            assertEquals(0, journal.append(payload, 0, 100));
            assertEquals(Journal.RECORD_TOO_LARGE, journal.append(payload, 0, 101));
            assertEquals(1, journal.refusedAppends());
        }
        final JournalContext larger = new JournalContext().directory(directory).segmentLength(SEGMENT_LENGTH)
            .maxPayloadLength(2000).conclude();
        try (Journal journal = Journal.open(larger))
        {
            assertEquals(100, journal.maxPayloadLength());
            assertEquals(Journal.RECORD_TOO_LARGE, journal.append(payload, 0, 101));
            assertEquals(1, journal.recordCount());
        }
        assertTrue(Files.readString(directory.resolve(JournalDirectory.METADATA_FILE))
            .contains(JournalDirectory.MAX_PAYLOAD_LENGTH_KEY + "=100"));
    }

    @Test
    void aJournalWhoseMetadataDeclaresNoLargestPayloadTakesTheSegmentsLargest() throws IOException
    {
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 3);
        }
        final Path metadata = directory.resolve(JournalDirectory.METADATA_FILE);
        Files.writeString(metadata, JournalDirectory.FORMAT_VERSION_KEY + "=" + JournalFormat.FORMAT_VERSION + "\n" +
            JournalDirectory.SEGMENT_LENGTH_KEY + "=" + SEGMENT_LENGTH + "\n");
        try (Journal journal = Journal.open(context()))
        {
            assertEquals(SEGMENT_LENGTH - 8, journal.maxPayloadLength());
            assertEquals(3, journal.recordCount());
        }
        assertEquals(3, new JournalReader(directory).readAll((sequence, buffer, offset, length) -> { })
            .recordsDelivered());
    }

    @Test
    void aLargestPayloadBeyondTheSegmentIsRefusedNamingThePropertyOrTheMetadataKey() throws IOException
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new JournalContext().directory(directory).segmentLength(SEGMENT_LENGTH)
                .maxPayloadLength(SEGMENT_LENGTH - 7).conclude());
        assertTrue(refused.getMessage().startsWith(JournalContext.MAX_PAYLOAD_LENGTH_PROP + "='4089'"),
            refused.getMessage());

        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 1);
        }
        final Path metadata = directory.resolve(JournalDirectory.METADATA_FILE);
        Files.writeString(metadata, Files.readString(metadata).replaceAll(
            JournalDirectory.MAX_PAYLOAD_LENGTH_KEY + "=\\d+", JournalDirectory.MAX_PAYLOAD_LENGTH_KEY + "=-1"));
        final IllegalArgumentException badKey = assertThrows(IllegalArgumentException.class,
            () -> new JournalReader(directory));
        assertTrue(badKey.getMessage().contains(JournalDirectory.MAX_PAYLOAD_LENGTH_KEY + "='-1'"),
            badKey.getMessage());
    }

    @Test
    void settingsStoredBesideTheJournalReadBackAndAreReplacedWhole()
    {
        assertEquals(Map.of(), JournalDirectory.readSettings(directory));
        JournalDirectory.writeSettings(directory, Map.of("instrument.1", "ESZ6 tick=25", "instruments", "1"));
        assertEquals(Map.of("instrument.1", "ESZ6 tick=25", "instruments", "1"),
            JournalDirectory.readSettings(directory));

        JournalDirectory.writeSettings(directory, Map.of("instruments", "0"));
        assertEquals(Map.of("instruments", "0"), JournalDirectory.readSettings(directory));
        assertTrue(Files.notExists(directory.resolve(JournalDirectory.SETTINGS_FILE + ".tmp")),
            "the temporary file is renamed over the settings");
    }

    @Test
    void aDirectoryWithoutAJournalIsRefusedByTheReaderWithTheMissingFileNamed()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new JournalReader(directory));
        assertTrue(refused.getMessage().contains(JournalDirectory.METADATA_FILE), refused.getMessage());
    }

    @Test
    void aSegmentLengthThatIsNotAPowerOfTwoIsRefusedNamingTheProperty()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new JournalContext().directory(directory).segmentLength(5000).conclude());
        assertTrue(refused.getMessage().startsWith(JournalContext.SEGMENT_LENGTH_PROP + "='5000'"),
            refused.getMessage());
    }

    @Test
    void anInterruptPendingOnTheWriterCostsNoRecordAndStaysTheWritersToClear()
    {
        try (Journal journal = Journal.open(context()))
        {
            // Every record's pages are allocated through the file, whose channel the JDK closes when
            // the thread using it is interrupted; the journal sets the interrupt aside for its writes.
            Thread.currentThread().interrupt();
            try
            {
                appendRecords(journal, 0, 300);
                assertTrue(journal.prepareAhead(8) > 0, "preparing goes on too");
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is still pending");
            }
            finally
            {
                Thread.interrupted();
            }
            appendRecords(journal, 300, 600);
            assertEquals(0, journal.failedWrites());
        }
        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        assertTrue(new JournalReader(directory).readAll(handler).clean());
        handler.assertDelivered(600);
    }

    @Test
    void forceWithAnInterruptPendingOnTheWriterForcesAndLeavesTheInterruptPending()
    {
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 300); // past the first segment: force reaches a full one and the current
            Thread.currentThread().interrupt();
            try
            {
                // The JDK fails a force on a file channel opened by an interrupted thread.
                journal.force();
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is still pending");
            }
            finally
            {
                Thread.interrupted();
            }
            appendRecords(journal, 300, 310);
            journal.force();
        }
        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        assertTrue(new JournalReader(directory).readAll(handler).clean());
        handler.assertDelivered(310);
    }

    private JournalContext context()
    {
        return new JournalContext().directory(directory).segmentLength(SEGMENT_LENGTH).conclude();
    }

    @Test
    void preparingAheadBetweenAppendsChangesNoRecordAndEachRollTakesTheSegmentMadeAhead()
    {
        final long count = 3000;
        int rollsPrepared = 0;
        try (Journal journal = Journal.open(context()))
        {
            for (long sequence = 0; sequence < count; sequence++)
            {
                final long segmentsBefore = JournalDirectory.segmentBases(directory).length;
                final boolean prepared = Files.exists(directory.resolve(Journal.PREPARED_SEGMENT));
                assertEquals(sequence, records.append(journal, sequence));
                if (prepared && JournalDirectory.segmentBases(directory).length > segmentsBefore)
                {
                    assertFalse(Files.exists(directory.resolve(Journal.PREPARED_SEGMENT)),
                        "the roll renamed the prepared segment into place");
                    rollsPrepared++;
                }
                while (journal.prepareAhead(3) > 0)
                {
                    // touching the rest of the segment, then making and touching the next
                }
                assertTrue(Files.exists(directory.resolve(Journal.PREPARED_SEGMENT)), "record " + sequence);
            }
        }
        assertFalse(Files.exists(directory.resolve(Journal.PREPARED_SEGMENT)), "closing removes the prepared segment");
        assertTrue(rollsPrepared > 20, "rolls into a prepared segment: " + rollsPrepared);
        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        final JournalReadResult result = new JournalReader(directory).readAll(handler);
        assertTrue(result.clean(), result.toString());
        handler.assertDelivered(count);
    }

    @Test
    void aRollWhosePreparedSegmentCannotBeRenamedMakesItsSegmentItselfAndLosesNoRecord() throws IOException
    {
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 50);
            while (!Files.exists(directory.resolve(Journal.PREPARED_SEGMENT)))
            {
                assertTrue(journal.prepareAhead(1) > 0, "preparing reaches the next segment");
            }
            Files.delete(directory.resolve(Journal.PREPARED_SEGMENT)); // the rename at the roll now fails
            appendRecords(journal, 50, 600);
            assertEquals(0, journal.failedRolls(), "the roll made its segment itself");
            assertEquals(1, journal.preparerFailures(), "the rename that failed, counted");
        }
        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        assertTrue(new JournalReader(directory).readAll(handler).clean());
        handler.assertDelivered(600);
    }

    @Test
    void aPreparedSegmentLeftByAKilledWriterIsNeitherReadNorKept() throws IOException
    {
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 100);
        }
        final byte[] garbage = new byte[SEGMENT_LENGTH];
        Arrays.fill(garbage, (byte)0x5A);
        Files.write(directory.resolve(Journal.PREPARED_SEGMENT), garbage);

        final VerifyingHandler before = new VerifyingHandler(records, 0);
        assertTrue(new JournalReader(directory).readAll(before).clean());
        before.assertDelivered(100);
        try (Journal journal = Journal.open(context()))
        {
            assertFalse(Files.exists(directory.resolve(Journal.PREPARED_SEGMENT)), "opening removes it");
            appendRecords(journal, 100, 400);
        }
        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        assertTrue(new JournalReader(directory).readAll(handler).clean());
        handler.assertDelivered(400);
    }

    @Test
    void afterARollFailedNoRecordGoesIntoTheSegmentItLeftAndTheNextRollTakesThemInOrder() throws IOException
    {
        final UnsafeBuffer record = new UnsafeBuffer(new byte[256]);
        final int small = 64 - 8; // a 64-byte record with its header
        final int large = 128 - 8;
        try (Journal journal = Journal.open(context()))
        {
            long sequence = 0;
            for (; sequence < SEGMENT_LENGTH / 64 - 1; sequence++)
            {
                record.putLong(0, sequence);
                assertEquals(sequence, journal.append(record, 0, small));
            }
            // 64 bytes left: the large record needs the next segment, whose file cannot be made.
            final Path next = JournalDirectory.segmentFile(directory, sequence);
            Files.createDirectory(next);
            assertEquals(Journal.SEGMENT_ROLL_FAILED, journal.append(record, 0, large));
            record.putLong(0, sequence);
            assertEquals(Journal.SEGMENT_ROLL_FAILED, journal.append(record, 0, small),
                "a record that would fit the segment left waits for the roll too");
            assertEquals(2, journal.failedRolls());
            Files.delete(next);
            for (final long end = sequence + 10; sequence < end; sequence++)
            {
                record.putLong(0, sequence);
                assertEquals(sequence, journal.append(record, 0, small));
            }
        }
        final List<Long> read = new ArrayList<>();
        final JournalReadResult result = new JournalReader(directory).readAll(
            (sequence, buffer, offset, length) -> read.add(buffer.getLong(offset)));
        assertTrue(result.clean(), result.toString());
        assertEquals(java.util.stream.LongStream.range(0, SEGMENT_LENGTH / 64 - 1 + 10).boxed().toList(), read);
        assertEquals(SEGMENT_LENGTH / 64 - 1, JournalDirectory.segmentBases(directory)[1], "the second segment's base");
    }

    @Test
    void aFileNamedAsASegmentPastTheSequencesRangeIsRefusedNamingIt() throws IOException
    {
        try (Journal journal = Journal.open(context()))
        {
            appendRecords(journal, 0, 10);
        }
        final Path stray = directory.resolve("segment-99999999999999999999.journal");
        Files.createFile(stray);
        for (final Runnable open : List.<Runnable>of(() -> Journal.open(context()).close(),
            () -> new JournalReader(directory).readAll((sequence, buffer, offset, length) -> { })))
        {
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, open::run);
            assertTrue(refused.getMessage().contains(stray.toString()) &&
                refused.getMessage().contains("not a segment of this journal"), refused.getMessage());
        }
    }

    private void appendRecords(final Journal journal, final long from, final long to)
    {
        for (long sequence = from; sequence < to; sequence++)
        {
            assertEquals(sequence, records.append(journal, sequence), "sequence returned by append");
        }
    }
}
