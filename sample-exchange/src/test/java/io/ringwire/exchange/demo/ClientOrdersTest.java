package io.ringwire.exchange.demo;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A client's order tables alone, over plain arrays: acknowledgements taken once, endings checked. */
class ClientOrdersTest
{
    @Test
    void anOrderIsAcknowledgedOnceWithItsDueTimeAndASecondAcknowledgementIsADuplicate()
    {
        final ClientOrders orders = new ClientOrders();
        orders.sent(7, 1_000, false);
        orders.sent(8, 2_000, false);

        final int slot = orders.acknowledge(8);
        assertTrue(slot >= 0);
        assertEquals(2_000, orders.dueNs(slot));
        assertEquals(ClientOrders.DUPLICATE, orders.acknowledge(8));
        assertEquals(1_000, orders.dueNs(orders.acknowledge(7)));
    }

    @Test
    void anOrderNeverSentOrOverwrittenByOneASlotsLengthLaterIsNotWaiting()
    {
        final ClientOrders orders = new ClientOrders();
        assertEquals(ClientOrders.NOT_WAITING, orders.acknowledge(5));
        assertEquals(ClientOrders.NOT_WAITING, orders.acknowledge(0));

        orders.sent(5, 10, false);
        orders.sent(5 + ClientOrders.SLOTS, 20, false); // the same slot: the older order is no longer followed
        assertEquals(ClientOrders.NOT_WAITING, orders.acknowledge(5));
        assertEquals(20, orders.dueNs(orders.acknowledge(5 + ClientOrders.SLOTS)));
    }

    @Test
    void aSendAcrossAHoldIsTakenOnceAtItsAcknowledgement()
    {
        final ClientOrders orders = new ClientOrders();
        orders.sent(3, 0, true);
        orders.sent(4, 0, false);

        final int held = orders.acknowledge(3);
        assertTrue(orders.takeAcrossHold(held));
        assertFalse(orders.takeAcrossHold(held));
        assertFalse(orders.takeAcrossHold(orders.acknowledge(4)));
    }

    @Test
    void aSessionLossMarksEachWaitingOrderOnceAndTheMarkLeavesAtItsAcknowledgement()
    {
        final ClientOrders orders = new ClientOrders();
        orders.sent(1, 0, false);
        orders.sent(2, 0, false);
        orders.sent(3, 0, true); // counted across its hold already
        orders.sent(4, 0, false);
        final int answered = orders.acknowledge(4);

        assertEquals(2, orders.sessionLost(), "orders 1 and 2 waited");
        assertEquals(0, orders.sessionLost(), "a second loss marks none of them again");
        final int first = orders.acknowledge(1);
        assertTrue(orders.takeWaitedAtSessionLoss(first));
        assertFalse(orders.takeWaitedAtSessionLoss(first), "taken once");
        assertFalse(orders.takeWaitedAtSessionLoss(answered), "acknowledged before the loss");
        assertFalse(orders.takeWaitedAtSessionLoss(orders.acknowledge(3)), "counted across its hold instead");

        orders.sent(2 + ClientOrders.SLOTS, 0, false); // the slot of order 2, taken by a later order
        assertFalse(orders.takeWaitedAtSessionLoss(orders.acknowledge(2 + ClientOrders.SLOTS)),
            "a later order in the slot did not wait at the loss");
        orders.sent(5, 0, false);
        assertEquals(1, orders.sessionLost(), "at the next loss only order 5 waits");
    }

    @Test
    void anOrderReportedFilledAndCanceledIsAViolationWhileRepeatsOfOneEndingAreNot()
    {
        final ClientOrders orders = new ClientOrders();
        assertFalse(orders.ended(9, ClientOrders.FILLED));
        assertFalse(orders.ended(9, ClientOrders.FILLED));
        assertTrue(orders.ended(9, ClientOrders.CANCELED));

        assertFalse(orders.ended(10, ClientOrders.CANCELED));
        assertTrue(orders.ended(10, ClientOrders.FILLED));
        // A later order in the same slot starts clean.
        assertFalse(orders.ended(10 + ClientOrders.SLOTS, ClientOrders.FILLED));
    }
}
