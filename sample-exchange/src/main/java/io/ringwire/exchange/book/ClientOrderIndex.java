package io.ringwire.exchange.book;

import java.security.SecureRandom;
import java.util.Arrays;

import static io.ringwire.exchange.book.OrderStore.NONE;

/**
 * Finds a live order by its account and client order id: an open-addressing hash table with
 * linear probing, sized at start for every order the book can hold at half load, that deletes by
 * shifting later entries back (no tombstones, so probes stay short however long it runs).
 *
 * <p>An entry is one long: the key's 32-bit hash and the order's slot. The key itself is not kept
 * here but read from the order's record, which the caller reads next anyway, so a lookup costs one
 * line of this table and the record, and the table is a third of what keys in it would make it
 * (it is what a book of many instruments misses the cache on first). The hash also gives an
 * entry's home slot when a delete shifts it back, without reading its record.
 *
 * <p>The hash is keyed with a secret drawn for each table: client order ids are the members' own
 * choice, and with a fixed, invertible hash one member could choose ids that share a home slot,
 * making every lookup in the run, every member's, walk that cluster. Where an entry sits never shows
 * in the output (nothing iterates the table), so the engine stays deterministic whatever the key.
 *
 * <p>Threading: the engine's thread. Allocation-free after construction.
 */
final class ClientOrderIndex
{
    private static final long EMPTY = -1L;

    private final long[] entries;
    private final int mask;
    private final OrderStore orders;
    private final long key;

    /**
     * @param capacity most entries it will hold at once.
     * @param orders   the records the keys are read from.
     */
    ClientOrderIndex(final int capacity, final OrderStore orders)
    {
        this(capacity, orders, new SecureRandom().nextLong());
    }

    /**
     * @param key the hash's key (a test's fixed one; otherwise secret and random).
     */
    ClientOrderIndex(final int capacity, final OrderStore orders, final long key)
    {
        this.key = key;
        final int slots = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
        entries = new long[slots];
        Arrays.fill(entries, EMPTY);
        mask = slots - 1;
        this.orders = orders;
    }

    /**
     * @return the order with this key, or {@link OrderStore#NONE}.
     */
    int get(final long account, final long clientOrderId)
    {
        final int hash = hash(account, clientOrderId);
        int slot = hash & mask;
        while (true)
        {
            final long entry = entries[slot];
            if (entry == EMPTY)
            {
                return NONE;
            }
            final int order = (int)entry;
            if ((int)(entry >>> 32) == hash && orders.clientOrderId(order) == clientOrderId &&
                orders.account(order) == account)
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
        final int hash = hash(account, clientOrderId);
        int slot = hash & mask;
        while (entries[slot] != EMPTY)
        {
            slot = (slot + 1) & mask;
        }
        entries[slot] = entry(hash, order);
    }

    /**
     * Removes an order's entry under the key it was put with, moving back the entries of its probe
     * run that may no longer be found past the hole.
     */
    void remove(final long account, final long clientOrderId, final int order)
    {
        final long removed = entry(hash(account, clientOrderId), order);
        int hole = (int)(removed >>> 32) & mask;
        while (entries[hole] != removed)
        {
            hole = (hole + 1) & mask;
        }
        int slot = (hole + 1) & mask;
        long entry;
        while ((entry = entries[slot]) != EMPTY)
        {
            final int home = (int)(entry >>> 32) & mask;
            // The entry may fill the hole when its home is not in the cyclic range (hole, slot].
            if (((slot - home) & mask) >= ((slot - hole) & mask))
            {
                entries[hole] = entry;
                hole = slot;
            }
            slot = (slot + 1) & mask;
        }
        entries[hole] = EMPTY;
    }

    private static long entry(final int hash, final int order)
    {
        return ((long)hash << 32) | (order & 0xFFFF_FFFFL);
    }

    /** @return the slot a key's probe starts at (for tests). */
    int homeSlot(final long account, final long clientOrderId)
    {
        return hash(account, clientOrderId) & mask;
    }

    private int hash(final long account, final long clientOrderId)
    {
        // The key enters before the first multiply and shift: which ids share low bits after them
        // depends on it, so they cannot be chosen without it.
        long h = (clientOrderId ^ key) * 0xC2B2_AE3D_27D4_EB4FL;
        h ^= h >>> 31;
        h ^= account * 0x9E37_79B9_7F4A_7C15L;
        h ^= h >>> 29;
        h *= 0xBF58_476D_1CE4_E5B9L;
        return (int)(h ^ (h >>> 32));
    }
}
