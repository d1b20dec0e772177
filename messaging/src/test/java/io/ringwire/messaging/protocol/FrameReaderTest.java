package io.ringwire.messaging.protocol;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a subscriber accepts from its ring: every frame the appender writes, wherever the ring wraps,
 * and nothing that breaks a rule, each refusal with the code of the rule broken.
 */
class FrameReaderTest
{
    private static final int CAPACITY = 1024;
    private static final long WORD = sessionStreamWord(-77, 5);
    private static final long LAP = 3L * CAPACITY;

    private final UnsafeBuffer ring = new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY));
    private final FrameAppender appender = new FrameAppender(ring);
    private final FrameReader reader = new FrameReader(ring, WORD);
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[CAPACITY]);

    @Test
    void everyFrameTheAppenderWritesIsReadBackWithItsKindAtEveryOffset()
    {
        for (final int length : new int[] { 0, 1, 9, 64, maxPayloadLength(CAPACITY) })
        {
            for (int offset = 0; offset < CAPACITY; offset += ALIGNMENT)
            {
                final long position = LAP + offset;
                final long framePosition = appender.appendData(position, UNFRAGMENTED, payload, 0, length, 0, WORD);
                if (framePosition != position)
                {
                    assertEquals(FrameReader.PAD, reader.read(position, (int)(framePosition - position)),
                        "padding at " + offset);
                }
                assertEquals(FrameReader.DATA, reader.read(framePosition, HEADER_LENGTH + length),
                    length + " bytes at " + offset);
            }
        }
    }

    @Test
    void heartbeatsAndAbortedClaimsAreReadAsWhatTheyAre()
    {
        appender.appendHeartbeat(LAP, WORD);
        assertEquals(FrameReader.HEARTBEAT, reader.read(LAP, HEADER_LENGTH));
        final long claimed = appender.claim(LAP + 64, HEADER_LENGTH + 40, UNFRAGMENTED, TYPE_DATA, WORD);
        appender.abort(claimed, HEADER_LENGTH + 40, WORD);
        assertEquals(FrameReader.PAD, reader.read(claimed, HEADER_LENGTH + 40));
    }

    @Test
    void fragmentsAreReadAsDataWhateverTheirFlags()
    {
        long position = LAP + CAPACITY - 200;
        for (final byte flags : new byte[] { BEGIN_FLAG, 0, END_FLAG })
        {
            final long framePosition = appender.appendData(position, flags, payload, 0, 100, 0, WORD);
            assertEquals(FrameReader.DATA, reader.read(framePosition, HEADER_LENGTH + 100));
            assertEquals(flags, ring.getByte(reader.offset(framePosition) + FLAGS_OFFSET));
            position = framePosition + alignedLength(HEADER_LENGTH + 100);
        }
    }

    @Test
    void aLengthShorterThanALengthWordIsABadLength()
    {
        putLengthWord(0, 4, TYPE_PAD);
        assertEquals(FrameReader.BAD_LENGTH, reader.read(LAP, 4));
        assertEquals(FrameReader.BAD_LENGTH, reader.read(LAP, 0));
        assertEquals(FrameReader.BAD_LENGTH, reader.read(LAP, -8));
    }

    @Test
    void aFramePastTheEndOfTheRingIsABadLength()
    {
        appender.appendData(LAP + CAPACITY - 64, UNFRAGMENTED, payload, 0, 40, 0, WORD);
        assertEquals(FrameReader.DATA, reader.read(LAP + CAPACITY - 64, HEADER_LENGTH + 40), "ends at the end");
        ring.putInt(CAPACITY - 64, HEADER_LENGTH + 41, ORDER);
        assertEquals(FrameReader.BAD_LENGTH, reader.read(LAP + CAPACITY - 64, HEADER_LENGTH + 41), "aligned past it");
        ring.putInt(CAPACITY - 64, Integer.MAX_VALUE, ORDER);
        assertEquals(FrameReader.BAD_LENGTH, reader.read(LAP + CAPACITY - 64, Integer.MAX_VALUE));
    }

    @Test
    void aLengthWordOtherThanTheImmediateIsABadLength()
    {
        appender.appendData(LAP, UNFRAGMENTED, payload, 0, 40, 0, WORD);
        assertEquals(FrameReader.BAD_LENGTH, reader.read(LAP, HEADER_LENGTH + 48));
        assertEquals(FrameReader.BAD_LENGTH, reader.read(LAP, HEADER_LENGTH + 39));
    }

    @Test
    void aDataFrameOrHeartbeatShorterThanAHeaderIsABadLength()
    {
        putLengthWord(0, 16, TYPE_DATA);
        assertEquals(FrameReader.BAD_LENGTH, reader.read(LAP, 16));
        putLengthWord(0, 16, TYPE_HEARTBEAT);
        assertEquals(FrameReader.BAD_LENGTH, reader.read(LAP, 16));
        putLengthWord(0, 16, TYPE_PAD);
        assertEquals(FrameReader.PAD, reader.read(LAP, 16), "a PAD frame needs its length word alone");
    }

    @Test
    void aFrameOfAnotherVersionIsABadVersion()
    {
        for (final short type : new short[] { TYPE_DATA, TYPE_PAD, TYPE_HEARTBEAT })
        {
            appender.commit(appender.claim(LAP, HEADER_LENGTH, UNFRAGMENTED, type, WORD), WORD);
            for (final byte version : new byte[] { 0, CURRENT_VERSION + 1, (byte)0xFF })
            {
                ring.putByte(VERSION_OFFSET, version);
                assertEquals(FrameReader.BAD_VERSION, reader.read(LAP, HEADER_LENGTH), "type " + type + " v" + version);
            }
        }
    }

    @Test
    void aFrameOfAnUnknownTypeIsABadType()
    {
        for (final short type : new short[] { 0, 4, 0x7FFF, -1 })
        {
            appender.commit(appender.claim(LAP, HEADER_LENGTH, UNFRAGMENTED, type, WORD), WORD);
            assertEquals(FrameReader.BAD_TYPE, reader.read(LAP, HEADER_LENGTH), "type " + type);
        }
    }

    @Test
    void aFrameOfAnotherSessionOrStreamIsABadSession()
    {
        appender.appendData(LAP, UNFRAGMENTED, payload, 0, 8, 0, sessionStreamWord(-78, 5));
        assertEquals(FrameReader.BAD_SESSION, reader.read(LAP, HEADER_LENGTH + 8), "another session");
        appender.appendHeartbeat(LAP, sessionStreamWord(-77, 6));
        assertEquals(FrameReader.BAD_SESSION, reader.read(LAP, HEADER_LENGTH), "another stream");
    }

    @Test
    void aFrameThatSaysItStartsElsewhereIsABadPosition()
    {
        appender.appendData(LAP + 64, UNFRAGMENTED, payload, 0, 8, 0, WORD);
        assertEquals(FrameReader.BAD_POSITION, reader.read(LAP + 64 + CAPACITY, HEADER_LENGTH + 8),
            "the same ring offset a lap later");
        ring.putLong(64 + POSITION_OFFSET, LAP + 72, ORDER);
        assertEquals(FrameReader.BAD_POSITION, reader.read(LAP + 64, HEADER_LENGTH + 8));
    }

    @Test
    void paddingIsNotCheckedForSessionOrPosition()
    {
        appender.claim(LAP, HEADER_LENGTH + 8, UNFRAGMENTED, TYPE_PAD, sessionStreamWord(1, 2));
        ring.putLong(POSITION_OFFSET, 12345, ORDER);
        assertEquals(FrameReader.PAD, reader.read(LAP, HEADER_LENGTH + 8));
    }

    private void putLengthWord(final int offset, final int frameLength, final short type)
    {
        ring.putLong(offset, lengthWord(frameLength, CURRENT_VERSION, UNFRAGMENTED, type), ORDER);
    }
}
