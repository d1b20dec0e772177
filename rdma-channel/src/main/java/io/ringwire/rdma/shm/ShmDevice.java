package io.ringwire.rdma.shm;

import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.host.ProcessIdentity;
import io.ringwire.rdma.soft.SoftDevice;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An shm device ("shm0"): a control file in the shm directory through which peers on the same host
 * find this device's regions, count its refusals and watch its heartbeat. What every software device
 * shares comes from {@link SoftDevice}; this class adds the files.
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
public final class ShmDevice extends SoftDevice
{
    /** Largest RDMA WRITE, and the largest region. */
    public static final int MAX_WRITE_LENGTH = 1 << 30;
    /** Regions (allocated or registered) one device can publish. */
    public static final int REGION_TABLE_CAPACITY = 1024;

    static final long HEARTBEAT_INTERVAL_NS = TimeUnit.MICROSECONDS.toNanos(100);

    private static final System.Logger LOGGER = System.getLogger(ShmDevice.class.getName());
    private static final AtomicInteger NEXT_DEVICE_ID = new AtomicInteger(1);

    private final ShmSettings settings;
    private final int deviceId;
    private final ShmAddress shmAddress;
    private final String address;
    private final ShmDeviceControl control;
    private final ShmRegionTable regionTable;
    private final AtomicInteger nextQueuePairNumber = new AtomicInteger(1);
    /**
     * The numbers of this device's queue pairs from creation to close: numbers are 24 bits, and
     * once they come round (a process that connects and closes for long enough) the next one skips
     * those in use, whose ring files exist, and 0, which a peer would take for none.
     */
    private final Set<Integer> queuePairNumbersInUse = ConcurrentHashMap.newKeySet();
    private final AtomicInteger nextRegionFileNumber = new AtomicInteger(1);
    /**
     * Closed regions' mappings, oldest first, each unmapped by the control path once
     * {@link #RETIRE_GRACE_NS} has passed since its close (see {@link #retire}). Guarded by itself.
     */
    private final ArrayDeque<RetiredMapping> retired = new ArrayDeque<>();

    /**
     * How long a closed region's memory stays mapped: longer by far than an owning thread takes
     * from its check that the region is open to the end of its copy into it.
     */
    static final long RETIRE_GRACE_NS = TimeUnit.SECONDS.toNanos(1);

    private record RetiredMapping(MappedByteBuffer mapping, long retiredAtNs)
    {
    }

    private ShmDevice(final RdmaConfig config, final ShmSettings settings, final ShmAddress shmAddress,
        final ShmDeviceControl control)
    {
        super(config, ShmProvider.NAME, new DeviceCounters(control.countersBuffer()));
        this.settings = settings;
        this.deviceId = shmAddress.deviceId();
        this.shmAddress = shmAddress;
        this.address = shmAddress.format();
        this.control = control;
        this.regionTable = new ShmRegionTable(control.regionTableBuffer(REGION_TABLE_CAPACITY), REGION_TABLE_CAPACITY,
            true);
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
        final Path directory = config.shmDirectory().toAbsolutePath().normalize();
        final long pid = ProcessIdentity.currentPid();
        ShmFiles.createDirectory(directory);
        sweepStaleFiles(directory, pid);
        final ShmAddress shmAddress = new ShmAddress(directory, pid, deviceId);
        final MappedByteBuffer controlMapping = ShmFiles.createAndMap(shmAddress.controlFile(),
            ShmDeviceControl.fileLength(REGION_TABLE_CAPACITY));
        // The control file stays mapped until the device and its counters are unreachable (no explicit
        // unmap): counters() must stay readable after close.
        final ShmDeviceControl control = new ShmDeviceControl(new UnsafeBuffer(controlMapping));
        try
        {
            control.initialise(pid, ProcessIdentity.startTime(pid), deviceId, REGION_TABLE_CAPACITY, System.nanoTime());
            return new ShmDevice(config, settings, shmAddress, control);
        }
        catch (final RuntimeException | Error ex)
        {
            try
            {
                // A peer may have mapped it already: it sees the device gone, not a silent one.
                control.markClosed();
                ShmFiles.deleteQuietly(shmAddress.controlFile());
            }
            finally
            {
                ShmFiles.unmap(controlMapping);
            }
            throw ex;
        }
    }

    private static void sweepStaleFiles(final Path directory, final long pid)
    {
        try
        {
            final int deleted = ShmStaleFiles.sweep(directory, pid);
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

    /**
     * @return {@code <directory>|pid=<pid>|dev=<id>}.
     */
    @Override
    public String address()
    {
        return address;
    }

    /** Its peers share this host's memory: a queue pair hands out views of their regions. */
    @Override
    public boolean mapsRemoteMemory()
    {
        return true;
    }

    /**
     * @return {@link #MAX_WRITE_LENGTH}, the largest RDMA WRITE. SENDs are limited further by the
     *         peer's inbound ring: see {@link ShmQueuePair#maxSendLength()}.
     */
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
    protected ProtectionDomain newProtectionDomain()
    {
        return new ShmProtectionDomain(this);
    }

    ShmRegionTable regionTable()
    {
        return regionTable;
    }

    ShmAddress shmAddress()
    {
        return shmAddress;
    }

    /**
     * @return a queue pair number no open queue pair of this device has and no ring file of this
     *         device names, never 0, taken until {@link #releaseQueuePairNumber}. Control path (it
     *         boxes, and looks the file up).
     * @throws IllegalStateException when every number is in use.
     */
    int nextQueuePairNumber()
    {
        for (int tried = 0; tried <= QueuePairEndpoint.MASK_24; tried++)
        {
            final int number = nextQueuePairNumber.getAndIncrement() & QueuePairEndpoint.MASK_24;
            if (0 == number || !queuePairNumbersInUse.add(number))
            {
                continue;
            }
            if (Files.exists(shmAddress.ringFile(number), LinkOption.NOFOLLOW_LINKS))
            {
                queuePairNumbersInUse.remove(number); // a ring file a close could not delete: its name stays taken
                continue;
            }
            return number;
        }
        throw new IllegalStateException("every queue pair number of " + address + " is in use");
    }

    /** A queue pair closed, or its creation failed: its number may be given again. */
    void releaseQueuePairNumber(final int number)
    {
        queuePairNumbersInUse.remove(number);
    }

    /** Sets the next queue pair number to try (tests: numbers coming round). */
    void nextQueuePairNumber(final int number)
    {
        nextQueuePairNumber.set(number);
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

    /**
     * Marks the device closed for its peers, and deletes every file it created (the control file last:
     * it says the device's other files are live).
     */
    @Override
    protected void closeTransport()
    {
        control.markClosed();
        unmapRetired(); // those within their grace are left to their buffers' cleaners
        deleteRemainingFiles();
        ShmFiles.deleteQuietly(shmAddress.controlFile());
    }

    /**
     * Takes a closed region's mapping, to unmap once {@link #RETIRE_GRACE_NS} has passed, and unmaps
     * those retired that long ago. Deregistration is the control path's, and the thread that owns a
     * queue pair may be between its check that the region is open and its copy into it (a receive
     * landing, a send's source read): an unmap at close would crash the JVM there or, once the range
     * is mapped again, write into another mapping. Control path.
     *
     * @param mapping the region's memory, or null for none of the device's own.
     */
    void retire(final MappedByteBuffer mapping)
    {
        synchronized (retired)
        {
            unmapRetired(System.nanoTime());
            if (null != mapping)
            {
                retired.addLast(new RetiredMapping(mapping, System.nanoTime()));
            }
        }
    }

    /** Unmaps the mappings retired at least {@link #RETIRE_GRACE_NS} ago. Control path. */
    void unmapRetired()
    {
        synchronized (retired)
        {
            unmapRetired(System.nanoTime());
        }
    }

    private void unmapRetired(final long nowNs)
    {
        while (!retired.isEmpty() && nowNs - retired.peekFirst().retiredAtNs() >= RETIRE_GRACE_NS)
        {
            ShmFiles.unmap(retired.removeFirst().mapping());
        }
    }

    /** @return closed regions' mappings not unmapped yet. */
    int retiredMappings()
    {
        synchronized (retired)
        {
            return retired.size();
        }
    }

    private void deleteRemainingFiles()
    {
        final Path directory = shmAddress.directory();
        final String prefix = shmAddress.pid() + "-" + deviceId + "-";
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
}
