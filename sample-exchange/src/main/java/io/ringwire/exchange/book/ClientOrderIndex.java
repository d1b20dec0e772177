package io.ringwire.exchange.book;

import java.security.SecureRandom;
import java.util.Arrays;

import static io.ringwire.exchange.book.OrderStore.NONE;

/**
 * Finds a live order by its account and client order id: an open-addressing hash table with
 * linear probing, sized at start for every order the book can hold at no more than two-thirds load,
 * that deletes by shifting later entries back (no tombstones, so probes stay short however long it
 * runs).
 *
 * <p>An entry is one int: the order's slot in its low bits, and in the rest how far the entry sits
 * past its home slot (its probe's start). The key itself is not kept here but read from the order's
 * record, which the caller reads next anyway; the displacement tells, without reading a record,
 * whether an entry shares the sought key's home slot (only those are compared), and gives an
 * entry's home when a delete shifts it back. An entry too far from home for its bits (a long
 * cluster; rare at this load under a keyed hash) holds {@link #far} instead, and its home is then
 * hashed from its record. Four bytes an entry keep the table small: it is what a book of many
 * instruments misses the cache on first, and a table twice the size costs measurably more there.
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
    /** An empty slot: every bit set, which no entry is (an order's bits are never all set). */
    private static final int EMPTY = -1;

    private final int[] entries;
    private final int mask;
    private final OrderStore orders;
    private final long key;
    /** Bits of an entry that hold the order's slot. */
    private final int orderBits;
    private final int orderMask;
    /** The displacement that means "this far or farther: hash the record for the home". */
    private final int far;

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
        this(capacity, orders, key, 32 - Integer.numberOfLeadingZeros(Math.max(1, capacity)));
    }

    /**
     * @param orderBits bits an entry gives the order's slot: enough that {@code capacity} is below
     *                  2^orderBits (a test gives more, to leave few for the displacement).
     */
    ClientOrderIndex(final int capacity, final OrderStore orders, final long key, final int orderBits)
    {
        if (orderBits < 1 || orderBits > 31 || Math.max(1, capacity) >= 1L << orderBits)
        {
            throw new IllegalArgumentException("order bits must hold slots up to the capacity: " + orderBits);
        }
        this.key = key;
        this.orderBits = orderBits;
        orderMask = (1 << orderBits) - 1;
        far = -1 >>> orderBits;
        final int slots = slotsFor(capacity);
        entries = new int[slots];
        Arrays.fill(entries, EMPTY);
        mask = slots - 1;
        this.orders = orders;
    }

    /**
     * @return slots a table for this many entries has: the power of two at or above one and a half
     *         times it, so that it is never more than two-thirds full.
     */
    static int slotsFor(final int capacity)
    {
        final long entries = Math.max(1, capacity);
        final long wanted = Math.max(2, entries + (entries + 1) / 2);
        return Integer.highestOneBit((int)Math.min(1 << 30, wanted * 2 - 1));
    }

    /**
     * @return the order with this key, or {@link OrderStore#NONE}.
     */
    int get(final long account, final long clientOrderId)
    {
        final int home = hash(account, clientOrderId) & mask;
        int slot = home;
        while (true)
        {
            final int entry = entries[slot];
            if (entry == EMPTY)
            {
                return NONE;
            }
            final int displacement = entry >>> orderBits;
            if (((slot - displacement) & mask) == home || displacement == far)
            {
                final int order = entry & orderMask;
                if (orders.clientOrderId(order) == clientOrderId && orders.account(order) == account)
                {
                    return order;
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    /**
     * Adds a key that is not in the table.
     */
    void put(final long account, final long clientOrderId, final int order)
    {
        final int home = hash(account, clientOrderId) & mask;
        int slot = home;
        while (entries[slot] != EMPTY)
        {
            slot = (slot + 1) & mask;
        }
        entries[slot] = entry(order, (slot - home) & mask);
    }

    /**
     * Removes an order's entry under the key it was put with, moving back the entries of its probe
     * run that may no longer be found past the hole.
     */
    void remove(final long account, final long clientOrderId, final int order)
    {
        int hole = hash(account, clientOrderId) & mask;
        while ((entries[hole] & orderMask) != order)
        {
            hole = (hole + 1) & mask;
        }
        int slot = (hole + 1) & mask;
        int entry;
        while ((entry = entries[slot]) != EMPTY)
        {
            final int displacement = entry >>> orderBits;
            final int home = displacement != far ? (slot - displacement) & mask : farHome(entry & orderMask);
            // The entry may fill the hole when its home is not in the cyclic range (hole, slot].
            if (((slot - home) & mask) >= ((slot - hole) & mask))
            {
                entries[hole] = entry(entry & orderMask, (hole - home) & mask);
                hole = slot;
            }
            slot = (slot + 1) & mask;
        }
        entries[hole] = EMPTY;
    }

    /** The home of an entry too far from it for its bits: out of line, as it is rare. */
    private int farHome(final int order)
    {
        return hash(orders.account(order), orders.clientOrderId(order)) & mask;
    }

    private int entry(final int order, final int displacement)
    {
        return (Math.min(displacement, far) << orderBits) | order;
    }

    /** @return the slot a key's probe starts at (for tests). */
    int homeSlot(final long account, final long clientOrderId)
    {
        return hash(account, clientOrderId) & mask;
    }

    /** @return slots in the table (for tests). */
    int slots()
    {
        return entries.length;
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
