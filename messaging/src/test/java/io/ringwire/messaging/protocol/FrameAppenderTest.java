package io.ringwire.messaging.protocol;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * How the appender lays frames into a ring: in place when they fit before its end, after a PAD
 * frame filling the rest of the ring when they do not, headers byte-exact, over a plain buffer.
 */
class FrameAppenderTest
{
    private static final int CAPACITY = 1024;
    private static final int SESSION_ID = 0x5E55_1011;
    private static final int STREAM_ID = 42;
    private static final long WORD = sessionStreamWord(SESSION_ID, STREAM_ID);
    /** A position several laps into the stream, at ring offset 0. */
    private static final long LAP = 7L * CAPACITY;
    /** Frame lengths: a header alone, unaligned ones either side of a boundary, and the largest. */
    private static final int[] FRAME_LENGTHS =
        { HEADER_LENGTH, HEADER_LENGTH + 1, HEADER_LENGTH + 7, HEADER_LENGTH + 8, HEADER_LENGTH + 100,
            HEADER_LENGTH + maxPayloadLength(CAPACITY) };
    private static final byte UNWRITTEN = (byte)0xEE;

    private final byte[] ring = new byte[CAPACITY];
    private final UnsafeBuffer buffer = new UnsafeBuffer(ring);
    private final FrameAppender appender = new FrameAppender(buffer);
    private final UnsafeBuffer source = new UnsafeBuffer(new byte[CAPACITY]);

    FrameAppenderTest()
    {
        Arrays.fill(ring, UNWRITTEN);
        for (int i = 0; i < source.capacity(); i++)
        {
            source.putByte(i, (byte)(i * 31 + 7));
        }
    }

    @Test
    void frameThatFitsBeforeTheEndStartsAtThePositionWithNoPadding()
    {
        for (final int frameLength : FRAME_LENGTHS)
        {
            for (int offset = 0; offset + alignedLength(frameLength) <= CAPACITY; offset += ALIGNMENT)
            {
                Arrays.fill(ring, UNWRITTEN);
                final long position = LAP + offset;
                assertEquals(0, appender.padding(position, frameLength));
                final long framePosition = appender.appendData(position, UNFRAGMENTED, source, 3,
                    frameLength - HEADER_LENGTH, 0, WORD);
                assertEquals(position, framePosition, "frame of " + frameLength + " at " + offset);
                assertHeader(offset, frameLength, UNFRAGMENTED, TYPE_DATA, position);
                assertPayload(offset, 3, frameLength - HEADER_LENGTH);
                assertUnwrittenBefore(offset);
            }
        }
    }

    @Test
    void frameThatDoesNotFitBeforeTheEndIsPrecededByPaddingFillingTheRing()
    {
        for (final int frameLength : FRAME_LENGTHS)
        {
            for (int offset = CAPACITY - alignedLength(frameLength) + ALIGNMENT; offset < CAPACITY; offset += ALIGNMENT)
            {
                Arrays.fill(ring, UNWRITTEN);
                final long position = LAP + offset;
                final int padding = CAPACITY - offset;
                assertEquals(padding, appender.padding(position, frameLength));
                final long framePosition = appender.appendData(position, UNFRAGMENTED, source, 0,
                    frameLength - HEADER_LENGTH, 0, WORD);
                assertEquals(LAP + CAPACITY, framePosition, "frame of " + frameLength + " at " + offset);
                assertEquals(lengthWord(padding, CURRENT_VERSION, UNFRAGMENTED, TYPE_PAD),
                    buffer.getLong(offset + FRAME_LENGTH_OFFSET, ORDER));
                if (padding >= HEADER_LENGTH)
                {
                    assertEquals(WORD, buffer.getLong(offset + SESSION_ID_OFFSET, ORDER));
                    assertEquals(position, buffer.getLong(offset + POSITION_OFFSET, ORDER));
                }
                assertHeader(0, frameLength, UNFRAGMENTED, TYPE_DATA, framePosition);
                assertPayload(0, 0, frameLength - HEADER_LENGTH);
            }
        }
    }

    @Test
    void frameEndingExactlyAtTheEndOfTheRingNeedsNoPadding()
    {
        final int frameLength = HEADER_LENGTH + 40;
        final int offset = CAPACITY - frameLength;
        assertEquals(0, appender.padding(LAP + offset, frameLength));
        assertEquals(LAP + offset, appender.appendData(LAP + offset, UNFRAGMENTED, source, 0, 40, 0, WORD));
        assertHeader(offset, frameLength, UNFRAGMENTED, TYPE_DATA, LAP + offset);
        assertPayload(offset, 0, 40);
        assertUnwrittenBefore(offset);
    }

    @Test
    void paddingShorterThanAHeaderCarriesItsLengthWordAlone()
    {
        for (final int padding : new int[] { 8, 16 })
        {
            Arrays.fill(ring, UNWRITTEN);
            final long position = LAP + CAPACITY - padding;
            assertEquals(LAP + CAPACITY, appender.appendHeartbeat(position, WORD));
            assertEquals(lengthWord(padding, CURRENT_VERSION, UNFRAGMENTED, TYPE_PAD),
                buffer.getLong(CAPACITY - padding, ORDER));
            for (int i = CAPACITY - padding + 8; i < CAPACITY; i++)
            {
                assertEquals(UNWRITTEN, buffer.getByte(i), "byte " + i + " of a " + padding + "-byte pad frame");
            }
            assertHeader(0, HEADER_LENGTH, UNFRAGMENTED, TYPE_HEARTBEAT, LAP + CAPACITY);
        }
    }

    @Test
    void heartbeatIsAHeaderAloneOfItsOwnType()
    {
        final long position = LAP + 512;
        assertEquals(position, appender.appendHeartbeat(position, WORD));
        assertHeader(512, HEADER_LENGTH, UNFRAGMENTED, TYPE_HEARTBEAT, position);
        assertEquals(512 + HEADER_LENGTH - 1, lastWrittenIndex());
    }

    @Test
    void fragmentsCarryTheirFlagsAndFollowOneAnotherAcrossTheEndOfTheRing()
    {
        final int fragment = maxPayloadLength(CAPACITY);
        final int frameLength = HEADER_LENGTH + fragment;
        final byte[] flags = { BEGIN_FLAG, 0, 0, END_FLAG };
        long position = LAP + CAPACITY - 2 * alignedLength(frameLength) - 64; // the third fragment wraps
        final long[] framePositions = new long[flags.length];
        for (int i = 0; i < flags.length; i++)
        {
            framePositions[i] = appender.appendData(position, flags[i], source, i * fragment, fragment, 0, WORD);
            position = framePositions[i] + alignedLength(frameLength);
        }
        assertEquals(LAP + CAPACITY - 2 * alignedLength(frameLength) - 64, framePositions[0]);
        assertEquals(framePositions[0] + alignedLength(frameLength), framePositions[1]);
        assertEquals(LAP + CAPACITY, framePositions[2], "the third fragment starts the next lap, after 64 bytes of PAD");
        assertEquals(framePositions[2] + alignedLength(frameLength), framePositions[3]);
        assertEquals(lengthWord(64, CURRENT_VERSION, UNFRAGMENTED, TYPE_PAD), buffer.getLong(CAPACITY - 64, ORDER));
        for (int i = 0; i < flags.length; i++)
        {
            final int offset = appender.offset(framePositions[i]);
            assertHeader(offset, frameLength, flags[i], TYPE_DATA, framePositions[i]);
            assertPayload(offset, i * fragment, fragment);
        }
    }

    @Test
    void claimWritesTheHeaderButItsPositionWordAndLeavesThePayloadToTheCallerUntilCommit()
    {
        final long position = LAP + 200;
        assertEquals(position, appender.claim(position, HEADER_LENGTH + 50, UNFRAGMENTED, TYPE_DATA, WORD));
        for (int i = 200 + POSITION_OFFSET; i < 200 + HEADER_LENGTH + 50; i++)
        {
            assertEquals(UNWRITTEN, buffer.getByte(i), "byte " + i + " before the commit");
        }
        appender.commit(position, WORD);
        assertHeader(200, HEADER_LENGTH + 50, UNFRAGMENTED, TYPE_DATA, position);
        for (int i = 200 + HEADER_LENGTH; i < 200 + HEADER_LENGTH + 50; i++)
        {
            assertEquals(UNWRITTEN, buffer.getByte(i));
        }
    }

    @Test
    void abortTurnsAClaimIntoPaddingOfTheSameLength()
    {
        final long position = LAP + CAPACITY - 16; // the claim needs padding first: the aborted frame is at 0
        final long framePosition = appender.claim(position, HEADER_LENGTH + 50, UNFRAGMENTED, TYPE_DATA, WORD);
        source.getBytes(0, ring, HEADER_LENGTH, 50);
        appender.abort(framePosition, HEADER_LENGTH + 50, WORD);
        appender.commit(framePosition, WORD);
        assertHeader(0, HEADER_LENGTH + 50, UNFRAGMENTED, TYPE_PAD, framePosition);
        assertPayload(0, 0, 50);
        assertEquals(lengthWord(16, CURRENT_VERSION, UNFRAGMENTED, TYPE_PAD), buffer.getLong(CAPACITY - 16, ORDER));
    }

    @Test
    void everyFrameIsWrittenWithTheCurrentVersion()
    {
        appender.appendData(LAP + CAPACITY - 8, BEGIN_FLAG, source, 0, 10, 0, WORD);
        assertEquals(CURRENT_VERSION, buffer.getByte(CAPACITY - 8 + VERSION_OFFSET), "pad frame");
        assertEquals(CURRENT_VERSION, buffer.getByte(VERSION_OFFSET), "data frame");
    }

    @Test
    void ringsThatAreNotAPowerOfTwoOfAtLeastEightFramesAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new FrameAppender(new UnsafeBuffer(new byte[1000])));
        assertThrows(IllegalArgumentException.class, () -> new FrameAppender(new UnsafeBuffer(new byte[128])));
        assertEquals(256, new FrameAppender(new UnsafeBuffer(new byte[256])).capacity());
    }

    private void assertHeader(final int offset, final int frameLength, final byte flags, final short type,
        final long position)
    {
        assertEquals(frameLength, buffer.getInt(offset + FRAME_LENGTH_OFFSET, ORDER), "frame length at " + offset);
        assertEquals(CURRENT_VERSION, buffer.getByte(offset + VERSION_OFFSET), "version at " + offset);
        assertEquals(flags, buffer.getByte(offset + FLAGS_OFFSET), "flags at " + offset);
        assertEquals(type, buffer.getShort(offset + TYPE_OFFSET, ORDER), "type at " + offset);
        assertEquals(SESSION_ID, buffer.getInt(offset + SESSION_ID_OFFSET, ORDER), "session at " + offset);
        assertEquals(STREAM_ID, buffer.getInt(offset + STREAM_ID_OFFSET, ORDER), "stream at " + offset);
        assertEquals(position, buffer.getLong(offset + POSITION_OFFSET, ORDER), "position at " + offset);
    }

    private void assertPayload(final int frameOffset, final int sourceOffset, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            assertEquals(source.getByte(sourceOffset + i), buffer.getByte(frameOffset + HEADER_LENGTH + i),
                "payload byte " + i + " of the frame at " + frameOffset);
        }
    }

    private void assertUnwrittenBefore(final int offset)
    {
        for (int i = 0; i < offset; i++)
        {
            assertEquals(UNWRITTEN, buffer.getByte(i), "byte " + i + " before a frame at " + offset);
        }
    }

    private int lastWrittenIndex()
    {
        int last = -1;
        for (int i = 0; i < CAPACITY; i++)
        {
            last = ring[i] != UNWRITTEN ? i : last;
        }
        return last;
    }
}
