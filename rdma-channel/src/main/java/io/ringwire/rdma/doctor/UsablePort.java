package io.ringwire.rdma.doctor;

import io.ringwire.rdma.ibverbs.IbverbsInventory;

/**
 * The port the ibverbs provider should use: the first usable port (ACTIVE, RoCE, with a RoCE v2
 * IPv4 GID), preferring a NIC over Soft-RoCE.
 *
 * @param device the device.
 * @param port   the port.
 * @param gid    its usable GID.
 */
record UsablePort(IbverbsInventory.Device device, IbverbsInventory.Port port, IbverbsInventory.Gid gid)
{
    /**
     * @param snapshot the devices.
     * @return the best usable port, or null when there is none.
     */
    static UsablePort best(final IbverbsInventory.Snapshot snapshot)
    {
        UsablePort best = null;
        for (final IbverbsInventory.Device device : snapshot.devices())
        {
            for (final IbverbsInventory.Port port : device.ports())
            {
                final IbverbsInventory.Gid gid = port.usableGid();
                if (null != gid && (null == best || (best.device.isSoftRoce() && !device.isSoftRoce())))
                {
                    best = new UsablePort(device, port, gid);
                }
            }
        }
        return best;
    }
}
