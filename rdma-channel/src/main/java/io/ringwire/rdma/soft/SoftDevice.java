package io.ringwire.rdma.soft;

import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.RdmaConfig;
import org.agrona.CloseHelper;
import org.agrona.concurrent.Agent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What every software device (shm, socket, roce) is made of: its configuration and counters, the
 * registry of its regions' keys, the {@link ProgressGuard} its queue pairs and completion queues
 * share, the completion queues a {@link SoftProgressAgent} drives, the protection domains and
 * completion queues it closes with it, and its closed state. A provider adds its transport: its
 * address, its protection domains, its message size limit, and whatever it releases on close
 * ({@link #closeQueuePairs()}, {@link #closeTransport()}).
 *
 * <p>Nothing here runs on the data path: queue pairs copy what they need (counters, registry,
 * guard) into their own fields when they are created.
 *
 * <p>Threading: created, used to create objects, and closed by one control thread; the accessors
 * may be read from any thread.
 */
public abstract class SoftDevice implements Device
{
    private final RdmaConfig config;
    private final String providerName;
    private final String name;
    private final DeviceCounters counters;
    private final RegionRegistry regions;
    private final ProgressGuard guard = new ProgressGuard();
    /** Copied on change and published whole, for the progress agent's thread. */
    private volatile SoftCompletionQueue[] completionQueues = new SoftCompletionQueue[0];
    private final List<AutoCloseable> resources = new ArrayList<>();
    private volatile boolean closed;

    /**
     * @param config       concluded configuration.
     * @param providerName the provider that opens it; the device is its first, e.g. "socket0".
     * @param counters     where the device counts (shm keeps them in its shared control file).
     */
    protected SoftDevice(final RdmaConfig config, final String providerName, final DeviceCounters counters)
    {
        this.config = config;
        this.providerName = providerName;
        this.name = providerName + '0';
        this.counters = counters;
        this.regions = new RegionRegistry(counters);
    }

    /**
     * Creates a protection domain of this provider. Control thread; the device is open.
     *
     * @return the new domain, which {@link #close()} closes.
     */
    protected abstract ProtectionDomain newProtectionDomain();

    /**
     * Closes the queue pairs the device keeps itself, before its protection domains and completion
     * queues close (default: none, the domains own them). Called once, by {@link #close()}.
     */
    protected void closeQueuePairs()
    {
    }

    /**
     * Releases the transport (sockets, files) after everything created from the device is closed.
     * Called once, by {@link #close()}.
     */
    protected abstract void closeTransport();

    /**
     * @return the provider's name and 0: one device per provider, as a host with one NIC of a kind.
     */
    @Override
    public final String name()
    {
        return name;
    }

    @Override
    public final String providerName()
    {
        return providerName;
    }

    /**
     * @return {@link RdmaConfig#maxInlineData()}.
     */
    @Override
    public final int maxInlineData()
    {
        return config.maxInlineData();
    }

    /**
     * @return {@link RdmaConfig#mtu()}.
     */
    @Override
    public final int mtu()
    {
        return config.mtu();
    }

    /**
     * @return {@link SoftCompletionQueue#MAX_DEPTH}.
     */
    @Override
    public final int maxCompletionQueueDepth()
    {
        return SoftCompletionQueue.MAX_DEPTH;
    }

    @Override
    public final DeviceCounters counters()
    {
        return counters;
    }

    /**
     * @return the configuration the device was opened with.
     */
    public final RdmaConfig config()
    {
        return config;
    }

    /**
     * @return the keys of the device's regions, with the responder's access checks.
     */
    public final RegionRegistry regions()
    {
        return regions;
    }

    /**
     * @return the guard shared by this device's queue pairs and completion queues.
     */
    final ProgressGuard progressGuard()
    {
        return guard;
    }

    /**
     * @return true once {@link #close()} has begun.
     */
    public final boolean isClosed()
    {
        return closed;
    }

    @Override
    public final ProtectionDomain allocateProtectionDomain()
    {
        checkOpen();
        final ProtectionDomain domain = newProtectionDomain();
        synchronized (resources)
        {
            resources.add(domain);
        }
        return domain;
    }

    /**
     * Creates a completion queue that shares the device's guard and is driven by its agent.
     *
     * @param depth completions it holds, 1 to {@link SoftCompletionQueue#MAX_DEPTH}.
     * @return the queue.
     */
    @Override
    public final CompletionQueue createCompletionQueue(final int depth)
    {
        checkOpen();
        final SoftCompletionQueue queue = new SoftCompletionQueue(depth, counters, guard);
        synchronized (resources)
        {
            final SoftCompletionQueue[] updated = Arrays.copyOf(completionQueues, completionQueues.length + 1);
            updated[completionQueues.length] = queue;
            completionQueues = updated;
            resources.add(queue);
        }
        return queue;
    }

    /**
     * Switches the guard on and returns an agent driving every completion queue of the device.
     *
     * @return the agent; run it on an agrona AgentRunner.
     */
    @Override
    public final Agent progressAgent()
    {
        guard.enable();
        return new SoftProgressAgent("ringwire-" + providerName + "-progress-" + address(), this);
    }

    /**
     * @return the completion queues created so far, read by the agent every duty cycle.
     */
    SoftCompletionQueue[] completionQueues()
    {
        return completionQueues;
    }

    /**
     * @throws IllegalStateException once the device is closed.
     */
    public final void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("device " + name + " at " + address() + " is closed");
        }
    }

    /**
     * Closes the device's own queue pairs, then its protection domains and completion queues in the
     * reverse order of their creation, then the transport. Idempotent.
     */
    @Override
    public final void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        closeQueuePairs();
        synchronized (resources)
        {
            for (int i = resources.size() - 1; i >= 0; i--)
            {
                CloseHelper.quietClose(resources.get(i));
            }
            resources.clear();
        }
        closeTransport();
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + '{' + address() + '}';
    }
}
