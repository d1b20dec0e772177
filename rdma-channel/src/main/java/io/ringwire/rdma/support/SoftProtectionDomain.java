package io.ringwire.rdma.support;

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
    private final RegionRegistry regions;
    private final Function<QueuePairConfig, QueuePair> queuePairFactory;

    /**
     * @param regions          the device's registry.
     * @param queuePairFactory creates the provider's queue pairs.
     */
    public SoftProtectionDomain(final RegionRegistry regions, final Function<QueuePairConfig, QueuePair> queuePairFactory)
    {
        this.regions = regions;
        this.queuePairFactory = queuePairFactory;
    }

    @Override
    public MemoryRegion allocateRegion(final int length, final int access)
    {
        if (length <= 0)
        {
            throw new IllegalArgumentException("region length must be > 0: " + length);
        }
        final ByteBuffer memory = ByteBuffer.allocateDirect(length + 4096).alignedSlice(4096);
        memory.limit(length);
        return regions.register(memory, access, null);
    }

    @Override
    public MemoryRegion register(final ByteBuffer buffer, final int access)
    {
        return regions.register(buffer.slice(), access, null);
    }

    @Override
    public QueuePair createQueuePair(final QueuePairConfig config)
    {
        return queuePairFactory.apply(config);
    }

    @Override
    public void close()
    {
    }
}
