package io.ringwire.rdma.roce;

import io.ringwire.rdma.Device;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProvider;

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
 * </ul>
 */
public final class RoceProvider implements RdmaProvider
{
    /** The provider's name in configuration. */
    public static final String NAME = "roce";
    /** Send from connected UDP sockets with learnt IP IDs (true, the default) or unconnected ones (false). */
    public static final String CONNECTED_SEND_PROP = "ringwire.rdma.roce.connected.send";

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String unavailableReason(final RdmaConfig config)
    {
        return null;
    }

    @Override
    public Device open(final RdmaConfig config)
    {
        return new RoceDevice(config, RoceSettings.fromSystemProperties());
    }
}
