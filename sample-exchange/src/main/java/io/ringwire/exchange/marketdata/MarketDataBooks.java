package io.ringwire.exchange.marketdata;

import io.ringwire.codecs.MessageValidator;
import io.ringwire.codecs.trading.BookSnapshotDecoder;
import io.ringwire.codecs.trading.BooleanType;
import io.ringwire.codecs.trading.MessageHeaderDecoder;
import io.ringwire.codecs.trading.OrderAddedDecoder;
import io.ringwire.codecs.trading.OrderCanceledDecoder;
import io.ringwire.codecs.trading.OrderExecutedDecoder;
import io.ringwire.codecs.trading.OrderReplacedDecoder;
import io.ringwire.codecs.trading.Side;
import io.ringwire.codecs.trading.TradeDecoder;
import io.ringwire.exchange.book.InstrumentSpec;
import io.ringwire.exchange.book.ReplicaBooks;
import org.agrona.DirectBuffer;

import java.util.List;

import static io.ringwire.exchange.book.ReplicaBooks.ASK;
import static io.ringwire.exchange.book.ReplicaBooks.BID;

/**
 * Order-level books rebuilt from the engine's ITCH-style feed: per instrument, bids and asks with
 * their price levels best first and each level's orders in time priority, with the quantity each
 * order shows. This is what a market-data client keeps, and what the market-data service keeps to
 * answer snapshot requests (see {@link SnapshotEncoder}).
 *
 * <p>Sequences: every incremental carries the instrument's sequence, which must be the book's plus
 * one. A lower one is a {@link #DUPLICATE} (a retransmission) and changes nothing; a higher one is
 * a {@link #GAP}: the book is missing a change, so it is marked stale, keeps what it has for
 * display (or, in a replica built not to keep stale orders, is emptied), ignores its incrementals
 * ({@link #STALE}) and waits for a BookSnapshot. The stream's
 * sequence is watched too, so a gap anywhere on the stream is counted even before the instrument
 * it hid shows it.
 *
 * <p>Snapshots: the parts of a BookSnapshot are collected straight into the instrument's book (it
 * is cleared at part 0 and stays stale while parts arrive); at the last part the book takes the
 * snapshot's sequence and is live again, applying incrementals after it. A snapshot older than a
 * live book is ignored, so a snapshot another client asked for does no harm on a shared stream.
 * A part out of order abandons the snapshot and the book waits for the next one.
 *
 * <p>Self-checks: an incremental that does not fit the book (an unknown order, an order id already
 * resting, more executed or canceled than the order shows) means the book is wrong: it is counted
 * as an inconsistency and the book goes stale rather than drifting silently.
 *
 * <p>Capacity: the instruments are the exchange's (ids 1 to n, with their bands and ticks), and the
 * orders are fixed at construction; every array and map is sized then, so applying incrementals
 * allocates nothing. An instrument not among them gets no book ({@link #CAPACITY_EXCEEDED},
 * counted, and {@link #isStale} says true for it); an order beyond the capacity marks its
 * instrument's book stale and empties it, which frees its orders for the other books until a
 * snapshot that fits arrives.
 *
 * <p>Parts: this class decodes the feed and composes {@code FeedSequencer} (whether a change is
 * due, and the steps of a snapshot), {@link ReplicaBooks} (the levels and orders, in the storage
 * the engine's books use) an instrument's slot in both is its index (ids run from 1).
 *
 * <p>Threading: one thread. Allocation-free in {@link #onMessage} and the read accessors.
 */
public final class MarketDataBooks
{
    /** An incremental applied to its book, or a snapshot part that started or continued a recovery. */
    public static final int APPLIED = 0;
    /** The instrument's sequence jumped: its book is now stale and needs a snapshot. */
    public static final int GAP = 1;
    /** An incremental at or below the book's sequence, or a repeated snapshot part: ignored. */
    public static final int DUPLICATE = 2;
    /** Not market data, or a snapshot the book does not need: ignored. */
    public static final int IGNORED = 3;
    /** Fails {@link MessageValidator}: counted and dropped. */
    public static final int MALFORMED = 4;
    /** An incremental for a stale book: counted and dropped until a snapshot arrives. */
    public static final int STALE = 5;
    /** No book for the instrument, or no room for the order: counted, and the instrument's book is stale. */
    public static final int CAPACITY_EXCEEDED = ReplicaBooks.CAPACITY_EXCEEDED;
    /** An incremental that does not fit the book: counted, and the book is stale. */
    public static final int INCONSISTENT = ReplicaBooks.INCONSISTENT;
    /** The last part of a snapshot: the book is replaced and live again. */
    public static final int RECOVERED = 8;

    /** No level, no order, no instrument. */
    public static final int NONE = -1;

    private static final short BUY_CODE = Side.BUY.value();
    private static final short SELL_CODE = Side.SELL.value();

    // The parts, which SnapshotEncoder reads too.
    final ReplicaBooks books;
    final FeedSequencer sequencer;

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final OrderAddedDecoder added = new OrderAddedDecoder();
    private final OrderExecutedDecoder executed = new OrderExecutedDecoder();
    private final OrderCanceledDecoder canceled = new OrderCanceledDecoder();
    private final OrderReplacedDecoder replaced = new OrderReplacedDecoder();
    private final TradeDecoder trade = new TradeDecoder();
    private final boolean keepStaleOrders;
    private final BookSnapshotDecoder snapshot = new BookSnapshotDecoder();
    /** The life of the engine the books are of ({@link #engineLife()}); 0 before a snapshot named one. */
    private long engineLife;

    /**
     * Books that keep what a stale book held, for display, as a client's do.
     *
     * @param instruments the exchange's instruments, ids 1 to n in order: each has a book.
     * @param maxOrders   orders resting across all books at once.
     */
    public MarketDataBooks(final List<InstrumentSpec> instruments, final int maxOrders)
    {
        this(instruments, maxOrders, true);
    }

    /**
     * @param instruments    the exchange's instruments, ids 1 to n in order: each has a book.
     * @param maxOrders      orders resting across all books at once.
     * @param keepStaleOrders whether a book that goes stale (a gap, an inconsistency) keeps its
     *                       orders for display until its snapshot. A replica that displays nothing
     *                       (the market-data service's) empties it instead: its live books then
     *                       mirror one point of the engine's, so with the engine's capacity they
     *                       always fit, where orders a stale book held could crowd a live one out
     *                       after the snapshot round that would have recovered it.
     */
    public MarketDataBooks(final List<InstrumentSpec> instruments, final int maxOrders, final boolean keepStaleOrders)
    {
        if (instruments.isEmpty() || maxOrders < 1)
        {
            throw new IllegalArgumentException("instrument and order capacity must be at least 1");
        }
        books = new ReplicaBooks(instruments, maxOrders);
        sequencer = new FeedSequencer(instruments.size());
        this.keepStaleOrders = keepStaleOrders;
    }

    // ---------------------------------------------------------------- the feed

    /**
     * Applies one message of the market-data stream: an incremental (OrderAdded, OrderExecuted,
     * OrderCanceled, OrderReplaced, Trade) or a BookSnapshot part. Anything else is ignored.
     *
     * @return what happened: {@link #APPLIED}, {@link #GAP}, {@link #DUPLICATE}, {@link #IGNORED},
     *         {@link #MALFORMED}, {@link #STALE}, {@link #CAPACITY_EXCEEDED}, {@link #INCONSISTENT}
     *         or {@link #RECOVERED}.
     */
    public int onMessage(final DirectBuffer buffer, final int offset, final int length)
    {
        if (MessageValidator.validate(buffer, offset, length) < 0)
        {
            return sequencer.onMalformed();
        }
        header.wrap(buffer, offset);
        final int blockLength = header.blockLength();
        final int version = header.version();
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        switch (header.templateId())
        {
            case OrderAddedDecoder.TEMPLATE_ID ->
            {
                added.wrap(buffer, body, blockLength, version);
                final int slot = slotOf(added.instrumentId());
                final int admitted = admit(slot, added.sequenceNumber(), added.streamSequence());
                if (admitted != APPLIED)
                {
                    return admitted;
                }
                final short side = added.sideRaw();
                if ((side != BUY_CODE && side != SELL_CODE) || added.quantity() <= 0)
                {
                    return changed(slot, INCONSISTENT);
                }
                return changed(slot, books.add(slot, side == BUY_CODE ? BID : ASK, added.orderId(), added.price(),
                    added.quantity()));
            }
            case OrderExecutedDecoder.TEMPLATE_ID ->
            {
                executed.wrap(buffer, body, blockLength, version);
                final int slot = slotOf(executed.instrumentId());
                final int admitted = admit(slot, executed.sequenceNumber(), executed.streamSequence());
                if (admitted != APPLIED)
                {
                    return admitted;
                }
                return changed(slot, books.reduce(slot, executed.orderId(), executed.executedQuantity(), NONE));
            }
            case OrderCanceledDecoder.TEMPLATE_ID ->
            {
                canceled.wrap(buffer, body, blockLength, version);
                final int slot = slotOf(canceled.instrumentId());
                final int admitted = admit(slot, canceled.sequenceNumber(), canceled.streamSequence());
                if (admitted != APPLIED)
                {
                    return admitted;
                }
                // A cancel always names what remains; a negative one (-1 is the book's "not given",
                // which would skip the check) fits no order.
                final long remaining = canceled.remainingQuantity();
                return changed(slot, remaining < 0 ? INCONSISTENT :
                    books.reduce(slot, canceled.orderId(), canceled.canceledQuantity(), remaining));
            }
            case OrderReplacedDecoder.TEMPLATE_ID ->
            {
                replaced.wrap(buffer, body, blockLength, version);
                final int slot = slotOf(replaced.instrumentId());
                final int admitted = admit(slot, replaced.sequenceNumber(), replaced.streamSequence());
                if (admitted != APPLIED)
                {
                    return admitted;
                }
                return changed(slot, books.replace(slot, replaced.orderId(), replaced.price(), replaced.quantity(),
                    replaced.keepsPriorityRaw() == BooleanType.TRUE.value()));
            }
            case TradeDecoder.TEMPLATE_ID ->
            {
                trade.wrap(buffer, body, blockLength, version);
                final int slot = slotOf(trade.instrumentId());
                final int admitted = admit(slot, trade.sequenceNumber(), trade.streamSequence());
                if (admitted != APPLIED)
                {
                    return admitted;
                }
                return sequencer.changed(slot, APPLIED);
            }
            case BookSnapshotDecoder.TEMPLATE_ID ->
            {
                return onSnapshot(snapshot.wrap(buffer, body, blockLength, version));
            }
            default ->
            {
                return IGNORED;
            }
        }
    }

    /** Whether an incremental is due; a book it finds past a gap goes stale, emptied unless it keeps stale orders. */
    private int admit(final int slot, final long sequence, final long streamSequence)
    {
        final int admitted = sequencer.admit(slot, sequence, streamSequence);
        if (admitted == GAP && !keepStaleOrders)
        {
            books.clear(slot);
        }
        return admitted;
    }

    /**
     * Reports how a change to a book went; a book out of room is emptied, which frees its orders for
     * the others, and so is an inconsistent one unless it keeps stale orders.
     */
    private int changed(final int slot, final int outcome)
    {
        if (outcome == CAPACITY_EXCEEDED || (outcome == INCONSISTENT && !keepStaleOrders))
        {
            books.clear(slot);
        }
        return sequencer.changed(slot, outcome);
    }

    private int onSnapshot(final BookSnapshotDecoder message)
    {
        final long life = message.engineLife(); // the null value, negative, from a snapshot before lives
        if (life > 0 && life != engineLife)
        {
            if (engineLife != 0)
            {
                // An engine started again on a new journal: its sequences count from the start, so
                // the books (the last life's) would take its changes for duplicates of theirs.
                sequencer.newEngineLife();
                clearAll();
            }
            engineLife = life;
        }
        final int slot = slotOf(message.instrumentId());
        final int step =
            sequencer.snapshotPart(slot, message.sequenceNumber(), message.part(), message.streamSequence());
        if (step == FeedSequencer.ABANDON)
        {
            books.clear(slot);
            return IGNORED;
        }
        if (step == FeedSequencer.START)
        {
            books.clear(slot);
        }
        else if (step != FeedSequencer.CONTINUE)
        {
            return step;
        }
        final BookSnapshotDecoder.OrdersDecoder entries = message.orders();
        while (entries.hasNext())
        {
            entries.next();
            final short side = entries.sideRaw();
            final int outcome = side != BUY_CODE && side != SELL_CODE || entries.quantity() <= 0 ? INCONSISTENT :
                books.add(slot, side == BUY_CODE ? BID : ASK, entries.orderId(), entries.price(), entries.quantity());
            if (outcome != APPLIED)
            {
                books.clear(slot);
                return sequencer.partFailed(slot, outcome);
            }
        }
        return sequencer.partLoaded(slot, message.lastPartRaw() == BooleanType.TRUE.value());
    }

    /**
     * The feed was interrupted: the subscriber joined (perhaps mid-stream) or rejoined after being
     * cut off. Any book may have missed changes that no later incremental reveals (a book the
     * stream does not touch again would read live, and wrong), so every book goes stale, emptied
     * unless it keeps stale orders, and waits for its snapshot; a snapshot being collected is
     * abandoned. Control path: a new image's handler.
     */
    public void feedInterrupted()
    {
        sequencer.feedInterrupted();
        if (!keepStaleOrders)
        {
            clearAll();
        }
    }

    private void clearAll()
    {
        for (int slot = 0; slot < books.instruments(); slot++)
        {
            books.clear(slot);
        }
    }

    /** @return the replica as a {@link SnapshotSource}: its live books, at the sequences they hold. */
    SnapshotSource snapshotSource()
    {
        return new SnapshotSource()
        {
            @Override
            public int books()
            {
                return books.instruments();
            }

            @Override
            public boolean isLive(final int slot)
            {
                return !sequencer.isStale(slot);
            }

            @Override
            public long sequence(final int slot)
            {
                return sequencer.sequence(slot);
            }

            @Override
            public long streamSequence()
            {
                return sequencer.streamSequence();
            }

            @Override
            public long engineLife()
            {
                return engineLife;
            }
        };
    }

    /**
     * @return whether every level's kept quantity and order count equal its orders', and the books
     *         hold every order the store does: the self-check tests ask for. Control path.
     */
    boolean levelsConsistent()
    {
        return books.levelsConsistent();
    }

    /** @return an instrument's slot in the books and the sequencer (its index: ids run from 1), or NONE. */
    int slotOf(final int instrumentId)
    {
        return instrumentId >= 1 && instrumentId <= books.instruments() ? instrumentId - 1 : NONE;
    }

    // ---------------------------------------------------------------- reading the books

    /**
     * @return whether the instrument's book is stale (a gap, a snapshot being collected, a message
     *         that did not fit): true also for an instrument not among the exchange's, which has
     *         no book. A book that has seen nothing yet is live at sequence 0: a client that starts
     *         with the stream needs no snapshot.
     */
    public boolean isStale(final int instrument)
    {
        final int slot = slotOf(instrument);
        return slot == NONE || sequencer.isStale(slot);
    }

    /**
     * @return -1 when no snapshot of the instrument's book is being collected (or it has no book),
     *         else a value that changes with each part of it taken.
     */
    public long snapshotProgress(final int instrument)
    {
        final int slot = slotOf(instrument);
        return slot == NONE ? -1 : sequencer.loadingProgress(slot);
    }

    /** @return the instrument's last sequence applied (by an incremental or a snapshot), 0 when none. */
    public long sequence(final int instrument)
    {
        final int slot = slotOf(instrument);
        return slot == NONE ? 0 : sequencer.sequence(slot);
    }

    /** @return the last stream sequence seen on the feed. */
    public long streamSequence()
    {
        return sequencer.streamSequence();
    }

    /** @return instruments with a book. */
    public int instruments()
    {
        return books.instruments();
    }

    /** @return orders resting in the instrument's book. */
    public int orderCount(final int instrument)
    {
        final int slot = slotOf(instrument);
        return slot == NONE ? 0 : books.orderCount(slot);
    }

    /** @return the best level of a side of the instrument's book, or {@link #NONE}. */
    public int bestLevel(final int instrument, final Side side)
    {
        final int slot = slotOf(instrument);
        return slot == NONE ? NONE : books.bestLevel(slot, side == Side.BUY ? BID : ASK);
    }

    /** @return the next level away from the touch, or {@link #NONE}. */
    public int nextLevel(final int level)
    {
        return books.nextLevel(level);
    }

    /** @return a level's price. */
    public long levelPrice(final int level)
    {
        return books.levelPrice(level);
    }

    /** @return the quantity a level shows, or {@link Long#MAX_VALUE} where its orders sum past a long. */
    public long levelQuantity(final int level)
    {
        return books.levelQuantity(level);
    }

    /** @return orders at a level. */
    public int levelOrderCount(final int level)
    {
        return books.levelOrderCount(level);
    }

    /** @return the first order (in time priority) of a level. */
    public int firstOrder(final int level)
    {
        return books.firstOrder(level);
    }

    /** @return the order behind this one at its level, or {@link #NONE}. */
    public int nextOrder(final int order)
    {
        return books.nextOrder(order);
    }

    /** @return an order's exchange order id. */
    public long orderId(final int order)
    {
        return books.orderId(order);
    }

    /** @return the quantity an order shows. */
    public long shown(final int order)
    {
        return books.shown(order);
    }

    /**
     * @return a SHA-256 in hex of every instrument's public book, as {@link PublicBookDigest}
     *         defines it: equal to {@link PublicBookDigest#of} of the engine's books when the
     *         replica is right. Control path: allocates.
     */
    public String publicDigest()
    {
        return PublicBookDigest.of(books);
    }

    // ---------------------------------------------------------------- counters

    /** @return incrementals applied. */
    public long applied()
    {
        return sequencer.applied();
    }

    /** @return gaps in an instrument's sequence (each made its book stale). */
    public long gaps()
    {
        return sequencer.gaps();
    }

    /** @return gaps in the stream's sequence (joining mid-stream counts as one). */
    public long streamGaps()
    {
        return sequencer.streamGaps();
    }

    /** @return snapshots applied in full. */
    public long recoveries()
    {
        return sequencer.recoveries();
    }

    /** @return messages that failed validation. */
    public long malformed()
    {
        return sequencer.malformed();
    }

    /** @return incrementals and snapshot parts seen before. */
    public long duplicates()
    {
        return sequencer.duplicates();
    }

    /** @return incrementals dropped because their book was stale. */
    public long staleIgnored()
    {
        return sequencer.staleIgnored();
    }

    /** @return messages refused for want of room for their instrument or order. */
    public long capacityExceeded()
    {
        return sequencer.capacityExceeded();
    }

    /** @return incrementals and snapshot entries that did not fit the book. */
    public long inconsistencies()
    {
        return sequencer.inconsistencies();
    }

    /** @return snapshots abandoned part-way (a part missing or out of order). */
    public long snapshotsAbandoned()
    {
        return sequencer.snapshotsAbandoned();
    }

    /**
     * @return the life of the engine whose books these are, from the last BookSnapshot that named
     *         one: every book and sequence belongs to it. 0 before any did.
     */
    public long engineLife()
    {
        return engineLife;
    }

    /**
     * @return times a snapshot named an engine life other than the books': an engine started again
     *         on a new journal. Each made every book stale and empty, to be taken again from that
     *         engine's snapshots.
     */
    public long newEngineLives()
    {
        return sequencer.newEngineLives();
    }

    /** @return times the feed was interrupted (a join or a rejoin): each made every book stale. */
    public long feedInterruptions()
    {
        return sequencer.feedInterruptions();
    }

    /** @return orders the books hold at once. */
    public int maxOrders()
    {
        return books.maxOrders();
    }
}
