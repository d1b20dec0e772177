package io.ringwire.exchange.book;

import org.junit.jupiter.api.Test;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client-order-id index finds exactly the live orders through any sequence of adds, removes and
 * re-keys, whether entries sit near their home slot or farther than their displacement bits say;
 * its hash is keyed: ids a member found to share one home slot under one key (what it could do
 * against a fixed hash, and then slow every lookup) spread under another, and every index draws its
 * own key.
 */
class ClientOrderIndexTest
{
    private static final long ACCOUNT = 700;

    /**
     * @param orderBits 0: as the store sizes it; more: leaves the displacement so few bits that many
     *                  entries are "far" and their homes are hashed from their records.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 29, 31})
    void findsExactlyTheLiveOrdersThroughAddsRemovesAndReKeysAtFullCapacity(final int orderBits)
    {
        // 4,096 slots: full, the table is two-thirds loaded, its most.
        final int capacity = 2_730;
        final OrderStore orders = new OrderStore(capacity, 16);
        final ClientOrderIndex index = 0 == orderBits ? new ClientOrderIndex(capacity, orders, 42) :
            new ClientOrderIndex(capacity, orders, 42, orderBits);
        assertEquals(4_096, index.slots());
        final List<Integer> live = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(7);
        long nextId = 1;
        long removedAccount = 0;
        long removedId = 0;
        int fullAt = 0;
        for (int step = 0; step < 200_000; step++)
        {
            final int action = random.nextInt(10);
            if (live.size() < capacity && (action < 5 || live.isEmpty()))
            {
                final int order = orders.allocate();
                final long account = 1 + random.nextInt(4);
                orders.terms(order, order, nextId, account, 1, (byte)1, (byte)2, (byte)0, (byte)0, false, 100, 10, 10);
                index.put(account, nextId++, order);
                live.add(order);
                fullAt += live.size() == capacity ? 1 : 0;
            }
            else
            {
                final int at = random.nextInt(live.size());
                final int order = live.get(at);
                removedAccount = orders.account(order);
                removedId = orders.clientOrderId(order);
                index.remove(removedAccount, removedId, order);
                if (action < 8)
                {
                    live.set(at, live.getLast());
                    live.removeLast();
                    orders.free(order);
                }
                else
                {
                    orders.clientOrderId(order, nextId);
                    index.put(removedAccount, nextId++, order);
                }
            }
            if (step % 1_000 == 0 || step == 199_999)
            {
                for (final int each : live)
                {
                    assertEquals(each, index.get(orders.account(each), orders.clientOrderId(each)));
                }
                assertEquals(OrderStore.NONE, index.get(1, nextId), "an id never used");
                assertEquals(OrderStore.NONE, index.get(removedAccount, removedId), "an id taken out");
            }
        }
        assertTrue(fullAt > 0, "the table was filled to the store's capacity");
    }

    @Test
    void aClusterOfOneHomeSlotLongerThanTheDisplacementBitsAndWrappingIsStillFoundAndShiftsBack()
    {
        final int capacity = 1_000;
        final OrderStore orders = new OrderStore(capacity, 4);
        final ClientOrderIndex index = new ClientOrderIndex(capacity, orders, 0x1234_5678_9ABC_DEF0L, 29);
        final List<Integer> cluster = new ArrayList<>();
        for (long id = 1; cluster.size() < 20; id++)
        {
            if (index.homeSlot(ACCOUNT, id) == index.slots() - 3)
            {
                final int order = orders.allocate();
                orders.terms(order, order, id, ACCOUNT, 1, (byte)1, (byte)2, (byte)0, (byte)0, false, 100, 10, 10);
                index.put(ACCOUNT, id, order);
                cluster.add(order);
            }
        }
        // The cluster wraps past the table's end after three entries, and displacements past 6 do
        // not fit three bits: entries 7 to 19 are far. Take out the front one by one; every entry
        // behind shifts back, across the wrap, and each is still found.
        while (!cluster.isEmpty())
        {
            final int first = cluster.removeFirst();
            index.remove(ACCOUNT, orders.clientOrderId(first), first);
            assertEquals(OrderStore.NONE, index.get(ACCOUNT, orders.clientOrderId(first)));
            for (final int order : cluster)
            {
                assertEquals(order, index.get(ACCOUNT, orders.clientOrderId(order)));
            }
        }
    }

    @Test
    void idsThatShareAHomeSlotUnderOneKeySpreadUnderAnother()
    {
        final ClientOrderIndex known = new ClientOrderIndex(64, null, 0x1234_5678_9ABC_DEF0L);
        final List<Long> cluster = new ArrayList<>();
        for (long id = 1; cluster.size() < 40; id++)
        {
            if (known.homeSlot(ACCOUNT, id) == 0)
            {
                cluster.add(id);
            }
        }

        final ClientOrderIndex secret = new ClientOrderIndex(64, null, 0x0FED_CBA9_8765_4321L);
        final Map<Integer, Integer> perSlot = new HashMap<>();
        for (final long id : cluster)
        {
            perSlot.merge(secret.homeSlot(ACCOUNT, id), 1, Integer::sum);
        }
        final int mostInOneSlot = perSlot.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        assertTrue(mostInOneSlot <= 4, "40 ids of one home slot under the first key, " + mostInOneSlot +
            " of them in one slot under the second (" + perSlot.size() + " slots in all)");
    }

    @Test
    void eachIndexDrawsItsOwnKey()
    {
        final ClientOrderIndex first = new ClientOrderIndex(1 << 16, null);
        final ClientOrderIndex second = new ClientOrderIndex(1 << 16, null);
        int sameSlot = 0;
        for (long id = 1; id <= 64; id++)
        {
            if (first.homeSlot(ACCOUNT, id) == second.homeSlot(ACCOUNT, id))
            {
                sameSlot++;
            }
        }
        // Two keys alike would put all 64 in the same slots; two apart, none or one in 2^17 slots.
        assertNotEquals(64, sameSlot);
        assertTrue(sameSlot <= 2, sameSlot + " of 64 ids had the same home slot in both");
    }
}
