package io.ringwire.rdma.shm;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.soft.RegionRegistry;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.util.ArrayList;

/**
 * The responder's access checks, made by the requester against the peer's shared region table, and
 * the requester's cache of mapped peer regions keyed by rkey.
 *
 * <p>A region is mapped the first time a write to its rkey is allowed (that first write allocates),
 * and re-validated on every write with one acquire load of its slot generation, so a region the peer
 * deregistered is refused from then on. A write racing with deregistration can still land in the
 * memory being released, as a DMA in flight does on a NIC; it can never land in another region.
 *
 * <p>Threading: the owning thread of one queue pair.
 */
final class ShmRemoteRegions implements AutoCloseable
{
    private static final System.Logger LOGGER = System.getLogger(ShmRemoteRegions.class.getName());

    private final ShmAddress peer;
    private final ShmRegionTable table;
    private final DeviceCounters responderCounters;
    private final Int2ObjectHashMap<ShmRemoteRegion> regionsByRkey = new Int2ObjectHashMap<>();
    /** The region the last write went to: a stream of writes to one ring skips the map lookup. */
    private ShmRemoteRegion lastRegion;
    private UnsafeBuffer allowedBuffer;

    /**
     * @param peer              the peer device, to name its region files.
     * @param table             the peer's region table.
     * @param responderCounters the peer's counters, where refusals are counted.
     */
    ShmRemoteRegions(final ShmAddress peer, final ShmRegionTable table, final DeviceCounters responderCounters)
    {
        this.peer = peer;
        this.table = table;
        this.responderCounters = responderCounters;
    }

    /**
     * The responder's check of an RDMA WRITE, before a single byte is copied. Counts a refusal on the
     * responder's counters. On success {@link #allowedBuffer()} is the region's buffer.
     *
     * @param rkey          from the request.
     * @param remoteAddress the peer's virtual address from the request.
     * @param length        bytes.
     * @return the offset in the region (&gt;= 0) when allowed, else {@link RegionRegistry#UNKNOWN_RKEY},
     *         {@link RegionRegistry#ACCESS_DENIED} or {@link RegionRegistry#OUT_OF_BOUNDS}.
     */
    long checkRemoteWrite(final int rkey, final long remoteAddress, final int length)
    {
        final ShmRemoteRegion region = validRegion(rkey);
        if (null == region)
        {
            responderCounters.increment(DeviceCounters.RESPONDER_UNKNOWN_RKEY);
            return RegionRegistry.UNKNOWN_RKEY;
        }
        if (!Access.allows(region.access, Access.REMOTE_WRITE) || ShmRegionTable.NO_FILE == region.fileNumber)
        {
            responderCounters.increment(DeviceCounters.RESPONDER_ACCESS_DENIED);
            return RegionRegistry.ACCESS_DENIED;
        }
        final long offset = remoteAddress - region.address;
        if (!region.contains(offset, length))
        {
            responderCounters.increment(DeviceCounters.RESPONDER_OUT_OF_BOUNDS);
            return RegionRegistry.OUT_OF_BOUNDS;
        }
        if (null == region.buffer)
        {
            final long refused = map(region);
            if (refused < 0)
            {
                evict(region);
                return refused;
            }
        }
        if (allowedBuffer != region.buffer)
        {
            allowedBuffer = region.buffer; // written only when it changes: a stream of writes to one ring stores nothing
        }
        return offset;
    }

    /**
     * A mapping of its own of a checked range of the peer's region, for loads and stores: held by
     * nothing here, so it lives as long as its user holds it and never goes away under it.
     *
     * @return the view, or null when the check refused the range (counted) or the file is gone.
     */
    UnsafeBuffer mapForLoadStore(final int rkey, final long remoteAddress, final int length)
    {
        final long offset = checkRemoteWrite(rkey, remoteAddress, length);
        if (offset < 0)
        {
            return null;
        }
        final ShmRemoteRegion region = regionsByRkey.get(rkey);
        try
        {
            final MappedByteBuffer mapping = ShmFiles.mapExistingRange(peer.regionFile(region.fileNumber),
                region.length);
            // As in map: the name may lead to another region's file once this one was deregistered.
            if (table.generation(region.slot) != region.generation)
            {
                ShmFiles.unmap(mapping);
                return null;
            }
            return new UnsafeBuffer(mapping, (int)offset, length);
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    /**
     * @return the buffer of the region the last successful {@link #checkRemoteWrite} allowed.
     */
    UnsafeBuffer allowedBuffer()
    {
        return allowedBuffer;
    }

    private ShmRemoteRegion validRegion(final int rkey)
    {
        final ShmRemoteRegion last = lastRegion;
        final ShmRemoteRegion cached = null != last && last.rkey == rkey ? last : regionsByRkey.get(rkey);
        if (null != cached)
        {
            if (table.generation(cached.slot) == cached.generation)
            {
                if (last != cached)
                {
                    lastRegion = cached;
                }
                return cached;
            }
            evict(cached); // deregistered since it was cached
        }
        // First use of this rkey, or the error path: scan the table (allocates the cache entry).
        final ShmRemoteRegion found = new ShmRemoteRegion();
        if (!table.find(rkey, found))
        {
            return null;
        }
        regionsByRkey.put(rkey, found);
        return found;
    }

    /**
     * Maps a region's file, or counts why not.
     *
     * @return 0 when mapped, else {@link RegionRegistry#UNKNOWN_RKEY} (the file is gone: the peer
     *         deregistered the region after the table was read) or {@link RegionRegistry#ACCESS_DENIED}
     *         (the file is not one its owner cannot shrink).
     */
    private long map(final ShmRemoteRegion region)
    {
        try
        {
            final MappedByteBuffer mapping = ShmFiles.mapExistingRange(peer.regionFile(region.fileNumber), region.length);
            // The file may have been replaced between the table read and the open: check again.
            if (table.generation(region.slot) != region.generation)
            {
                ShmFiles.unmap(mapping);
                responderCounters.increment(DeviceCounters.RESPONDER_UNKNOWN_RKEY);
                return RegionRegistry.UNKNOWN_RKEY;
            }
            region.mapping = mapping;
            region.buffer = new UnsafeBuffer(mapping, 0, region.length);
            return 0;
        }
        catch (final SealedFiles.UnsealedFileException ex)
        {
            LOGGER.log(System.Logger.Level.WARNING, "refused a write into shm region rkey 0x" +
                Integer.toHexString(region.rkey) + " of " + peer.format() + ": " + ex.getMessage());
            responderCounters.increment(DeviceCounters.RESPONDER_ACCESS_DENIED);
            return RegionRegistry.ACCESS_DENIED;
        }
        catch (final IOException ex)
        {
            responderCounters.increment(DeviceCounters.RESPONDER_UNKNOWN_RKEY);
            return RegionRegistry.UNKNOWN_RKEY;
        }
    }

    private void evict(final ShmRemoteRegion region)
    {
        if (lastRegion == region)
        {
            lastRegion = null;
        }
        regionsByRkey.remove(region.rkey);
        region.unmap();
    }

    /**
     * Unmaps every cached region. Control thread, after the owning thread stopped.
     */
    @Override
    public void close()
    {
        for (final ShmRemoteRegion region : new ArrayList<>(regionsByRkey.values()))
        {
            region.unmap();
        }
        regionsByRkey.clear();
        lastRegion = null;
        allowedBuffer = null;
    }
}
