package io.ringwire.rdma.roce;

import io.ringwire.rdma.config.Settings;

import java.util.List;

/**
 * The provider-local configuration of {@code roce}, read from system properties when a device opens
 * (the shared {@link io.ringwire.rdma.RdmaConfig} carries what every provider understands; this only
 * means something to roce).
 *
 * @param connectedSend send from connected UDP sockets whose IPv4 IDs are learnt from the kernel
 *                      (see {@link RoceTransmitter}), or from unconnected ones that send IP ID 0.
 * @param icrcCheck     how the receiver knows the IP Identification each packet's ICRC covers:
 *                      {@link #ICRC_RAW}, {@link #ICRC_PREDICTED} or {@link #ICRC_AUTO}.
 */
record RoceSettings(boolean connectedSend, String icrcCheck)
{
    /** Read each packet's IPv4 header through a raw socket (CAP_NET_RAW), and fail where it cannot. */
    static final String ICRC_RAW = "raw";
    /** Accept only IDs predicted before the packet arrived (see {@link RoceReceiver}). */
    static final String ICRC_PREDICTED = "predicted";
    /** Raw where the process may open raw sockets, else predicted. */
    static final String ICRC_AUTO = "auto";

    /**
     * Reads {@link RoceProvider#CONNECTED_SEND_PROP} and {@link RoceProvider#ICRC_CHECK_PROP}.
     *
     * @return the settings.
     * @throws IllegalArgumentException naming the property and its allowed values.
     */
    static RoceSettings fromSystemProperties()
    {
        return new RoceSettings(
            Settings.parseBoolean(RoceProvider.CONNECTED_SEND_PROP, Settings.property(RoceProvider.CONNECTED_SEND_PROP,
                "true")),
            Settings.oneOf(RoceProvider.ICRC_CHECK_PROP, Settings.property(RoceProvider.ICRC_CHECK_PROP, ICRC_AUTO),
                List.of(ICRC_AUTO, ICRC_RAW, ICRC_PREDICTED)));
    }
}
