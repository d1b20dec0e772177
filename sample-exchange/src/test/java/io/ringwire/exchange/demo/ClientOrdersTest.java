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
