package io.ringwire.rdma.socket;

import io.ringwire.rdma.Device;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProvider;

/**
 * The {@code socket} provider: queue pairs over busy-polled non-blocking TCP. Always available.
 */
public final class SocketProvider implements RdmaProvider
{
    /** The provider's name in configuration. */
    public static final String NAME = "socket";

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
        return new SocketDevice(config);
    }
}
