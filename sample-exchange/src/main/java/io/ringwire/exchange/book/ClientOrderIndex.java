package io.ringwire.exchange.book;

import java.util.Arrays;

/**
 * Finds a live order by its account and client order id: an open-addressing hash table with
 * linear probing, sized at start for every order the book can hold at half load, that deletes by
 * shifting later entries back (no tombstones, so probes stay short however long it runs).
 *
 * <p>Threading: the engine's thread. Allocation-free after construction.
 */
final class ClientOrderIndex
{
    private static final int EMPTY = -1;

    private final long[] accounts;
    private final long[] clientOrderIds;
    private final int[] orders;
    private final int mask;

    /**
     * @param capacity most entries it will hold at once.
     */
    ClientOrderIndex(final int capacity)
    {
        final int slots = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
        accounts = new long[slots];
        clientOrderIds = new long[slots];
        orders = new int[slots];
        Arrays.fill(orders, EMPTY);
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
            final int order = orders[slot];
            if (order == EMPTY)
            {
                return EMPTY;
            }
            if (accounts[slot] == account && clientOrderIds[slot] == clientOrderId)
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
        while (orders[slot] != EMPTY)
        {
            slot = (slot + 1) & mask;
        }
        accounts[slot] = account;
        clientOrderIds[slot] = clientOrderId;
        orders[slot] = order;
    }

    /**
     * Removes a key that is in the table, moving back the entries of its probe run that may no
     * longer be found past the hole.
     */
    void remove(final long account, final long clientOrderId)
    {
        int hole = hash(account, clientOrderId) & mask;
        while (accounts[hole] != account || clientOrderIds[hole] != clientOrderId || orders[hole] == EMPTY)
        {
            hole = (hole + 1) & mask;
        }
        int slot = (hole + 1) & mask;
        while (orders[slot] != EMPTY)
        {
            final int home = hash(accounts[slot], clientOrderIds[slot]) & mask;
            // The entry may fill the hole when its home is not in the cyclic range (hole, slot].
            if (((slot - home) & mask) >= ((slot - hole) & mask))
            {
                accounts[hole] = accounts[slot];
                clientOrderIds[hole] = clientOrderIds[slot];
                orders[hole] = orders[slot];
                hole = slot;
            }
            slot = (slot + 1) & mask;
        }
        orders[hole] = EMPTY;
    }

    private static int hash(final long account, final long clientOrderId)
    {
        long h = account * 0x9E37_79B9_7F4A_7C15L ^ clientOrderId * 0xC2B2_AE3D_27D4_EB4FL;
        h ^= h >>> 29;
        h *= 0xBF58_476D_1CE4_E5B9L;
        return (int)(h ^ (h >>> 32));
    }
}
