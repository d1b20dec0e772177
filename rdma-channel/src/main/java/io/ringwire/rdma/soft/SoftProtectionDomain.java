package io.ringwire.rdma.soft;

import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;

import java.nio.ByteBuffer;
import java.util.function.Function;

/**
 * Protection domain of a provider whose regions are plain direct memory checked by a
 * {@link RegionRegistry} (socket, roce): any direct buffer can be registered, since the provider's
 * responder copies incoming bytes itself.
 *
 * <p>Threading: control thread.
 */
public final class SoftProtectionDomain implements ProtectionDomain
{
    private static final int PAGE_SIZE = 4096;

    private final RegionRegistry regions;
    private final Function<QueuePairConfig, QueuePair> queuePairFactory;
    private final int id;

    /**
     * @param regions          the device's registry.
     * @param queuePairFactory creates the provider's queue pairs.
     */
    public SoftProtectionDomain(final RegionRegistry regions, final Function<QueuePairConfig, QueuePair> queuePairFactory)
    {
        this.regions = regions;
        this.queuePairFactory = queuePairFactory;
        this.id = regions.newProtectionDomainId();
    }

    @Override
    public MemoryRegion allocateRegion(final int length, final int access)
    {
        if (length <= 0)
        {
            throw new IllegalArgumentException("region length must be > 0: " + length);
        }
        // alignedSlice trims both ends to the alignment: allocate whole pages plus one for the start.
        final long pages = (length + (long)PAGE_SIZE - 1) / PAGE_SIZE;
        if (pages * PAGE_SIZE > Integer.MAX_VALUE - PAGE_SIZE)
        {
            throw new IllegalArgumentException("region length too large: " + length);
        }
        final ByteBuffer memory = ByteBuffer.allocateDirect((int)(pages * PAGE_SIZE) + PAGE_SIZE).alignedSlice(PAGE_SIZE);
        memory.limit(length);
        return regions.register(memory, access, null, id);
    }

    @Override
    public MemoryRegion register(final ByteBuffer buffer, final int access)
    {
        return regions.register(buffer.slice(), access, null, id);
    }

    @Override
    public QueuePair createQueuePair(final QueuePairConfig config)
    {
        final QueuePair queuePair = queuePairFactory.apply(config);
        if (queuePair instanceof SoftQueuePair soft)
        {
            soft.bindProtectionDomain(id);
        }
        return queuePair;
    }

    @Override
    public void close()
    {
    }
}
