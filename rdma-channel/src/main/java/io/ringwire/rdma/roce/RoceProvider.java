package io.ringwire.rdma.roce;

import io.ringwire.rdma.Device;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProvider;

/**
 * The {@code roce} provider: RoCEv2 reliable connection in pure Java over UDP, wire-compatible with
 * other RoCEv2 stacks (the Linux kernel's rxe among them). Always available; needs a specific
 * local IPv4 address in {@link RdmaConfig#BIND_ADDRESS_PROP}.
 */
public final class RoceProvider implements RdmaProvider
{
    /** The provider's name in configuration. */
    public static final String NAME = "roce";

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
        return new RoceDevice(config);
    }
}
