package io.ringwire.rdma.soft;

import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProvider;

/**
 * What the software providers share: a name, and availability wherever the JVM runs (a provider
 * that needs more, such as a writable directory, says so in {@link #unavailableReason}). Each
 * provider opens its own {@link SoftDevice}.
 *
 * <p>Threading: any thread; each {@link #open} returns an independent device.
 */
public abstract class SoftProvider implements RdmaProvider
{
    private final String name;

    /**
     * @param name the provider's name in configuration.
     */
    protected SoftProvider(final String name)
    {
        this.name = name;
    }

    @Override
    public final String name()
    {
        return name;
    }

    /**
     * @param config the configuration it would be opened with (need not be concluded).
     * @return null: software providers need nothing the JVM lacks.
     */
    @Override
    public String unavailableReason(final RdmaConfig config)
    {
        return null;
    }
}
