package io.ringwire.rdma.soft;

import io.ringwire.rdma.MemoryRegion;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * A memory region of a software provider: a direct buffer (possibly a mapped file), its keys and
 * access flags. Deregistration removes the key from the {@link RegionRegistry} first, so no
 * responder can use it afterwards, then runs the provider's release action.
 *
 * <p>Threading: accessors from any thread; close on the control thread.
 */
public final class SoftMemoryRegion implements MemoryRegion
{
    private final RegionRegistry registry;
    /** Over the registered memory, which it keeps reachable while the region is. */
    private final UnsafeBuffer buffer;
    private final int key;
    private final int access;
    private final Runnable release;
    private final int protectionDomainId;
    private volatile boolean closed;

    SoftMemoryRegion(final RegionRegistry registry, final ByteBuffer memory, final int key, final int access,
        final Runnable release, final int protectionDomainId)
    {
        this.protectionDomainId = protectionDomainId;
        this.registry = registry;
        this.buffer = new UnsafeBuffer(memory, memory.position(), memory.remaining());
        this.key = key;
        this.access = access;
        this.release = release;
    }

    @Override
    public long address()
    {
        return buffer.addressOffset();
    }

    @Override
    public int length()
    {
        return buffer.capacity();
    }

    @Override
    public int lkey()
    {
        return key;
    }

    @Override
    public int rkey()
    {
        return key;
    }

    @Override
    public int access()
    {
        return access;
    }

    /**
     * @return the region's buffer, as its concrete type so transports can keep it in typed arrays.
     */
    @Override
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return the owning protection domain's id, or {@link RegionRegistry#NO_DOMAIN}.
     */
    int protectionDomainId()
    {
        return protectionDomainId;
    }

    /**
     * @return true once deregistered.
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * @param registry a device's registry.
     * @return true while this region is registered there: created by it and not yet deregistered.
     */
    boolean isRegisteredWith(final RegionRegistry registry)
    {
        return this.registry == registry && !closed;
    }

    /**
     * Whether {@code [offset, offset + length)} lies inside the region, overflow-safe.
     *
     * @param offset from the region's start.
     * @param length bytes.
     * @return true when inside.
     */
    public boolean contains(final long offset, final long length)
    {
        return offset >= 0 && length >= 0 && offset <= buffer.capacity() - length;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            registry.remove(this);
            if (null != release)
            {
                release.run();
            }
        }
    }

    @Override
    public String toString()
    {
        return "MemoryRegion{address=0x" + Long.toHexString(address()) + ", length=" + length() +
            ", key=0x" + Integer.toHexString(key) + ", access=" + io.ringwire.rdma.Access.toString(access) + '}';
    }
}
