package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A protection domain ({@code ibv_alloc_pd}): registers memory and creates queue pairs.
 *
 * <p>Threading: the device's control thread.
 */
final class IbverbsProtectionDomain implements ProtectionDomain
{
    /** Regions are allocated in whole, aligned pages: the NIC pins pages, never parts of one. */
    static final int PAGE_SIZE = 4096;

    private final IbverbsDevice device;
    private final MemorySegment pd;
    private final List<IbverbsMemoryRegion> regions = new ArrayList<>();
    private final List<IbverbsQueuePair> queuePairs = new ArrayList<>();
    private boolean closed;

    IbverbsProtectionDomain(final IbverbsDevice device, final MemorySegment pd)
    {
        this.device = device;
        this.pd = pd;
    }

    IbverbsDevice device()
    {
        return device;
    }

    MemorySegment pd()
    {
        return pd;
    }

    @Override
    public MemoryRegion allocateRegion(final int length, final int access)
    {
        checkOpen();
        if (length <= 0)
        {
            throw new IllegalArgumentException("region length must be > 0: " + length);
        }
        Access.validate(access);
        final Arena arena = Arena.ofShared();
        try
        {
            final long pages = ((long)length + PAGE_SIZE - 1) / PAGE_SIZE;
            final MemorySegment memory = arena.allocate(pages * PAGE_SIZE, PAGE_SIZE);
            return register(memory.address(), length, access, arena, null);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
    }

    @Override
    public MemoryRegion register(final ByteBuffer buffer, final int access)
    {
        checkOpen();
        if (!buffer.isDirect())
        {
            throw new RdmaException("ibverbs registers native memory only: pass a direct ByteBuffer " +
                "(ByteBuffer.allocateDirect), or use allocateRegion");
        }
        if (!buffer.hasRemaining())
        {
            throw new IllegalArgumentException("the buffer has nothing between position and limit to register");
        }
        Access.validate(access);
        return register(MemorySegment.ofBuffer(buffer).address(), buffer.remaining(), access, null, buffer);
    }

    private MemoryRegion register(final long address, final int length, final int access, final Arena ownedMemory,
        final ByteBuffer registeredBuffer)
    {
        final MemorySegment mr;
        try
        {
            mr = device.verbs().regMr(pd, MemorySegment.ofAddress(address), length, access);
        }
        catch (final VerbsCallException ex)
        {
            throw new RdmaException(registrationFailure(ex.errno(), length, access), ex);
        }
        device.pin(length);
        final IbverbsMemoryRegion region = new IbverbsMemoryRegion(this, mr, length, access, ownedMemory,
            registeredBuffer);
        regions.add(region);
        return region;
    }

    private String registrationFailure(final int errno, final int length, final int access)
    {
        final String call = "ibv_reg_mr of " + length + " bytes (" + Access.toString(access) + ") on " +
            device.name() + " failed with " + Errno.describe(errno);
        final long limit = LockedMemoryLimit.current();
        final long pinned = device.pinnedBytes();
        final boolean lockedMemoryError = errno == Errno.ENOMEM || errno == Errno.EPERM || errno == Errno.EAGAIN;
        if (lockedMemoryError && limit >= 0 && limit != LockedMemoryLimit.UNLIMITED && limit < pinned + length)
        {
            return call + ": memlock limit " + limit + " is too low for a region of " + length + " bytes" +
                (pinned > 0 ? " (" + pinned + " bytes already registered)" : "") +
                ": raise it (ulimit -l unlimited, or LimitMEMLOCK= in systemd)";
        }
        if (errno == Errno.EINVAL)
        {
            return call + ": the access flags or the range are not allowed (REMOTE_WRITE needs LOCAL_WRITE)";
        }
        return call + " (memlock limit " + LockedMemoryLimit.describe(limit) + ")";
    }

    @Override
    public QueuePair createQueuePair(final QueuePairConfig config)
    {
        checkOpen();
        final IbverbsCompletionQueue send = ownCompletionQueue(config.sendCompletionQueue());
        final IbverbsCompletionQueue receive = ownCompletionQueue(config.receiveCompletionQueue());
        if (config.maxInlineData() > device.maxInlineData())
        {
            throw new IllegalArgumentException("maxInlineData " + config.maxInlineData() + " exceeds the device's " +
                device.maxInlineData());
        }
        final int limit = device.maxQueuePairDepth();
        if (config.maxSendRequests() > limit || config.maxReceiveRequests() > limit)
        {
            throw new IllegalArgumentException("queue depths send=" + config.maxSendRequests() + " receive=" +
                config.maxReceiveRequests() + " exceed " + device.name() + "'s max_qp_wr " + limit);
        }
        final IbverbsQueuePair queuePair = new IbverbsQueuePair(this, config, send, receive);
        queuePairs.add(queuePair);
        device.register(queuePair);
        return queuePair;
    }

    private IbverbsCompletionQueue ownCompletionQueue(final CompletionQueue queue)
    {
        if (!(queue instanceof IbverbsCompletionQueue ibverbs) || ibverbs.device() != device)
        {
            throw new IllegalArgumentException("the completion queue must come from this ibverbs device (" +
                device.name() + "): " + queue);
        }
        if (ibverbs.isClosed())
        {
            throw new IllegalStateException("the completion queue is closed: its ibv_cq is freed (" + queue + ")");
        }
        return ibverbs;
    }

    void forget(final IbverbsMemoryRegion region)
    {
        regions.remove(region);
    }

    void forget(final IbverbsQueuePair queuePair)
    {
        queuePairs.remove(queuePair);
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("protection domain of " + device.name() + " is closed");
        }
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final RuntimeException failure = Closer.closeParent(queuePairs, regions, () -> device.verbs().deallocPd(pd),
            "ibv_dealloc_pd on " + device.name(), " (a queue pair or region of this domain is still alive)");
        device.forget(this);
        Closer.throwIfAny(failure);
    }
}
