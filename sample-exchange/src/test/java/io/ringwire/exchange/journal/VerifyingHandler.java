package io.ringwire.exchange.journal;

import org.agrona.DirectBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Checks each record a reader delivers against {@link TestRecords}: the sequences follow one
 * another from the first expected, and every payload is byte-exact. Also remembers where each
 * delivered payload lay, so tests can damage a chosen record.
 */
final class VerifyingHandler implements JournalRecordHandler
{
    private final TestRecords records;
    private final long firstSequence;
    private long nextSequence;
    private String firstProblem;
    private int lastPayloadOffset = -1;

    VerifyingHandler(final TestRecords records, final long firstSequence)
    {
        this.records = records;
        this.firstSequence = firstSequence;
        this.nextSequence = firstSequence;
    }

    @Override
    public void onRecord(final long sequence, final DirectBuffer buffer, final int offset, final int length)
    {
        if (null == firstProblem)
        {
            firstProblem = sequence != nextSequence ?
                "delivered sequence " + sequence + " where " + nextSequence + " was due" :
                records.mismatch(sequence, buffer, offset, length);
        }
        nextSequence = sequence + 1;
        lastPayloadOffset = offset;
    }

    /**
     * @return the payload offset of the last record delivered (in its segment file), or -1.
     */
    int lastPayloadOffset()
    {
        return lastPayloadOffset;
    }

    /**
     * Asserts that exactly {@code count} records came, in order and byte-exact.
     *
     * @param count records expected from the first sequence.
     */
    void assertDelivered(final long count)
    {
        assertNull(firstProblem, "a delivered record is wrong");
        assertEquals(firstSequence + count, nextSequence, "records delivered from sequence " + firstSequence);
    }
}
