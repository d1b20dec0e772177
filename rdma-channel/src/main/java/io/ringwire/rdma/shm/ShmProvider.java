package io.ringwire.rdma.shm;

import io.ringwire.rdma.Device;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.soft.SoftProvider;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code shm} provider: processes (or devices) on one host, through memory-mapped files in
 * {@link RdmaConfig#shmDirectory()}. Available wherever that directory can be created and written.
 *
 * <p>Configuration, beyond {@link RdmaConfig} (whose shm directory it uses):
 * <ul>
 *   <li>{@value #INBOUND_RING_BYTES_PROP}: bytes of each queue pair's inbound ring, a power of two,
 *       4096 to 1073741824 (default 1 MiB).</li>
 * </ul>
 *
 * <p>Threading: any thread; each {@link #open} returns an independent device.
 */
public final class ShmProvider extends SoftProvider
{
    /** The provider's name in configuration. */
    public static final String NAME = "shm";
    /** Bytes of each queue pair's inbound ring: a power of two, 4096 to 1073741824; default 1 MiB. */
    public static final String INBOUND_RING_BYTES_PROP = "ringwire.rdma.shm.ring.bytes";

    /**
     * For {@link java.util.ServiceLoader}.
     */
    public ShmProvider()
    {
        super(NAME);
    }

    /**
     * Creates the shm directory if needed and checks that it is a writable directory.
     *
     * @param config the configuration it would be opened with (need not be concluded).
     * @return null when usable, else why not and which property to change.
     */
    @Override
    public String unavailableReason(final RdmaConfig config)
    {
        if (null != SealedFiles.unavailableReason())
        {
            return SealedFiles.unavailableReason();
        }
        final Path directory = config.shmDirectory();
        try
        {
            ShmFiles.createDirectory(directory);
        }
        catch (final RdmaException ex)
        {
            return ex.getMessage();
        }
        if (!Files.isDirectory(directory) || !Files.isWritable(directory))
        {
            return "shm directory " + directory + " is not a writable directory; set " + RdmaConfig.SHM_DIRECTORY_PROP +
                " to one, ideally on tmpfs such as /dev/shm";
        }
        return null;
    }

    /**
     * Opens a device: removes stale files of dead processes, then creates this device's control file.
     * The inbound ring size of its queue pairs comes from {@link #INBOUND_RING_BYTES_PROP}.
     *
     * @param config concluded configuration.
     * @return the open device.
     * @throws RdmaException            when the directory or control file cannot be created.
     * @throws IllegalArgumentException when {@link #INBOUND_RING_BYTES_PROP} is invalid.
     */
    @Override
    public Device open(final RdmaConfig config)
    {
        return ShmDevice.open(config);
    }
}
