package io.ringwire.rdma.ibverbs;

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
        final String device = System.getProperty(IbverbsProvider.DEVICE_PROP, "").trim();
        final int port = parse(IbverbsProvider.PORT_PROP, "1", 1, 255, "a port number 1 to 255 (ibv_devinfo lists them)");
        final int gidIndex = parse(IbverbsProvider.GID_INDEX_PROP, "1", 0, 255,
            "a GID table index 0 to 255 (show_gids, or ls /sys/class/infiniband/<dev>/ports/<port>/gids)");
        return new IbverbsSettings(device, port, gidIndex);
    }

    private static int parse(final String property, final String defaultValue, final int min, final int max,
        final String allowed)
    {
        final String value = System.getProperty(property, defaultValue).trim();
        try
        {
            final int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max)
            {
                return parsed;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // fall through to the message naming the property
        }
        throw new IllegalArgumentException(property + "='" + value + "' is not allowed; allowed: " + allowed);
    }

    /**
     * @return the device name for messages: the configured one, or "the first device".
     */
    String describeDevice()
    {
        return deviceName.isEmpty() ? "the first device" : "device '" + deviceName + "'";
    }
}
