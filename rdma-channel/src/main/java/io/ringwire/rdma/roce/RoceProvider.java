package io.ringwire.rdma.roce;

import io.ringwire.rdma.Device;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.soft.SoftProvider;

/**
 * The {@code roce} provider: RoCEv2 reliable connection in pure Java over UDP, wire-compatible with
 * other RoCEv2 stacks (the Linux kernel's rxe among them). Always available; needs a specific
 * local IPv4 address in {@link RdmaConfig#BIND_ADDRESS_PROP}.
 *
 * <p>Configuration, beyond {@link RdmaConfig}:
 * <ul>
 *   <li>{@value #CONNECTED_SEND_PROP}: {@code true} (the default) sends from connected UDP sockets
 *       whose IPv4 IDs are learnt from the kernel, which is faster and falls back by itself where
 *       they cannot be learnt; {@code false} sends from unconnected sockets, with IP ID 0.</li>
 *   <li>{@value #ICRC_CHECK_PROP}: how the receiver knows the IPv4 Identification each packet's ICRC
 *       covers, which a UDP socket never sees. {@code raw} reads every packet's IPv4 header through a
 *       packet socket, or a raw IP socket where none may be opened (needs CAP_NET_RAW), and
 *       verifies the ICRC against the ID the packet carried;
 *       {@code predicted} accepts only IDs predicted before the packet arrived (see
 *       {@code RoceReceiver}), and the device then says it does not verify integrity, so messaging
 *       checksums its frames; {@code auto} (the default) is raw where the process may open raw
 *       sockets, else predicted.</li>
 * </ul>
 *
 * <p>Threading: any thread; each {@link #open} returns an independent device.
 */
public final class RoceProvider extends SoftProvider
{
    /** The provider's name in configuration. */
    public static final String NAME = "roce";
    /** Send from connected UDP sockets with learnt IP IDs (true, the default) or unconnected ones (false). */
    public static final String CONNECTED_SEND_PROP = "ringwire.rdma.roce.connected.send";
    /** How the ICRC's IP Identification is known: auto (the default), raw or predicted. */
    public static final String ICRC_CHECK_PROP = "ringwire.rdma.roce.icrc";

    /**
     * For {@link java.util.ServiceLoader}.
     */
    public RoceProvider()
    {
        super(NAME);
    }

    /**
     * Opens a device on the UDP address {@link RdmaConfig#bindHost()}:{@link RdmaConfig#bindPort()},
     * sending as {@value #CONNECTED_SEND_PROP} says.
     *
     * @param config concluded configuration.
     * @return the open device.
     * @throws io.ringwire.rdma.RdmaException when the address is not a local IPv4 address or cannot be bound.
     * @throws IllegalArgumentException       when {@value #CONNECTED_SEND_PROP} is invalid.
     */
    @Override
    public Device open(final RdmaConfig config)
    {
        return new RoceDevice(config, RoceSettings.fromSystemProperties());
    }
}
