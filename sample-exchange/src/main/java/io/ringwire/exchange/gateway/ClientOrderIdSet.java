package io.ringwire.exchange.gateway;

import org.agrona.UnsafeApi;

import java.security.SecureRandom;

/**
 * The client order ids one session used in this gateway process's life: an exact set of longs, an
 * open-addressing table with linear probing, sized at start for every id the session may use at
 * half load, that deletes by shifting later entries back (no tombstones, so probes stay short
 * however long it runs).
 *
 * <p>Locality: members mostly number their orders upward, and every new order's id is looked up and
 * then added. With each id hashed to a slot of its own, a table of millions of slots costs a cache
 * miss a request (on a server, a TLB miss too), on the thread every member's requests share. Here
 * the eight ids that differ only in their three low bits share a group of eight slots, one cache
 * line, placed by the hash of the other bits: a session numbering upward misses once in eight ids.
 *
 * <p>The group's place is hashed with a secret drawn for each set: ids are the members' choice, and
 * with a known hash a member could choose ids whose groups share a place, making every lookup walk
 * that cluster on the gateway's thread. A member can put no more than eight ids into one group.
 *
 * <p>Threading: the gateway's. Allocation-free after construction.
 */
final class ClientOrderIdSet
{
    private static final int GROUP_BITS = 3;
    private static final int GROUP = 1 << GROUP_BITS;
    /**
     * Where a group starts so that it fills one cache line where the table starts a line, as a G1
     * humongous object (half a heap region or more) starts its region; elsewhere a group may
     * straddle two lines, which costs speed only.
     */
    private static final int LINE_START = ((64 - UnsafeApi.arrayBaseOffset(long[].class) % 64) / Long.BYTES) % GROUP;
    /** The most ids a set holds: its table is then 2^29 longs. */
    static final int MAX_CAPACITY = 1 << 28;
    /** An empty slot; the id 0 is kept apart ({@link #containsZero}). */
    private static final long EMPTY = 0;

    private final long[] slots;
    private final int mask;
    private final int limit;
    private final long key;
    private boolean containsZero;
    private int size;

    /**
     * @param capacity most ids it will hold at once.
     */
    ClientOrderIdSet(final int capacity)
    {
        this(capacity, new SecureRandom().nextLong());
    }

    /**
     * @param capacity most ids it will hold at once.
     * @param key      the hash's key (a test's fixed one; otherwise secret and random).
     */
    ClientOrderIdSet(final int capacity, final long key)
    {
        if (capacity < 1 || capacity > MAX_CAPACITY)
        {
            throw new IllegalArgumentException("client order id set: capacity must be 1 to 2^28: " + capacity);
        }
        final int length = Integer.highestOneBit(Math.max(GROUP, capacity) * 2 - 1) << 1;
        slots = new long[length];
        mask = length - 1;
        limit = Math.max(GROUP, capacity);
        this.key = key;
    }

    /** @return whether the set holds the id. */
    boolean contains(final long id)
    {
        if (id == EMPTY)
        {
            return containsZero;
        }
        return find(id) >= 0;
    }

    /**
     * Adds an id. The caller keeps the set within its capacity ({@link #size()}).
     *
     * @return false where the set held it already.
     * @throws IllegalStateException where the set holds its capacity already.
     */
    boolean add(final long id)
    {
        if (id == EMPTY)
        {
            if (containsZero)
            {
                return false;
            }
            checkRoom();
            containsZero = true;
            size++;
            return true;
        }
        final int slot = find(id);
        if (slot >= 0)
        {
            return false;
        }
        checkRoom();
        slots[~slot] = id;
        size++;
        return true;
    }

    /**
     * Removes an id, moving back the entries of its probe run that may no longer be found past the
     * hole.
     *
     * @return false where the set did not hold it.
     */
    boolean remove(final long id)
    {
        if (id == EMPTY)
        {
            final boolean held = containsZero;
            containsZero = false;
            size -= held ? 1 : 0;
            return held;
        }
        int hole = find(id);
        if (hole < 0)
        {
            return false;
        }
        long entry;
        int slot = (hole + 1) & mask;
        while ((entry = slots[slot]) != EMPTY)
        {
            // The entry may fill the hole when its home is not in the cyclic range (hole, slot].
            if (((slot - home(entry)) & mask) >= ((slot - hole) & mask))
            {
                slots[hole] = entry;
                hole = slot;
            }
            slot = (slot + 1) & mask;
        }
        slots[hole] = EMPTY;
        size--;
        return true;
    }

    /** @return ids held. */
    int size()
    {
        return size;
    }

    /** @return the slot an id's probe starts at (for tests). */
    int homeSlot(final long id)
    {
        return home(id);
    }

    /**
     * @param id not {@link #EMPTY}.
     * @return the slot holding the id, or the complement ({@code ~slot}, negative) of the empty
     *         slot that ends its probe, where it would go.
     */
    private int find(final long id)
    {
        int slot = home(id);
        long entry;
        while ((entry = slots[slot]) != id)
        {
            if (entry == EMPTY)
            {
                return ~slot;
            }
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private void checkRoom()
    {
        if (size >= limit)
        {
            throw new IllegalStateException("client order id set full: " + size + " ids");
        }
    }

    private int home(final long id)
    {
        // The key enters before the first multiply: which groups share a place depends on it.
        long h = ((id >>> GROUP_BITS) ^ key) * 0xC2B2_AE3D_27D4_EB4FL;
        h ^= h >>> 31;
        h *= 0xBF58_476D_1CE4_E5B9L;
        h ^= h >>> 32;
        return (int)((h << GROUP_BITS) + LINE_START + (id & (GROUP - 1))) & mask;
    }
}
