package io.ringwire.exchange.journal;

import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * The bytes of a journal's segment files. A segment is a file of a fixed length (the journal's
 * {@code segment.length}) holding records one after another from offset 0, each at a multiple of
 * {@link #ALIGNMENT}:
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |          record length (header + payload, unaligned)          |  0
 *  +---------------------------------------------------------------+
 *  |                     CRC32C of the payload                     |  4
 *  +---------------------------------------------------------------+
 *  |                      payload ...                              |  8
 *  +---------------------------------------------------------------+
 *  |   padding: zeros up to the next multiple of 8, where the next |
 *  |   record starts (a length of 0 there: no more records)        |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * Both header fields are little-endian. A record length of 0 means "no record here": the rest of
 * the segment is zeros, because the writer rolls to a new segment when a record does not fit, and
 * a record never spans two segments. The length counts the header, so an empty payload still
 * makes a non-zero length. The writer stores the payload and checksum first and the length last,
 * with release semantics, so a record exists only once it is complete.
 *
 * <p>Constants and pure functions only: usable from any thread.
 */
final class JournalFormat
{
    /** Version of this layout, in {@code journal.properties}. */
    static final int FORMAT_VERSION = 1;
    /** Byte order of both header fields. */
    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    /** Records start at multiples of this. */
    static final int ALIGNMENT = 8;
    /** Offset of the record length. */
    static final int LENGTH_OFFSET = 0;
    /** Offset of the CRC32C of the payload. */
    static final int CHECKSUM_OFFSET = 4;
    /** Bytes of header before the payload. */
    static final int HEADER_LENGTH = 8;

    /** Smallest segment length: one page. */
    static final int MIN_SEGMENT_LENGTH = 4096;
    /** Largest segment length: a mapping an int can index, with room to spare. */
    static final int MAX_SEGMENT_LENGTH = 1 << 30;

    private static final boolean NATIVE_IS_ORDER = ByteOrder.nativeOrder() == ORDER;

    private JournalFormat()
    {
    }

    /**
     * @param recordLength header plus payload.
     * @return the bytes the record takes in its segment, padding included.
     */
    static int alignedLength(final int recordLength)
    {
        return BitUtil.align(recordLength, ALIGNMENT);
    }

    /**
     * @param segmentLength the journal's segment length.
     * @return the largest payload one record can carry: a record never spans two segments.
     */
    static int maxPayloadLength(final int segmentLength)
    {
        return segmentLength - HEADER_LENGTH;
    }

    /**
     * Stores a record's length with release semantics, which make the record exist: everything
     * stored before it (payload, checksum) is visible to whoever sees the length.
     *
     * @param segment      the mapped segment.
     * @param recordOffset where the record starts.
     * @param recordLength header plus payload.
     */
    static void putLengthRelease(final UnsafeBuffer segment, final int recordOffset, final int recordLength)
    {
        // Release stores take no byte order, so the value is swapped on a big-endian host.
        segment.putIntRelease(recordOffset + LENGTH_OFFSET,
            NATIVE_IS_ORDER ? recordLength : Integer.reverseBytes(recordLength));
    }

    /**
     * @param segment      the mapped segment.
     * @param recordOffset where the record starts.
     * @return the record's length, read with acquire semantics (0: no record there).
     */
    static int lengthAcquire(final UnsafeBuffer segment, final int recordOffset)
    {
        final int stored = segment.getIntAcquire(recordOffset + LENGTH_OFFSET);
        return NATIVE_IS_ORDER ? stored : Integer.reverseBytes(stored);
    }
}
