package io.ringwire.rdma.doctor;

import io.ringwire.rdma.ibverbs.IbverbsInventory;
import io.ringwire.rdma.ibverbs.IbverbsProvider;

import java.util.ArrayList;
import java.util.List;

/**
 * RDMA devices, their ports (state, MTU) and GIDs, through the ibverbs provider's inventory; or why
 * there are none. A usable port is ACTIVE, not InfiniBand, and has a RoCE v2 IPv4 GID.
 */
public final class RdmaDevicesCheck implements Check
{
    /** The check's name in reports. */
    public static final String NAME = "rdma";

    @Override
    public Finding run(final Host host)
    {
        if (!host.scansRdma())
        {
            return new Finding(NAME, Status.INFO, "not checked: " + host.rdma().unavailableReason(), List.of(),
                "run ringwire doctor on the machine itself to check its RDMA devices");
        }
        final IbverbsInventory.Snapshot snapshot = host.rdma();
        if (null != snapshot.unavailableReason())
        {
            return new Finding(NAME, Status.WARN, snapshot.unavailableReason(), List.of(),
                advice(snapshot.unavailableReason()));
        }
        final List<String> details = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        for (final IbverbsInventory.Device device : snapshot.devices())
        {
            details.add(device.name() + (device.firmware().isEmpty() ? "" : " (firmware " + device.firmware() + ")") +
                (device.isSoftRoce() ? ": Soft-RoCE, the kernel's software RoCE" : ""));
            if (null != device.problem())
            {
                details.add("  cannot open: " + device.problem());
                problems.add(device.name() + ": " + device.problem());
                continue;
            }
            for (final IbverbsInventory.Port port : device.ports())
            {
                details.add("  port " + port.number() + ": " + port.state() + ", " + port.linkLayer() + ", MTU " +
                    port.activeMtu() + " (max " + port.maxMtu() + ")");
                for (final IbverbsInventory.Gid gid : port.gids())
                {
                    details.add("    GID " + gid.index() + ": " + gid.gid() + " " + (null == gid.type() ? "" : gid.type()) +
                        (null == gid.netdev() ? "" : " on " + gid.netdev()) + (gid.usable() ? " -> " + gid.address() : ""));
                }
                if (null == port.usableGid())
                {
                    problems.add(device.name() + " port " + port.number() + ": " + portProblem(port));
                }
            }
        }
        final UsablePort usable = UsablePort.best(snapshot);
        if (null != usable)
        {
            return new Finding(NAME, usable.device().isSoftRoce() ? Status.INFO : Status.OK,
                "usable RDMA device: " + usable.device().name() + " port " + usable.port().number() + ", GID " +
                    usable.gid().index() + " (" + usable.gid().address() + "), MTU " + usable.port().activeMtu(),
                details, usable.device().isSoftRoce() ?
                    "Soft-RoCE runs the RDMA transport in the kernel's network stack: it interoperates with RDMA " +
                        "peers but its latency is that of UDP; for low latency use an RDMA NIC (RoCE or InfiniBand " +
                        "with a RoCE port)" :
                    "nothing to change");
        }
        return new Finding(NAME, Status.WARN, "RDMA devices present, none usable: " + String.join("; ", problems),
            details, "fix the port or GID named above, then check again (ibv_devinfo -v, rdma link show)");
    }

    private static String advice(final String reason)
    {
        if (reason.contains("not found: apt-get install"))
        {
            return "apt-get install libibverbs1 ibverbs-providers rdma-core (then check again); until then, " +
                "use provider socket across hosts or shm on one host";
        }
        return "load a Soft-RoCE device to try the ibverbs provider (modprobe rdma_rxe; rdma link add rxe0 type rxe " +
            "netdev eth0), or install an RDMA NIC for low latency; until then use provider socket across hosts or " +
            "shm on one host";
    }

    private static String portProblem(final IbverbsInventory.Port port)
    {
        if (!"ACTIVE".equals(port.state()))
        {
            return port.state() + ", not ACTIVE: bring up its network interface (ip link set <netdev> up)";
        }
        if ("InfiniBand".equals(port.linkLayer()))
        {
            return "InfiniBand link layer: the ibverbs provider needs a RoCE (Ethernet) port";
        }
        return "no RoCE v2 IPv4 GID: give its network interface an IPv4 address (" + IbverbsProvider.GID_INDEX_PROP +
            " then selects it)";
    }
}
