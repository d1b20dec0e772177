package io.ringwire.rdma.shm;

import io.ringwire.rdma.RdmaException;
import org.agrona.BitUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * A queue pair's inbound ring file, {@code <dir>/<pid>-<dev>-qp-<qpn>.ring}: a small header saying
 * whether the queue pair is alive and who is connected to it, then the slots of a
 * {@link ShmRecordRing} whose single producer is the peer queue pair and whose single consumer is the
 * owner.
 *
 * <p>File layout (native byte order):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                      Magic "RWSHMRNG"                         |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                           Version                             |  8
 *  +---------------------------------------------------------------+
 *  |        State (0 creating, 1 active, 2 error, 3 closed)        | 12
 *  +---------------------------------------------------------------+
 *  |                     Queue pair number                         | 16
 *  +---------------------------------------------------------------+
 *  |                 Ring capacity (power of two)                  | 20
 *  +---------------------------------------------------------------+
 *  |   Producer token: 0 until a peer connects, then its token     | 24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                        ... up to 64 ...                       |
 *  +---------------------------------------------------------------+
 *  |  Acknowledged records: records consumed, by the owner (own    | 64
 *  |  cache line: written per progress batch, read by the peer)    |
 *  +---------------------------------------------------------------+
 *  |      Failed record: sequence of a record that failed, or 0    | 72
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |       Failure status: CompletionStatus for the requester      | 80
 *  +---------------------------------------------------------------+
 *  |  Consumed slots: ring slots the owner is done with (written   | 88
 *  |  per progress batch, read by the peer when its ring is full)  |
 *  +---------------------------------------------------------------+
 *  |                    ... up to HEADER_LENGTH ...                |
 *  +---------------------------------------------------------------+
 *  |       ShmRecordRing slots: capacity bytes, 64-byte slots      | HEADER_LENGTH
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Records are numbered from 1 in ring order by both sides. The owner acknowledges how many it has
 * consumed, and names the record that failed (a SEND larger than its receive buffer) before it goes
 * to ERROR, so the requester can complete its waiting SENDs with the right status.
 *
 * <p>Threading: the owner's control thread creates, marks and deletes it; the owner's owning thread
 * consumes and acknowledges; the peer's owning thread produces and reads the state and
 * acknowledgements.
 */
final class ShmInboundRing implements AutoCloseable
{
    /** "RWSHMRNG" in ASCII, read as a little-endian long. */
    static final long MAGIC = 0x474E524D48535752L;
    static final int VERSION = 2;

    static final int STATE_CREATING = 0;
    static final int STATE_ACTIVE = 1;
    static final int STATE_ERROR = 2;
    static final int STATE_CLOSED = 3;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int STATE_OFFSET = 12;
    static final int QUEUE_PAIR_NUMBER_OFFSET = 16;
    static final int CAPACITY_OFFSET = 20;
    static final int PRODUCER_TOKEN_OFFSET = 24;
    static final int ACKNOWLEDGED_RECORDS_OFFSET = 64;
    static final int FAILED_RECORD_OFFSET = 72;
    static final int FAILURE_STATUS_OFFSET = 80;
    static final int CONSUMED_SLOTS_OFFSET = 88;
    static final int HEADER_LENGTH = 2 * BitUtil.CACHE_LINE_LENGTH;

    private final Path file;
    private final boolean owner;
    private final MappedByteBuffer mapping;
    private final AtomicBuffer header;
    /** The header's address, for the per-request state read and per-batch acknowledgement (fixed offsets). */
    private final long headerAddress;
    private final ShmRecordRing records;

    private ShmInboundRing(final Path file, final boolean owner, final MappedByteBuffer mapping, final int capacity)
    {
        this.file = file;
        this.owner = owner;
        this.mapping = mapping;
        this.header = new UnsafeBuffer(mapping, 0, HEADER_LENGTH);
        this.headerAddress = header.addressOffset();
        this.records = new ShmRecordRing(new UnsafeBuffer(mapping, HEADER_LENGTH, capacity), header,
            CONSUMED_SLOTS_OFFSET);
    }

    /**
     * Creates the ring file of a new queue pair and marks it active. Control thread.
     *
     * @param file            its path; must not exist.
     * @param queuePairNumber the owner.
     * @param capacity        ring bytes, a power of two.
     * @return the ring.
     * @throws RdmaException when the file cannot be created.
     */
    static ShmInboundRing create(final Path file, final int queuePairNumber, final int capacity)
    {
        final MappedByteBuffer mapping = ShmFiles.createAndMap(
            file, HEADER_LENGTH + capacity);
        final ShmInboundRing ring = new ShmInboundRing(file, true, mapping, capacity);
        final AtomicBuffer header = ring.header;
        header.putInt(VERSION_OFFSET, VERSION);
        header.putInt(QUEUE_PAIR_NUMBER_OFFSET, queuePairNumber);
        header.putInt(CAPACITY_OFFSET, capacity);
        header.putLong(MAGIC_OFFSET, MAGIC);
        // Release: a peer that reads STATE_ACTIVE with acquire sees the header written above.
        header.putIntRelease(STATE_OFFSET, STATE_ACTIVE);
        return ring;
    }

    /**
     * Maps a peer queue pair's ring and claims it as its single producer. Control thread.
     *
     * @param file            the peer's ring file.
     * @param queuePairNumber the peer queue pair it must belong to.
     * @param producerToken   this connection's nonzero token.
     * @param peerDescription for messages.
     * @return the ring, to produce into.
     * @throws RdmaException when the file is missing, invalid, not active, or already connected.
     */
    static ShmInboundRing connect(final Path file, final int queuePairNumber, final long producerToken,
        final String peerDescription)
    {
        final MappedByteBuffer mapping;
        try
        {
            mapping = ShmFiles.mapExisting(file, HEADER_LENGTH);
        }
        catch (final IOException ex)
        {
            throw new RdmaException("no shm queue pair 0x" + Integer.toHexString(queuePairNumber) + " at " +
                peerDescription + ": cannot map " + file + " (" + ex + "); was the queue pair closed, or is " +
                "the endpoint stale?", ex);
        }
        final UnsafeBuffer header = new UnsafeBuffer(mapping, 0, HEADER_LENGTH);
        final int capacity = header.getInt(CAPACITY_OFFSET);
        String problem = null;
        if (header.getLong(MAGIC_OFFSET) != MAGIC || header.getInt(VERSION_OFFSET) != VERSION)
        {
            problem = "not an initialised ring file of this RingWire version";
        }
        else if (header.getInt(QUEUE_PAIR_NUMBER_OFFSET) != queuePairNumber)
        {
            problem = "it belongs to queue pair 0x" + Integer.toHexString(header.getInt(QUEUE_PAIR_NUMBER_OFFSET));
        }
        else if (header.getIntAcquire(STATE_OFFSET) != STATE_ACTIVE)
        {
            problem = "the queue pair is in error or closed";
        }
        else if (!BitUtil.isPowerOfTwo(capacity) || capacity < 8 * ShmRecordRing.SLOT_LENGTH ||
            mapping.capacity() < HEADER_LENGTH + capacity)
        {
            problem = "truncated or corrupt (capacity " + capacity + ", " + mapping.capacity() + " bytes)";
        }
        else if (!header.compareAndSetLong(PRODUCER_TOKEN_OFFSET, 0, producerToken))
        {
            problem = "another queue pair is already connected to it (a reliable connection has one peer)";
        }
        if (null != problem)
        {
            ShmFiles.unmap(mapping);
            throw new RdmaException("cannot connect to shm queue pair 0x" + Integer.toHexString(queuePairNumber) +
                " at " + peerDescription + " (" + file + "): " + problem);
        }
        return new ShmInboundRing(file, false, mapping, capacity);
    }

    /**
     * @return the records: consumed by the owner, produced by the peer.
     */
    ShmRecordRing records()
    {
        return records;
    }

    /**
     * @return STATE_ACTIVE, STATE_ERROR or STATE_CLOSED (acquire). Allocation-free.
     */
    int state()
    {
        return UnsafeApi.getIntAcquire(null, headerAddress + STATE_OFFSET);
    }

    /**
     * Publishes how many records the owner has consumed, and the slots it is done with. Owner's
     * owning thread; allocation-free.
     *
     * @param consumedRecords consumed since the ring was created.
     */
    void acknowledge(final long consumedRecords)
    {
        records.publishConsumed();
        // Release: a failure recorded before it is visible to a peer that reads this count with acquire.
        UnsafeApi.putLongRelease(null, headerAddress + ACKNOWLEDGED_RECORDS_OFFSET, consumedRecords);
    }

    /**
     * Names the record that failed; published by the next {@link #acknowledge(long)}. Owner.
     *
     * @param record sequence of the failed record.
     * @param status CompletionStatus the requester's request completes with.
     */
    void recordFailure(final long record, final int status)
    {
        header.putInt(FAILURE_STATUS_OFFSET, status);
        header.putLong(FAILED_RECORD_OFFSET, record);
    }

    /**
     * @return records the owner has consumed (acquire). Peer.
     */
    long acknowledgedRecords()
    {
        return header.getLongAcquire(ACKNOWLEDGED_RECORDS_OFFSET);
    }

    /**
     * @return the failed record's sequence, or 0; read after {@link #acknowledgedRecords()}. Peer.
     */
    long failedRecord()
    {
        return header.getLong(FAILED_RECORD_OFFSET);
    }

    /**
     * @return the status of the failed record. Peer.
     */
    int failureStatus()
    {
        return header.getInt(FAILURE_STATUS_OFFSET);
    }

    /**
     * Tells the peer this queue pair is in ERROR (unless already closed). Owner; any thread.
     */
    void markError()
    {
        // A CAS (volatile) so it never overwrites CLOSED; the peer reads the state with acquire.
        header.compareAndSetInt(STATE_OFFSET, STATE_ACTIVE, STATE_ERROR);
    }

    /**
     * Owner: marks the ring closed, unmaps and deletes the file. Peer: unmaps its mapping.
     * Control thread, after the owning thread stopped using it.
     */
    @Override
    public void close()
    {
        if (owner)
        {
            header.putIntRelease(STATE_OFFSET, STATE_CLOSED);
            ShmFiles.unmap(mapping);
            ShmFiles.deleteQuietly(file);
        }
        else
        {
            ShmFiles.unmap(mapping);
        }
    }
}
