package io.ringwire.rdma.shm;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;

import java.lang.invoke.VarHandle;

/**
 * Flyweight over the region table of a device control file: one slot per region a peer may name
 * by rkey. The owner publishes and clears slots; peers read them to check a remote access before a
 * single byte is copied.
 *
 * <p>Slot layout (native byte order, {@link #SLOT_LENGTH} bytes, offsets within the slot):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |     Generation (0 = free; unique per publication), last       |  0
 *  +---------------------------------------------------------------+
 *  |                            Rkey                               |  4
 *  +---------------------------------------------------------------+
 *  |                      Access flags (Access)                    |  8
 *  +---------------------------------------------------------------+
 *  |                        Length in bytes                        | 12
 *  +---------------------------------------------------------------+
 *  |            Owner's virtual address of the first byte          | 16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |  File number n of &lt;pid&gt;-&lt;dev&gt;-mr-&lt;n&gt;.shm, or -1 | 24
 *  +---------------------------------------------------------------+
 *  |                           Reserved                            | 28
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Ordering: the generation works as a sequence lock. Publication writes the fields and then the
 * generation with release; clearing stores generation 0 with a full fence before any later reuse
 * writes the fields; a reader reads the generation (acquire), the fields, and the generation again
 * (after a load fence) and retries when it changed. A generation is never reused, so a peer that
 * cached a region re-validates it with one acquire load per write.
 *
 * <p>Threading: owner methods on the owner's control thread (synchronized); reader methods on a
 * peer queue pair's owning thread, allocation-free.
 */
final class ShmRegionTable
{
    static final int SLOT_LENGTH = 32;
    static final int GENERATION_OFFSET = 0;
    static final int RKEY_OFFSET = 4;
    static final int ACCESS_OFFSET = 8;
    static final int LENGTH_OFFSET = 12;
    static final int ADDRESS_OFFSET = 16;
    static final int FILE_NUMBER_OFFSET = 24;

    /** Generation of a free slot. */
    static final int FREE = 0;
    /** File number of a region over private memory, which peers cannot map. */
    static final int NO_FILE = -1;

    private final AtomicBuffer buffer;
    private final long tableAddress;
    private final int capacity;
    private final boolean[] reserved;
    private int nextGeneration = 1;

    /**
     * @param buffer   over the table ({@link ShmDeviceControl#regionTableBuffer(int)}).
     * @param capacity slots.
     * @param owner    true on the owning device (which reserves and publishes slots).
     */
    ShmRegionTable(final AtomicBuffer buffer, final int capacity, final boolean owner)
    {
        this.buffer = buffer;
        this.tableAddress = buffer.addressOffset();
        this.capacity = capacity;
        this.reserved = owner ? new boolean[capacity] : null;
    }

    int capacity()
    {
        return capacity;
    }

    // ---------------------------------------------------------------- owner

    /**
     * Reserves a free slot. Owner.
     *
     * @return the slot, or -1 when the table is full.
     */
    synchronized int reserve()
    {
        for (int slot = 0; slot < capacity; slot++)
        {
            if (!reserved[slot])
            {
                reserved[slot] = true;
                return slot;
            }
        }
        return -1;
    }

    /**
     * Publishes a region in a reserved slot. Owner.
     *
     * @param slot       from {@link #reserve()}.
     * @param rkey       the region's key.
     * @param access     its Access flags.
     * @param length     bytes.
     * @param address    owner's virtual address.
     * @param fileNumber its file number, or {@link #NO_FILE}.
     */
    synchronized void publish(final int slot, final int rkey, final int access, final int length, final long address,
        final int fileNumber)
    {
        final int offset = slot * SLOT_LENGTH;
        final int generation = nextGeneration;
        nextGeneration = nextGeneration == Integer.MAX_VALUE ? 1 : nextGeneration + 1;
        buffer.putInt(offset + RKEY_OFFSET, rkey);
        buffer.putInt(offset + ACCESS_OFFSET, access);
        buffer.putInt(offset + LENGTH_OFFSET, length);
        buffer.putLong(offset + ADDRESS_OFFSET, address);
        buffer.putInt(offset + FILE_NUMBER_OFFSET, fileNumber);
        // Release: a peer that reads this generation with acquire sees the fields above.
        buffer.putIntRelease(offset + GENERATION_OFFSET, generation);
    }

    /**
     * Clears a slot (first step of deregistration) and frees it for reuse. Owner.
     *
     * @param slot to clear.
     */
    synchronized void clear(final int slot)
    {
        // Volatile (full fence): the slot reads as free before any later reuse rewrites its fields,
        // so a peer's sequence-lock read never accepts a mix of the old and the new region.
        buffer.putIntVolatile(slot * SLOT_LENGTH + GENERATION_OFFSET, FREE);
        reserved[slot] = false;
    }

    /**
     * Frees a reserved slot that was never published. Owner.
     *
     * @param slot to free.
     */
    synchronized void unreserve(final int slot)
    {
        reserved[slot] = false;
    }

    // ---------------------------------------------------------------- peer

    /**
     * @param slot a slot.
     * @return its generation, {@link #FREE} when free (acquire).
     */
    int generation(final int slot)
    {
        // Per request, for a slot find() returned: inside the table, so no bounds check per read.
        return UnsafeApi.getIntAcquire(null, tableAddress + (long)slot * SLOT_LENGTH + GENERATION_OFFSET);
    }

    /**
     * Finds the slot publishing {@code rkey} and copies it into {@code into}. Scans the table:
     * the first use of an rkey and the error path only.
     *
     * @param rkey to find.
     * @param into receives a consistent snapshot of the slot.
     * @return true when found.
     */
    boolean find(final int rkey, final ShmRemoteRegion into)
    {
        for (int slot = 0; slot < capacity; slot++)
        {
            final int offset = slot * SLOT_LENGTH;
            while (true)
            {
                final int generation = buffer.getIntAcquire(offset + GENERATION_OFFSET);
                if (FREE == generation || buffer.getInt(offset + RKEY_OFFSET) != rkey)
                {
                    break;
                }
                final int access = buffer.getInt(offset + ACCESS_OFFSET);
                final int length = buffer.getInt(offset + LENGTH_OFFSET);
                final long address = buffer.getLong(offset + ADDRESS_OFFSET);
                final int fileNumber = buffer.getInt(offset + FILE_NUMBER_OFFSET);
                // The field reads above complete before the generation is read again.
                VarHandle.loadLoadFence();
                if (buffer.getInt(offset + GENERATION_OFFSET) == generation)
                {
                    into.set(slot, generation, rkey, access, length, address, fileNumber);
                    return true;
                }
            }
        }
        return false;
    }
}
