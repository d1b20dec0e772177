package io.ringwire.exchange.marketdata;

import org.agrona.collections.Int2IntHashMap;

import static io.ringwire.exchange.marketdata.MarketDataBooks.NONE;

/**
 * The instruments a replica keeps books for. Each is given a slot at its first message: the index
 * of its state in the per-instrument arrays of {@link ReplicaBooks} and {@link FeedSequencer}. The
 * slots are also kept in instrument id order, the order in which snapshots of every book and the
 * digest go.
 *
 * <p>Threading: one thread. Allocation-free: the map is sized at construction so that it never
 * grows.
 */
final class InstrumentSlots
{
    private final int capacity;
    private final Int2IntHashMap slotOfInstrument;
    private final int[] instrumentId;
    private final int[] slotsById;
    private int count;

    /**
     * @param capacity instruments with a slot at once.
     */
    InstrumentSlots(final int capacity)
    {
        this.capacity = capacity;
        // Sized so that the capacity never makes the map grow: agrona's maps grow past capacity x load factor.
        slotOfInstrument = new Int2IntHashMap(Integer.highestOneBit(capacity * 2 - 1) << 1, 0.6f, NONE);
        instrumentId = new int[capacity];
        slotsById = new int[capacity];
    }

    /** @return the instrument's slot, given one at its first message, or NONE when the table is full. */
    int slotOf(final int instrument)
    {
        final int known = slotOfInstrument.get(instrument);
        if (known != NONE || count == capacity)
        {
            return known;
        }
        final int slot = count++;
        slotOfInstrument.put(instrument, slot);
        instrumentId[slot] = instrument;
        int at = slot;
        while (at > 0 && instrumentId[slotsById[at - 1]] > instrument)
        {
            slotsById[at] = slotsById[at - 1];
            at--;
        }
        slotsById[at] = slot;
        return slot;
    }

    /** @return the slot of an instrument seen before, or NONE; for readers, so it never makes one. */
    int existingSlot(final int instrument)
    {
        return slotOfInstrument.get(instrument);
    }

    /** @return whether every slot is taken, so an instrument not seen yet can have none. */
    boolean isFull()
    {
        return count == capacity;
    }

    /** @return instruments with a slot. */
    int count()
    {
        return count;
    }

    /** @return the instrument a slot belongs to. */
    int instrumentId(final int slot)
    {
        return instrumentId[slot];
    }

    /** @return the slot of the instrument at {@code rank} (0 to {@link #count()} - 1) in instrument id order. */
    int slotByRank(final int rank)
    {
        return slotsById[rank];
    }
}
