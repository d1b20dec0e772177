package io.ringwire.rdma.shm;

import org.agrona.BitUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The records of a queue pair's inbound ring: a single-producer single-consumer ring of 64-byte,
 * cache-line aligned slots shared by two processes, built so that a small record costs the consumer
 * one cache-line transfer and the producer one line it owns.
 *
 * <p>Why not agrona's {@code OneToOneRingBuffer}: its 8-byte aligned records straddle cache lines, and
 * its consumer zeroes every consumed record, which takes each line back from the producer (an
 * ownership transfer per record in each direction) before the record's completion can be handed on.
 * Here validity is a sequence number inside the slot instead:
 * <ul>
 *   <li>Each record starts on a slot boundary and spans {@code slots} whole slots; it never wraps. When
 *       it does not fit before the end, a padding record fills the rest of the ring and the record
 *       starts at slot 0.</li>
 *   <li>The producer writes the record's fields and payload, then its sequence (a release store). The
 *       consumer, at the slot where the next record starts, waits for the sequence it expects (an
 *       acquire load), so it never reads a half-written record and needs no zeroing: whatever an old
 *       lap left in the slot carries a smaller sequence. The first slot of a record is the only one
 *       whose first eight bytes are a sequence; the consumer zeroes the first eight bytes of the other
 *       slots of a multi-slot record once consumed, so payload bytes can never pose as a sequence.</li>
 *   <li>Records are numbered from 1 in ring order; a padding record carries the number of the record
 *       that follows it and is not counted.</li>
 *   <li>The consumer publishes the slots it has consumed (and the records, for completions) in the
 *       ring header's acknowledgement line; the producer reads that line only when its cached copy
 *       says the ring is full.</li>
 * </ul>
 *
 * <p>Slot layout of a record's first slot (native byte order):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               Sequence of the record (written last)           |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |     Slots the record spans (24 bits)          |     Type      |  8
 *  +---------------------------------------------------------------+
 *  |    Length: payload bytes of a SEND, or the bytes of the WRITE   | 12
 *  +---------------------------------------------------------------+
 *  |                 Immediate (WRITE WITH IMMEDIATE)              | 16
 *  +---------------------------------------------------------------+
 *  |                          Reserved                             | 20
 *  +---------------------------------------------------------------+
 *  |      SEND payload, continuing through the record's next slots | 24
 *  +---------------------------------------------------------------+
 * </pre>
 * Types: 0 padding, 1 SEND, 2 notification of a WRITE WITH IMMEDIATE whose bytes the requester already
 * put in place.
 *
 * <p>Threading: one object per side. The producer's methods are called by the peer queue pair's
 * owning thread only, the consumer's by the owner's owning thread only.
 */
final class ShmRecordRing
{
    /** Bytes of a slot: one cache line. */
    static final int SLOT_LENGTH = BitUtil.CACHE_LINE_LENGTH;
    static final int SEQUENCE_OFFSET = 0;
    static final int TYPE_AND_SLOTS_OFFSET = 8;
    static final int LENGTH_OFFSET = 12;
    static final int IMMEDIATE_OFFSET = 16;
    static final int PAYLOAD_OFFSET = 24;
    private static final int TYPE_MASK = 0xFF;
    private static final int SLOTS_SHIFT = 8;

    static final int PADDING_TYPE = 0;
    /** Record type of a SEND; the payload follows the header. */
    static final int SEND_TYPE = 1;
    /** Record type of the notification of a WRITE WITH IMMEDIATE, appended after the data is in place. */
    static final int WRITE_WITH_IMMEDIATE_TYPE = 2;

    /** Handler verdict: the record is consumed, go on. */
    static final int CONTINUE = 0;
    /** Handler verdict: the record is not consumed; stop and offer it again on the next read. */
    static final int ABORT = 1;
    /** Handler verdict: the record is consumed; stop reading. */
    static final int BREAK = 2;

    /**
     * Receives records on the consumer side. The buffer is the ring; the record's fields are at
     * {@code index} plus the offsets above. Owning thread; must not allocate.
     */
    @FunctionalInterface
    interface RecordHandler
    {
        /**
         * @param type      one of the record types but padding; -1 for a malformed record.
         * @param buffer    the ring.
         * @param index     byte index of the record's first slot.
         * @param length    the record's length field.
         * @param immediate the record's immediate field (meaningful for WRITE WITH IMMEDIATE).
         * @return CONTINUE, ABORT or BREAK.
         */
        int onRecord(int type, AtomicBuffer buffer, int index, int length, int immediate);
    }

    private final AtomicBuffer slots;
    private final AtomicBuffer acknowledgements;
    private final int consumedSlotsOffset;
    /**
     * Where the slots and the consumed-slots count are, for the ring's own accesses: every index
     * the ring computes is masked into the ring, so they go straight to memory without a bounds
     * check per access, which on a path this short is a share of the work worth saving.
     */
    private final long slotsAddress;
    private final long consumedSlotsAddress;
    private final int capacitySlots;
    private final int mask;
    private final int maxPayloadLength;

    // Producer side.
    private long producedSlots;
    private long cachedConsumedSlots;
    private long nextProducedSequence = 1;
    private int claimedSlots;

    // Consumer side.
    private long consumedSlots;
    private long nextConsumedSequence = 1;

    /**
     * @param slots               the slots: a power-of-two number of bytes, at least 8 slots, slot aligned.
     * @param acknowledgements    the buffer holding the consumed-slots count.
     * @param consumedSlotsOffset where in it (an 8-byte aligned long).
     */
    ShmRecordRing(final AtomicBuffer slots, final AtomicBuffer acknowledgements, final int consumedSlotsOffset)
    {
        final int capacity = slots.capacity();
        if (!BitUtil.isPowerOfTwo(capacity) || capacity < 8 * SLOT_LENGTH)
        {
            throw new IllegalArgumentException("ring capacity must be a power of two of at least " +
                8 * SLOT_LENGTH + " bytes: " + capacity);
        }
        if (null != slots.byteArray() || null != acknowledgements.byteArray())
        {
            throw new IllegalArgumentException("the ring lives in direct (mapped) memory");
        }
        acknowledgements.boundsCheck(consumedSlotsOffset, Long.BYTES);
        this.slots = slots;
        this.acknowledgements = acknowledgements;
        this.consumedSlotsOffset = consumedSlotsOffset;
        this.slotsAddress = slots.addressOffset();
        this.consumedSlotsAddress = acknowledgements.addressOffset() + consumedSlotsOffset;
        this.capacitySlots = capacity / SLOT_LENGTH;
        this.mask = capacitySlots - 1;
        this.maxPayloadLength = capacity / 8 - PAYLOAD_OFFSET;
    }

    /**
     * @return the largest SEND payload: an eighth of the ring, less the record header.
     */
    int maxPayloadLength()
    {
        return maxPayloadLength;
    }

    /**
     * @return the ring, to write a claimed record's fields and payload.
     */
    AtomicBuffer buffer()
    {
        return slots;
    }

    // ---------------------------------------------------------------- producer

    /**
     * Claims room for a record, writing a padding record first when it would not fit before the
     * end. Producer; allocation-free.
     *
     * @param type          a record type other than padding.
     * @param payloadLength bytes after the header, at most {@link #maxPayloadLength()}.
     * @return byte index of the record's first slot, or -1 when the ring has no room.
     */
    int tryClaim(final int type, final int payloadLength)
    {
        final int recordSlots = (PAYLOAD_OFFSET + payloadLength + SLOT_LENGTH - 1) / SLOT_LENGTH;
        int slot = (int)(producedSlots & mask);
        final int toEnd = capacitySlots - slot;
        final int padding = recordSlots > toEnd ? toEnd : 0;
        final long needed = producedSlots + padding + recordSlots - capacitySlots;
        if (needed > cachedConsumedSlots)
        {
            // Acquire: the consumer has finished with the slots it counts as consumed.
            cachedConsumedSlots = UnsafeApi.getLongAcquire(null, consumedSlotsAddress);
            if (needed > cachedConsumedSlots)
            {
                return -1;
            }
        }
        if (padding > 0)
        {
            final int paddingIndex = slot * SLOT_LENGTH;
            UnsafeApi.putInt(null, slotsAddress + paddingIndex + TYPE_AND_SLOTS_OFFSET, padding << SLOTS_SHIFT | PADDING_TYPE);
            UnsafeApi.putLongRelease(null, slotsAddress + paddingIndex + SEQUENCE_OFFSET, nextProducedSequence);
            producedSlots += padding;
            slot = 0;
        }
        final int index = slot * SLOT_LENGTH;
        UnsafeApi.putInt(null, slotsAddress + index + TYPE_AND_SLOTS_OFFSET, recordSlots << SLOTS_SHIFT | type);
        claimedSlots = recordSlots;
        return index;
    }

    /**
     * Fills the length and immediate of a claimed record. Producer.
     *
     * @param index     from {@link #tryClaim(int, int)}.
     * @param length    the record's length field.
     * @param immediate the record's immediate field.
     */
    void putLengthAndImmediate(final int index, final int length, final int immediate)
    {
        UnsafeApi.putInt(null, slotsAddress + index + LENGTH_OFFSET, length);
        UnsafeApi.putInt(null, slotsAddress + index + IMMEDIATE_OFFSET, immediate);
    }

    /**
     * Publishes the claimed record: its sequence is a release store, so everything written before,
     * the record and any data it announces, is visible to a consumer that sees it. Producer.
     *
     * @param index from {@link #tryClaim(int, int)}.
     */
    void commit(final int index)
    {
        UnsafeApi.putLongRelease(null, slotsAddress + index + SEQUENCE_OFFSET, nextProducedSequence++);
        producedSlots += claimedSlots;
    }

    // ---------------------------------------------------------------- consumer

    /**
     * @return true when the next record is there to {@link #read}: one acquire load, small enough to
     *         inline into a busy poll that mostly finds nothing. Consumer.
     */
    boolean hasRecord()
    {
        return UnsafeApi.getLongAcquire(null, slotsAddress + (consumedSlots & mask) * SLOT_LENGTH + SEQUENCE_OFFSET) ==
            nextConsumedSequence;
    }

    /**
     * Hands records to the handler in order until it aborts or breaks, or the limit is reached.
     * A record whose header is inconsistent (span beyond the end of the ring, or a length that does
     * not fit its span) is handed over with type -1, which the handler must treat as malformed.
     * Consumer; allocation-free. Publish progress with {@link #publishConsumed()}.
     *
     * @param handler receives each record.
     * @param limit   most records to consume.
     * @return records consumed.
     */
    int read(final RecordHandler handler, final int limit)
    {
        int consumed = 0;
        while (consumed < limit)
        {
            if (!hasRecord())
            {
                break;
            }
            final int slot = (int)(consumedSlots & mask);
            final int index = slot * SLOT_LENGTH;
            final int typeAndSlots = UnsafeApi.getInt(null, slotsAddress + index + TYPE_AND_SLOTS_OFFSET);
            int type = typeAndSlots & TYPE_MASK;
            final int recordSlots = typeAndSlots >>> SLOTS_SHIFT;
            final int length = UnsafeApi.getInt(null, slotsAddress + index + LENGTH_OFFSET);
            final int toEnd = capacitySlots - slot;
            if (PADDING_TYPE == type)
            {
                if (recordSlots == toEnd && slot != 0)
                {
                    consumedSlots += recordSlots;
                    continue;
                }
                type = -1;
            }
            if (recordSlots < 1 || recordSlots > toEnd || type > WRITE_WITH_IMMEDIATE_TYPE ||
                (SEND_TYPE == type && (length < 0 || length > maxPayloadLength ||
                    (PAYLOAD_OFFSET + length + SLOT_LENGTH - 1) / SLOT_LENGTH != recordSlots)))
            {
                type = -1;
            }
            final int verdict = handler.onRecord(type, slots, index, length,
                UnsafeApi.getInt(null, slotsAddress + index + IMMEDIATE_OFFSET));
            if (ABORT == verdict)
            {
                break;
            }
            final int span = recordSlots >= 1 && recordSlots <= toEnd ? recordSlots : 1;
            for (int i = 1; i < span; i++)
            {
                slots.putLong(index + i * SLOT_LENGTH + SEQUENCE_OFFSET, 0);
            }
            consumedSlots += span;
            nextConsumedSequence++;
            consumed++;
            if (BREAK == verdict)
            {
                break;
            }
        }
        return consumed;
    }

    /**
     * Tells the producer which slots it may reuse (a release store: the consumer is done reading
     * them). Consumer.
     */
    void publishConsumed()
    {
        UnsafeApi.putLongRelease(null, consumedSlotsAddress, consumedSlots);
    }
}
