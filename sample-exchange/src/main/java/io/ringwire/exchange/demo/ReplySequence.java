package io.ringwire.exchange.demo;

import io.ringwire.codecs.trading.LogonResponseDecoder;

/**
 * A client's place in its session's numbered replies: which it has received, in which gateway
 * process's numbering (its reply life), what a logon asks the gateway to resend from, and the
 * replies it will never see (the gateway no longer kept them) or sees again (a resend of one that
 * was on its way). Sequences start at 1; 0 or less is a reply or a gateway that numbers nothing,
 * which passes. One thread.
 */
final class ReplySequence
{
    /** {@link #onReply}: a reply received before, to be dropped. */
    static final long DUPLICATE = -1;

    /** One past the last reply received; 0 before the first. */
    private long next;
    /** The reply life {@link #next} was counted in; 0 before a gateway named one. */
    private long life;
    /** What the last logon asked for. */
    private long asked;

    /** @return the sequence a logon asks the gateway to resend from (0 the first time), remembered as asked. */
    long askAtLogon()
    {
        asked = next;
        return next;
    }

    /** @return the reply life a logon names with its sequence: 0 before a gateway named one. */
    long life()
    {
        return life;
    }

    /**
     * Where the logon's answer says replies start: past what the client asked for, the ones between
     * were no longer kept. An answer of another reply life than the one asked in (or, from a gateway
     * that names none, one that starts before what was asked) is another gateway process's, whose
     * sequence starts anew. Replies that came before the answer (the lost connection's backlog, or in
     * flight) have moved the client past what it asked for already: their resend is then dropped as
     * seen.
     *
     * @param start     the answer's first sequence; 0 or less from a gateway that numbers nothing.
     * @param replyLife the answer's reply life; 0 or the field's null value where it names none.
     * @return the replies skipped (a gap), else 0.
     */
    long onStart(final long start, final long replyLife)
    {
        if (start <= 0)
        {
            return 0;
        }
        final boolean named = replyLife != 0 && replyLife != LogonResponseDecoder.replyLifeNullValue();
        final boolean anotherLife = named ? replyLife != life : asked > 0 && start < asked;
        if (named)
        {
            life = replyLife;
        }
        if (anotherLife)
        {
            next = start;
            return 0;
        }
        final long skipped = next > 0 && start > next ? start - next : 0;
        next = Math.max(next, start);
        return skipped;
    }

    /**
     * @param sequence the reply's sequence; 0 or less for an unnumbered one (a reject before logon).
     * @return {@link #DUPLICATE} for a reply received before; else the replies skipped before this
     *         one (0 in order).
     */
    long onReply(final long sequence)
    {
        if (sequence <= 0)
        {
            return 0;
        }
        if (next > 0 && sequence < next)
        {
            return DUPLICATE;
        }
        final long skipped = next > 0 && sequence > next ? sequence - next : 0;
        next = sequence + 1;
        return skipped;
    }
}
