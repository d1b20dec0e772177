package io.ringwire.rdma.shm;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.soft.SoftMemoryRegion;
import org.agrona.CloseHelper;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Protection domain of an shm device. {@link #allocateRegion} gives regions peers can write (a
 * shared file each, published in the device's region table); {@link #register} accepts private
 * direct memory for local use only.
 *
 * <p>Threading: control thread. Closing it closes its queue pairs, then its regions.
 */
final class ShmProtectionDomain implements ProtectionDomain
{
    private static final int REMOTE_ACCESS = Access.REMOTE_WRITE | Access.REMOTE_READ;

    private final ShmDevice device;
    private final List<ShmQueuePair> queuePairs = new ArrayList<>();
    private final List<SoftMemoryRegion> regions = new ArrayList<>();
    private boolean closed;

    ShmProtectionDomain(final ShmDevice device)
    {
        this.device = device;
    }

    /**
     * Creates {@code <dir>/<pid>-<dev>-mr-<n>.shm}, maps it, registers it (lkey == rkey) and publishes
     * it in the region table. Closing the region clears its slot and deletes the file; the memory
     * is unmapped a grace period later (see {@link ShmDevice#retire}).
     *
     * @param length bytes, 1 to {@link ShmDevice#MAX_WRITE_LENGTH}.
     * @param access {@link Access} flags.
     * @return the region, zero-filled and page-aligned.
     * @throws RdmaException when the region table is full or the file cannot be created.
     */
    @Override
    public synchronized MemoryRegion allocateRegion(final int length, final int access)
    {
        checkOpen();
        if (length <= 0 || length > ShmDevice.MAX_WRITE_LENGTH)
        {
            throw new IllegalArgumentException("region length must be 1 to " + ShmDevice.MAX_WRITE_LENGTH + ": " + length);
        }
        Access.validate(access);
        device.unmapRetired();
        final int slot = reserveSlot();
        final int fileNumber = device.nextRegionFileNumber();
        final Path file = device.shmAddress().regionFile(fileNumber);
        final MappedByteBuffer mapping;
        try
        {
            mapping = ShmFiles.createAndMap(file, length);
        }
        catch (final RuntimeException ex)
        {
            device.regionTable().unreserve(slot);
            throw ex;
        }
        final RegionRelease release = new RegionRelease(this, slot, mapping, file);
        final SoftMemoryRegion region = device.regions().register(mapping, access, release);
        release.region = region;
        device.regionTable().publish(slot, region.rkey(), access, length, region.address(), fileNumber);
        regions.add(region);
        return region;
    }

    /**
     * Registers private direct memory for local use: send sources, receive buffers. Its key is
     * published too, so a peer naming it is refused with an access error like on any provider.
     *
     * @param buffer a direct buffer; the region covers position to limit.
     * @param access local {@link Access} flags only.
     * @return the region.
     * @throws RdmaException when REMOTE_WRITE or REMOTE_READ is asked for, or the table is full.
     */
    @Override
    public synchronized MemoryRegion register(final ByteBuffer buffer, final int access)
    {
        checkOpen();
        if ((access & REMOTE_ACCESS) != 0)
        {
            throw new RdmaException("shm peers can only reach memory from ProtectionDomain.allocateRegion: a " +
                "registered ByteBuffer is private to this process and cannot be given " +
                Access.toString(access & REMOTE_ACCESS) + "; allocate the region with allocateRegion(length, access) " +
                "and encode into its buffer() instead");
        }
        Access.validate(access);
        final int slot = reserveSlot();
        final RegionRelease release = new RegionRelease(this, slot, null, null);
        final SoftMemoryRegion region;
        try
        {
            region = device.regions().register(buffer.slice(), access, release);
        }
        catch (final RuntimeException ex)
        {
            device.regionTable().unreserve(slot);
            throw ex;
        }
        release.region = region;
        device.regionTable().publish(slot, region.rkey(), access, region.length(), region.address(),
            ShmRegionTable.NO_FILE);
        regions.add(region);
        return region;
    }

    private int reserveSlot()
    {
        final int slot = device.regionTable().reserve();
        if (slot < 0)
        {
            throw new RdmaException("shm device " + device.address() + " already publishes " +
                ShmDevice.REGION_TABLE_CAPACITY + " regions: close regions no longer needed (register once, reuse)");
        }
        return slot;
    }

    /**
     * Creates a queue pair and its inbound ring file.
     *
     * @param config completion queues of this device, depths, and maxInlineData up to the device's.
     * @return the queue pair, in RESET.
     * @throws IllegalArgumentException when the configuration does not fit the device.
     */
    @Override
    public synchronized QueuePair createQueuePair(final QueuePairConfig config)
    {
        checkOpen();
        final int number = device.nextQueuePairNumber();
        final ShmQueuePair queuePair;
        try
        {
            queuePair = new ShmQueuePair(device, this, number, config);
        }
        catch (final RuntimeException | Error ex)
        {
            device.releaseQueuePairNumber(number);
            throw ex;
        }
        queuePairs.add(queuePair);
        return queuePair;
    }

    synchronized void forget(final ShmQueuePair queuePair)
    {
        queuePairs.remove(queuePair);
        device.releaseQueuePairNumber(queuePair.queuePairNumber());
    }

    private synchronized void forget(final SoftMemoryRegion region)
    {
        regions.remove(region);
    }

    private void checkOpen()
    {
        device.checkOpen();
        if (closed)
        {
            throw new IllegalStateException("protection domain of " + device.address() + " is closed");
        }
    }

    /**
     * Closes the queue pairs, then the regions. Idempotent.
     */
    @Override
    public void close()
    {
        final List<ShmQueuePair> openQueuePairs;
        final List<SoftMemoryRegion> openRegions;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            openQueuePairs = new ArrayList<>(queuePairs);
            openRegions = new ArrayList<>(regions);
        }
        openQueuePairs.forEach(CloseHelper::quietClose);
        openRegions.forEach(CloseHelper::quietClose);
    }

    /**
     * Deregistration of one region, run by {@link SoftMemoryRegion#close()} after its key left the
     * registry: clear the table slot (peers refuse the rkey from now on), delete the file, and hand
     * the memory to the device to unmap after a grace period ({@link ShmDevice#retire}).
     */
    private static final class RegionRelease implements Runnable
    {
        private final ShmProtectionDomain domain;
        private final int slot;
        private final MappedByteBuffer mapping;
        private final Path file;
        private SoftMemoryRegion region;

        RegionRelease(final ShmProtectionDomain domain, final int slot, final MappedByteBuffer mapping, final Path file)
        {
            this.domain = domain;
            this.slot = slot;
            this.mapping = mapping;
            this.file = file;
        }

        @Override
        public void run()
        {
            domain.device.regionTable().clear(slot);
            domain.device.retire(mapping);
            if (null != file)
            {
                ShmFiles.deleteQuietly(file);
            }
            domain.forget(region);
        }
    }
}
