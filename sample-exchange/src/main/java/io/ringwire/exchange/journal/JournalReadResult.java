package io.ringwire.exchange.journal;

/**
 * What one {@link JournalReader#read} found. Records are delivered without gaps, so the delivered
 * ones are sequences {@code fromSequence} to {@code fromSequence + recordsDelivered - 1}.
 *
 * @param fromSequence     the first sequence asked for.
 * @param recordsDelivered records handed to the handler.
 * @param nextSequence     the sequence after the last valid record reached: with no damage or a
 *                         torn tail, how many records the journal holds; with corruption, the
 *                         sequence of the corrupt record.
 * @param damage           the torn tail or corruption where reading ended, or null when the journal
 *                         ended cleanly.
 */
public record JournalReadResult(long fromSequence, long recordsDelivered, long nextSequence, JournalDamage damage)
{
    /**
     * @return the sequence of the last record delivered, or -1 when none was.
     */
    public long lastSequenceDelivered()
    {
        return 0 == recordsDelivered ? -1 : fromSequence + recordsDelivered - 1;
    }

    /**
     * @return true when reading reached the end of the journal and found nothing damaged.
     */
    public boolean clean()
    {
        return null == damage;
    }

    /**
     * @return true when the last record was torn (reported, not delivered); every record before it was.
     */
    public boolean tornTail()
    {
        return null != damage && JournalDamage.Kind.TORN_TAIL == damage.kind();
    }

    /**
     * @return true when reading stopped at a damaged record that valid records follow.
     */
    public boolean corrupt()
    {
        return null != damage && JournalDamage.Kind.CORRUPT == damage.kind();
    }

    @Override
    public String toString()
    {
        return "read from sequence " + fromSequence + ": " + recordsDelivered + " record(s) delivered, next sequence " +
            nextSequence + (null == damage ? ", clean end" : "; " + damage.message());
    }
}
