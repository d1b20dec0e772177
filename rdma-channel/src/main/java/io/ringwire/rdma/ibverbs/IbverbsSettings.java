package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.config.Settings;

/**
 * The provider-local configuration of {@code ibverbs}, read from system properties (the shared
 * {@link io.ringwire.rdma.RdmaConfig} carries what every provider understands; these three only mean
 * something to verbs).
 *
 * @param deviceName the device to open, "" for the first one libibverbs lists.
 * @param port       the port number, 1 to 255.
 * @param gidIndex   the source GID index, 0 to 255.
 */
record IbverbsSettings(String deviceName, int port, int gidIndex)
{
    /**
     * Reads {@link IbverbsProvider#DEVICE_PROP}, {@link IbverbsProvider#PORT_PROP} and
     * {@link IbverbsProvider#GID_INDEX_PROP}.
     *
     * @return the settings.
     * @throws IllegalArgumentException naming the property and its allowed values.
     */
    static IbverbsSettings fromSystemProperties()
    {
        final String device = Settings.property(IbverbsProvider.DEVICE_PROP, "").trim();
        final int port = Settings.parseInt(IbverbsProvider.PORT_PROP, Settings.property(IbverbsProvider.PORT_PROP, "1"),
            1, 255, "a port number 1 to 255 (ibv_devinfo lists them)");
        final int gidIndex = Settings.parseInt(IbverbsProvider.GID_INDEX_PROP,
            Settings.property(IbverbsProvider.GID_INDEX_PROP, "1"), 0, 255,
            "a GID table index 0 to 255 (show_gids, or ls /sys/class/infiniband/<dev>/ports/<port>/gids)");
        return new IbverbsSettings(device, port, gidIndex);
    }
}
