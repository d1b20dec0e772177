package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.Agent;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.ringwire.rdma.ibverbs.VerbsLayouts.*;
import static io.ringwire.rdma.ibverbs.VerbsValues.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * An open verbs device context ({@code ibv_open_device}) on one port and one source GID.
 *
 * <p>What it reports: {@link #address()} is the GID as "a.b.c.d:4791" (see {@link GidAddress});
 * {@link #mtu()} the port's active MTU, capped by {@link RdmaConfig#mtu()}; {@link #maxMessageSize()}
 * the port's max_msg_sz; {@link #maxInlineData()} the configured maximum, capped by what the driver
 * grants a queue pair (learnt at open by creating and destroying one probe queue pair).
 *
 * <p>Counters: the NIC counts its transport events itself ({@code rdma statistic}, sysfs
 * {@code hw_counters}: retransmits, sequence errors, RNR NAKs); this device counts what the provider
 * sees: requests posted, error and flush completions, receives that failed with LOCAL_LENGTH_ERROR
 * (kernel rxe of Linux 6.1 reports those as LOC_QP_OP_ERR instead), completion queue overruns. Why a
 * remote request was refused (unknown rkey, bounds, access) is decided inside the responder's NIC and
 * never reported to the responder's application, so those responder counters stay 0 here.
 *
 * <p>Threading: the control thread creates and closes objects; queue pairs are looked up by number
 * from polling threads through a copy-on-write map.
 */
final class IbverbsDevice implements Device
{
    private final Verbs verbs;
    private final RdmaConfig config;
    private final IbverbsSettings settings;
    private final String name;
    private final MemorySegment context;
    private final VerbsOps ops;
    private final VerbsQueries.DeviceAttributes attributes;
    private final VerbsQueries.PortAttributes portAttributes;
    private final String address;
    private final int mtu;
    private final int maxMessageSize;
    private final int maxInlineData;
    private final DeviceCounters counters = new DeviceCounters();
    private final List<IbverbsProtectionDomain> domains = new ArrayList<>();
    private final List<IbverbsCompletionQueue> completionQueues = new ArrayList<>();
    private volatile Int2ObjectHashMap<IbverbsQueuePair> queuePairs = new Int2ObjectHashMap<>();
    private long pinnedBytes;
    private boolean closed;

    private IbverbsDevice(final Verbs verbs, final RdmaConfig config, final IbverbsSettings settings,
        final String name, final MemorySegment context, final Path sysRoot)
    {
        this.verbs = verbs;
        this.config = config;
        this.settings = settings;
        this.name = name;
        this.context = MemorySegment.ofAddress(context.address());
        this.attributes = VerbsQueries.queryDevice(verbs, context);
        final int port = settings.port();
        if (port > attributes.physicalPorts())
        {
            throw new RdmaException(name + " has " + attributes.physicalPorts() + " port(s); " +
                IbverbsProvider.PORT_PROP + "=" + port + " names none of them");
        }
        final SysfsPort sysfs = SysfsPort.of(sysRoot, name, port);
        this.portAttributes = VerbsQueries.queryPort(verbs, context, port);
        if (!portAttributes.isActive())
        {
            throw new RdmaException(PortDiagnosis.notActive(name, port, portStateName(portAttributes.state()),
                sysfs.netdev(settings.gidIndex())));
        }
        if (portAttributes.linkLayer() == IBV_LINK_LAYER_INFINIBAND)
        {
            throw new RdmaException("port " + port + " of " + name + " is InfiniBand: the ibverbs provider addresses " +
                "peers by RoCE GID (their IP address), which InfiniBand fabrics route by LID instead; use a RoCE " +
                "port, or provider socket");
        }
        final byte[] gid = queryGid(sysfs);
        this.address = GidAddress.toAddress(gid);
        final int activeMtu = mtuBytes(portAttributes.activeMtu());
        this.mtu = Math.min(activeMtu == 0 ? 1024 : activeMtu, config.mtu());
        this.maxMessageSize = (int)Math.min(Integer.MAX_VALUE,
            portAttributes.maxMessageSize() == 0 ? Integer.MAX_VALUE : portAttributes.maxMessageSize());
        this.ops = new VerbsOps(context, name);
        this.maxInlineData = probeMaxInlineData(config.maxInlineData());
    }

    /**
     * Opens the device the settings name.
     *
     * @throws RdmaException when there is none, or it is not usable; the message says what to do.
     */
    static IbverbsDevice open(final Verbs verbs, final RdmaConfig config, final IbverbsSettings settings,
        final Path sysRoot)
    {
        try (DeviceList list = DeviceList.open(verbs))
        {
            final int index = list.indexOf(settings);
            final String name = list.name(index);
            final MemorySegment context;
            try
            {
                context = verbs.openDevice(list.device(index));
            }
            catch (final VerbsCallException ex)
            {
                throw new RdmaException("ibv_open_device(" + name + ") failed: " + Errno.describe(ex.errno()) +
                    (ex.errno() == Errno.EACCES || ex.errno() == Errno.EPERM ?
                    ": no access to /dev/infiniband/uverbs*; run as a user allowed to (udev rules of rdma-core)" : ""),
                    ex);
            }
            try
            {
                return new IbverbsDevice(verbs, config, settings, name, context, sysRoot);
            }
            catch (final RuntimeException ex)
            {
                try
                {
                    verbs.closeDevice(context);
                }
                catch (final VerbsCallException suppressed)
                {
                    ex.addSuppressed(suppressed);
                }
                throw ex instanceof VerbsCallException verbsFailure ?
                    new RdmaException("opening " + name + ": " + verbsFailure.getMessage(), verbsFailure) : ex;
            }
        }
    }

    private byte[] queryGid(final SysfsPort sysfs)
    {
        final int port = settings.port();
        final int index = settings.gidIndex();
        if (index >= portAttributes.gidTableLength())
        {
            throw new RdmaException(PortDiagnosis.gidOutOfTable(name, port, index, portAttributes.gidTableLength()));
        }
        final byte[] gid;
        try
        {
            gid = VerbsQueries.queryGid(verbs, context, port, index);
        }
        catch (final VerbsCallException ex)
        {
            throw new RdmaException("ibv_query_gid(" + name + ", port " + port + ", index " + index + ") failed: " +
                Errno.describe(ex.errno()) + "; " + PortDiagnosis.chooseGid(name, port), ex);
        }
        if (GidAddress.isZero(gid))
        {
            throw new RdmaException(PortDiagnosis.emptyGid(name, port, index));
        }
        final String type = sysfs.gidType(index);
        if (null != type && !type.equals(SysfsPort.ROCE_V2))
        {
            throw new RdmaException(PortDiagnosis.notRoceV2(name, port, index, type));
        }
        return gid;
    }

    /**
     * Learns how much inline data the driver grants a queue pair, up to {@code wanted}: drivers refuse
     * (EINVAL) a request above their limit and report what they granted otherwise, so this creates
     * probe queue pairs, binary-searching down from {@code wanted} when it is refused.
     */
    private int probeMaxInlineData(final int wanted)
    {
        final MemorySegment pd;
        final MemorySegment cq;
        try
        {
            pd = verbs.allocPd(context);
        }
        catch (final VerbsCallException ex)
        {
            throw new RdmaException("ibv_alloc_pd on " + name + " failed: " + Errno.describe(ex.errno()), ex);
        }
        try
        {
            cq = verbs.createCq(context, 2);
        }
        catch (final VerbsCallException ex)
        {
            verbs.deallocPd(pd);
            throw new RdmaException("ibv_create_cq on " + name + " failed: " + Errno.describe(ex.errno()), ex);
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(QP_INIT_ATTR);
            final int granted = grantedInlineData(pd, cq, attr, wanted);
            if (granted >= 0)
            {
                return Math.min(wanted, granted);
            }
            if (grantedInlineData(pd, cq, attr, 0) < 0)
            {
                throw new RdmaException("ibv_create_qp on " + name + " refuses an RC queue pair of depth 1 even " +
                    "without inline data (EINVAL)");
            }
            int accepted = 0;
            int refused = wanted;
            while (refused - accepted > 1)
            {
                final int middle = (accepted + refused) >>> 1;
                if (grantedInlineData(pd, cq, attr, middle) >= 0)
                {
                    accepted = middle;
                }
                else
                {
                    refused = middle;
                }
            }
            return accepted;
        }
        finally
        {
            verbs.destroyCq(cq);
            verbs.deallocPd(pd);
        }
    }

    /** @return the inline size the driver granted a probe queue pair asking for {@code requested}, or -1 (EINVAL). */
    private int grantedInlineData(final MemorySegment pd, final MemorySegment cq, final MemorySegment attr,
        final int requested)
    {
        attr.fill((byte)0);
        attr.set(ADDRESS, QP_INIT_ATTR_SEND_CQ, cq);
        attr.set(ADDRESS, QP_INIT_ATTR_RECV_CQ, cq);
        attr.set(JAVA_INT, QP_INIT_ATTR_MAX_SEND_WR, 1);
        attr.set(JAVA_INT, QP_INIT_ATTR_MAX_RECV_WR, 1);
        attr.set(JAVA_INT, QP_INIT_ATTR_MAX_SEND_SGE, 1);
        attr.set(JAVA_INT, QP_INIT_ATTR_MAX_RECV_SGE, 1);
        attr.set(JAVA_INT, QP_INIT_ATTR_MAX_INLINE_DATA, requested);
        attr.set(JAVA_INT, QP_INIT_ATTR_QP_TYPE, IBV_QPT_RC);
        try
        {
            final MemorySegment probe = verbs.createQp(pd, attr);
            verbs.destroyQp(probe);
            return attr.get(JAVA_INT, QP_INIT_ATTR_MAX_INLINE_DATA);
        }
        catch (final VerbsCallException ex)
        {
            if (ex.errno() == Errno.EINVAL)
            {
                return -1;
            }
            throw new RdmaException("ibv_create_qp on " + name + " failed: " + Errno.describe(ex.errno()) +
                (ex.errno() == Errno.ENOMEM ? "; raise the memlock limit (ulimit -l)" : ""), ex);
        }
    }

    // ---------------------------------------------------------------- Device

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public String providerName()
    {
        return IbverbsProvider.NAME;
    }

    @Override
    public String address()
    {
        return address;
    }

    @Override
    public int maxInlineData()
    {
        return maxInlineData;
    }

    @Override
    public int mtu()
    {
        return mtu;
    }

    @Override
    public int maxCompletionQueueDepth()
    {
        return attributes.maxCompletionQueueDepth();
    }

    @Override
    public int maxMessageSize()
    {
        return maxMessageSize;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain()
    {
        checkOpen();
        final MemorySegment pd;
        try
        {
            pd = verbs.allocPd(context);
        }
        catch (final VerbsCallException ex)
        {
            throw new RdmaException("ibv_alloc_pd on " + name + " failed: " + Errno.describe(ex.errno()), ex);
        }
        final IbverbsProtectionDomain domain = new IbverbsProtectionDomain(this, pd);
        domains.add(domain);
        return domain;
    }

    @Override
    public CompletionQueue createCompletionQueue(final int depth)
    {
        checkOpen();
        if (depth < 1 || depth > attributes.maxCompletionQueueDepth())
        {
            throw new IllegalArgumentException("completion queue depth must be 1 to " +
                attributes.maxCompletionQueueDepth() + " (max_cqe of " + name + "): " + depth);
        }
        final MemorySegment cq;
        try
        {
            cq = verbs.createCq(context, depth);
        }
        catch (final VerbsCallException ex)
        {
            throw new RdmaException("ibv_create_cq of depth " + depth + " on " + name + " failed: " +
                Errno.describe(ex.errno()) + (ex.errno() == Errno.ENOMEM ? "; lower the depth or raise ulimit -l" : ""),
                ex);
        }
        final IbverbsCompletionQueue queue = new IbverbsCompletionQueue(this, cq, depth);
        completionQueues.add(queue);
        return queue;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The NIC progresses by itself (executes incoming requests, acknowledges, retransmits, writes
     * completions) whether or not anyone polls: this agent has nothing to do and returns 0.
     */
    @Override
    public Agent progressAgent()
    {
        return new IdleProgressAgent("ringwire-ibverbs-progress-" + name);
    }

    @Override
    public DeviceCounters counters()
    {
        return counters;
    }

    // ---------------------------------------------------------------- for the other classes of the provider

    Verbs verbs()
    {
        return verbs;
    }

    VerbsOps ops()
    {
        return ops;
    }

    RdmaConfig config()
    {
        return config;
    }

    int port()
    {
        return settings.port();
    }

    int gidIndex()
    {
        return settings.gidIndex();
    }

    int maxQueuePairDepth()
    {
        return attributes.maxQueuePairDepth();
    }

    synchronized void register(final IbverbsQueuePair queuePair)
    {
        final Int2ObjectHashMap<IbverbsQueuePair> updated = new Int2ObjectHashMap<>(queuePairs);
        updated.put(queuePair.queuePairNumber(), queuePair);
        queuePairs = updated;
    }

    synchronized void unregister(final IbverbsQueuePair queuePair)
    {
        if (queuePairs.get(queuePair.queuePairNumber()) == queuePair)
        {
            final Int2ObjectHashMap<IbverbsQueuePair> updated = new Int2ObjectHashMap<>(queuePairs);
            updated.remove(queuePair.queuePairNumber());
            queuePairs = updated;
        }
    }

    /**
     * @param queuePairNumber of a completion.
     * @return the queue pair, or null once destroyed. Allocation-free.
     */
    IbverbsQueuePair queuePair(final int queuePairNumber)
    {
        return queuePairs.get(queuePairNumber);
    }

    synchronized void pin(final long bytes)
    {
        pinnedBytes += bytes;
    }

    synchronized void unpin(final long bytes)
    {
        pinnedBytes -= bytes;
    }

    synchronized long pinnedBytes()
    {
        return pinnedBytes;
    }

    void forget(final IbverbsProtectionDomain domain)
    {
        domains.remove(domain);
    }

    void forget(final IbverbsCompletionQueue queue)
    {
        completionQueues.remove(queue);
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("device " + name + " is closed");
        }
    }

    /**
     * Closes the domains (their queue pairs, then their regions), then the completion queues, then
     * the context: verbs refuses to destroy a completion queue a queue pair still uses.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final RuntimeException failure = Closer.closeParent(domains, completionQueues, () -> verbs.closeDevice(context),
            "ibv_close_device(" + name + ")", "");
        // A completion queue the driver would not destroy (a queue pair whose destroy failed still
        // used it) went with the context: from now on it reaches no verb.
        for (final IbverbsCompletionQueue queue : List.copyOf(completionQueues))
        {
            queue.abandon();
        }
        Closer.throwIfAny(failure);
    }

    @Override
    public String toString()
    {
        return "IbverbsDevice{" + name + " port " + settings.port() + " gid " + settings.gidIndex() + " " + address +
            ", mtu=" + mtu + ", maxInline=" + maxInlineData + '}';
    }
}
