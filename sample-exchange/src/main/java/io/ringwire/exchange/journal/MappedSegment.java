package io.ringwire.exchange.journal;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import static io.ringwire.exchange.journal.JournalFormat.ALIGNMENT;
import static io.ringwire.exchange.journal.JournalFormat.CHECKSUM_OFFSET;
import static io.ringwire.exchange.journal.JournalFormat.HEADER_LENGTH;
import static io.ringwire.exchange.journal.JournalFormat.ORDER;

/**
 * One mapped segment file as the writer and the reader see it: its bytes, the CRC32C of a range of
 * them, the check of the record at an offset, and, where the records stop, whether what follows is
 * a clean end, a torn tail or corruption (see {@link JournalDamage}).
 *
 * <p>The checksum runs on the mapped memory itself, through a direct {@link ByteBuffer} view that
 * the JDK's intrinsic CRC32C takes without copying; the view is made once per segment and
 * repositioned per record, so checksums allocate nothing.
 *
 * <p>Threading: one thread per instance. {@link #checksum} and {@link #check} allocate nothing;
 * {@link #wrap} and {@link #damageAt} do.
 */
final class MappedSegment
{
    /** {@link #check}: no record starts here (a length of 0, or no room left for a header). */
    static final int END = 0;
    /**
     * {@link #check}: the length is below the header's, reaches past the segment's end, or carries
     * a payload longer than the journal's largest.
     */
    static final int IMPLAUSIBLE_LENGTH = -1;
    /** {@link #check}: the length reaches past the end of the file (the file was cut short). */
    static final int PAST_END_OF_FILE = -2;
    /** {@link #check}: the stored CRC32C is not the payload's. */
    static final int CHECKSUM_MISMATCH = -3;

    /** A page, and the largest torn payload whose end {@link #tornPayloadEnd} looks for. */
    private static final int PAGE = 4096;
    private static final int MAX_TORN_PAYLOAD = 1 << 20;

    private final CRC32C crc = new CRC32C();
    private final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
    private final int segmentLength;
    private final int maxPayloadLength;
    private ByteBuffer checksumView;
    private int fileLength;

    /**
     * @param metadata the journal's segment length and largest payload.
     */
    MappedSegment(final JournalDirectory.Metadata metadata)
    {
        this.segmentLength = metadata.segmentLength();
        this.maxPayloadLength = metadata.maxPayloadLength();
    }

    /**
     * Points this view at a mapping.
     *
     * @param mapping    the file's mapping, from offset 0.
     * @param fileLength bytes of the file that hold data (the file may be shorter than the mapping
     *                   when it was cut short and the writer mapped it back to full length).
     */
    void wrap(final MappedByteBuffer mapping, final int fileLength)
    {
        buffer.wrap(mapping);
        checksumView = mapping.duplicate();
        this.fileLength = fileLength;
    }

    /** Forgets the mapping, so that nothing reaches it once it is unmapped. */
    void unwrap()
    {
        buffer.wrap(0, 0);
        checksumView = null;
        fileLength = 0;
    }

    /**
     * @param fileLength bytes of the file that hold data, now.
     */
    void fileLength(final int fileLength)
    {
        this.fileLength = fileLength;
    }

    /**
     * @return the segment's bytes.
     */
    UnsafeBuffer buffer()
    {
        return buffer;
    }

    /**
     * @param offset where the range starts.
     * @param length its bytes.
     * @return the CRC32C of the range, as stored in a record header.
     */
    int checksum(final int offset, final int length)
    {
        crc.reset();
        checksumView.limit(offset + length).position(offset);
        crc.update(checksumView);
        return (int)crc.getValue();
    }

    /**
     * Checks the record that starts at {@code offset}. Allocation-free.
     *
     * @param offset a multiple of {@link JournalFormat#ALIGNMENT}.
     * @return the record's length (header plus payload) when it is whole and its checksum matches;
     *         otherwise {@link #END}, {@link #IMPLAUSIBLE_LENGTH}, {@link #PAST_END_OF_FILE} or
     *         {@link #CHECKSUM_MISMATCH}.
     */
    int check(final int offset)
    {
        if (offset > fileLength - HEADER_LENGTH)
        {
            return END;
        }
        final int length = JournalFormat.lengthAcquire(buffer, offset);
        if (0 == length)
        {
            return END;
        }
        // No append wrote a payload past the journal's largest: such a length is no record's, and
        // a search for records past a bad one (any aligned offset of a segment of garbage) computes
        // no checksum over it.
        if (length < HEADER_LENGTH || length > segmentLength - offset || length - HEADER_LENGTH > maxPayloadLength)
        {
            return IMPLAUSIBLE_LENGTH;
        }
        if (length > fileLength - offset)
        {
            return PAST_END_OF_FILE;
        }
        final int stored = buffer.getInt(offset + CHECKSUM_OFFSET, ORDER);
        return stored == checksum(offset + HEADER_LENGTH, length - HEADER_LENGTH) ? length : CHECKSUM_MISMATCH;
    }

    /**
     * Decides what the place where the records stopped means, once {@link #check} returned
     * {@code outcome} there: a clean end (zeros from there to the end of the file), a torn tail (a
     * bad record in the last segment with no valid record after it), or corruption.
     *
     * @param file        the segment file, for the report.
     * @param offset      where the records stopped.
     * @param sequence    the sequence a record there would have.
     * @param outcome     what {@link #check} returned there.
     * @param lastSegment whether no segment follows this one.
     * @return null for a clean end, else the damage.
     */
    JournalDamage damageAt(final Path file, final int offset, final long sequence, final int outcome,
        final boolean lastSegment)
    {
        final String problem;
        if (END == outcome)
        {
            final int nonZero = firstNonZeroByte(offset);
            if (nonZero < 0)
            {
                return null;
            }
            problem = "no record length, yet byte " + nonZero + " of the file is not zero (an append that " +
                "wrote its payload but not its length, or damage)";
        }
        else
        {
            problem = describe(offset, outcome);
        }
        if (lastSegment && !validRecordAfter(offset))
        {
            return new JournalDamage(JournalDamage.Kind.TORN_TAIL, file, offset, sequence, problem);
        }
        return new JournalDamage(JournalDamage.Kind.CORRUPT, file, offset, sequence,
            lastSegment ? problem : problem + "; a later segment follows this one");
    }

    /**
     * @param from where to start looking.
     * @return the offset of the first byte after {@code from} that is not zero, or -1.
     */
    int firstNonZeroByte(final int from)
    {
        int offset = from;
        while (offset <= fileLength - Long.BYTES && 0 == buffer.getLong(offset))
        {
            offset += Long.BYTES;
        }
        for (; offset < fileLength; offset++)
        {
            if (0 != buffer.getByte(offset))
            {
                return offset;
            }
        }
        return -1;
    }

    /**
     * @param from where to start looking.
     * @return one past the last byte from {@code from} on that is not zero, or {@code from} when all are.
     */
    int endOfNonZeroBytes(final int from)
    {
        int end = fileLength;
        while (end - Long.BYTES >= from && 0 == buffer.getLong(end - Long.BYTES))
        {
            end -= Long.BYTES;
        }
        while (end > from && 0 == buffer.getByte(end - 1))
        {
            end--;
        }
        return end;
    }

    /**
     * Looks for a valid record at any aligned offset after a bad one, past where the bad record's
     * payload may reach if a crash tore it ({@link #tornPayloadEnd}). The bad record's own length is
     * not trusted to say where the next one starts, so every aligned offset is tried.
     */
    private boolean validRecordAfter(final int badOffset)
    {
        final int from = Math.max(badOffset + ALIGNMENT, tornPayloadEnd(badOffset));
        for (int offset = from; offset <= fileLength - HEADER_LENGTH; offset += ALIGNMENT)
        {
            // An empty record is eight bytes, a length of 8 and the checksum of nothing (0): a
            // pattern any payload may hold (a torn record's among them), so it is no evidence that
            // records were appended after the bad one. A record with a payload and its CRC32C is.
            if (check(offset) > HEADER_LENGTH)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * How far the payload of the bad record at {@code badOffset} reaches, aligned, if an append that
     * died tore it. Bytes before that are the torn payload's, which a client may have shaped like
     * records (the order ids of its request): no evidence of appends after it. An append copies the
     * payload, then stores its CRC32C, then the length (last, with release), so:
     * <ul>
     *   <li>a checksum is stored (not 0): the payload is whole, and its length n is one whose first n
     *       bytes give that checksum; the longest such n up to the journal's largest payload (at most
     *       {@value #MAX_TORN_PAYLOAD} bytes, and a page past the last byte that is not zero) bounds
     *       it, the longest because a client can shape its payload so that a prefix gives the same
     *       checksum; where no n does, the checksum is no append's and nothing is bounded;</li>
     *   <li>no checksum is stored (0, as is an empty payload's): the append may have died while it
     *       copied, so the journal's largest payload bounds it where the journal declares one of at
     *       most {@value #MAX_TORN_PAYLOAD} bytes ({@link JournalContext#MAX_PAYLOAD_LENGTH_PROP});
     *       else nothing is bounded, and any record after the header is evidence.</li>
     * </ul>
     *
     * @return the aligned end, or {@code badOffset} when nothing bounds it.
     */
    private int tornPayloadEnd(final int badOffset)
    {
        if (badOffset > fileLength - HEADER_LENGTH)
        {
            return badOffset; // no whole header in the file: nothing past it to read
        }
        final int stored = buffer.getInt(badOffset + CHECKSUM_OFFSET, ORDER);
        final int payloadStart = badOffset + HEADER_LENGTH;
        if (0 == stored)
        {
            return maxPayloadLength <= MAX_TORN_PAYLOAD ?
                badOffset + JournalFormat.alignedLength(HEADER_LENGTH + maxPayloadLength) : badOffset;
        }
        final int last = Math.min(fileLength, Math.min(endOfNonZeroBytes(payloadStart) + PAGE,
            payloadStart + Math.min(maxPayloadLength, MAX_TORN_PAYLOAD)));
        int end = badOffset;
        crc.reset();
        for (int at = payloadStart; ; at++)
        {
            if ((int)crc.getValue() == stored)
            {
                end = badOffset + JournalFormat.alignedLength(at - badOffset);
            }
            if (at >= last)
            {
                return end;
            }
            crc.update(buffer.getByte(at));
        }
    }

    private String describe(final int offset, final int outcome)
    {
        final int length = JournalFormat.lengthAcquire(buffer, offset);
        return switch (outcome)
        {
            case IMPLAUSIBLE_LENGTH -> "record length " + length + " is impossible (at least " + HEADER_LENGTH +
                ", at most " + Math.min(segmentLength - offset, HEADER_LENGTH + maxPayloadLength) +
                ": the journal's largest payload with its header, or what is left of the segment)";
            case PAST_END_OF_FILE -> "record length " + length + " reaches past the end of the file, which has " +
                fileLength + " bytes (cut short)";
            case CHECKSUM_MISMATCH -> String.format("CRC32C mismatch over its %d-byte payload: stored 0x%08x, " +
                "computed 0x%08x", length - HEADER_LENGTH, buffer.getInt(offset + CHECKSUM_OFFSET, ORDER),
                checksum(offset + HEADER_LENGTH, length - HEADER_LENGTH));
            default -> throw new IllegalArgumentException("not a bad record: " + outcome);
        };
    }
}
