package io.ringwire.rdma.shm;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.host.ProcessIdentity;
import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Flyweight over a device control file, {@code <dir>/<pid>-<dev>.ctl}: who owns the device, whether
 * it is alive, its counters, and the table of regions peers may write. The owner writes the identity,
 * state, heartbeat and region table; peers read them, and increment the counters of refusals they
 * make on the owner's behalf.
 *
 * <p>Layout (native byte order, all offsets from the start of the file):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      Magic "RWSHMCTL"                         |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                           Version                             |  8
 *  +---------------------------------------------------------------+
 *  |              State (0 creating, 1 open, 2 closed)             | 12
 *  +---------------------------------------------------------------+
 *  |                          Owner pid                            | 16
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |     Owner start time (/proc/pid/stat ticks; 0 = unknown)      | 24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                          Device id                            | 32
 *  +---------------------------------------------------------------+
 *  |                    Region table capacity                      | 36
 *  +---------------------------------------------------------------+
 *  |                      ... up to 64 ...                         |
 *  +---------------------------------------------------------------+
 *  |  Heartbeat, System.nanoTime (CLOCK_MONOTONIC), own cache line | 64
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      ... up to 128 ...                        |
 *  +---------------------------------------------------------------+
 *  |       DeviceCounters: DeviceCounters.LENGTH bytes             | 128
 *  +---------------------------------------------------------------+
 *  |        ... up to the next cache line (REGION_TABLE_OFFSET)    |
 *  +---------------------------------------------------------------+
 *  |   Region table: capacity x ShmRegionTable.SLOT_LENGTH bytes   | REGION_TABLE_OFFSET
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Threading: the owner's control thread writes identity and state; any owning thread of the
 * device writes the heartbeat (see {@link #heartbeat(long, long)}); peers only read, except counters.
 */
final class ShmDeviceControl
{
    /** "RWSHMCTL" in ASCII, read as a little-endian long. */
    static final long MAGIC = 0x4C54434D48535752L;
    /** 2: two more device counters (their slots moved nothing, but an old peer would not count them). */
    static final int VERSION = 2;

    static final int STATE_CREATING = 0;
    static final int STATE_OPEN = 1;
    static final int STATE_CLOSED = 2;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int STATE_OFFSET = 12;
    static final int OWNER_PID_OFFSET = 16;
    static final int OWNER_START_TIME_OFFSET = 24;
    static final int DEVICE_ID_OFFSET = 32;
    static final int REGION_TABLE_CAPACITY_OFFSET = 36;
    /** The most region table slots a peer's control file may claim: the file is mapped whole. */
    static final int MAX_REGION_TABLE_CAPACITY = 1 << 20;
    static final int HEARTBEAT_OFFSET = 64;
    static final int COUNTERS_OFFSET = 128;
    static final int REGION_TABLE_OFFSET = BitUtil.align(
        COUNTERS_OFFSET + DeviceCounters.LENGTH, BitUtil.CACHE_LINE_LENGTH);

    private final AtomicBuffer buffer;

    /**
     * @param buffer over the whole control file.
     */
    ShmDeviceControl(final AtomicBuffer buffer)
    {
        this.buffer = buffer;
    }

    /**
     * @param regionTableCapacity slots in the region table.
     * @return bytes of a control file with that many slots.
     */
    static int fileLength(final int regionTableCapacity)
    {
        return REGION_TABLE_OFFSET + regionTableCapacity * ShmRegionTable.SLOT_LENGTH;
    }

    /**
     * Fills in a new, zero-filled control file and then marks it open. Owner's control thread.
     *
     * @param pid                 owner pid.
     * @param startTime           owner start time, or 0.
     * @param deviceId            device id.
     * @param regionTableCapacity slots.
     * @param nowNs               first heartbeat.
     */
    void initialise(final long pid, final long startTime, final int deviceId, final int regionTableCapacity,
        final long nowNs)
    {
        buffer.putInt(VERSION_OFFSET, VERSION);
        buffer.putLong(OWNER_PID_OFFSET, pid);
        buffer.putLong(OWNER_START_TIME_OFFSET, startTime);
        buffer.putInt(DEVICE_ID_OFFSET, deviceId);
        buffer.putInt(REGION_TABLE_CAPACITY_OFFSET, regionTableCapacity);
        buffer.putLong(HEARTBEAT_OFFSET, nowNs);
        buffer.putLong(MAGIC_OFFSET, MAGIC);
        // Release: a peer that reads STATE_OPEN with acquire sees every field written above.
        buffer.putIntRelease(STATE_OFFSET, STATE_OPEN);
    }

    /**
     * Checks a peer's control file before it is used. Setup path.
     *
     * @param pid                 the pid the address names.
     * @param deviceId            the device id the address names.
     * @param regionTableCapacity the capacity, read once by the caller: the peer may rewrite the
     *                            field, so the value checked is the value used.
     * @return null when valid, else what is wrong.
     */
    String validate(final long pid, final int deviceId, final int regionTableCapacity)
    {
        final int state = state();
        if (buffer.getLong(MAGIC_OFFSET) != MAGIC || state == STATE_CREATING)
        {
            return "not an initialised shm control file";
        }
        if (buffer.getInt(VERSION_OFFSET) != VERSION)
        {
            return "layout version " + buffer.getInt(VERSION_OFFSET) + ", this build reads version " + VERSION +
                ": run the same RingWire version on both sides";
        }
        if (ownerPid() != pid || buffer.getInt(DEVICE_ID_OFFSET) != deviceId)
        {
            return "owned by pid " + ownerPid() + " device " + buffer.getInt(DEVICE_ID_OFFSET);
        }
        if (state != STATE_OPEN)
        {
            return "the device is closed";
        }
        if (regionTableCapacity < 1 || regionTableCapacity > MAX_REGION_TABLE_CAPACITY)
        {
            return "corrupt: a region table of " + regionTableCapacity + " slots (1 to " + MAX_REGION_TABLE_CAPACITY +
                ")";
        }
        if (buffer.capacity() < fileLength(regionTableCapacity))
        {
            return "truncated: " + buffer.capacity() + " bytes";
        }
        return null;
    }

    /**
     * @return STATE_CREATING, STATE_OPEN or STATE_CLOSED (acquire).
     */
    int state()
    {
        return buffer.getIntAcquire(STATE_OFFSET);
    }

    /**
     * Marks the device closed (release), so peers treat it as gone. Owner's control thread.
     */
    void markClosed()
    {
        buffer.putIntRelease(STATE_OFFSET, STATE_CLOSED);
    }

    /**
     * @return the pid of the process that owns the device.
     */
    long ownerPid()
    {
        return buffer.getLong(OWNER_PID_OFFSET);
    }

    /**
     * @return the owner's start time, as {@link ProcessIdentity#startTime} read it: with the pid, it
     *         tells the owner from a later process that reuses its pid.
     */
    long ownerStartTime()
    {
        return buffer.getLong(OWNER_START_TIME_OFFSET);
    }

    /**
     * @return slots of the device's region table.
     */
    int regionTableCapacity()
    {
        return buffer.getInt(REGION_TABLE_CAPACITY_OFFSET);
    }

    /**
     * @return the last heartbeat, System.nanoTime of the owner (acquire).
     */
    long heartbeatNs()
    {
        return buffer.getLongAcquire(HEARTBEAT_OFFSET);
    }

    /**
     * Publishes a heartbeat when the last one is at least {@code intervalNs} old. Allocation-free.
     *
     * <p>Several owning threads (one per queue pair) may call this; they all store the current
     * monotonic time, so a lost race only makes the heartbeat a few microseconds older, against a
     * peer timeout of milliseconds.
     *
     * @param nowNs      System.nanoTime.
     * @param intervalNs least time between two stores, to keep the line quiet.
     */
    void heartbeat(final long nowNs, final long intervalNs)
    {
        if (nowNs - buffer.getLong(HEARTBEAT_OFFSET) >= intervalNs)
        {
            // Release: orders nothing else; it makes the store a single, untorn, timely publication.
            buffer.putLongRelease(HEARTBEAT_OFFSET, nowNs);
        }
    }

    /**
     * @return a buffer over the counters, for {@code new DeviceCounters(...)}.
     */
    AtomicBuffer countersBuffer()
    {
        return new UnsafeBuffer(buffer, COUNTERS_OFFSET, DeviceCounters.LENGTH);
    }

    /**
     * @param regionTableCapacity the table's slots, as {@link #validate} checked them against this file.
     * @return a buffer over the region table.
     */
    AtomicBuffer regionTableBuffer(final int regionTableCapacity)
    {
        return new UnsafeBuffer(buffer, REGION_TABLE_OFFSET, regionTableCapacity * ShmRegionTable.SLOT_LENGTH);
    }
}
