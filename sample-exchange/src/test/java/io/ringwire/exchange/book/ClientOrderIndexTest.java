package io.ringwire.exchange.book;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client-order-id index's hash is keyed: ids a member found to share one home slot under one
 * key (what it could do against a fixed hash, and then slow every lookup) spread under another, and
 * every index draws its own key.
 */
class ClientOrderIndexTest
{
    private static final long ACCOUNT = 700;

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
