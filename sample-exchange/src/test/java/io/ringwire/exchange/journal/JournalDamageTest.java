package io.ringwire.exchange.journal;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Damaged journals: a torn last record (cut short, bit-flipped, or an append that never wrote its
 * length) is reported, never delivered, and discarded by the writer, which then appends after the
 * last good record; a damaged record with valid records after it, or a missing segment, is
 * corruption: reported, reading stops, and the writer refuses to build on it.
 */
class JournalDamageTest
{
    private static final int SEGMENT_LENGTH = 64 * 1024;
    private static final int RECORDS = 1200;

    /** The largest record {@link #records} makes, which some tests declare as the journal's largest payload. */
    private static final int LARGEST = 3000;

    private final TestRecords records = new TestRecords(0x5EED_2002L, 300, LARGEST, 50);
    /** The largest payload {@link #context} declares; -1: none (the segment's). */
    private int declaredLargest = -1;

    @TempDir
    Path directory;

    @Test
    void aLastRecordCutShortIsATornTailThatIsReportedNotDeliveredAndDiscardedOnReopen() throws IOException
    {
        final Located last = appendAndLocate(RECORDS, RECORDS - 1);
        try (FileChannel channel = FileChannel.open(last.file, WRITE))
        {
            channel.truncate(last.recordOffset + 8 + last.payloadLength / 2);
        }

        assertTornTailReportedAndDiscardedOnReopen(last, "reaches past the end of the file");
    }

    @Test
    void aBitFlipInTheLastRecordIsATornTailThatIsReportedNotDeliveredAndDiscardedOnReopen() throws IOException
    {
        final Located last = appendAndLocate(RECORDS, RECORDS - 1);
        flipPayloadBit(last, last.payloadLength / 2);

        assertTornTailReportedAndDiscardedOnReopen(last, "CRC32C mismatch");
    }

    @Test
    void anAppendThatWroteItsPayloadButNotItsLengthIsATornTail() throws IOException
    {
        final Located unfinished = tornAppendAfterTheRecords(unfinishedPayload(records.length(RECORDS)), 0);

        assertTornTailReportedAndDiscardedOnReopen(unfinished, "no record length");
    }

    @Test
    void aTornRecordWhosePayloadHoldsWhatAnEmptyRecordWouldBeIsStillATornTail() throws IOException
    {
        // A SIGKILL in the middle of an append left a payload without its length; eight of its
        // bytes, at an aligned offset, read as an empty record (length 8, the checksum of nothing,
        // 0) and the next eight as no record. Such bytes are no sign of records appended after it.
        final ByteBuffer payload = unfinishedPayload(Math.max(24, records.length(RECORDS)));
        payload.putInt(8, 8).putInt(12, 0).putInt(16, 6).putInt(20, 0xFE00_0201);
        final Located unfinished = tornAppendAfterTheRecords(payload, 0);

        assertTornTailReportedAndDiscardedOnReopen(unfinished, "no record length");
    }

    @Test
    void aTornRecordWhosePayloadAClientShapedLikeARecordWithItsChecksumIsStillATornTail() throws IOException
    {
        // An append stores the payload and its checksum before the length. A client controls fields
        // of its request (its order ids), so the payload may hold, at an aligned offset, a record
        // with a payload and its CRC32C; a SIGKILL before the length must still leave a torn tail,
        // not a journal the engine refuses to start on. The stored checksum says where the torn
        // payload ends: only a record past that shows appends after it.
        final ByteBuffer payload = unfinishedPayload(Math.max(48, records.length(RECORDS)));
        shapeRecord(payload, 8);
        final Located unfinished = tornAppendAfterTheRecords(payload, crc32c(payload, 0, payload.capacity()));

        assertTornTailReportedAndDiscardedOnReopen(unfinished, "no record length");
    }

    @Test
    void aTornRecordWhoseChecksumWasNotYetStoredAndWhosePayloadHoldsAShapedRecordIsATornTail() throws IOException
    {
        // The append died after it copied the payload and before it stored the checksum: nothing
        // tells where the payload ends but the journal's declared largest payload (the engine's
        // largest request), within which a record a client shaped is no sign of later appends.
        declaredLargest = LARGEST;
        final ByteBuffer payload = unfinishedPayload(64);
        shapeRecord(payload, 40);
        final Located unfinished = tornAppendAfterTheRecords(payload, 0);

        assertTornTailReportedAndDiscardedOnReopen(unfinished, "no record length");
    }

    @Test
    void aTornRecordWhosePayloadAClientShapedSoThatAPrefixGivesItsChecksumIsStillATornTail() throws IOException
    {
        // The checksum is stored, but a client chose four bytes of its request so that the first 16
        // bytes of the payload give the same CRC32C as all 64: the payload's end is the longest
        // length that gives the checksum, not the first, or the record shaped after those 16 bytes
        // would read as an append after the torn one.
        final ByteBuffer payload = unfinishedPayload(64);
        shapeRecord(payload, 40);
        final int prefixChecksum = crc32c(payload, 0, 16);
        payload.putInt(16, fourBytesGiving(payload, 16, payload.capacity(), prefixChecksum));
        assertEquals(prefixChecksum, crc32c(payload, 0, payload.capacity()), "the collision is forged");
        final Located unfinished = tornAppendAfterTheRecords(payload, prefixChecksum);

        assertTornTailReportedAndDiscardedOnReopen(unfinished, "no record length");
    }

    /** @return {@code length} bytes of what would have been the next record's payload. */
    private ByteBuffer unfinishedPayload(final int length)
    {
        final ByteBuffer payload = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        records.block().getBytes(records.offset(RECORDS), payload, length);
        return payload.clear();
    }

    /** Shapes, at {@code at} in a payload, a record of eight payload bytes with their CRC32C. */
    private static void shapeRecord(final ByteBuffer payload, final int at)
    {
        payload.putLong(at + 8, 0x0123_4567_89AB_CDEFL);
        payload.putInt(at, 16).putInt(at + 4, crc32c(payload, at + 8, 8));
    }

    /**
     * Appends {@link #RECORDS} records, then leaves after the last what an append that died before it
     * stored the length leaves: {@code payload}, and {@code checksum} where it is not 0 (0: none stored).
     */
    private Located tornAppendAfterTheRecords(final ByteBuffer payload, final int checksum) throws IOException
    {
        final Located end = appendAndLocate(RECORDS, RECORDS - 1);
        final long offset = end.recordOffset + JournalFormat.alignedLength(8 + end.payloadLength);
        try (FileChannel channel = FileChannel.open(end.file, WRITE))
        {
            if (0 != checksum)
            {
                channel.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, checksum), offset + 4);
            }
            channel.write(payload.duplicate().clear(), offset + 8);
        }
        return new Located(RECORDS, end.file, offset, payload.capacity());
    }

    @Test
    void aRecordWhoseHeaderIsZeroedWithRecordsPastTheDeclaredLargestPayloadIsCorruption() throws IOException
    {
        // A zeroed header looks like an append that died before its checksum; records further on
        // than the largest payload could reach were appended after it, so this is damage.
        declaredLargest = LARGEST;
        appendAndLocate(RECORDS, 0);
        final long[] bases = JournalDirectory.segmentBases(directory);
        final long lastBase = bases[bases.length - 1];
        final Located first = locate(lastBase);
        assertEquals(0, first.recordOffset);
        assertTrue(RECORDS - lastBase >= 30, "the last segment holds records well past the largest payload");
        try (FileChannel channel = FileChannel.open(first.file, WRITE))
        {
            channel.write(ByteBuffer.allocate(8), first.recordOffset);
        }

        final JournalReadResult result = assertCorruption(first);
        assertTrue(result.damage().problem().contains("no record length"), result.toString());
        final JournalCorruptException refused = assertThrows(JournalCorruptException.class,
            () -> Journal.open(context()));
        assertTrue(refused.getMessage().contains("offset 0"), refused.getMessage());
    }

    /**
     * The four bytes at {@code at} that make the CRC32C of {@code bytes[0, length)} {@code target}:
     * the checksum is affine in them, so each bit's effect is a column of a 32 by 32 system over
     * GF(2), solved by elimination.
     */
    private static int fourBytesGiving(final ByteBuffer bytes, final int at, final int length, final int target)
    {
        final ByteBuffer work = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        work.putInt(at, 0);
        final int base = crc32c(work, 0, length);
        final int[] basis = new int[32];
        final int[] combination = new int[32];
        for (int bit = 0; bit < 32; bit++)
        {
            work.putInt(at, 1 << bit);
            int column = crc32c(work, 0, length) ^ base;
            int used = 1 << bit;
            for (int pivot = 31; pivot >= 0 && 0 != column; pivot--)
            {
                if (0 == (column >>> pivot & 1))
                {
                    continue;
                }
                if (0 == basis[pivot])
                {
                    basis[pivot] = column;
                    combination[pivot] = used;
                    column = 0;
                }
                else
                {
                    column ^= basis[pivot];
                    used ^= combination[pivot];
                }
            }
        }
        int remaining = target ^ base;
        int solution = 0;
        for (int pivot = 31; pivot >= 0; pivot--)
        {
            if (0 != (remaining >>> pivot & 1))
            {
                assertTrue(0 != basis[pivot], "the four bytes reach every checksum");
                remaining ^= basis[pivot];
                solution ^= combination[pivot];
            }
        }
        return solution;
    }

    private static int crc32c(final ByteBuffer bytes, final int offset, final int length)
    {
        final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(bytes.duplicate().position(offset).limit(offset + length));
        return (int)crc.getValue();
    }

    @Test
    void aBitFlipInAMiddleRecordIsCorruptionThatStopsTheReaderAndTheWriter() throws IOException
    {
        final Located middle = appendAndLocate(RECORDS, RECORDS - 5);
        flipPayloadBit(middle, 0);

        final JournalReadResult result = assertCorruption(middle);
        assertTrue(result.damage().message().contains("valid records follow it"), result.toString());

        final JournalCorruptException refused = assertThrows(JournalCorruptException.class,
            () -> Journal.open(context()));
        assertDamageAt(middle, refused.damage());
        try (Journal journal = appendAfterRepair(middle))
        {
            assertEquals(RECORDS, journal.recordCount(), "the writer's refusal left its lock free");
        }
    }

    @Test
    void aCorruptLastSegmentCutShortKeepsItsLengthWhenTheWriterRefusesIt() throws IOException
    {
        final Located middle = appendAndLocate(RECORDS, RECORDS - 5);
        final Located last = locate(RECORDS - 1);
        assertEquals(middle.file, last.file, "both records are in the last segment");
        final long cutTo = last.recordOffset + 8 + last.payloadLength;
        try (FileChannel channel = FileChannel.open(last.file, WRITE))
        {
            channel.truncate(cutTo);
        }
        flipPayloadBit(middle, 0);

        assertThrows(JournalCorruptException.class, () -> Journal.open(context()));
        assertEquals(cutTo, Files.size(last.file), "the refused segment is left as the operator found it");
    }

    @Test
    void anImpossibleLengthInAMiddleRecordIsCorruption() throws IOException
    {
        final Located middle = appendAndLocate(RECORDS, RECORDS - 3);
        try (FileChannel channel = FileChannel.open(middle.file, WRITE))
        {
            channel.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0x7fff_0000),
                middle.recordOffset);
        }

        final JournalReadResult result = assertCorruption(middle);
        assertTrue(result.damage().problem().contains("record length 2147418112 is impossible"), result.toString());
    }

    @Test
    void aLengthPastTheDeclaredLargestPayloadIsImpossibleEvenWhereTheSegmentHasRoomForIt() throws IOException
    {
        declaredLargest = LARGEST;
        final Located middle = appendAndLocate(RECORDS, RECORDS - 3);
        final int length = 8 + LARGEST + 8;
        assertTrue(middle.recordOffset + length <= SEGMENT_LENGTH, "the segment has room for it");
        try (FileChannel channel = FileChannel.open(middle.file, WRITE))
        {
            channel.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, length), middle.recordOffset);
        }

        final JournalReadResult result = assertCorruption(middle);
        assertTrue(result.damage().problem().contains("record length " + length + " is impossible (at least 8, " +
            "at most " + (8 + LARGEST)), result.toString());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLastSegmentOfGarbageAfterItsRecordsIsATornTailFoundWithoutAChecksumAtEveryOffset() throws IOException
    {
        // 64 MiB of random bytes: about one aligned offset in 64 holds a length that fits the
        // segment, and a checksum over each of those would take minutes; a length past the
        // journal's largest payload is no record's, so none is computed.
        final int segmentLength = 64 << 20;
        final int largest = 1024;
        final JournalContext context = new JournalContext().directory(directory).segmentLength(segmentLength)
            .maxPayloadLength(largest).conclude();
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[100]);
        final int good = 3;
        try (Journal journal = Journal.open(context))
        {
            for (int i = 0; i < good; i++)
            {
                payload.setMemory(0, payload.capacity(), (byte)(i + 1));
                assertEquals(i, journal.append(payload, 0, payload.capacity()));
            }
        }
        final int end = good * JournalFormat.alignedLength(8 + payload.capacity());
        final Path segment = JournalDirectory.segmentFile(directory, 0);
        final byte[] garbage = new byte[segmentLength - end];
        new java.util.Random(0x6A5BA6EL).nextBytes(garbage);
        try (FileChannel channel = FileChannel.open(segment, WRITE))
        {
            channel.write(ByteBuffer.wrap(garbage), end);
        }

        final JournalReadResult result = new JournalReader(directory).readAll((type, buffer, index, length) -> { });
        assertTrue(result.tornTail(), result.toString());
        assertEquals(good, result.recordsDelivered());
        assertEquals(end, result.damage().offset(), result.toString());
        try (Journal journal = Journal.open(context))
        {
            assertEquals(good, journal.recordCount());
            assertNotNull(journal.discardedTornTail());
        }
    }

    @Test
    void aDamagedRecordInAnEarlierSegmentIsCorruptionEvenWhenItIsThatSegmentsLast() throws IOException
    {
        appendAndLocate(RECORDS, 0);
        final long[] bases = JournalDirectory.segmentBases(directory);
        assertTrue(bases.length >= 3, "segments: " + bases.length);
        final long lastOfFirstSegment = bases[1] - 1;
        final Located located = locate(lastOfFirstSegment);
        flipPayloadBit(located, located.payloadLength - 1);

        final JournalReadResult result = assertCorruption(located);
        assertTrue(result.damage().problem().contains("a later segment follows"), result.toString());
    }

    @Test
    void aMissingSegmentIsCorruptionReportedAtTheSegmentAfterTheGap() throws IOException
    {
        appendAndLocate(RECORDS, 0);
        final long[] bases = JournalDirectory.segmentBases(directory);
        Files.delete(JournalDirectory.segmentFile(directory, bases[1]));

        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        final JournalReadResult result = new JournalReader(directory).readAll(handler);
        handler.assertDelivered(bases[1]);
        assertTrue(result.corrupt(), result.toString());
        assertEquals(JournalDirectory.segmentFile(directory, bases[2]), result.damage().file());
        assertEquals(bases[1], result.damage().sequence());
        assertTrue(result.damage().problem().contains("records are missing"), result.toString());
    }

    /** Appends {@code count} records, closes, and finds record {@code sequence} with a reader. */
    private Located appendAndLocate(final long count, final long sequence)
    {
        try (Journal journal = Journal.open(context()))
        {
            for (long next = 0; next < count; next++)
            {
                assertEquals(next, records.append(journal, next));
            }
        }
        return locate(sequence);
    }

    private Located locate(final long sequence)
    {
        final long[] bases = JournalDirectory.segmentBases(directory);
        final long base = bases[JournalDirectory.segmentHolding(bases, sequence)];
        final int[] payloadOffset = {-1};
        new JournalReader(directory).read(sequence, (delivered, buffer, offset, length) ->
        {
            if (delivered == sequence)
            {
                payloadOffset[0] = offset;
            }
        });
        assertTrue(payloadOffset[0] >= 8, "record " + sequence + " not found");
        return new Located(sequence, JournalDirectory.segmentFile(directory, base), payloadOffset[0] - 8,
            records.length(sequence));
    }

    /**
     * The reader delivers every record before the torn one and reports it with {@code problem}; the
     * writer, reopening, reports it too, zeroes it and appends after the last good record.
     */
    private void assertTornTailReportedAndDiscardedOnReopen(final Located torn, final String problem)
    {
        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        final JournalReadResult result = new JournalReader(directory).readAll(handler);
        handler.assertDelivered(torn.sequence);
        assertTrue(result.tornTail(), result.toString());
        assertDamageAt(torn, result.damage());
        assertTrue(result.damage().problem().contains(problem), result.toString());
        assertEquals(torn.sequence, result.recordsDelivered(), "every complete record is delivered");
        assertEquals(torn.sequence, result.nextSequence());
        assertEquals(torn.sequence - 1, result.lastSequenceDelivered());
        assertWriterDiscardsTheTornTailAndAppendsAfterTheLastGoodRecord(torn);
    }

    private JournalReadResult assertCorruption(final Located corrupt)
    {
        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        final JournalReadResult result = new JournalReader(directory).readAll(handler);
        handler.assertDelivered(corrupt.sequence);
        assertTrue(result.corrupt(), result.toString());
        assertDamageAt(corrupt, result.damage());
        assertEquals(corrupt.sequence, result.nextSequence());
        return result;
    }

    private void assertWriterDiscardsTheTornTailAndAppendsAfterTheLastGoodRecord(final Located torn)
    {
        try (Journal journal = Journal.open(context()))
        {
            assertEquals(torn.sequence, journal.recordCount());
            final JournalDamage discarded = journal.discardedTornTail();
            assertNotNull(discarded, "the writer reports the torn tail it discards");
            assertDamageAt(torn, discarded);
            for (long sequence = torn.sequence; sequence < torn.sequence + 20; sequence++)
            {
                assertEquals(sequence, records.append(journal, sequence));
            }
        }
        final VerifyingHandler handler = new VerifyingHandler(records, 0);
        final JournalReadResult result = new JournalReader(directory).readAll(handler);
        assertTrue(result.clean(), result.toString());
        handler.assertDelivered(torn.sequence + 20);
        try (Journal journal = Journal.open(context()))
        {
            assertNull(journal.discardedTornTail(), "the torn tail was zeroed: nothing is left to discard");
        }
    }

    /** Puts the damaged record's first payload bit back, so the journal opens again. */
    private Journal appendAfterRepair(final Located damaged) throws IOException
    {
        flipPayloadBit(damaged, 0);
        return Journal.open(context());
    }

    private static void assertDamageAt(final Located expected, final JournalDamage damage)
    {
        assertEquals(expected.file, damage.file(), damage.message());
        assertEquals(expected.recordOffset, damage.offset(), damage.message());
        assertEquals(expected.sequence, damage.sequence(), damage.message());
        assertTrue(damage.message().contains(expected.file.toString()) &&
            damage.message().contains("offset " + expected.recordOffset), damage.message());
    }

    private static void flipPayloadBit(final Located record, final int index) throws IOException
    {
        assertTrue(index < record.payloadLength, "record " + record.sequence + " has no payload byte " + index);
        final long position = record.recordOffset + 8 + index;
        try (FileChannel channel = FileChannel.open(record.file, READ, WRITE))
        {
            final ByteBuffer oneByte = ByteBuffer.allocate(1);
            channel.read(oneByte, position);
            oneByte.put(0, (byte)(oneByte.get(0) ^ 0x10));
            channel.write(oneByte.flip(), position);
        }
    }

    private JournalContext context()
    {
        final JournalContext context = new JournalContext().directory(directory).segmentLength(SEGMENT_LENGTH);
        return (declaredLargest < 0 ? context : context.maxPayloadLength(declaredLargest)).conclude();
    }

    /** Where a record lies: its segment file, the offset of its header there, and its payload length. */
    private record Located(long sequence, Path file, long recordOffset, int payloadLength)
    {
    }
}
