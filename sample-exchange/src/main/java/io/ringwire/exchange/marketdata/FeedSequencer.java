package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.trading.TradeDecoder;

import java.util.Arrays;

import static io.ringwire.exchange.marketdata.MarketDataBooks.APPLIED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.CAPACITY_EXCEEDED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.DUPLICATE;
import static io.ringwire.exchange.marketdata.MarketDataBooks.GAP;
import static io.ringwire.exchange.marketdata.MarketDataBooks.IGNORED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.INCONSISTENT;
import static io.ringwire.exchange.marketdata.MarketDataBooks.MALFORMED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;
import static io.ringwire.exchange.marketdata.MarketDataBooks.RECOVERED;
import static io.ringwire.exchange.marketdata.MarketDataBooks.STALE;

/**
 * The sequencing of the feed, per instrument slot: whether an incremental is the next change to
 * its book, a duplicate, past a gap or for a stale book; the collection of a snapshot's parts and
 * the book's return to live at its last part; the stream's sequence; and a count of every outcome
 * (the rules are in {@link MarketDataBooks}).
 *
 * <p>It holds no book. It says whether a change is due, and which step of a snapshot a part is,
 * and the caller makes the change to its books and reports how it went: a change that did not
 * fit makes the book stale here.
 *
 * <p>Threading: one thread. Allocation-free after construction.
 */
final class FeedSequencer
{
    /** A snapshot part that starts a recovery: empty the book, then load the part's orders. */
    static final int START = -1;
    /** The next part of the snapshot being collected: load its orders onto the book. */
    static final int CONTINUE = -2;
    /** A part out of order: the snapshot is abandoned; empty the book, which waits for the next one. */
    static final int ABANDON = -3;

    private final long[] sequence;
    private final boolean[] stale;
    /** The next snapshot part expected, or NONE when no snapshot is being collected. */
    private final int[] loadingPart;
    private final long[] loadingSequence;
    private long streamSequence;

    private long applied;
    private long gaps;
    private long streamGaps;
    private long recoveries;
    private long malformed;
    private long duplicates;
    private long staleIgnored;
    private long capacityExceeded;
    private long inconsistencies;
    private long snapshotsAbandoned;
    private long newEngineLives;
    private long feedInterruptions;

    /**
     * @param maxInstruments instrument slots.
     */
    FeedSequencer(final int maxInstruments)
    {
        sequence = new long[maxInstruments];
        stale = new boolean[maxInstruments];
        loadingPart = new int[maxInstruments];
        loadingSequence = new long[maxInstruments];
        Arrays.fill(loadingPart, NONE);
    }

    // ---------------------------------------------------------------- incrementals

    /**
     * Checks an incremental's sequences against the stream and the instrument's book; when it is the
     * book's next change, the book takes its sequence.
     *
     * @param slot               the instrument's slot, or NONE when it has none.
     * @param instrumentSequence the incremental's instrument sequence.
     * @param stream             the incremental's stream sequence, or the null value when it has none.
     * @return APPLIED when the change is due, else the outcome that says why not: CAPACITY_EXCEEDED,
     *         STALE, DUPLICATE or GAP (which makes the book stale).
     */
    int admit(final int slot, final long instrumentSequence, final long stream)
    {
        if (stream != TradeDecoder.streamSequenceNullValue())
        {
            if (stream > streamSequence + 1)
            {
                streamGaps++;
            }
            if (stream > streamSequence)
            {
                streamSequence = stream;
            }
        }
        if (slot == NONE)
        {
            capacityExceeded++;
            return CAPACITY_EXCEEDED;
        }
        if (stale[slot])
        {
            staleIgnored++;
            return STALE;
        }
        final long expected = sequence[slot] + 1;
        if (instrumentSequence < expected)
        {
            duplicates++;
            return DUPLICATE;
        }
        if (instrumentSequence > expected)
        {
            gaps++;
            stale[slot] = true;
            return GAP;
        }
        sequence[slot] = instrumentSequence;
        return APPLIED;
    }

    /**
     * Counts how an admitted change went: APPLIED, or CAPACITY_EXCEEDED or INCONSISTENT, either of
     * which makes the book stale.
     *
     * @return the outcome.
     */
    int changed(final int slot, final int outcome)
    {
        if (outcome == APPLIED)
        {
            applied++;
            return APPLIED;
        }
        stale[slot] = true;
        if (outcome == CAPACITY_EXCEEDED)
        {
            capacityExceeded++;
            return CAPACITY_EXCEEDED;
        }
        inconsistencies++;
        return INCONSISTENT;
    }

    /**
     * Counts a message that failed validation.
     *
     * @return MALFORMED.
     */
    int onMalformed()
    {
        malformed++;
        return MALFORMED;
    }

    // ---------------------------------------------------------------- snapshots

    /**
     * Places a snapshot part in the recovery of its book: a part 0 newer than a live book, or for
     * a stale one, starts a recovery (abandoning one under way); a later part must be the next of
     * the same snapshot.
     *
     * @param slot             the instrument's slot, or NONE when it has none.
     * @param snapshotSequence the instrument sequence the snapshot holds.
     * @param part             the part's number.
     * @param stream           the stream sequence the snapshot was taken at.
     * @return {@link #START}, {@link #CONTINUE} or {@link #ABANDON}: what to do with the book; or
     *         the outcome when the book is left as it is: IGNORED, DUPLICATE or CAPACITY_EXCEEDED.
     */
    int snapshotPart(final int slot, final long snapshotSequence, final int part, final long stream)
    {
        if (slot == NONE)
        {
            capacityExceeded++;
            return CAPACITY_EXCEEDED;
        }
        final int step;
        if (part == 0)
        {
            if (!stale[slot] && snapshotSequence <= sequence[slot])
            {
                return IGNORED;
            }
            if (loadingPart[slot] != NONE)
            {
                snapshotsAbandoned++;
            }
            stale[slot] = true;
            loadingPart[slot] = 0;
            loadingSequence[slot] = snapshotSequence;
            step = START;
        }
        else if (loadingPart[slot] == NONE)
        {
            return IGNORED;
        }
        else if (loadingSequence[slot] != snapshotSequence || loadingPart[slot] != part)
        {
            if (loadingSequence[slot] == snapshotSequence && part < loadingPart[slot])
            {
                duplicates++;
                return DUPLICATE;
            }
            snapshotsAbandoned++;
            loadingPart[slot] = NONE;
            return ABANDON;
        }
        else
        {
            step = CONTINUE;
        }
        if (streamSequence == 0)
        {
            streamSequence = stream;
        }
        return step;
    }

    /**
     * A part's orders are in the book; at the last part the book takes the snapshot's sequence and
     * is live again.
     *
     * @return APPLIED, or RECOVERED after the last part.
     */
    int partLoaded(final int slot, final boolean lastPart)
    {
        if (!lastPart)
        {
            loadingPart[slot]++;
            return APPLIED;
        }
        loadingPart[slot] = NONE;
        sequence[slot] = loadingSequence[slot];
        stale[slot] = false;
        recoveries++;
        return RECOVERED;
    }

    /**
     * A part's order did not fit the book (CAPACITY_EXCEEDED or INCONSISTENT): the snapshot is
     * dropped and the book stays stale for the next one.
     *
     * @return the outcome.
     */
    int partFailed(final int slot, final int outcome)
    {
        loadingPart[slot] = NONE;
        return changed(slot, outcome);
    }

    /**
     * The feed now comes from an engine of another life (one started again on a new journal): every
     * sequence counts from the start again, so every book is stale, nothing is being collected, and
     * each book waits for a snapshot of the new life.
     */
    void newEngineLife()
    {
        Arrays.fill(sequence, 0);
        Arrays.fill(stale, true);
        Arrays.fill(loadingPart, NONE);
        streamSequence = 0;
        newEngineLives++;
    }

    /**
     * The feed was interrupted (a new image: a first join, possibly mid-stream, or a rejoin after
     * being cut off): any book may have missed changes that no later incremental shows, so every
     * book is stale until its snapshot, and a snapshot being collected is abandoned (its next part
     * may be among what was missed). Sequences stay: a stale book takes any snapshot's part 0.
     */
    void feedInterrupted()
    {
        for (int slot = 0; slot < loadingPart.length; slot++)
        {
            if (loadingPart[slot] != NONE)
            {
                snapshotsAbandoned++;
                loadingPart[slot] = NONE;
            }
        }
        Arrays.fill(stale, true);
        feedInterruptions++;
    }

    // ---------------------------------------------------------------- reading

    /** @return whether the slot's book is stale: a gap, a snapshot being collected, a change that did not fit. */
    boolean isStale(final int slot)
    {
        return stale[slot];
    }

    /**
     * @return -1 when no snapshot of the slot's book is being collected, else a value that changes
     *         with each part taken (the snapshot's sequence and the next part).
     */
    long loadingProgress(final int slot)
    {
        return loadingPart[slot] == NONE ? -1 : (loadingSequence[slot] << 20) + loadingPart[slot];
    }

    /** @return the slot's last sequence applied (by an incremental or a snapshot), 0 when none. */
    long sequence(final int slot)
    {
        return sequence[slot];
    }

    /** @return the last stream sequence seen. */
    long streamSequence()
    {
        return streamSequence;
    }

    // Counters, which MarketDataBooks reports.

    long applied()
    {
        return applied;
    }

    long gaps()
    {
        return gaps;
    }

    long streamGaps()
    {
        return streamGaps;
    }

    long recoveries()
    {
        return recoveries;
    }

    long malformed()
    {
        return malformed;
    }

    long duplicates()
    {
        return duplicates;
    }

    long staleIgnored()
    {
        return staleIgnored;
    }

    long capacityExceeded()
    {
        return capacityExceeded;
    }

    long inconsistencies()
    {
        return inconsistencies;
    }

    long snapshotsAbandoned()
    {
        return snapshotsAbandoned;
    }

    long newEngineLives()
    {
        return newEngineLives;
    }

    long feedInterruptions()
    {
        return feedInterruptions;
    }
}
