package io.ringwire.exchange.book;

/**
 * Finds a live order by its account and client order id: an open-addressing hash table with
 * linear probing, sized at start for every order the book can hold at half load, that deletes by
 * shifting later entries back (no tombstones, so probes stay short however long it runs). An
 * entry's three values (account, client order id, order) lie side by side in one array, so a
 * probe reads one cache line, not one per value.
 *
 * <p>Threading: the engine's thread. Allocation-free after construction.
 */
final class ClientOrderIndex
{
    /** Longs per entry: account, client order id, order. */
    static final int ENTRY_LONGS = 3;
    private static final int ACCOUNT = 0;
    private static final int CLIENT_ORDER_ID = 1;
    private static final int ORDER = 2;
    private static final int EMPTY = -1;

    private final long[] entries;
    private final int mask;

    /**
     * @param capacity most entries it will hold at once.
     */
    ClientOrderIndex(final int capacity)
    {
        final int slots = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
        entries = new long[slots * ENTRY_LONGS];
        for (int slot = 0; slot < slots; slot++)
        {
            entries[slot * ENTRY_LONGS + ORDER] = EMPTY;
        }
        mask = slots - 1;
    }

    /**
     * @return the order with this key, or -1.
     */
    int get(final long account, final long clientOrderId)
    {
        int slot = hash(account, clientOrderId) & mask;
        while (true)
        {
            final int at = slot * ENTRY_LONGS;
            final int order = (int)entries[at + ORDER];
            if (order == EMPTY)
            {
                return EMPTY;
            }
            if (entries[at + ACCOUNT] == account && entries[at + CLIENT_ORDER_ID] == clientOrderId)
            {
                return order;
            }
            slot = (slot + 1) & mask;
        }
    }

    /**
     * Adds a key that is not in the table.
     */
    void put(final long account, final long clientOrderId, final int order)
    {
        int slot = hash(account, clientOrderId) & mask;
        while (entries[slot * ENTRY_LONGS + ORDER] != EMPTY)
        {
            slot = (slot + 1) & mask;
        }
        final int at = slot * ENTRY_LONGS;
        entries[at + ACCOUNT] = account;
        entries[at + CLIENT_ORDER_ID] = clientOrderId;
        entries[at + ORDER] = order;
    }

    /**
     * Removes a key that is in the table, moving back the entries of its probe run that may no
     * longer be found past the hole.
     */
    void remove(final long account, final long clientOrderId)
    {
        int hole = hash(account, clientOrderId) & mask;
        while (entries[hole * ENTRY_LONGS + ACCOUNT] != account ||
            entries[hole * ENTRY_LONGS + CLIENT_ORDER_ID] != clientOrderId ||
            entries[hole * ENTRY_LONGS + ORDER] == EMPTY)
        {
            hole = (hole + 1) & mask;
        }
        int slot = (hole + 1) & mask;
        while (entries[slot * ENTRY_LONGS + ORDER] != EMPTY)
        {
            final int at = slot * ENTRY_LONGS;
            final int home = hash(entries[at + ACCOUNT], entries[at + CLIENT_ORDER_ID]) & mask;
            // The entry may fill the hole when its home is not in the cyclic range (hole, slot].
            if (((slot - home) & mask) >= ((slot - hole) & mask))
            {
                System.arraycopy(entries, at, entries, hole * ENTRY_LONGS, ENTRY_LONGS);
                hole = slot;
            }
            slot = (slot + 1) & mask;
        }
        entries[hole * ENTRY_LONGS + ORDER] = EMPTY;
    }

    private static int hash(final long account, final long clientOrderId)
    {
        long h = account * 0x9E37_79B9_7F4A_7C15L ^ clientOrderId * 0xC2B2_AE3D_27D4_EB4FL;
        h ^= h >>> 29;
        h *= 0xBF58_476D_1CE4_E5B9L;
        return (int)(h ^ (h >>> 32));
    }
}
