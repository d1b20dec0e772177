package io.ringwire.rdma.ibverbs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One port of an RDMA device as sysfs shows it ({@code /sys/class/infiniband/<dev>/ports/<port>/}):
 * read without opening the device, so checks stay fast and side-effect free, and for what verbs
 * calls do not tell (the GID type, the network interface behind a GID). Every read returns null
 * when the file is absent or unreadable (containers often hide sysfs): callers then rely on verbs.
 *
 * @param directory the port's directory.
 */
record SysfsPort(Path directory)
{
    /** The GID type rxe and RoCE NICs report for RoCEv2 entries. */
    static final String ROCE_V2 = "RoCE v2";

    /**
     * @param sysRoot the sysfs mount, normally {@code /sys}.
     * @param device  device name.
     * @param port    port number.
     * @return the port.
     */
    static SysfsPort of(final Path sysRoot, final String device, final int port)
    {
        return new SysfsPort(sysRoot.resolve("class/infiniband").resolve(device).resolve("ports")
            .resolve(Integer.toString(port)));
    }

    /**
     * @return e.g. "4: ACTIVE", or null.
     */
    String state()
    {
        return read(directory.resolve("state"));
    }

    /**
     * @param index a GID index.
     * @return e.g. "0000:0000:0000:0000:0000:ffff:0a00:0001", or null.
     */
    String gid(final int index)
    {
        return read(directory.resolve("gids").resolve(Integer.toString(index)));
    }

    /**
     * @param index a GID index.
     * @return "RoCE v2", "IB/RoCE v1", or null.
     */
    String gidType(final int index)
    {
        return read(directory.resolve("gid_attrs/types").resolve(Integer.toString(index)));
    }

    /**
     * @param index a GID index.
     * @return the network interface the GID belongs to, e.g. "eth0", or null.
     */
    String netdev(final int index)
    {
        return read(directory.resolve("gid_attrs/ndevs").resolve(Integer.toString(index)));
    }

    /**
     * @return whether the port directory exists.
     */
    boolean exists()
    {
        return Files.isDirectory(directory);
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file).trim();
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    /**
     * @param gidText a GID as sysfs prints it.
     * @return true when it is all zeros (an unused entry).
     */
    static boolean isZeroGid(final String gidText)
    {
        return gidText.replace(":", "").replace("0", "").isEmpty();
    }
}
