package io.ringwire.messaging.protocol;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

import static io.ringwire.messaging.protocol.FrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A checksummed data frame: the appender lays it out with its trailer, the checksum signs it, and a
 * reader accepts it as data only while every byte of header and payload is as signed.
 */
class FrameChecksumTest
{
    private static final int CAPACITY = 4096;
    private static final long WORD = sessionStreamWord(5, 9);
    private static final long LAP = 2L * CAPACITY;

    private final UnsafeBuffer ring = new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY));
    private final FrameAppender appender = new FrameAppender(ring);
    private final FrameChecksum checksum = new FrameChecksum(ring);
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[512]);

    private long appendSigned(final long position, final int length)
    {
        final long framePosition = appender.appendData(position, (byte)(UNFRAGMENTED | CHECKSUM_FLAG), payload, 0, length,
            CHECKSUM_LENGTH, WORD);
        checksum.sign(appender.offset(framePosition), HEADER_LENGTH + length + CHECKSUM_LENGTH);
        return framePosition;
    }

    @Test
    void aSignedFrameVerifiesAndIsReadAsDataByAReaderThatRequiresChecksums()
    {
        new SplittableRandom(7).nextBytes(payload.byteArray());
        final FrameReader reader = new FrameReader(ring, WORD, true);
        for (final int length : new int[] { 0, 1, 36, 100, 511 })
        {
            final long position = appendSigned(LAP + 512, length);
            final int frameLength = HEADER_LENGTH + length + CHECKSUM_LENGTH;
            assertTrue(checksum.verify(appender.offset(position), frameLength), length + " bytes");
            assertEquals(FrameReader.DATA, reader.read(position, frameLength), length + " bytes");
        }
    }

    @Test
    void everySingleBitFlipInHeaderPayloadOrTrailerIsRefused()
    {
        new SplittableRandom(11).nextBytes(payload.byteArray());
        final int length = 100;
        final int frameLength = HEADER_LENGTH + length + CHECKSUM_LENGTH;
        final FrameReader reader = new FrameReader(ring, WORD, true);
        final long position = appendSigned(LAP, length);
        final int offset = appender.offset(position);
        for (int at = 0; at < frameLength; at++)
        {
            for (int bit = 0; bit < 8; bit++)
            {
                ring.putByte(offset + at, (byte)(ring.getByte(offset + at) ^ (1 << bit)));
                assertFalse(checksum.verify(offset, frameLength), "byte " + at + " bit " + bit);
                assertTrue(reader.read(position, frameLength) < 0, "byte " + at + " bit " + bit);
                ring.putByte(offset + at, (byte)(ring.getByte(offset + at) ^ (1 << bit)));
            }
        }
        assertEquals(FrameReader.DATA, reader.read(position, frameLength), "restored");
    }

    @Test
    void theCorruptionAnIcrcSolverMissesIsRefused()
    {
        // XOR 0x0f at UDP offset 101: 8 bytes of UDP, 12 of BTH and 16 of RETH precede the frame.
        final int length = 200;
        final int frameLength = HEADER_LENGTH + length + CHECKSUM_LENGTH;
        final long position = appendSigned(LAP, length);
        final int at = appender.offset(position) + 101 - 8 - 12 - 16;
        ring.putByte(at, (byte)(ring.getByte(at) ^ 0x0F));
        assertEquals(FrameReader.BAD_CHECKSUM, new FrameReader(ring, WORD, true).read(position, frameLength));
    }

    @Test
    void aDataFrameWithoutAChecksumIsRefusedOnlyWhereChecksumsAreRequired()
    {
        final long position = appender.appendData(LAP, UNFRAGMENTED, payload, 0, 50, 0, WORD);
        assertEquals(FrameReader.BAD_CHECKSUM, new FrameReader(ring, WORD, true).read(position, HEADER_LENGTH + 50));
        assertEquals(FrameReader.DATA, new FrameReader(ring, WORD, false).read(position, HEADER_LENGTH + 50));
    }

    @Test
    void aChecksumFlagOnAFrameTooShortForItsTrailerIsABadLength()
    {
        final long position = appender.claim(LAP, HEADER_LENGTH, (byte)(UNFRAGMENTED | CHECKSUM_FLAG), TYPE_DATA, WORD);
        assertEquals(FrameReader.BAD_LENGTH, new FrameReader(ring, WORD, false).read(position, HEADER_LENGTH));
    }

    @Test
    void aRingOnTheHeapIsRefusedForChecksums()
    {
        assertThrows(IllegalArgumentException.class, () -> new FrameChecksum(new UnsafeBuffer(new byte[CAPACITY])));
    }
}
