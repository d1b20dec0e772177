package io.ringwire.rdma.shm;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.MappedByteBuffer;

/**
 * A peer's region as a requester knows it: a snapshot of its region-table slot, and the requester's
 * own mapping of the region file once a write to it was allowed.
 *
 * <p>Threading: owned by one queue pair's owning thread.
 */
final class ShmRemoteRegion
{
    int slot;
    int generation;
    int rkey;
    int access;
    int length;
    long address;
    int fileNumber;
    MappedByteBuffer mapping;
    UnsafeBuffer buffer;

    void set(final int slot, final int generation, final int rkey, final int access, final int length,
        final long address, final int fileNumber)
    {
        this.slot = slot;
        this.generation = generation;
        this.rkey = rkey;
        this.access = access;
        this.length = length;
        this.address = address;
        this.fileNumber = fileNumber;
    }

    /**
     * Whether {@code [offset, offset + bytes)} lies inside the region, overflow-safe.
     *
     * @param offset from the region's first byte.
     * @param bytes  length of the access.
     * @return true when inside.
     */
    boolean contains(final long offset, final long bytes)
    {
        return offset >= 0 && bytes >= 0 && offset <= length - bytes;
    }

    void unmap()
    {
        ShmFiles.unmap(mapping);
        mapping = null;
        buffer = null;
    }
}
