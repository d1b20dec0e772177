package io.ringwire.exchange.book;

import org.agrona.collections.Long2LongHashMap;

/**
 * Every order the book holds, as columns of primitive arrays indexed by an order slot (no object
 * per order, nothing boxed), allocated once at start for {@code capacity} orders. Besides the
 * order's terms and state, a slot links the order into two lists: its price level's queue
 * (time priority) and its account's resting orders (in order id order, for mass cancel). The
 * store finds a resting order by account and client order id.
 *
 * <p>Memory: {@link #BYTES_PER_ORDER} bytes per order slot, plus the index (two longs and an int
 * per slot at half load) and the account table.
 *
 * <p>Threading: the engine's thread. Allocation-free after construction.
 */
public final class OrderStore
{
    /** No order: the end of a list, or a failed allocation. */
    public static final int NONE = -1;
    /** Bytes of the arrays per order slot: 10 longs, 6 ints, 5 bytes. */
    public static final int BYTES_PER_ORDER = 10 * 8 + 6 * 4 + 5;

    final long[] orderId;
    final long[] clientOrderId;
    final long[] account;
    final long[] price;
    /** The order's total quantity (replace sets it anew). */
    final long[] quantity;
    /** Quantity still open. */
    final long[] leaves;
    /** Of the open quantity, what the book shows (all of it but for an iceberg). */
    final long[] shown;
    /** An iceberg's display quantity; 0 for an order that shows everything. */
    final long[] peak;
    /** Quantity filled so far. */
    final long[] filled;
    /** When the order joined the back of its level (a book-wide counter): its time priority. */
    final long[] priority;
    final int[] instrument;
    final int[] slot;
    final int[] levelNext;
    final int[] levelPrev;
    final int[] accountNext;
    final int[] accountPrev;
    final byte[] side;
    final byte[] ordType;
    final byte[] timeInForce;
    final byte[] selfTradePrevention;
    final byte[] postOnly;

    private final int capacity;
    private final ClientOrderIndex index;
    /** Account to its list of resting orders: head in the high 32 bits, tail in the low. */
    private final Long2LongHashMap accounts;
    private final int maxAccounts;
    private int freeHead;
    private int live;

    /**
     * @param capacity    orders the store holds at once.
     * @param maxAccounts accounts with resting orders at once.
     */
    public OrderStore(final int capacity, final int maxAccounts)
    {
        if (capacity < 1 || maxAccounts < 1)
        {
            throw new IllegalArgumentException("order and account capacity must be at least 1");
        }
        this.capacity = capacity;
        this.maxAccounts = maxAccounts;
        orderId = new long[capacity];
        clientOrderId = new long[capacity];
        account = new long[capacity];
        price = new long[capacity];
        quantity = new long[capacity];
        leaves = new long[capacity];
        shown = new long[capacity];
        peak = new long[capacity];
        filled = new long[capacity];
        priority = new long[capacity];
        instrument = new int[capacity];
        slot = new int[capacity];
        levelNext = new int[capacity];
        levelPrev = new int[capacity];
        accountNext = new int[capacity];
        accountPrev = new int[capacity];
        side = new byte[capacity];
        ordType = new byte[capacity];
        timeInForce = new byte[capacity];
        selfTradePrevention = new byte[capacity];
        postOnly = new byte[capacity];
        index = new ClientOrderIndex(capacity);
        // Sized so that maxAccounts entries never make the table grow (it grows past 0.5 load).
        accounts = new Long2LongHashMap(Integer.highestOneBit(maxAccounts * 2 - 1) << 1, 0.5f, -1L);
        for (int i = 0; i < capacity; i++)
        {
            levelNext[i] = i + 1 < capacity ? i + 1 : NONE;
        }
        freeHead = 0;
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
        final int order = freeHead;
        if (order != NONE)
        {
            freeHead = levelNext[order];
            levelNext[order] = NONE;
            levelPrev[order] = NONE;
            accountNext[order] = NONE;
            accountPrev[order] = NONE;
            live++;
        }
        return order;
    }

    /** Returns a slot that is in no list and no index. */
    void free(final int order)
    {
        levelNext[order] = freeHead;
        freeHead = order;
        live--;
    }

    /** @return whether a slot is free for a new order. */
    boolean hasRoom()
    {
        return freeHead != NONE;
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
        index.put(account[order], clientOrderId[order], order);
        final long accountId = account[order];
        final long ends = accounts.get(accountId);
        if (ends == -1L)
        {
            accounts.put(accountId, pack(order, order));
        }
        else
        {
            final int tail = (int)ends;
            accountNext[tail] = order;
            accountPrev[order] = tail;
            accounts.put(accountId, pack((int)(ends >>> 32), order));
        }
    }

    /** Takes a resting order out of the index and its account's list. */
    void unregister(final int order)
    {
        index.remove(account[order], clientOrderId[order]);
        final int previous = accountPrev[order];
        final int next = accountNext[order];
        if (previous != NONE)
        {
            accountNext[previous] = next;
        }
        if (next != NONE)
        {
            accountPrev[next] = previous;
        }
        if (previous == NONE || next == NONE)
        {
            final long accountId = account[order];
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
        accountNext[order] = NONE;
        accountPrev[order] = NONE;
    }

    /** Gives a registered order a new client order id. */
    void rekey(final int order, final long newClientOrderId)
    {
        index.remove(account[order], clientOrderId[order]);
        clientOrderId[order] = newClientOrderId;
        index.put(account[order], newClientOrderId, order);
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

    // ---------------------------------------------------------------- read access for the engine

    public long orderId(final int order)
    {
        return orderId[order];
    }

    public long clientOrderId(final int order)
    {
        return clientOrderId[order];
    }

    public long account(final int order)
    {
        return account[order];
    }

    public long price(final int order)
    {
        return price[order];
    }

    public long quantity(final int order)
    {
        return quantity[order];
    }

    public long leaves(final int order)
    {
        return leaves[order];
    }

    public long shown(final int order)
    {
        return shown[order];
    }

    public long peak(final int order)
    {
        return peak[order];
    }

    public long filled(final int order)
    {
        return filled[order];
    }

    public long priority(final int order)
    {
        return priority[order];
    }

    public int instrument(final int order)
    {
        return instrument[order];
    }

    public byte side(final int order)
    {
        return side[order];
    }

    public byte ordType(final int order)
    {
        return ordType[order];
    }

    public byte timeInForce(final int order)
    {
        return timeInForce[order];
    }

    public byte selfTradePrevention(final int order)
    {
        return selfTradePrevention[order];
    }

    public boolean postOnly(final int order)
    {
        return postOnly[order] != 0;
    }
}
