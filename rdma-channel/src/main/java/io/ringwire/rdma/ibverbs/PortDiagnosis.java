package io.ringwire.rdma.ibverbs;

/**
 * Messages for a port or GID that cannot be used, each saying what to change. Shared by the
 * provider's availability check (from sysfs) and the device's open (from verbs queries).
 */
final class PortDiagnosis
{
    private PortDiagnosis()
    {
    }

    /**
     * @param device  device name.
     * @param port    port number.
     * @param state   e.g. "DOWN".
     * @param netdev  the network interface behind the port, or null when unknown.
     * @return the message.
     */
    static String notActive(final String device, final int port, final String state, final String netdev)
    {
        final String link = null == netdev ?
            "bring up the network interface behind it (rdma link show " + device + "/" + port + " names it; " +
                "ip link set <netdev> up)" :
            "bring up its network interface (ip link set " + netdev + " up) and check the link";
        return "port " + port + " of " + device + " is " + state + ", not ACTIVE: " + link + "; or set " +
            IbverbsProvider.PORT_PROP + " to an active port, or use provider socket";
    }

    static String gidOutOfTable(final String device, final int port, final int index, final int tableLength)
    {
        return IbverbsProvider.GID_INDEX_PROP + "=" + index + " is outside the GID table of " + device + " port " +
            port + " (" + tableLength + " entries); " + chooseGid(device, port);
    }

    static String emptyGid(final String device, final int port, final int index)
    {
        return "GID index " + index + " of " + device + " port " + port + " is empty (no IP address behind it): " +
            "give the port's network interface an IPv4 address, or " + chooseGid(device, port);
    }

    static String notRoceV2(final String device, final int port, final int index, final String type)
    {
        return "GID index " + index + " of " + device + " port " + port + " is a " + type + " GID; RingWire speaks " +
            "RoCEv2: " + chooseGid(device, port);
    }

    static String chooseGid(final String device, final int port)
    {
        final String dir = "/sys/class/infiniband/" + device + "/ports/" + port;
        return "set " + IbverbsProvider.GID_INDEX_PROP + " to the index of the port's RoCE v2 IPv4 GID " +
            "(::ffff:a.b.c.d; grep . " + dir + "/gids/* " + dir + "/gid_attrs/types/*)";
    }
}
