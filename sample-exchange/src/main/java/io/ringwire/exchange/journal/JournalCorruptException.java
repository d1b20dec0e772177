package io.ringwire.exchange.journal;

/**
 * A journal cannot be appended to: a record that valid records follow is damaged, so appending
 * after it would build on a journal that has lost accepted messages.
 */
public final class JournalCorruptException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** Not serialised: a record's components are not all serialisable, and the message carries it. */
    private final transient JournalDamage damage;

    /**
     * @param damage what was found, and where.
     */
    public JournalCorruptException(final JournalDamage damage)
    {
        super(damage.message());
        this.damage = damage;
    }

    /**
     * @return what was found, and where.
     */
    public JournalDamage damage()
    {
        return damage;
    }
}
