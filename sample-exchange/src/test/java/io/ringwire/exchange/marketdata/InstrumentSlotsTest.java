package io.ringwire.exchange.marketdata;

import org.junit.jupiter.api.Test;

import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Slots are given in order of first message and ranked by instrument id; a full table gives none,
 * and a reader never makes one.
 */
class InstrumentSlotsTest
{
    private final InstrumentSlots slots = new InstrumentSlots(3);

    @Test
    void slotsGoInOrderOfArrivalAndRankByInstrumentId()
    {
        assertEquals(0, slots.slotOf(30));
        assertEquals(1, slots.slotOf(10));
        assertEquals(2, slots.slotOf(20));
        assertEquals(1, slots.slotOf(10), "an instrument keeps its slot");

        assertEquals(3, slots.count());
        assertEquals(10, slots.instrumentId(slots.slotByRank(0)));
        assertEquals(20, slots.instrumentId(slots.slotByRank(1)));
        assertEquals(30, slots.instrumentId(slots.slotByRank(2)));
    }

    @Test
    void aFullTableGivesNoSlotAndAReaderMakesNone()
    {
        assertEquals(NONE, slots.existingSlot(5));
        assertEquals(0, slots.count(), "asking is not a first message");
        slots.slotOf(1);
        slots.slotOf(2);
        assertFalse(slots.isFull());
        slots.slotOf(3);

        assertTrue(slots.isFull());
        assertEquals(NONE, slots.slotOf(4));
        assertEquals(2, slots.existingSlot(3));
    }
}
