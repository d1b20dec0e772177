package io.ringwire.exchange.journal;

import java.nio.file.Path;

/**
 * A record of a journal that cannot be trusted, and where it is.
 *
 * <p>A bad record with nothing valid after it is a {@link Kind#TORN_TAIL}: the last append did not
 * finish (the process died between its first byte and its length) or the last record was damaged
 * after it was written. It was never applied (the engine applies a message only once its append
 * returned), or it is the one message the damage took; either way it is not delivered and the
 * writer, reopening, zeroes it and appends after the last good record.
 *
 * <p>A bad record with valid records after it is {@link Kind#CORRUPT}: those records were accepted
 * after it, so it was complete once and something damaged it. Skipping it would skip an accepted
 * message, so reading stops there and the writer refuses to open.
 *
 * @param kind     torn tail or corruption.
 * @param file     the segment file holding it.
 * @param offset   where in the file the bad record starts.
 * @param sequence the sequence the bad record would have.
 * @param problem  what is wrong with it, in words.
 */
public record JournalDamage(Kind kind, Path file, long offset, long sequence, String problem)
{
    /** What a bad record means for the records around it. */
    public enum Kind
    {
        /** The last record is bad and nothing valid follows it: not delivered, and discarded on reopen. */
        TORN_TAIL,
        /** A bad record has valid records after it: accepted messages are damaged; reading stops. */
        CORRUPT
    }

    /**
     * @return a sentence for the operator: what was found, where, and what it means.
     */
    public String message()
    {
        final String where = " at offset " + offset + " of " + file + " (sequence " + sequence + "): " + problem;
        if (Kind.TORN_TAIL == kind)
        {
            return "torn last record" + where + "; nothing valid follows it, so it is an append that did not " +
                "finish or a damaged last record: it is not delivered";
        }
        return "corrupt record" + where + "; valid records follow it, so accepted messages are damaged: " +
            "reading stops here; restore the journal from a replica or backup";
    }

    @Override
    public String toString()
    {
        return message();
    }
}
