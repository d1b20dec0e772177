package io.ringwire.rdma.socket;

import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;

import java.nio.ByteBuffer;

/**
 * Protection domain of a socket device. Regions are plain direct memory; any direct buffer can be
 * registered, since the responder copies incoming bytes itself.
 *
 * <p>Threading: control thread.
 */
final class SocketProtectionDomain implements ProtectionDomain
{
    private final SocketDevice device;

    SocketProtectionDomain(final SocketDevice device)
    {
        this.device = device;
    }

    @Override
    public MemoryRegion allocateRegion(final int length, final int access)
    {
        return device.allocateMemory(length, access);
    }

    @Override
    public MemoryRegion register(final ByteBuffer buffer, final int access)
    {
        return device.regions().register(buffer.slice(), access, null);
    }

    @Override
    public QueuePair createQueuePair(final QueuePairConfig config)
    {
        return device.createQueuePair(config);
    }

    @Override
    public void close()
    {
    }
}
