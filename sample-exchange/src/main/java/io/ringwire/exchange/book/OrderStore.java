package io.ringwire.exchange.book;

import org.agrona.collections.Long2LongHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Every order the book holds, one record of {@link #RECORD_LENGTH} bytes per order slot in memory
 * allocated once at start for {@code capacity} orders (no object per order, nothing boxed). A
 * record is two cache lines, aligned to them: what matching reads of a resting order (price, open
 * and shown quantity, account, the links of its level's queue) is in the first, so walking a
 * level costs one line per order, and an execution report's fields are in the two. Besides the
 * order's terms and state, a record links the order into two lists: its price level's queue (time
 * priority) and its account's resting orders (in order id order, for mass cancel). The store
 * finds a resting order by account and client order id.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                            price                              |  0
 *  |                     leaves (quantity open)                    |  8
 *  |                 shown (of the open quantity)                  | 16
 *  |                           account                             | 24
 *  |        level next             |        level previous         | 32
 *  |     price slot of its level   |          instrument           | 40
 *  |                           order id                            | 48
 *  | side  | ordType |  TIF  |  STP  |post-only|       unused        | 56
 *  +---------------------------------------------------------------+
 *  |                        client order id                        | 64
 *  |            quantity (the total; a replace sets it)            | 72
 *  |                             filled                            | 80
 *  |           peak (an iceberg's display quantity, or 0)          | 88
 *  |                    priority (time priority)                   | 96
 *  |        account next           |       account previous        | 104
 *  |                             unused                            | 112
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Memory: {@link #RECORD_LENGTH} bytes per order slot, plus the index ({@link #indexBytes}: an
 * int per slot, at no more than two-thirds load) and the account table.
 *
 * <p>Threading: the engine's thread. Allocation-free after construction.
 */
public final class OrderStore
{
    /** No order: the end of a list, or a failed allocation. */
    public static final int NONE = -1;
    /** Bytes of an order's record: two cache lines. */
    public static final int RECORD_LENGTH = 128;
    /** The most order slots a store holds: their records, and the line that aligns them, fit one buffer. */
    public static final int MAX_CAPACITY = (1 << 24) - 1;

    private static final int RECORD_SHIFT = 7;
    private static final int CACHE_LINE = 64;
    private static final int PRICE = 0;
    private static final int LEAVES = 8;
    private static final int SHOWN = 16;
    private static final int ACCOUNT = 24;
    private static final int LEVEL_NEXT = 32;
    private static final int LEVEL_PREV = 36;
    private static final int SLOT = 40;
    private static final int INSTRUMENT = 44;
    private static final int ORDER_ID = 48;
    private static final int SIDE = 56;
    private static final int ORD_TYPE = 57;
    private static final int TIME_IN_FORCE = 58;
    private static final int SELF_TRADE_PREVENTION = 59;
    private static final int POST_ONLY = 60;
    private static final int CLIENT_ORDER_ID = 64;
    private static final int QUANTITY = 72;
    private static final int FILLED = 80;
    private static final int PEAK = 88;
    private static final int PRIORITY = 96;
    private static final int ACCOUNT_NEXT = 104;
    private static final int ACCOUNT_PREV = 108;

    private final UnsafeBuffer records;
    private final int capacity;
    private final ClientOrderIndex index;
    /** Account to its list of resting orders: head in the high 32 bits, tail in the low. */
    private final Long2LongHashMap accounts;
    private final int maxAccounts;
    /** Slots freed, last freed first, chained through their level-next links. */
    private int freeHead;
    /**
     * Slots from here up were never handed out: taken in order once the freed ones are used up, so
     * no loop over every slot runs at start (a slot is handed out in the order a chain of all of
     * them, built at start, would give).
     */
    private int neverUsed;
    private int live;

    /** @return bytes the index of a store of this capacity takes (an int a slot). */
    public static long indexBytes(final int capacity)
    {
        return (long)ClientOrderIndex.slotsFor(capacity) * Integer.BYTES;
    }

    /**
     * @param capacity    orders the store holds at once, at most {@link #MAX_CAPACITY}.
     * @param maxAccounts accounts with resting orders at once.
     */
    public OrderStore(final int capacity, final int maxAccounts)
    {
        if (capacity < 1 || capacity > MAX_CAPACITY || maxAccounts < 1)
        {
            throw new IllegalArgumentException("order capacity must be 1 to " + MAX_CAPACITY +
                " and account capacity at least 1: " + capacity + ", " + maxAccounts);
        }
        this.capacity = capacity;
        this.maxAccounts = maxAccounts;
        records = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity * RECORD_LENGTH + CACHE_LINE)
            .alignedSlice(CACHE_LINE));
        index = new ClientOrderIndex(capacity, this);
        // Sized so that maxAccounts entries never make the table grow (it grows past 0.5 load).
        accounts = new Long2LongHashMap(Integer.highestOneBit(maxAccounts * 2 - 1) << 1, 0.5f, -1L);
        freeHead = NONE;
        neverUsed = 0;
    }

    /** @return orders the store holds at once. */
    public int capacity()
    {
        return capacity;
    }

    /** @return orders held now (resting, or being matched). */
    public int live()
    {
        return live;
    }

    /**
     * @return a free order slot, or {@link #NONE} when the store is full.
     */
    int allocate()
    {
        int order = freeHead;
        if (order != NONE)
        {
            freeHead = levelNext(order);
        }
        else if (neverUsed < capacity)
        {
            order = neverUsed++;
        }
        if (order != NONE)
        {
            levelNext(order, NONE);
            levelPrev(order, NONE);
            accountNext(order, NONE);
            accountPrev(order, NONE);
            live++;
        }
        return order;
    }

    /** Returns a slot that is in no list and no index. */
    void free(final int order)
    {
        levelNext(order, freeHead);
        freeHead = order;
        live--;
    }

    /** @return whether a slot is free for a new order. */
    boolean hasRoom()
    {
        return freeHead != NONE || neverUsed < capacity;
    }

    /**
     * @return whether an order of this account could rest: the account has resting orders already,
     *         or there is room for one more account.
     */
    boolean accountHasRoom(final long accountId)
    {
        return accounts.size() < maxAccounts || accounts.containsKey(accountId);
    }

    /** @return the resting order of this account and client order id, or {@link #NONE}. */
    int find(final long accountId, final long clientOrderIdValue)
    {
        return index.get(accountId, clientOrderIdValue);
    }

    /**
     * Registers a resting order: findable by its client order id, and last in its account's list
     * (orders rest in order id order, so the list stays in that order).
     */
    void register(final int order)
    {
        index.put(account(order), clientOrderId(order), order);
        final long accountId = account(order);
        final long ends = accounts.get(accountId);
        if (ends == -1L)
        {
            accounts.put(accountId, pack(order, order));
        }
        else
        {
            final int tail = (int)ends;
            accountNext(tail, order);
            accountPrev(order, tail);
            accounts.put(accountId, pack((int)(ends >>> 32), order));
        }
    }

    /** Makes an order findable by its account and client order id, in no account's list (a replica's books). */
    void index(final int order)
    {
        index.put(account(order), clientOrderId(order), order);
    }

    /** Takes an order {@link #index}ed alone out of the index. */
    void unindex(final int order)
    {
        index.remove(account(order), clientOrderId(order), order);
    }

    /** Takes a resting order out of the index and its account's list. */
    void unregister(final int order)
    {
        index.remove(account(order), clientOrderId(order), order);
        final int previous = accountPrev(order);
        final int next = accountNext(order);
        if (previous != NONE)
        {
            accountNext(previous, next);
        }
        if (next != NONE)
        {
            accountPrev(next, previous);
        }
        if (previous == NONE || next == NONE)
        {
            final long accountId = account(order);
            if (previous == NONE && next == NONE)
            {
                accounts.remove(accountId);
            }
            else
            {
                final long ends = accounts.get(accountId);
                accounts.put(accountId, pack(previous == NONE ? next : (int)(ends >>> 32), next == NONE ? previous : (int)ends));
            }
        }
        accountNext(order, NONE);
        accountPrev(order, NONE);
    }

    /** Gives a registered order a new client order id. */
    void rekey(final int order, final long newClientOrderId)
    {
        index.remove(account(order), clientOrderId(order), order);
        clientOrderId(order, newClientOrderId);
        index.put(account(order), newClientOrderId, order);
    }

    /** @return the first resting order of an account, or {@link #NONE}. */
    int firstOfAccount(final long accountId)
    {
        final long ends = accounts.get(accountId);
        return ends == -1L ? NONE : (int)(ends >>> 32);
    }

    /** @return accounts with resting orders. */
    int accountsResting()
    {
        return accounts.size();
    }

    private static long pack(final int head, final int tail)
    {
        return ((long)head << 32) | (tail & 0xFFFF_FFFFL);
    }

    // ---------------------------------------------------------------- the record's fields

    private static int at(final int order, final int field)
    {
        return (order << RECORD_SHIFT) + field;
    }

    public long orderId(final int order)
    {
        return records.getLong(at(order, ORDER_ID));
    }

    public long clientOrderId(final int order)
    {
        return records.getLong(at(order, CLIENT_ORDER_ID));
    }

    public long account(final int order)
    {
        return records.getLong(at(order, ACCOUNT));
    }

    public long price(final int order)
    {
        return records.getLong(at(order, PRICE));
    }

    public long quantity(final int order)
    {
        return records.getLong(at(order, QUANTITY));
    }

    public long leaves(final int order)
    {
        return records.getLong(at(order, LEAVES));
    }

    public long shown(final int order)
    {
        return records.getLong(at(order, SHOWN));
    }

    public long peak(final int order)
    {
        return records.getLong(at(order, PEAK));
    }

    public long filled(final int order)
    {
        return records.getLong(at(order, FILLED));
    }

    public long priority(final int order)
    {
        return records.getLong(at(order, PRIORITY));
    }

    public int instrument(final int order)
    {
        return records.getInt(at(order, INSTRUMENT));
    }

    public byte side(final int order)
    {
        return records.getByte(at(order, SIDE));
    }

    public byte ordType(final int order)
    {
        return records.getByte(at(order, ORD_TYPE));
    }

    public byte timeInForce(final int order)
    {
        return records.getByte(at(order, TIME_IN_FORCE));
    }

    public byte selfTradePrevention(final int order)
    {
        return records.getByte(at(order, SELF_TRADE_PREVENTION));
    }

    public boolean postOnly(final int order)
    {
        return records.getByte(at(order, POST_ONLY)) != 0;
    }

    int slot(final int order)
    {
        return records.getInt(at(order, SLOT));
    }

    int levelNext(final int order)
    {
        return records.getInt(at(order, LEVEL_NEXT));
    }

    int levelPrev(final int order)
    {
        return records.getInt(at(order, LEVEL_PREV));
    }

    int accountNext(final int order)
    {
        return records.getInt(at(order, ACCOUNT_NEXT));
    }

    int accountPrev(final int order)
    {
        return records.getInt(at(order, ACCOUNT_PREV));
    }

    /**
     * Writes a new order's terms: every field but its links, its slot and its time priority.
     */
    void terms(final int order, final long orderIdValue, final long clientOrderIdValue, final long accountValue,
        final int instrumentValue, final byte sideValue, final byte ordTypeValue, final byte timeInForceValue,
        final byte selfTradePreventionValue, final boolean postOnlyValue, final long priceValue,
        final long quantityValue, final long peakValue)
    {
        final int record = order << RECORD_SHIFT;
        records.putLong(record + ORDER_ID, orderIdValue);
        records.putLong(record + CLIENT_ORDER_ID, clientOrderIdValue);
        records.putLong(record + ACCOUNT, accountValue);
        records.putInt(record + INSTRUMENT, instrumentValue);
        records.putByte(record + SIDE, sideValue);
        records.putByte(record + ORD_TYPE, ordTypeValue);
        records.putByte(record + TIME_IN_FORCE, timeInForceValue);
        records.putByte(record + SELF_TRADE_PREVENTION, selfTradePreventionValue);
        records.putByte(record + POST_ONLY, (byte)(postOnlyValue ? 1 : 0));
        records.putLong(record + PRICE, priceValue);
        records.putLong(record + QUANTITY, quantityValue);
        records.putLong(record + LEAVES, quantityValue);
        records.putLong(record + FILLED, 0);
        records.putLong(record + PEAK, peakValue);
        records.putLong(record + SHOWN, 0);
    }

    void clientOrderId(final int order, final long value)
    {
        records.putLong(at(order, CLIENT_ORDER_ID), value);
    }

    void price(final int order, final long value)
    {
        records.putLong(at(order, PRICE), value);
    }

    void quantity(final int order, final long value)
    {
        records.putLong(at(order, QUANTITY), value);
    }

    void leaves(final int order, final long value)
    {
        records.putLong(at(order, LEAVES), value);
    }

    void shown(final int order, final long value)
    {
        records.putLong(at(order, SHOWN), value);
    }

    void filled(final int order, final long value)
    {
        records.putLong(at(order, FILLED), value);
    }

    void priority(final int order, final long value)
    {
        records.putLong(at(order, PRIORITY), value);
    }

    void slot(final int order, final int value)
    {
        records.putInt(at(order, SLOT), value);
    }

    void levelNext(final int order, final int value)
    {
        records.putInt(at(order, LEVEL_NEXT), value);
    }

    void levelPrev(final int order, final int value)
    {
        records.putInt(at(order, LEVEL_PREV), value);
    }

    private void accountNext(final int order, final int value)
    {
        records.putInt(at(order, ACCOUNT_NEXT), value);
    }

    private void accountPrev(final int order, final int value)
    {
        records.putInt(at(order, ACCOUNT_PREV), value);
    }

    /**
     * Takes a filled quantity off both the open and the shown quantity and adds it to the filled.
     */
    void fill(final int order, final long quantityFilled)
    {
        final int record = order << RECORD_SHIFT;
        records.putLong(record + LEAVES, records.getLong(record + LEAVES) - quantityFilled);
        records.putLong(record + SHOWN, records.getLong(record + SHOWN) - quantityFilled);
        records.putLong(record + FILLED, records.getLong(record + FILLED) + quantityFilled);
    }
}
