package io.ringwire.rdma.shm;

import io.ringwire.rdma.RdmaException;

import java.nio.file.Path;

/**
 * The address of an shm device, as {@link ShmDevice#address()} gives it and the connection manager
 * carries it: {@code <directory>|pid=<pid>|dev=<device id>}, e.g. {@code /dev/shm/ringwire|pid=1234|dev=7}.
 *
 * @param directory the device's shm directory, absolute.
 * @param pid       the owning process.
 * @param deviceId  the device's id in that process.
 */
record ShmAddress(Path directory, long pid, int deviceId)
{
    private static final String PID_PREFIX = "|pid=";
    private static final String DEVICE_PREFIX = "|dev=";

    /**
     * @return the address text.
     */
    String format()
    {
        return directory + PID_PREFIX + pid + DEVICE_PREFIX + deviceId;
    }

    /**
     * @return the device's control file.
     */
    Path controlFile()
    {
        return directory.resolve(ShmFiles.controlFileName(pid, deviceId));
    }

    /**
     * @param fileNumber of a region.
     * @return the region's file.
     */
    Path regionFile(final int fileNumber)
    {
        return directory.resolve(ShmFiles.regionFileName(pid, deviceId, fileNumber));
    }

    /**
     * @param queuePairNumber of one of the device's queue pairs.
     * @return that queue pair's inbound ring file.
     */
    Path ringFile(final int queuePairNumber)
    {
        return directory.resolve(ShmFiles.ringFileName(pid, deviceId, queuePairNumber));
    }

    /**
     * Parses an address. Setup path.
     *
     * @param address as {@link #format()} writes it.
     * @return the parsed address.
     * @throws RdmaException when the text is not an shm address.
     */
    static ShmAddress parse(final String address)
    {
        final int deviceIndex = address.lastIndexOf(DEVICE_PREFIX);
        final int pidIndex = deviceIndex > 0 ? address.lastIndexOf(PID_PREFIX, deviceIndex - 1) : -1;
        if (pidIndex <= 0)
        {
            throw notAnAddress(address, null);
        }
        try
        {
            final long pid = Long.parseLong(address.substring(pidIndex + PID_PREFIX.length(), deviceIndex));
            final int deviceId = Integer.parseInt(address.substring(deviceIndex + DEVICE_PREFIX.length()));
            if (pid <= 0 || deviceId <= 0)
            {
                throw notAnAddress(address, null);
            }
            return new ShmAddress(Path.of(address.substring(0, pidIndex)), pid, deviceId);
        }
        catch (final RuntimeException ex)
        {
            throw ex instanceof RdmaException rdma ? rdma : notAnAddress(address, ex);
        }
    }

    private static RdmaException notAnAddress(final String address, final Throwable cause)
    {
        return new RdmaException("'" + address + "' is not an shm device address: expected " +
            "<directory>|pid=<pid>|dev=<id> as ShmDevice.address() gives it (is the peer using another provider?)",
            cause);
    }
}
