package io.ringwire.rdma.socket;

import io.ringwire.rdma.Device;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.soft.SoftProvider;

/**
 * The {@code socket} provider: queue pairs over busy-polled non-blocking TCP. Always available.
 *
 * <p>Threading: any thread; each {@link #open} returns an independent device.
 */
public final class SocketProvider extends SoftProvider
{
    /** The provider's name in configuration. */
    public static final String NAME = "socket";

    /**
     * For {@link java.util.ServiceLoader}.
     */
    public SocketProvider()
    {
        super(NAME);
    }

    /**
     * Opens a device listening on {@link RdmaConfig#bindHost()}:{@link RdmaConfig#bindPort()}.
     *
     * @param config concluded configuration.
     * @return the open device.
     * @throws io.ringwire.rdma.RdmaException when the address cannot be bound.
     */
    @Override
    public Device open(final RdmaConfig config)
    {
        return new SocketDevice(config);
    }
}
