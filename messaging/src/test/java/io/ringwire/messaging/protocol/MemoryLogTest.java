package io.ringwire.messaging.protocol;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory log's appender and reader over a plain buffer: frames on cache lines, a message of up
 * to {@link FrameDescriptor#LINE_PAYLOAD} bytes and its header in one line, the padding rule at the
 * end of the ring, and a frame that is there only once committed: a torn header, a frame an earlier
 * lap left, and bytes a consumed frame left (without its session's salted word) are never read as
 * a frame; the reader writes nothing into the ring.
 */
class MemoryLogTest
{
    private static final int CAPACITY = 4096;
    private static final long WORD = sessionStreamWord(0x10_6A11, 7);
    private static final long LAP = 9L * CAPACITY;

    private final UnsafeBuffer ring = new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY));
    private final FrameAppender appender = new FrameAppender(ring, true);
    private final LogReader reader = new LogReader(ring, WORD);
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[CAPACITY]);

    MemoryLogTest()
    {
        for (int i = 0; i < payload.capacity(); i++)
        {
            payload.putByte(i, (byte)(i * 13 + 5));
        }
    }

    @Test
    void aMessageOfUpToFortyBytesAndItsHeaderTakeOneCacheLine()
    {
        assertEquals(40, LINE_PAYLOAD);
        assertEquals(64, appender.alignedLength(HEADER_LENGTH + LINE_PAYLOAD));
        assertEquals(128, appender.alignedLength(HEADER_LENGTH + LINE_PAYLOAD + 1));
        long position = LAP;
        for (final int length : new int[] { 0, 1, 39, 40, 41, 100 })
        {
            final long framePosition = appender.appendData(position, UNFRAGMENTED, payload, 0, length, 0, WORD);
            assertEquals(position, framePosition);
            assertEquals(0, framePosition % LINE_ALIGNMENT, "frames start on cache lines");
            final long lengthWord = reader.next(position);
            assertEquals(HEADER_LENGTH + length, (int)lengthWord);
            assertEquals(TYPE_DATA, (short)(lengthWord >>> 48));
            assertEquals(UNFRAGMENTED, flags(lengthWord));
            for (int i = 0; i < length; i++)
            {
                assertEquals(payload.getByte(i), ring.getByte(appender.offset(position) + HEADER_LENGTH + i));
            }
            position = reader.consume(position, (int)lengthWord);
            assertEquals(framePosition + (length <= LINE_PAYLOAD ? 64 : length <= 104 ? 128 : 192), position);
        }
        assertEquals(LogReader.NONE, reader.next(position), "nothing past the last frame");
    }

    @Test
    void aFrameEndingExactlyAtTheEndOfTheRingNeedsNoPaddingAndTheNextStartsTheNextLap()
    {
        final long position = LAP + CAPACITY - 64;
        assertEquals(0, appender.padding(position, HEADER_LENGTH + LINE_PAYLOAD));
        assertEquals(position, appender.appendData(position, UNFRAGMENTED, payload, 0, LINE_PAYLOAD, 0, WORD));
        assertEquals(HEADER_LENGTH + LINE_PAYLOAD, (int)reader.next(position));
        final long next = reader.consume(position, HEADER_LENGTH + LINE_PAYLOAD);
        assertEquals(LAP + CAPACITY, next);
        assertEquals(0, appender.offset(next));
        assertEquals(next, appender.appendHeartbeat(next, WORD));
        assertEquals(TYPE_HEARTBEAT, (short)(reader.next(next) >>> 48));
    }

    @Test
    void aFrameThatDoesNotFitIsPrecededByACommittedPadFrameFillingTheRing()
    {
        final long position = LAP + CAPACITY - 128;
        final long framePosition = appender.appendData(position, UNFRAGMENTED, payload, 0, 150, 0, WORD);
        assertEquals(LAP + CAPACITY, framePosition, "a 174-byte frame needs 192 bytes; 128 are left");
        final long pad = reader.next(position);
        assertEquals(128, (int)pad);
        assertEquals(TYPE_PAD, (short)(pad >>> 48));
        final long afterPad = reader.consume(position, (int)pad);
        assertEquals(framePosition, afterPad);
        assertEquals(HEADER_LENGTH + 150, (int)reader.next(afterPad));
        for (int i = 0; i < 150; i++)
        {
            assertEquals(payload.getByte(i), ring.getByte(HEADER_LENGTH + i));
        }
    }

    @Test
    void aClaimedFrameIsNotReadUntilItsCommitNorAfterAnAbortUntilCommitted()
    {
        final long position = LAP + 256;
        final long framePosition = appender.claim(position, HEADER_LENGTH + 30, UNFRAGMENTED, TYPE_DATA, WORD);
        assertEquals(position, framePosition);
        payload.getBytes(0, ring, appender.offset(position) + HEADER_LENGTH, 30);
        assertEquals(LogReader.NONE, reader.next(position), "header and payload in place, position word not yet");
        appender.commit(framePosition, WORD);
        assertEquals(HEADER_LENGTH + 30, (int)reader.next(position));

        final long next = reader.consume(position, HEADER_LENGTH + 30);
        appender.claim(next, HEADER_LENGTH + 10, UNFRAGMENTED, TYPE_DATA, WORD);
        appender.abort(next, HEADER_LENGTH + 10, WORD);
        assertEquals(LogReader.NONE, reader.next(next));
        appender.commit(next, WORD);
        assertEquals(TYPE_PAD, (short)(reader.next(next) >>> 48));
    }

    @Test
    void whatAnEarlierLapLeftIsNotAFrameOfThisLap()
    {
        appender.appendData(LAP, UNFRAGMENTED, payload, 0, 20, 0, WORD);
        assertEquals(LogReader.NONE, reader.next(LAP + CAPACITY), "the same offset a lap later");
        assertEquals(LogReader.NONE, reader.next(LAP - CAPACITY), "nor a lap earlier");
        assertEquals(HEADER_LENGTH + 20, (int)reader.next(LAP));
    }

    @Test
    void aFreshRingOfZerosHoldsNoFrameEvenAtPositionZero()
    {
        for (long position = 0; position < CAPACITY; position += LINE_ALIGNMENT)
        {
            assertEquals(LogReader.NONE, reader.next(position));
        }
    }

    @Test
    void aPayloadHoldingWhatUnsaltedOrAnotherSessionsPositionWordsWouldIsNeverReadAsAFrame()
    {
        // A payload that, at the second and third lines' position slots, holds whole headers of
        // frames there: once with the bare complement of their positions, once salted for another
        // session. Neither is this stream's word, so neither passes for a frame, now or a lap later.
        final long otherSalt = logSalt(sessionStreamWord(0x10_6A12, 7));
        for (final long salt : new long[] { 0, otherSalt })
        {
            final long position = LAP + 512;
            final int length = 2 * LINE_ALIGNMENT + 8;
            final UnsafeBuffer forged = new UnsafeBuffer(new byte[length]);
            for (int line = 1; line <= 2; line++)
            {
                final int at = line * LINE_ALIGNMENT + POSITION_OFFSET - HEADER_LENGTH;
                forged.putLong(at - 16, lengthWord(HEADER_LENGTH, CURRENT_VERSION, UNFRAGMENTED, TYPE_HEARTBEAT), ORDER);
                forged.putLong(at - 8, WORD, ORDER);
                forged.putLong(at, logPositionWord(position + line * LINE_ALIGNMENT, salt), ORDER);
            }
            appender.appendData(position, UNFRAGMENTED, forged, 0, length, 0, WORD);
            assertEquals(HEADER_LENGTH + length, (int)reader.next(position));
            assertEquals(position + 3 * LINE_ALIGNMENT, reader.consume(position, HEADER_LENGTH + length),
                "160 bytes take three lines");
            for (int line = 1; line <= 3; line++)
            {
                assertEquals(LogReader.NONE, reader.next(position + line * LINE_ALIGNMENT), "line " + line);
                assertEquals(LogReader.NONE, reader.next(position + line * LINE_ALIGNMENT + CAPACITY),
                    "line " + line + " a lap later");
            }
        }
    }

    @Test
    void consumingWritesNothingIntoTheRing()
    {
        final long position = LAP + 1024;
        appender.appendData(position, UNFRAGMENTED, payload, 0, 3 * LINE_ALIGNMENT, 0, WORD);
        final byte[] before = new byte[CAPACITY];
        ring.getBytes(0, before);
        reader.consume(position, (int)reader.next(position));
        final byte[] after = new byte[CAPACITY];
        ring.getBytes(0, after);
        assertTrue(java.util.Arrays.equals(before, after), "the reader stores nothing, so the publisher's next lap " +
            "finds its lines unshared with a store of the reader's");
    }

    @Test
    void aPositionWordIsSaltedPerSessionAndNeverZero()
    {
        final long salt = logSalt(WORD);
        assertTrue(salt >= 0, "the salt's top bit is clear");
        assertTrue(salt != logSalt(sessionStreamWord(0x10_6A12, 7)) && salt != logSalt(sessionStreamWord(0x10_6A11, 8)),
            "another session or stream salts otherwise");
        final long position = LAP + 2048;
        appender.appendData(position, UNFRAGMENTED, payload, 0, 8, 0, WORD);
        assertEquals(logPositionWord(position, salt), ring.getLong(appender.offset(position) + POSITION_OFFSET, ORDER));
        for (final long p : new long[] { 0, 64, Long.MAX_VALUE & ~63L })
        {
            assertTrue(logPositionWord(p, salt) != 0 && logPositionWord(p, Long.MAX_VALUE) != 0, "at " + p);
        }
        final LogReader otherSession = new LogReader(ring, sessionStreamWord(0x10_6A12, 7));
        assertEquals(LogReader.NONE, otherSession.next(position), "a reader of another session sees no frame here");
    }

    @Test
    void aCommittedFrameThatBreaksTheRulesIsBroken()
    {
        final long position = LAP + 1024;
        appender.appendData(position, UNFRAGMENTED, payload, 0, 16, 0, sessionStreamWord(1, 2));
        assertEquals(LogReader.NONE, reader.next(position), "another session's frame, salted for it: not one of this stream");
        ring.putLong(appender.offset(position) + POSITION_OFFSET, logPositionWord(position, logSalt(WORD)), ORDER);
        assertEquals(LogReader.BROKEN, reader.next(position), "committed for this stream, naming another session");
        appender.appendData(position, UNFRAGMENTED, payload, 0, 16, 0, WORD);
        ring.putByte(appender.offset(position) + VERSION_OFFSET, (byte)(CURRENT_VERSION + 1));
        assertEquals(LogReader.BROKEN, reader.next(position), "another version");
        appender.appendData(position, UNFRAGMENTED, payload, 0, 16, 0, WORD);
        ring.putInt(appender.offset(position) + FRAME_LENGTH_OFFSET, CAPACITY, ORDER);
        assertEquals(LogReader.BROKEN, reader.next(position), "longer than the rest of the ring");
        ring.putInt(appender.offset(position) + FRAME_LENGTH_OFFSET, HEADER_LENGTH - 1, ORDER);
        assertEquals(LogReader.BROKEN, reader.next(position), "shorter than a header");
        appender.appendData(position, UNFRAGMENTED, payload, 0, 16, 0, WORD);
        ring.putShort(appender.offset(position) + TYPE_OFFSET, (short)9, ORDER);
        assertEquals(LogReader.BROKEN, reader.next(position), "an unknown type");
    }

    @Test
    void ringsTooSmallOrNotAPowerOfTwoAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new LogReader(new UnsafeBuffer(new byte[256]), WORD));
        assertThrows(IllegalArgumentException.class, () -> new LogReader(new UnsafeBuffer(new byte[1000]), WORD));
        assertThrows(IllegalArgumentException.class, () -> new FrameAppender(new UnsafeBuffer(new byte[256]), true));
    }

    /**
     * A writer and a reader thread over one ring, the reader returning credit as the subscription
     * does: random lengths across the line boundaries and the end of the ring, every byte checked,
     * no frame read before its commit or twice.
     */
    @Test
    void aConcurrentWriterAndReaderAgreeOnEveryByteOfEveryFrameAcrossManyLaps() throws Exception
    {
        final int frames = 300_000;
        final AtomicLong consumed = new AtomicLong(LAP);
        final AtomicReference<String> failure = new AtomicReference<>();
        final Thread writer = new Thread(() ->
        {
            final SplittableRandom random = new SplittableRandom(20261128L);
            final FrameAppender log = new FrameAppender(ring, true);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[600]);
            long position = LAP;
            for (int i = 0; i < frames && null == failure.get(); i++)
            {
                final int length = random.nextInt(4) == 0 ? random.nextInt(41, 600) : random.nextInt(0, 41);
                for (int b = 0; b < length; b++)
                {
                    message.putByte(b, (byte)(i + b));
                }
                message.putInt(0, i);
                final int frameLength = HEADER_LENGTH + Math.max(length, 4);
                final long needed = log.padding(position, frameLength) + log.alignedLength(frameLength);
                while (position + needed - consumed.get() > CAPACITY)
                {
                    Thread.onSpinWait(); // credit: never overwrite what the reader has not consumed
                }
                final long framePosition = log.appendData(position, UNFRAGMENTED, message, 0, Math.max(length, 4), 0,
                    WORD);
                position = framePosition + log.alignedLength(frameLength);
            }
        }, "log-writer");
        writer.start();
        final SplittableRandom random = new SplittableRandom(20261128L);
        long position = LAP;
        int expected = 0;
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (expected < frames && null == failure.get())
        {
            final long lengthWord = reader.next(position);
            if (lengthWord == LogReader.NONE)
            {
                assertTrue(System.nanoTime() < deadline, "stalled at frame " + expected);
                Thread.onSpinWait();
                continue;
            }
            if (lengthWord == LogReader.BROKEN)
            {
                failure.set("frame " + expected + " at " + position + " read as broken");
                break;
            }
            final int frameLength = (int)lengthWord;
            if ((short)(lengthWord >>> 48) == TYPE_DATA)
            {
                final int length = random.nextInt(4) == 0 ? random.nextInt(41, 600) : random.nextInt(0, 41);
                final int offset = (int)position & (CAPACITY - 1);
                if (frameLength != HEADER_LENGTH + Math.max(length, 4) || ring.getInt(offset + HEADER_LENGTH) != expected)
                {
                    failure.set("frame " + expected + ": length " + frameLength + ", sequence " +
                        ring.getInt(offset + HEADER_LENGTH));
                    break;
                }
                for (int b = 4; b < length; b++)
                {
                    if (ring.getByte(offset + HEADER_LENGTH + b) != (byte)(expected + b))
                    {
                        failure.set("frame " + expected + ", byte " + b);
                        break;
                    }
                }
                expected++;
            }
            position = reader.consume(position, frameLength);
            consumed.setRelease(position);
        }
        writer.join(10_000);
        assertNull(failure.get());
        assertEquals(frames, expected);
    }
}
