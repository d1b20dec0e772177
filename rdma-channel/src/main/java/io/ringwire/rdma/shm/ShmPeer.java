package io.ringwire.rdma.shm;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.host.ProcessIdentity;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * What a queue pair holds of its peer: the peer device's control file (liveness, counters, region
 * table), the peer queue pair's inbound ring (to produce SEND and WRITE WITH IMMEDIATE records), and
 * the cache of peer regions it writes into.
 *
 * <p>Liveness: the peer is gone when its queue pair is in error or closed, its device is closed, or
 * its heartbeat is older than the peer timeout and its process (pid and start time) no longer runs.
 * A stale heartbeat alone is not enough, since a live process may simply not be polling.
 *
 * <p>Threading: created and closed on the control thread; used by the queue pair's owning thread.
 */
final class ShmPeer implements AutoCloseable
{
    /** Least time between two process checks of a peer whose heartbeat is stale but which is alive. */
    static final long MIN_PROCESS_CHECK_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ShmAddress address;
    private final MappedByteBuffer controlMapping;
    private final ShmDeviceControl control;
    private final ShmInboundRing ring;
    private final ShmRemoteRegions regions;
    private final long ownerPid;
    private final long ownerStartTime;
    private final long peerTimeoutNs;
    private final long processCheckIntervalNs;
    private long nextProcessCheckNs;

    private ShmPeer(final ShmAddress address, final MappedByteBuffer controlMapping, final ShmDeviceControl control,
        final int regionTableCapacity, final ShmInboundRing ring, final long peerTimeoutNs)
    {
        this.address = address;
        this.controlMapping = controlMapping;
        this.control = control;
        this.ring = ring;
        this.ownerPid = control.ownerPid();
        this.ownerStartTime = control.ownerStartTime();
        this.peerTimeoutNs = peerTimeoutNs;
        this.processCheckIntervalNs = Math.max(MIN_PROCESS_CHECK_INTERVAL_NS, peerTimeoutNs / 4);
        final ShmRegionTable table = new ShmRegionTable(control.regionTableBuffer(regionTableCapacity),
            regionTableCapacity, false);
        this.regions = new ShmRemoteRegions(address, table, new DeviceCounters(control.countersBuffer()));
    }

    /**
     * Maps the peer device and the peer queue pair's ring. Control thread.
     *
     * @param address         the peer device.
     * @param queuePairNumber the peer queue pair.
     * @param producerToken   nonzero token claiming the peer's ring.
     * @param peerTimeoutNs   from the configuration.
     * @return the peer.
     * @throws RdmaException naming the missing file and the likely cause.
     */
    static ShmPeer connect(final ShmAddress address, final int queuePairNumber, final long producerToken,
        final long peerTimeoutNs)
    {
        final MappedByteBuffer controlMapping;
        try
        {
            controlMapping = ShmFiles.mapExisting(address.controlFile(), ShmDeviceControl.fileLength(0));
        }
        catch (final IOException ex)
        {
            throw new RdmaException("no shm device at " + address.format() + ": cannot map " + address.controlFile() +
                " (" + ex + "); is the peer process running with the same " + RdmaConfig.SHM_DIRECTORY_PROP + "?", ex);
        }
        final ShmDeviceControl control = new ShmDeviceControl(new UnsafeBuffer(controlMapping));
        final int regionTableCapacity = control.regionTableCapacity(); // once: the peer may rewrite it
        final String problem = control.validate(address.pid(), address.deviceId(), regionTableCapacity);
        if (null != problem)
        {
            ShmFiles.unmap(controlMapping);
            throw new RdmaException("cannot use shm device at " + address.format() + " (" + address.controlFile() +
                "): " + problem);
        }
        ShmInboundRing ring = null;
        try
        {
            ring = ShmInboundRing.connect(address.ringFile(queuePairNumber), queuePairNumber, producerToken,
                address.format());
            return new ShmPeer(address, controlMapping, control, regionTableCapacity, ring, peerTimeoutNs);
        }
        catch (final RuntimeException ex)
        {
            if (null != ring)
            {
                ring.close();
            }
            ShmFiles.unmap(controlMapping);
            throw ex;
        }
    }

    /**
     * @return the peer queue pair's inbound records, to produce into.
     */
    ShmRecordRing records()
    {
        return ring.records();
    }

    /**
     * @return the peer queue pair's ring file: its state and acknowledgements.
     */
    ShmInboundRing ring()
    {
        return ring;
    }

    /**
     * @return the peer's regions, with the responder's checks.
     */
    ShmRemoteRegions regions()
    {
        return regions;
    }

    /**
     * One acquire load: whether the peer queue pair still accepts requests (not in error, not closed).
     *
     * @return false once the peer queue pair went to ERROR or closed.
     */
    boolean isQueuePairActive()
    {
        return ring.state() == ShmInboundRing.STATE_ACTIVE;
    }

    /**
     * Whether the peer is still there. Allocation-free unless the heartbeat is stale, then at most once
     * per process-check interval (the process lookup allocates).
     *
     * @param nowNs System.nanoTime.
     * @return false when the peer is gone.
     */
    boolean isAlive(final long nowNs)
    {
        if (!isQueuePairActive() || control.state() != ShmDeviceControl.STATE_OPEN)
        {
            return false;
        }
        if (nowNs - control.heartbeatNs() <= peerTimeoutNs || nowNs - nextProcessCheckNs < 0)
        {
            return true;
        }
        nextProcessCheckNs = nowNs + processCheckIntervalNs;
        return ProcessIdentity.isAlive(ownerPid, ownerStartTime);
    }

    /**
     * @return the peer device's address.
     */
    ShmAddress address()
    {
        return address;
    }

    /**
     * Unmaps everything. Control thread, after the owning thread stopped.
     */
    @Override
    public void close()
    {
        regions.close();
        ring.close();
        ShmFiles.unmap(controlMapping);
    }
}
