package io.ringwire.rdma.shm;

import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.soft.RegionRegistry;
import io.ringwire.rdma.soft.SoftCompletionQueue;
import io.ringwire.rdma.soft.SoftDeviceProgress;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An shm device ("shm0"): a control file in the shm directory through which peers on the same host
 * find this device's regions, count its refusals and watch its heartbeat.
 *
 * <p>Its {@link #address()} is {@code <directory>|pid=<pid>|dev=<id>}: several devices per process
 * work, in one process or in several. Limits: RDMA WRITEs may carry up to {@link #MAX_WRITE_LENGTH}
 * bytes ({@link #maxMessageSize()}); a SEND is limited by the peer's inbound ring, whose largest
 * record is an eighth of its capacity ({@link ShmQueuePair#maxSendLength()}); larger SENDs are refused
 * with {@code PostResult.INVALID_ARGUMENT}.
 *
 * <p>Opening a device deletes the files that dead processes left in the directory (see
 * {@link ShmStaleFiles}); closing it deletes every file it created.
 *
 * <p>Threading: created, used to create objects, and closed by one control thread. The heartbeat is
 * refreshed by the owning threads of its queue pairs while they poll.
 */
public final class ShmDevice implements Device
{
    /** Largest RDMA WRITE, and the largest region. */
    public static final int MAX_WRITE_LENGTH = 1 << 30;
    /** Regions (allocated or registered) one device can publish. */
    public static final int REGION_TABLE_CAPACITY = 1024;

    static final long HEARTBEAT_INTERVAL_NS = TimeUnit.MICROSECONDS.toNanos(100);

    private static final System.Logger LOGGER = System.getLogger(ShmDevice.class.getName());
    private static final AtomicInteger NEXT_DEVICE_ID = new AtomicInteger(1);
    private static final Set<Integer> OPEN_DEVICE_IDS = ConcurrentHashMap.newKeySet();

    private final RdmaConfig config;
    private final Path directory;
    private final long pid;
    private final int deviceId;
    private final ShmAddress shmAddress;
    private final String address;
    private final ShmSettings settings;
    private final Path controlFile;
    private final ShmDeviceControl control;
    private final DeviceCounters counters;
    private final SoftDeviceProgress progress = new SoftDeviceProgress();
    private final RegionRegistry regions;
    private final ShmRegionTable regionTable;
    private final AtomicInteger nextQueuePairNumber = new AtomicInteger(1);
    private final AtomicInteger nextRegionFileNumber = new AtomicInteger(1);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private volatile boolean closed;

    private ShmDevice(final RdmaConfig config, final ShmSettings settings, final int deviceId)
    {
        this.config = config;
        this.settings = settings;
        this.deviceId = deviceId;
        this.directory = config.shmDirectory().toAbsolutePath().normalize();
        this.pid = ShmProcesses.currentPid();
        this.shmAddress = new ShmAddress(directory, pid, deviceId);
        this.address = shmAddress.format();
        ShmFiles.createDirectory(directory);
        sweepStaleFiles(directory, pid);

        this.controlFile = shmAddress.controlFile();
        final MappedByteBuffer controlMapping = ShmFiles.createAndMap(controlFile,
            ShmDeviceControl.fileLength(REGION_TABLE_CAPACITY));
        // The control file stays mapped until the device and its counters are unreachable (no explicit
        // unmap): counters() must stay readable after close.
        this.control = new ShmDeviceControl(new UnsafeBuffer(controlMapping));
        control.initialise(pid, ShmProcesses.startTime(pid), deviceId, REGION_TABLE_CAPACITY, System.nanoTime());
        this.counters = new DeviceCounters(control.countersBuffer());
        this.regions = new RegionRegistry(counters);
        this.regionTable = new ShmRegionTable(control.regionTableBuffer(), REGION_TABLE_CAPACITY, true);
    }

    /**
     * Opens a device with the inbound ring size of {@link ShmProvider#INBOUND_RING_BYTES_PROP}.
     *
     * @param config concluded configuration.
     * @return the open device.
     * @throws RdmaException            when the directory or control file cannot be created.
     * @throws IllegalArgumentException when {@link ShmProvider#INBOUND_RING_BYTES_PROP} is invalid.
     */
    static ShmDevice open(final RdmaConfig config)
    {
        return open(config, ShmSettings.fromSystemProperties());
    }

    /**
     * Opens a device.
     *
     * @param config              concluded configuration.
     * @param inboundRingCapacity bytes of each queue pair's inbound ring, a power of two.
     * @return the open device.
     */
    static ShmDevice open(final RdmaConfig config, final int inboundRingCapacity)
    {
        return open(config, new ShmSettings(inboundRingCapacity));
    }

    private static ShmDevice open(final RdmaConfig config, final ShmSettings settings)
    {
        config.peerTimeoutNs(); // fails fast, naming the fix, when the configuration is not concluded
        final int deviceId = NEXT_DEVICE_ID.getAndIncrement();
        // Registered before the sweep and before any file exists, so no sweep deletes this device's files.
        OPEN_DEVICE_IDS.add(deviceId);
        try
        {
            return new ShmDevice(config, settings, deviceId);
        }
        catch (final RuntimeException ex)
        {
            OPEN_DEVICE_IDS.remove(deviceId);
            throw ex;
        }
    }


    private static void sweepStaleFiles(final Path directory, final long pid)
    {
        try
        {
            final int deleted = ShmStaleFiles.sweep(directory, pid, OPEN_DEVICE_IDS);
            if (deleted > 0)
            {
                LOGGER.log(System.Logger.Level.INFO,
                    "removed {0} stale shm file(s) of dead processes from {1}", deleted, directory);
            }
        }
        catch (final IOException ex)
        {
            LOGGER.log(System.Logger.Level.WARNING, "cannot scan " + directory + " for stale shm files", ex);
        }
    }

    @Override
    public String name()
    {
        return "shm0";
    }

    @Override
    public String providerName()
    {
        return ShmProvider.NAME;
    }

    /**
     * @return {@code <directory>|pid=<pid>|dev=<id>}.
     */
    @Override
    public String address()
    {
        return address;
    }

    @Override
    public int maxInlineData()
    {
        return config.maxInlineData();
    }

    @Override
    public int mtu()
    {
        return config.mtu();
    }

    /**
     * @return {@link #MAX_WRITE_LENGTH}, the largest RDMA WRITE. SENDs are limited further by the
     *         peer's inbound ring: see {@link ShmQueuePair#maxSendLength()}.
     */
    @Override
    public int maxCompletionQueueDepth()
    {
        return SoftCompletionQueue.MAX_DEPTH;
    }

    @Override
    public int maxMessageSize()
    {
        return MAX_WRITE_LENGTH;
    }

    /**
     * The size of the inbound ring of each queue pair this device creates, which bounds the SENDs and
     * WRITE WITH IMMEDIATE notifications a peer can have waiting for receives.
     *
     * @return bytes of the ring ({@link ShmProvider#INBOUND_RING_BYTES_PROP}).
     */
    public int inboundRingCapacity()
    {
        return settings.inboundRingBytes();
    }

    @Override
    public ProtectionDomain allocateProtectionDomain()
    {
        checkOpen();
        final ShmProtectionDomain domain = new ShmProtectionDomain(this);
        synchronized (resources)
        {
            resources.add(domain);
        }
        return domain;
    }

    @Override
    public CompletionQueue createCompletionQueue(final int depth)
    {
        checkOpen();
        final SoftCompletionQueue queue = progress.newCompletionQueue(depth, counters);
        synchronized (resources)
        {
            resources.add(queue);
        }
        return queue;
    }

    @Override
    public org.agrona.concurrent.Agent progressAgent()
    {
        return progress.newAgent("ringwire-shm-progress-" + address());
    }

    /**
     * @return the guard shared by this device's queue pairs and completion queues.
     */
    io.ringwire.rdma.soft.ProgressGuard progressGuard()
    {
        return progress.guard();
    }

    @Override
    public DeviceCounters counters()
    {
        return counters;
    }

    RdmaConfig config()
    {
        return config;
    }

    RegionRegistry regions()
    {
        return regions;
    }

    ShmRegionTable regionTable()
    {
        return regionTable;
    }

    ShmAddress shmAddress()
    {
        return shmAddress;
    }

    Path directory()
    {
        return directory;
    }

    int nextQueuePairNumber()
    {
        return nextQueuePairNumber.getAndIncrement() & 0xFF_FFFF;
    }

    int nextRegionFileNumber()
    {
        return nextRegionFileNumber.getAndIncrement();
    }

    /**
     * Refreshes the heartbeat at most every {@link #HEARTBEAT_INTERVAL_NS}. Owning threads, from
     * progress; allocation-free.
     *
     * @param nowNs System.nanoTime.
     */
    void heartbeat(final long nowNs)
    {
        control.heartbeat(nowNs, HEARTBEAT_INTERVAL_NS);
    }

    void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("shm device " + address + " is closed");
        }
    }

    /**
     * Closes every protection domain (with their queue pairs and regions) and completion queue, marks
     * the device closed for its peers, and deletes every file it created. Idempotent.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        synchronized (resources)
        {
            for (int i = resources.size() - 1; i >= 0; i--)
            {
                CloseHelper.quietClose(resources.get(i));
            }
            resources.clear();
        }
        control.markClosed();
        deleteRemainingFiles();
        ShmFiles.deleteQuietly(controlFile); // last: a control file says the device's other files are live
        OPEN_DEVICE_IDS.remove(deviceId);
    }

    private void deleteRemainingFiles()
    {
        final String prefix = pid + "-" + deviceId + "-";
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, prefix + "*"))
        {
            for (final Path entry : entries)
            {
                if (ShmFiles.OWNED_FILE.matcher(entry.getFileName().toString()).matches())
                {
                    ShmFiles.deleteQuietly(entry);
                }
            }
        }
        catch (final IOException ex)
        {
            LOGGER.log(System.Logger.Level.WARNING, "cannot list " + directory + " to delete the files of " + address, ex);
        }
    }

    @Override
    public String toString()
    {
        return "ShmDevice{" + address + '}';
    }
}
