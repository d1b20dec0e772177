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
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Long2LongHashMap;

import java.util.Arrays;

/**
 * Order-level books rebuilt from the engine's ITCH-style feed: per instrument, bids and asks with
 * their price levels best first and each level's orders in time priority, with the quantity each
 * order shows. This is what a market-data client keeps, and what the market-data service keeps to
 * answer snapshot requests (see {@link SnapshotEncoder}).
 *
 * <p>Sequences: every incremental carries the instrument's sequence, which must be the book's plus
 * one. A lower one is a {@link #DUPLICATE} (a retransmission) and changes nothing; a higher one is
 * a {@link #GAP}: the book is missing a change, so it is marked stale, keeps what it has for
 * display, ignores its incrementals ({@link #STALE}) and waits for a BookSnapshot. The stream's
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
 * <p>Capacity: instruments and orders are fixed at construction, and every array and map is sized
 * then, so applying incrementals allocates nothing. An instrument beyond the capacity gets no book
 * ({@link #CAPACITY_EXCEEDED}, counted, and {@link #isStale} says true for it); an order beyond it
 * marks its instrument's book stale and empties it, which frees its orders for the other books
 * until a snapshot that fits arrives.
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
    /** No room for the instrument or the order: counted, and the instrument's book is stale. */
    public static final int CAPACITY_EXCEEDED = 6;
    /** An incremental that does not fit the book: counted, and the book is stale. */
    public static final int INCONSISTENT = 7;
    /** The last part of a snapshot: the book is replaced and live again. */
    public static final int RECOVERED = 8;

    /** No level, no order, no instrument. */
    public static final int NONE = -1;

    static final int BID = 0;
    static final int ASK = 1;
    private static final short BUY_CODE = Side.BUY.value();
    private static final short SELL_CODE = Side.SELL.value();

    private final int maxInstruments;
    private final int maxOrders;

    // ---- instruments, by slot
    private final Int2IntHashMap slotOfInstrument;
    final int[] instrumentId;
    private final long[] sequence;
    private final boolean[] stale;
    /** The next snapshot part expected, or NONE when no snapshot is being collected. */
    private final int[] loadingPart;
    private final long[] loadingSequence;
    final int[] orderCount;
    /** Best and worst level per book, indexed slot * 2 + side. */
    final int[] bestLevel;
    private final int[] worstLevel;
    /** Slots ordered by instrument id, for snapshots of every instrument and the digest. */
    final int[] slotsById;
    int instrumentCount;

    // ---- price levels, by level node; free ones are chained through levelNext
    final long[] levelPrice;
    final long[] levelQuantity;
    final int[] levelOrders;
    final int[] levelHead;
    private final int[] levelTail;
    /** Toward worse prices. */
    final int[] levelNext;
    /** Toward better prices. */
    private final int[] levelPrev;
    /** The level's book: slot * 2 + side. */
    private final int[] levelBook;
    private int freeLevel;
    /** Open addressing on (book, price), linear probing: a price's level without walking the book. */
    private final int[] levelIndex;
    private final int levelIndexMask;

    // ---- orders, by order node; free ones are chained through orderNext
    final long[] orderId;
    final long[] shown;
    final int[] orderLevel;
    /** Toward the back of the level. */
    final int[] orderNext;
    private final int[] orderPrev;
    private int freeOrder;
    private final Long2LongHashMap nodeOfOrder;

    private long streamSequence;

    // ---- counters
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

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final OrderAddedDecoder added = new OrderAddedDecoder();
    private final OrderExecutedDecoder executed = new OrderExecutedDecoder();
    private final OrderCanceledDecoder canceled = new OrderCanceledDecoder();
    private final OrderReplacedDecoder replaced = new OrderReplacedDecoder();
    private final TradeDecoder trade = new TradeDecoder();
    private final BookSnapshotDecoder snapshot = new BookSnapshotDecoder();

    /**
     * @param maxInstruments instruments with a book at once.
     * @param maxOrders      orders resting across all books at once (also the bound on price levels).
     */
    public MarketDataBooks(final int maxInstruments, final int maxOrders)
    {
        if (maxInstruments < 1 || maxOrders < 1)
        {
            throw new IllegalArgumentException("instrument and order capacity must be at least 1");
        }
        this.maxInstruments = maxInstruments;
        this.maxOrders = maxOrders;
        // Sized so that the capacity never makes a map grow: agrona's maps grow past capacity x load factor.
        slotOfInstrument = new Int2IntHashMap(Integer.highestOneBit(maxInstruments * 2 - 1) << 1, 0.6f, NONE);
        nodeOfOrder = new Long2LongHashMap(Integer.highestOneBit(maxOrders * 2 - 1) << 1, 0.6f, NONE);
        instrumentId = new int[maxInstruments];
        sequence = new long[maxInstruments];
        stale = new boolean[maxInstruments];
        loadingPart = new int[maxInstruments];
        loadingSequence = new long[maxInstruments];
        orderCount = new int[maxInstruments];
        bestLevel = new int[maxInstruments * 2];
        worstLevel = new int[maxInstruments * 2];
        slotsById = new int[maxInstruments];
        Arrays.fill(loadingPart, NONE);
        Arrays.fill(bestLevel, NONE);
        Arrays.fill(worstLevel, NONE);

        levelPrice = new long[maxOrders];
        levelQuantity = new long[maxOrders];
        levelOrders = new int[maxOrders];
        levelHead = new int[maxOrders];
        levelTail = new int[maxOrders];
        levelNext = new int[maxOrders];
        levelPrev = new int[maxOrders];
        levelBook = new int[maxOrders];
        levelIndex = new int[Integer.highestOneBit(maxOrders * 2 - 1) << 1];
        levelIndexMask = levelIndex.length - 1;
        Arrays.fill(levelIndex, NONE);
        orderId = new long[maxOrders];
        shown = new long[maxOrders];
        orderLevel = new int[maxOrders];
        orderNext = new int[maxOrders];
        orderPrev = new int[maxOrders];
        for (int i = 0; i < maxOrders; i++)
        {
            levelNext[i] = i + 1 < maxOrders ? i + 1 : NONE;
            orderNext[i] = i + 1 < maxOrders ? i + 1 : NONE;
        }
        freeLevel = 0;
        freeOrder = 0;
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
            malformed++;
            return MALFORMED;
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
                final int slot = admit(added.instrumentId(), added.sequenceNumber(), added.streamSequence());
                if (slot < 0)
                {
                    return -slot;
                }
                final short side = added.sideRaw();
                if ((side != BUY_CODE && side != SELL_CODE) || added.quantity() <= 0)
                {
                    return inconsistent(slot);
                }
                return done(slot, add(slot, side == BUY_CODE ? BID : ASK, added.orderId(), added.price(),
                    added.quantity()));
            }
            case OrderExecutedDecoder.TEMPLATE_ID ->
            {
                executed.wrap(buffer, body, blockLength, version);
                final int slot = admit(executed.instrumentId(), executed.sequenceNumber(), executed.streamSequence());
                if (slot < 0)
                {
                    return -slot;
                }
                return done(slot, reduce(slot, executed.orderId(), executed.executedQuantity(), NONE));
            }
            case OrderCanceledDecoder.TEMPLATE_ID ->
            {
                canceled.wrap(buffer, body, blockLength, version);
                final int slot = admit(canceled.instrumentId(), canceled.sequenceNumber(), canceled.streamSequence());
                if (slot < 0)
                {
                    return -slot;
                }
                return done(slot, reduce(slot, canceled.orderId(), canceled.canceledQuantity(),
                    canceled.remainingQuantity()));
            }
            case OrderReplacedDecoder.TEMPLATE_ID ->
            {
                replaced.wrap(buffer, body, blockLength, version);
                final int slot = admit(replaced.instrumentId(), replaced.sequenceNumber(), replaced.streamSequence());
                if (slot < 0)
                {
                    return -slot;
                }
                return done(slot, replace(slot, replaced.orderId(), replaced.price(), replaced.quantity(),
                    replaced.keepsPriorityRaw() == BooleanType.TRUE.value()));
            }
            case TradeDecoder.TEMPLATE_ID ->
            {
                trade.wrap(buffer, body, blockLength, version);
                final int slot = admit(trade.instrumentId(), trade.sequenceNumber(), trade.streamSequence());
                if (slot < 0)
                {
                    return -slot;
                }
                applied++;
                return APPLIED;
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

    /**
     * Checks an incremental's sequences against the stream and the instrument's book.
     *
     * @return the book's slot when the incremental applies next, or minus the outcome code that
     *         says why it does not (every code but APPLIED is positive).
     */
    private int admit(final int instrument, final long instrumentSequence, final long stream)
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
        final int slot = slotOf(instrument);
        if (slot == NONE)
        {
            capacityExceeded++;
            return -CAPACITY_EXCEEDED;
        }
        if (stale[slot])
        {
            staleIgnored++;
            return -STALE;
        }
        final long expected = sequence[slot] + 1;
        if (instrumentSequence < expected)
        {
            duplicates++;
            return -DUPLICATE;
        }
        if (instrumentSequence > expected)
        {
            gaps++;
            stale[slot] = true;
            return -GAP;
        }
        sequence[slot] = instrumentSequence;
        return slot;
    }

    /** Counts an applied incremental, or marks its book stale when it did not fit. */
    private int done(final int slot, final int outcome)
    {
        if (outcome == APPLIED)
        {
            applied++;
            return APPLIED;
        }
        if (outcome == CAPACITY_EXCEEDED)
        {
            capacityExceeded++;
            stale[slot] = true;
            clear(slot);
            return CAPACITY_EXCEEDED;
        }
        return inconsistent(slot);
    }

    private int inconsistent(final int slot)
    {
        inconsistencies++;
        stale[slot] = true;
        return INCONSISTENT;
    }

    private int onSnapshot(final BookSnapshotDecoder message)
    {
        final int slot = slotOf(message.instrumentId());
        if (slot == NONE)
        {
            capacityExceeded++;
            return CAPACITY_EXCEEDED;
        }
        final long snapshotSequence = message.sequenceNumber();
        final int part = message.part();
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
            clear(slot);
            stale[slot] = true;
            loadingPart[slot] = 0;
            loadingSequence[slot] = snapshotSequence;
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
            clear(slot);
            return IGNORED;
        }
        if (streamSequence == 0)
        {
            streamSequence = message.streamSequence();
        }
        final BookSnapshotDecoder.OrdersDecoder entries = message.orders();
        while (entries.hasNext())
        {
            entries.next();
            final short side = entries.sideRaw();
            final int outcome = side != BUY_CODE && side != SELL_CODE || entries.quantity() <= 0 ? INCONSISTENT :
                add(slot, side == BUY_CODE ? BID : ASK, entries.orderId(), entries.price(), entries.quantity());
            if (outcome != APPLIED)
            {
                loadingPart[slot] = NONE;
                clear(slot);
                return done(slot, outcome);
            }
        }
        if (message.lastPartRaw() != BooleanType.TRUE.value())
        {
            loadingPart[slot]++;
            return APPLIED;
        }
        loadingPart[slot] = NONE;
        sequence[slot] = snapshotSequence;
        stale[slot] = false;
        recoveries++;
        return RECOVERED;
    }

    // ---------------------------------------------------------------- book changes

    /** An order joins the back of its level. */
    private int add(final int slot, final int side, final long id, final long price, final long quantity)
    {
        if (nodeOfOrder.get(id) != NONE)
        {
            return INCONSISTENT;
        }
        final int order = freeOrder;
        if (order == NONE)
        {
            return CAPACITY_EXCEEDED;
        }
        final int level = levelFor(slot * 2 + side, price);
        if (level == NONE)
        {
            return CAPACITY_EXCEEDED;
        }
        freeOrder = orderNext[order];
        orderId[order] = id;
        shown[order] = quantity;
        append(order, level);
        orderCount[slot]++;
        nodeOfOrder.put(id, order);
        return APPLIED;
    }

    /**
     * An order shows less: executed ({@code remaining} NONE: what it shows minus the quantity) or
     * canceled down to {@code remaining}. At 0 it leaves the book (an iceberg's refill comes back
     * as an OrderAdded at the back of the level).
     */
    private int reduce(final int slot, final long id, final long quantity, final long remaining)
    {
        final int order = find(slot, id);
        if (order == NONE || quantity <= 0 || quantity > shown[order] ||
            (remaining != NONE && shown[order] - quantity != remaining))
        {
            return INCONSISTENT;
        }
        final long left = shown[order] - quantity;
        if (left == 0)
        {
            remove(slot, order);
        }
        else
        {
            shown[order] = left;
            levelQuantity[orderLevel[order]] -= quantity;
        }
        return APPLIED;
    }

    /** An order's new price and shown quantity: in place when it keeps priority, else at the back of its level. */
    private int replace(final int slot, final long id, final long price, final long quantity, final boolean keepsPriority)
    {
        final int order = find(slot, id);
        if (order == NONE || quantity <= 0)
        {
            return INCONSISTENT;
        }
        final int level = orderLevel[order];
        if (keepsPriority)
        {
            if (levelPrice[level] != price)
            {
                return INCONSISTENT;
            }
            levelQuantity[level] += quantity - shown[order];
            shown[order] = quantity;
            return APPLIED;
        }
        final int book = levelBook[level];
        unlink(order);
        final int target = levelFor(book, price);
        if (target == NONE)
        {
            nodeOfOrder.remove(id);
            orderCount[slot]--;
            freeOrder(order);
            return CAPACITY_EXCEEDED;
        }
        shown[order] = quantity;
        append(order, target);
        return APPLIED;
    }

    /** @return the order's node when it rests in this instrument's book, else NONE. */
    private int find(final int slot, final long id)
    {
        final int order = (int)nodeOfOrder.get(id);
        return order != NONE && levelBook[orderLevel[order]] >> 1 == slot ? order : NONE;
    }

    private void remove(final int slot, final int order)
    {
        unlink(order);
        nodeOfOrder.remove(orderId[order]);
        orderCount[slot]--;
        freeOrder(order);
    }

    private void freeOrder(final int order)
    {
        orderNext[order] = freeOrder;
        orderPrev[order] = NONE;
        orderLevel[order] = NONE;
        freeOrder = order;
    }

    private void append(final int order, final int level)
    {
        final int last = levelTail[level];
        orderLevel[order] = level;
        orderPrev[order] = last;
        orderNext[order] = NONE;
        if (last == NONE)
        {
            levelHead[level] = order;
        }
        else
        {
            orderNext[last] = order;
        }
        levelTail[level] = order;
        levelOrders[level]++;
        levelQuantity[level] += shown[order];
    }

    /** Takes an order out of its level; an emptied level leaves its book. */
    private void unlink(final int order)
    {
        final int level = orderLevel[order];
        final int previous = orderPrev[order];
        final int next = orderNext[order];
        if (previous == NONE)
        {
            levelHead[level] = next;
        }
        else
        {
            orderNext[previous] = next;
        }
        if (next == NONE)
        {
            levelTail[level] = previous;
        }
        else
        {
            orderPrev[next] = previous;
        }
        levelQuantity[level] -= shown[order];
        if (--levelOrders[level] == 0)
        {
            removeLevel(level);
        }
    }

    /**
     * @return the level at a price in a book, made (in price order) when there is none yet, or
     *         NONE when every level node is in use. An existing level is found through the index;
     *         a new one is placed by a walk from whichever end of the book is nearer in price, so
     *         a new level near the touch, as most are, passes few levels.
     */
    private int levelFor(final int book, final long price)
    {
        final int existing = findLevel(book, price);
        if (existing != NONE)
        {
            return existing;
        }
        final boolean bid = (book & 1) == BID;
        final int best = bestLevel[book];
        if (best == NONE)
        {
            final int level = newLevel(book, price);
            if (level != NONE)
            {
                bestLevel[book] = level;
                worstLevel[book] = level;
            }
            return level;
        }
        final int worst = worstLevel[book];
        if (Math.abs(price - levelPrice[best]) <= Math.abs(price - levelPrice[worst]))
        {
            int at = best;
            while (at != NONE && (bid ? levelPrice[at] > price : levelPrice[at] < price))
            {
                at = levelNext[at];
            }
            if (at != NONE && levelPrice[at] == price)
            {
                return at;
            }
            final int level = newLevel(book, price);
            if (level != NONE)
            {
                insertBefore(book, level, at);
            }
            return level;
        }
        int at = worst;
        while (at != NONE && (bid ? levelPrice[at] < price : levelPrice[at] > price))
        {
            at = levelPrev[at];
        }
        if (at != NONE && levelPrice[at] == price)
        {
            return at;
        }
        final int level = newLevel(book, price);
        if (level != NONE)
        {
            insertBefore(book, level, at == NONE ? bestLevel[book] : levelNext[at]);
        }
        return level;
    }

    private int newLevel(final int book, final long price)
    {
        final int level = freeLevel;
        if (level != NONE)
        {
            freeLevel = levelNext[level];
            levelPrice[level] = price;
            levelQuantity[level] = 0;
            levelOrders[level] = 0;
            levelHead[level] = NONE;
            levelTail[level] = NONE;
            levelBook[level] = book;
            levelNext[level] = NONE;
            levelPrev[level] = NONE;
            int at = hash(book, price);
            while (levelIndex[at] != NONE)
            {
                at = (at + 1) & levelIndexMask;
            }
            levelIndex[at] = level;
        }
        return level;
    }

    private int hash(final int book, final long price)
    {
        final long mixed = (price ^ ((long)book << 40)) * 0x9E37_79B9_7F4A_7C15L;
        return (int)(mixed ^ (mixed >>> 32)) & levelIndexMask;
    }

    private int findLevel(final int book, final long price)
    {
        for (int at = hash(book, price); ; at = (at + 1) & levelIndexMask)
        {
            final int level = levelIndex[at];
            if (level == NONE || (levelPrice[level] == price && levelBook[level] == book))
            {
                return level;
            }
        }
    }

    /** Takes a level out of the index, shifting back the entries its slot kept from their home. */
    private void unindex(final int level)
    {
        int hole = hash(levelBook[level], levelPrice[level]);
        while (levelIndex[hole] != level)
        {
            hole = (hole + 1) & levelIndexMask;
        }
        int at = hole;
        while (true)
        {
            at = (at + 1) & levelIndexMask;
            final int moved = levelIndex[at];
            if (moved == NONE)
            {
                break;
            }
            final int home = hash(levelBook[moved], levelPrice[moved]);
            final boolean homeInGap = hole <= at ? hole < home && home <= at : hole < home || home <= at;
            if (!homeInGap)
            {
                levelIndex[hole] = moved;
                hole = at;
            }
        }
        levelIndex[hole] = NONE;
    }

    /** Links a new level in front of {@code next} (toward the best), or at the worst end when next is NONE. */
    private void insertBefore(final int book, final int level, final int next)
    {
        final int previous = next == NONE ? worstLevel[book] : levelPrev[next];
        levelNext[level] = next;
        levelPrev[level] = previous;
        if (previous == NONE)
        {
            bestLevel[book] = level;
        }
        else
        {
            levelNext[previous] = level;
        }
        if (next == NONE)
        {
            worstLevel[book] = level;
        }
        else
        {
            levelPrev[next] = level;
        }
    }

    private void removeLevel(final int level)
    {
        final int book = levelBook[level];
        final int previous = levelPrev[level];
        final int next = levelNext[level];
        if (previous == NONE)
        {
            bestLevel[book] = next;
        }
        else
        {
            levelNext[previous] = next;
        }
        if (next == NONE)
        {
            worstLevel[book] = previous;
        }
        else
        {
            levelPrev[next] = previous;
        }
        unindex(level);
        levelPrev[level] = NONE;
        levelNext[level] = freeLevel;
        freeLevel = level;
    }

    /** Empties an instrument's book, returning its orders and levels to the pools. */
    private void clear(final int slot)
    {
        for (int side = BID; side <= ASK; side++)
        {
            final int book = slot * 2 + side;
            int level = bestLevel[book];
            while (level != NONE)
            {
                final int nextLevel = levelNext[level];
                int order = levelHead[level];
                while (order != NONE)
                {
                    final int nextOrder = orderNext[order];
                    nodeOfOrder.remove(orderId[order]);
                    freeOrder(order);
                    order = nextOrder;
                }
                unindex(level);
                levelPrev[level] = NONE;
                levelNext[level] = freeLevel;
                freeLevel = level;
                level = nextLevel;
            }
            bestLevel[book] = NONE;
            worstLevel[book] = NONE;
        }
        orderCount[slot] = 0;
    }

    /** @return the instrument's slot, given one at its first message, or NONE when the table is full. */
    private int slotOf(final int instrument)
    {
        final int known = slotOfInstrument.get(instrument);
        if (known != NONE || instrumentCount == maxInstruments)
        {
            return known;
        }
        final int slot = instrumentCount++;
        slotOfInstrument.put(instrument, slot);
        instrumentId[slot] = instrument;
        int at = slot;
        while (at > 0 && instrumentId[slotsById[at - 1]] > instrument)
        {
            slotsById[at] = slotsById[at - 1];
            at--;
        }
        slotsById[at] = slot;
        return slot;
    }

    /**
     * @return whether the level index holds exactly the levels in the books, each found from its
     *         home slot: the walk in {@link #levelFor} would hide a lost entry, so tests ask.
     *         Control path.
     */
    boolean levelIndexConsistent()
    {
        int levels = 0;
        for (int book = 0; book < instrumentCount * 2; book++)
        {
            for (int level = bestLevel[book]; level != NONE; level = levelNext[level])
            {
                if (findLevel(book, levelPrice[level]) != level)
                {
                    return false;
                }
                levels++;
            }
        }
        int indexed = 0;
        for (final int level : levelIndex)
        {
            indexed += level == NONE ? 0 : 1;
        }
        return indexed == levels;
    }

    /** @return the slot of an instrument with a book, or NONE; for readers, so it never makes one. */
    int existingSlot(final int instrument)
    {
        return slotOfInstrument.get(instrument);
    }

    /** @return the last stream sequence seen. */
    long lastStreamSequence()
    {
        return streamSequence;
    }

    // ---------------------------------------------------------------- reading the books

    /**
     * @return whether the instrument's book is stale (a gap, a snapshot being collected, a message
     *         that did not fit): true also for an instrument that can have no book because the
     *         instrument table is full. An instrument not seen yet with room left is live at
     *         sequence 0: a client that starts with the stream needs no snapshot.
     */
    public boolean isStale(final int instrument)
    {
        final int slot = slotOfInstrument.get(instrument);
        return slot == NONE ? instrumentCount == maxInstruments : stale[slot];
    }

    /** @return the instrument's last sequence applied (by an incremental or a snapshot), 0 when none. */
    public long sequence(final int instrument)
    {
        final int slot = slotOfInstrument.get(instrument);
        return slot == NONE ? 0 : sequence[slot];
    }

    /** @return the last stream sequence seen on the feed. */
    public long streamSequence()
    {
        return streamSequence;
    }

    /** @return instruments with a book. */
    public int instruments()
    {
        return instrumentCount;
    }

    /** @return orders resting in the instrument's book. */
    public int orderCount(final int instrument)
    {
        final int slot = slotOfInstrument.get(instrument);
        return slot == NONE ? 0 : orderCount[slot];
    }

    /** @return the best level of a side of the instrument's book, or {@link #NONE}. */
    public int bestLevel(final int instrument, final Side side)
    {
        final int slot = slotOfInstrument.get(instrument);
        return slot == NONE ? NONE : bestLevel[slot * 2 + (side == Side.BUY ? BID : ASK)];
    }

    /** @return the next level away from the touch, or {@link #NONE}. */
    public int nextLevel(final int level)
    {
        return levelNext[level];
    }

    /** @return a level's price. */
    public long levelPrice(final int level)
    {
        return levelPrice[level];
    }

    /** @return the quantity a level shows. */
    public long levelQuantity(final int level)
    {
        return levelQuantity[level];
    }

    /** @return orders at a level. */
    public int levelOrderCount(final int level)
    {
        return levelOrders[level];
    }

    /** @return the first order (in time priority) of a level. */
    public int firstOrder(final int level)
    {
        return levelHead[level];
    }

    /** @return the order behind this one at its level, or {@link #NONE}. */
    public int nextOrder(final int order)
    {
        return orderNext[order];
    }

    /** @return an order's exchange order id. */
    public long orderId(final int order)
    {
        return orderId[order];
    }

    /** @return the quantity an order shows. */
    public long shown(final int order)
    {
        return shown[order];
    }

    /**
     * @return a SHA-256 in hex of every instrument's public book, as {@link PublicBookDigest}
     *         defines it: equal to {@link PublicBookDigest#of} of the engine's books when the
     *         replica is right. Control path: allocates.
     */
    public String publicDigest()
    {
        final PublicBookDigest digest = new PublicBookDigest();
        for (int i = 0; i < instrumentCount; i++)
        {
            final int slot = slotsById[i];
            if (orderCount[slot] == 0)
            {
                continue;
            }
            digest.instrument(instrumentId[slot], count(slot * 2 + BID), count(slot * 2 + ASK));
            for (int side = BID; side <= ASK; side++)
            {
                for (int level = bestLevel[slot * 2 + side]; level != NONE; level = levelNext[level])
                {
                    for (int order = levelHead[level]; order != NONE; order = orderNext[order])
                    {
                        digest.order(orderId[order], levelPrice[level], shown[order]);
                    }
                }
            }
        }
        return digest.finish();
    }

    private int count(final int book)
    {
        int count = 0;
        for (int level = bestLevel[book]; level != NONE; level = levelNext[level])
        {
            count += levelOrders[level];
        }
        return count;
    }

    // ---------------------------------------------------------------- counters

    /** @return incrementals applied. */
    public long applied()
    {
        return applied;
    }

    /** @return gaps in an instrument's sequence (each made its book stale). */
    public long gaps()
    {
        return gaps;
    }

    /** @return gaps in the stream's sequence (joining mid-stream counts as one). */
    public long streamGaps()
    {
        return streamGaps;
    }

    /** @return snapshots applied in full. */
    public long recoveries()
    {
        return recoveries;
    }

    /** @return messages that failed validation. */
    public long malformed()
    {
        return malformed;
    }

    /** @return incrementals and snapshot parts seen before. */
    public long duplicates()
    {
        return duplicates;
    }

    /** @return incrementals dropped because their book was stale. */
    public long staleIgnored()
    {
        return staleIgnored;
    }

    /** @return messages refused for want of room for their instrument or order. */
    public long capacityExceeded()
    {
        return capacityExceeded;
    }

    /** @return incrementals and snapshot entries that did not fit the book. */
    public long inconsistencies()
    {
        return inconsistencies;
    }

    /** @return snapshots abandoned part-way (a part missing or out of order). */
    public long snapshotsAbandoned()
    {
        return snapshotsAbandoned;
    }

    /** @return orders the books hold at once. */
    public int maxOrders()
    {
        return maxOrders;
    }
}
