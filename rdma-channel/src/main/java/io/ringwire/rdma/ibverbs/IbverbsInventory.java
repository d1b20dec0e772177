package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.RdmaException;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What RDMA hardware this machine has, as libibverbs sees it: every device, its ports (state, MTU,
 * link layer) and their non-empty GIDs, or why there is none. For {@code ringwire doctor}; opens each
 * device briefly and creates nothing on it.
 *
 * <p>Threading: stateless; any thread.
 */
public final class IbverbsInventory
{
    private IbverbsInventory()
    {
    }

    /**
     * One GID table entry.
     *
     * @param index   its index ({@value IbverbsProvider#GID_INDEX_PROP}).
     * @param gid     eight groups of four hex digits, as sysfs prints it.
     * @param address the device address it stands for ("a.b.c.d:4791").
     * @param type    "RoCE v2", "IB/RoCE v1", or null when sysfs does not say.
     * @param netdev  the network interface, or null when sysfs does not say.
     * @param ipv4    whether it is an IPv4-mapped GID.
     */
    public record Gid(int index, String gid, String address, String type, String netdev, boolean ipv4)
    {
        /**
         * @return true when the ibverbs provider can use it as its source GID.
         */
        public boolean usable()
        {
            return ipv4 && (null == type || SysfsPort.ROCE_V2.equals(type));
        }
    }

    /**
     * One port.
     *
     * @param number    port number ({@value IbverbsProvider#PORT_PROP}).
     * @param state     "ACTIVE", "DOWN", ...
     * @param activeMtu active MTU in bytes.
     * @param maxMtu    largest MTU in bytes.
     * @param linkLayer "Ethernet" (RoCE), "InfiniBand" or "unspecified".
     * @param gids      the non-empty GID entries.
     */
    public record Port(int number, String state, int activeMtu, int maxMtu, String linkLayer, List<Gid> gids)
    {
        /**
         * @return the first GID the ibverbs provider can use on this port, or null: the port must be
         *         ACTIVE and not InfiniBand.
         */
        public Gid usableGid()
        {
            if (!"ACTIVE".equals(state) || "InfiniBand".equals(linkLayer))
            {
                return null;
            }
            for (final Gid gid : gids)
            {
                if (gid.usable())
                {
                    return gid;
                }
            }
            return null;
        }
    }

    /**
     * One device.
     *
     * @param name     e.g. "rxe0", "mlx5_0".
     * @param firmware fw_ver, "" when none.
     * @param ports    its ports; empty when it could not be opened.
     * @param problem  why it could not be opened or queried, or null.
     */
    public record Device(String name, String firmware, List<Port> ports, String problem)
    {
        /**
         * @return true for Soft-RoCE, the kernel's software RoCE (interoperable, not fast).
         */
        public boolean isSoftRoce()
        {
            return name.startsWith("rxe");
        }
    }

    /**
     * The whole picture.
     *
     * @param devices           every device libibverbs lists (empty when unavailable).
     * @param unavailableReason why there is no device (library missing, no device), or null.
     */
    public record Snapshot(List<Device> devices, String unavailableReason)
    {
        /**
         * @param reason why nothing could be listed.
         * @return a snapshot with no device.
         */
        public static Snapshot unavailable(final String reason)
        {
            return new Snapshot(List.of(), reason);
        }
    }

    /**
     * @return the devices of this machine through {@code libibverbs.so.1}.
     */
    public static Snapshot scan()
    {
        return scan(Verbs.DEFAULT_LIBRARY, Path.of("/sys"));
    }

    /**
     * @param library the libibverbs to load.
     * @param sysRoot the sysfs mount (for GID types and network interfaces).
     * @return the devices, or the reason there are none.
     */
    public static Snapshot scan(final String library, final Path sysRoot)
    {
        final Verbs verbs;
        try
        {
            verbs = Verbs.load(library);
        }
        catch (final RdmaException ex)
        {
            return Snapshot.unavailable(ex.getMessage());
        }
        try (DeviceList list = DeviceList.open(verbs))
        {
            final List<Device> devices = new ArrayList<>();
            for (int i = 0; i < list.count(); i++)
            {
                devices.add(describe(verbs, list.name(i), list.device(i), sysRoot));
            }
            return new Snapshot(List.copyOf(devices), null);
        }
        catch (final RdmaException ex)
        {
            return Snapshot.unavailable(ex.getMessage());
        }
    }

    private static Device describe(final Verbs verbs, final String name, final MemorySegment device,
        final Path sysRoot)
    {
        final MemorySegment context;
        try
        {
            context = verbs.openDevice(device);
        }
        catch (final VerbsCallException ex)
        {
            return new Device(name, "", List.of(), "ibv_open_device failed: " + Errno.describe(ex.errno()));
        }
        try
        {
            final VerbsQueries.DeviceAttributes attributes = VerbsQueries.queryDevice(verbs, context);
            final List<Port> ports = new ArrayList<>();
            for (int port = 1; port <= attributes.physicalPorts(); port++)
            {
                ports.add(describePort(verbs, context, name, port, sysRoot));
            }
            return new Device(name, attributes.firmware(), List.copyOf(ports), null);
        }
        catch (final VerbsCallException ex)
        {
            return new Device(name, "", List.of(), ex.getMessage());
        }
        finally
        {
            verbs.closeDevice(context);
        }
    }

    private static Port describePort(final Verbs verbs, final MemorySegment context, final String device,
        final int port, final Path sysRoot)
    {
        final VerbsQueries.PortAttributes attributes = VerbsQueries.queryPort(verbs, context, port);
        final SysfsPort sysfs = SysfsPort.of(sysRoot, device, port);
        final List<Gid> gids = new ArrayList<>();
        for (int index = 0; index < attributes.gidTableLength(); index++)
        {
            final byte[] gid;
            try
            {
                gid = VerbsQueries.queryGid(verbs, context, port, index);
            }
            catch (final VerbsCallException ex)
            {
                continue; // drivers fail for entries they do not populate
            }
            if (!GidAddress.isZero(gid))
            {
                gids.add(new Gid(index, GidAddress.format(gid), GidAddress.toAddress(gid), sysfs.gidType(index),
                    sysfs.netdev(index), GidAddress.isIpv4Mapped(gid)));
            }
        }
        return new Port(port, VerbsValues.portStateName(attributes.state()),
            VerbsValues.mtuBytes(attributes.activeMtu()), VerbsValues.mtuBytes(attributes.maxMtu()),
            VerbsValues.linkLayerName(attributes.linkLayer()), List.copyOf(gids));
    }
}
