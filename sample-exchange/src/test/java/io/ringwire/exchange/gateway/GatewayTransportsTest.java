package io.ringwire.exchange.gateway;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gateway's connection table, pure: the duty cycle walks the slots below
 * {@link GatewayTransports#slotsTouched()}, which covers every connection and stays at the peak
 * count however connections come and go, and a slot freed is not in use until reused.
 */
class GatewayTransportsTest
{
    @Test
    void theSlotsWalkedCoverEveryConnectionAndStayAtThePeakCount()
    {
        final GatewayTransports transports = new GatewayTransports(256);
        assertEquals(0, transports.slotsTouched(), "no connection, nothing to walk");
        final int[] slots = new int[4];
        for (int i = 0; i < slots.length; i++)
        {
            slots[i] = transports.announce(100 + i, i, 0);
        }
        assertEquals(4, transports.slotsTouched());
        for (final int slot : slots)
        {
            assertTrue(slot < transports.slotsTouched() && transports.inUse(slot));
        }

        transports.remove(101);
        assertFalse(transports.inUse(slots[1]), "a connection gone leaves its slot unused");
        assertEquals(GatewayTransports.NONE, transports.slot(101));
        // Connections come and go a thousand times, never more than four at once.
        for (int i = 0; i < 1_000; i++)
        {
            final int slot = transports.announce(1_000 + i, 1, i);
            assertTrue(slot >= 0 && transports.inUse(slot) && transports.transport(slot) == 1_000 + i);
            transports.remove(1_000 + i);
            assertFalse(transports.inUse(slot));
        }
        assertEquals(4, transports.slotsTouched(), "a reused slot is one walked already");
        assertEquals(3, transports.count());

        final int again = transports.announce(200, 1, 0);
        assertTrue(transports.inUse(again) && again < transports.slotsTouched());
        assertEquals(GatewayTransports.NONE, transports.announce(200, 1, 0), "a transport known already");
    }

    @Test
    void aFullTableRefusesTheNextConnection()
    {
        final GatewayTransports transports = new GatewayTransports(2);
        assertTrue(transports.announce(1, 0, 0) >= 0);
        assertTrue(transports.announce(2, 0, 0) >= 0);
        assertEquals(GatewayTransports.NONE, transports.announce(3, 0, 0));
        assertEquals(2, transports.slotsTouched());
    }
}
