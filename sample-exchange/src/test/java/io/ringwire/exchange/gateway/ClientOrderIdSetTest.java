package io.ringwire.exchange.gateway;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's set of a session's client order ids is an exact set (against the JDK's, over ids
 * numbered upward, at random, at the extremes and 0, with removals that shift probe runs back), puts
 * eight consecutive ids on one group of slots, places groups by its secret key, refuses to grow past
 * its capacity, and allocates nothing.
 */
class ClientOrderIdSetTest
{
    @Test
    void holdsWhatASetHoldsThroughAddsAndRemoves()
    {
        final int capacity = 4_096;
        final ClientOrderIdSet set = new ClientOrderIdSet(capacity, 42);
        final Set<Long> reference = new HashSet<>();
        final SplittableRandom random = new SplittableRandom(7);
        final long[] special = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE, 8, 7, 15, 16};
        long next = 1_000_000;
        for (int step = 0; step < 400_000; step++)
        {
            final int what = random.nextInt(10);
            final long id;
            if (what < 4)
            {
                id = next++; // a member numbering upward
            }
            else if (what < 6)
            {
                id = random.nextLong();
            }
            else if (what < 7)
            {
                id = special[random.nextInt(special.length)];
            }
            else
            {
                id = next - 1 - random.nextInt(64); // one of the last few: a duplicate, or one removed
            }
            if (random.nextInt(3) == 0 || reference.size() >= capacity)
            {
                assertEquals(reference.remove(id), set.remove(id), "remove " + id + " at step " + step);
            }
            else
            {
                assertEquals(reference.add(id), set.add(id), "add " + id + " at step " + step);
            }
            final long probe = random.nextInt(4) == 0 ? random.nextLong() : next - 1 - random.nextInt(128);
            assertEquals(reference.contains(probe), set.contains(probe), "contains " + probe + " at step " + step);
            assertEquals(reference.size(), set.size(), "size at step " + step);
        }
        for (final long id : reference)
        {
            assertTrue(set.contains(id), "holds " + id);
        }
    }

    @Test
    void eightConsecutiveIdsShareAGroupAndTheKeyPlacesTheGroups()
    {
        final ClientOrderIdSet one = new ClientOrderIdSet(1 << 16, 1);
        final ClientOrderIdSet other = new ClientOrderIdSet(1 << 16, 2);
        int placedAlike = 0;
        for (long group = 0; group < 1_000; group++)
        {
            final long first = 1_000_000 + group * 8;
            for (int i = 1; i < 8; i++)
            {
                // 2^17 slots: twice the capacity, a power of two
                assertEquals((one.homeSlot(first) + i) & ((1 << 17) - 1), one.homeSlot(first + i), "id " + (first + i));
            }
            placedAlike += one.homeSlot(first) == other.homeSlot(first) ? 1 : 0;
        }
        assertTrue(placedAlike < 10, "groups placed alike under two keys: " + placedAlike + " of 1000");
    }

    @Test
    void refusesToGrowPastItsCapacity()
    {
        final ClientOrderIdSet set = new ClientOrderIdSet(100, 3);
        for (long id = 0; id < 100; id++)
        {
            assertTrue(set.add(id));
        }
        assertFalse(set.add(50), "held already");
        assertThrows(IllegalStateException.class, () -> set.add(100));
        assertTrue(set.remove(0));
        assertTrue(set.add(100), "room again after a removal");
        assertEquals(100, set.size());
        assertThrows(IllegalArgumentException.class, () -> new ClientOrderIdSet(ClientOrderIdSet.MAX_CAPACITY + 1, 3));
        assertThrows(IllegalArgumentException.class, () -> new ClientOrderIdSet(0, 3));
    }

    @Test
    void addingLookingUpAndRemovingAllocateNothing()
    {
        final ClientOrderIdSet set = new ClientOrderIdSet(1 << 16, 5);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        long smallest = Long.MAX_VALUE;
        for (int window = 0; window < 5 && smallest > 0; window++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (long id = 1; id < 50_000; id++)
            {
                if (!set.contains(id))
                {
                    set.add(id);
                }
            }
            for (long id = 1; id < 50_000; id++)
            {
                set.remove(id);
            }
            smallest = Math.min(smallest, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertEquals(0, smallest, "bytes allocated in the quietest window");
    }
}
