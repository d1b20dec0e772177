package io.ringwire.rdma.roce;

import io.ringwire.rdma.config.Settings;

/**
 * The provider-local configuration of {@code roce}, read from system properties when a device opens
 * (the shared {@link io.ringwire.rdma.RdmaConfig} carries what every provider understands; this only
 * means something to roce).
 *
 * @param connectedSend send from connected UDP sockets whose IPv4 IDs are learnt from the kernel
 *                      (see {@link RoceTransmitter}), or from unconnected ones that send IP ID 0.
 */
record RoceSettings(boolean connectedSend)
{
    /**
     * Reads {@link RoceProvider#CONNECTED_SEND_PROP}.
     *
     * @return the settings.
     * @throws IllegalArgumentException naming the property and its allowed values.
     */
    static RoceSettings fromSystemProperties()
    {
        return new RoceSettings(Settings.parseBoolean(RoceProvider.CONNECTED_SEND_PROP,
            Settings.property(RoceProvider.CONNECTED_SEND_PROP, "true")));
    }
}
