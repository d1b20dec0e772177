package io.ringwire.rdma.soft;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.RdmaException;

import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The keys of a device's registered regions and the responder's access checks on them.
 *
 * <p>Threading: register and remove on the control thread; lookups from owning threads take no
 * lock and allocate nothing (see {@link CopyOnWriteIntMap}).
 */
public final class RegionRegistry
{
    /** {@link #checkRemoteAccess} result: no region has the rkey. */
    public static final int UNKNOWN_RKEY = -1;
    /** {@link #checkRemoteAccess} result: the range is outside the region. */
    public static final int OUT_OF_BOUNDS = -2;
    /** {@link #checkRemoteAccess} result: the region lacks the required access, or belongs to another domain. */
    public static final int ACCESS_DENIED = -3;
    /** A region or queue pair outside any protection domain (no domain check). */
    public static final int NO_DOMAIN = -1;
    private int nextProtectionDomainId;

    private final DeviceCounters counters;
    private final CopyOnWriteIntMap<SoftMemoryRegion> regionsByKey = new CopyOnWriteIntMap<>();
    private int nextKey;

    /**
     * @param counters where refused accesses are counted.
     */
    public RegionRegistry(final DeviceCounters counters)
    {
        this.counters = counters;
        // Start keys at a random point so a stale rkey from an earlier run is unlikely to be valid.
        this.nextKey = ThreadLocalRandom.current().nextInt(0x100, 0x00FF_FFFF);
    }

    /**
     * Registers memory under a fresh key. Control thread.
     *
     * @param memory  direct memory; the region covers position to limit.
     * @param access  {@link Access} flags.
     * @param release run after deregistration (unmap, delete a file), or null.
     * @return the region.
     */
    public synchronized SoftMemoryRegion register(final ByteBuffer memory, final int access, final Runnable release)
    {
        return register(memory, access, release, NO_DOMAIN);
    }

    /**
     * Registers memory under a fresh key, owned by a protection domain. Control thread.
     *
     * @param memory             direct memory; the region covers position to limit.
     * @param access             {@link Access} flags.
     * @param release            run after deregistration, or null.
     * @param protectionDomainId the owning domain, or {@link #NO_DOMAIN}.
     * @return the region.
     */
    public synchronized SoftMemoryRegion register(final ByteBuffer memory, final int access, final Runnable release,
        final int protectionDomainId)
    {
        Access.validate(access);
        if (!memory.isDirect())
        {
            throw new RdmaException("only direct memory can be registered: use ByteBuffer.allocateDirect " +
                "or ProtectionDomain.allocateRegion");
        }
        if (!memory.hasRemaining())
        {
            throw new RdmaException("cannot register an empty region (position == limit)");
        }
        int key;
        do
        {
            key = nextKey;
            nextKey = (nextKey + 1) & 0x7FFF_FFFF;
        }
        while (key == 0 || regionsByKey.containsKey(key));
        final SoftMemoryRegion region = new SoftMemoryRegion(this, memory, key, access, release, protectionDomainId);
        regionsByKey.put(key, region);
        return region;
    }

    synchronized void remove(final SoftMemoryRegion region)
    {
        regionsByKey.remove(region.rkey());
    }

    /**
     * @param key an lkey or rkey.
     * @return the live region with that key, or null.
     */
    public SoftMemoryRegion byKey(final int key)
    {
        return regionsByKey.get(key);
    }

    /**
     * The region a request {@link #checkRemoteAccess checked} goes to, looked up again: the control
     * thread may have deregistered it in between, and then the request is refused as one with an
     * unknown rkey (counted).
     *
     * @param rkey the checked request's rkey.
     * @return the live region, or null.
     */
    public SoftMemoryRegion checkedRegion(final int rkey)
    {
        final SoftMemoryRegion region = regionsByKey.get(rkey);
        if (null == region || region.isClosed())
        {
            counters.increment(DeviceCounters.RESPONDER_UNKNOWN_RKEY);
            return null;
        }
        return region;
    }

    /**
     * The responder's check of a remote request, before a single byte is touched. Counts refusals.
     *
     * @param rkey           from the request.
     * @param remoteAddress  virtual address from the request.
     * @param length         bytes.
     * @param requiredAccess {@link Access#REMOTE_WRITE} or {@link Access#REMOTE_READ}.
     * @return the offset in the region (&gt;= 0) when allowed, else {@link #UNKNOWN_RKEY},
     *         {@link #OUT_OF_BOUNDS} or {@link #ACCESS_DENIED}.
     */
    public long checkRemoteAccess(final int rkey, final long remoteAddress, final long length, final int requiredAccess)
    {
        return checkRemoteAccess(rkey, remoteAddress, length, requiredAccess, NO_DOMAIN);
    }

    /**
     * As {@link #checkRemoteAccess(int, long, long, int)}, and the region must belong to the
     * responding queue pair's protection domain (an rkey of another domain is refused).
     *
     * @param protectionDomainId the responding queue pair's domain, or {@link #NO_DOMAIN}.
     */
    public long checkRemoteAccess(final int rkey, final long remoteAddress, final long length, final int requiredAccess,
        final int protectionDomainId)
    {
        final SoftMemoryRegion region = regionsByKey.get(rkey);
        if (null == region || region.isClosed())
        {
            counters.increment(DeviceCounters.RESPONDER_UNKNOWN_RKEY);
            return UNKNOWN_RKEY;
        }
        if (!Access.allows(region.access(), requiredAccess) || !sameDomain(region.protectionDomainId(), protectionDomainId))
        {
            counters.increment(DeviceCounters.RESPONDER_ACCESS_DENIED);
            return ACCESS_DENIED;
        }
        final long offset = remoteAddress - region.address();
        if (!region.contains(offset, length))
        {
            counters.increment(DeviceCounters.RESPONDER_OUT_OF_BOUNDS);
            return OUT_OF_BOUNDS;
        }
        return offset;
    }

    /**
     * The requester's check of a local range: the region must be one of this device's, live, hold
     * the range, and allow local writes when the request writes into it.
     *
     * @param region          named by the request.
     * @param offset          in the region.
     * @param length          bytes.
     * @param needsLocalWrite true for receive buffers and read targets.
     * @return true when allowed.
     */
    public boolean checkLocalAccess(final MemoryRegion region, final long offset, final long length,
        final boolean needsLocalWrite)
    {
        return checkLocalAccess(region, offset, length, needsLocalWrite, NO_DOMAIN);
    }

    /**
     * As {@link #checkLocalAccess(MemoryRegion, long, long, boolean)}, and the region must belong to
     * the queue pair's protection domain.
     *
     * @param protectionDomainId the queue pair's domain, or {@link #NO_DOMAIN}.
     */
    public boolean checkLocalAccess(final MemoryRegion region, final long offset, final long length,
        final boolean needsLocalWrite, final int protectionDomainId)
    {
        // Registered with this registry and not closed is the same as being in regionsByKey (a region
        // is put there before anyone holds it and closes before it is removed), without the lookup.
        if (!(region instanceof SoftMemoryRegion soft) || !soft.isRegisteredWith(this) ||
            !sameDomain(soft.protectionDomainId(), protectionDomainId))
        {
            return false;
        }
        if (needsLocalWrite && !Access.allows(soft.access(), Access.LOCAL_WRITE))
        {
            return false;
        }
        return soft.contains(offset, length);
    }

    private static boolean sameDomain(final int regionDomain, final int queuePairDomain)
    {
        return regionDomain == NO_DOMAIN || queuePairDomain == NO_DOMAIN || regionDomain == queuePairDomain;
    }

    /**
     * @return a fresh protection domain id for this device.
     */
    public synchronized int newProtectionDomainId()
    {
        return nextProtectionDomainId++;
    }
}
