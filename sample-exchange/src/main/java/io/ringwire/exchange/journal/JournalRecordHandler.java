package io.ringwire.exchange.journal;

import org.agrona.DirectBuffer;

/**
 * Takes the records a {@link JournalReader} delivers, in sequence order.
 */
@FunctionalInterface
public interface JournalRecordHandler
{
    /**
     * One record, whose checksum matched.
     *
     * @param sequence the record's sequence.
     * @param buffer   the mapped segment holding it: valid only during this call (the segment is
     *                 unmapped once read), and read-only.
     * @param offset   where the payload starts in {@code buffer}, which is also its offset in the
     *                 segment file.
     * @param length   the payload's bytes.
     */
    void onRecord(long sequence, DirectBuffer buffer, int offset, int length);
}
