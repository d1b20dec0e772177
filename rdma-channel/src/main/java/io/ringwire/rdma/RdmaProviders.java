package io.ringwire.rdma;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Finds providers by name through {@link ServiceLoader} (each provider package lists itself in
 * {@code META-INF/services/io.ringwire.rdma.RdmaProvider}), so the API depends on no provider.
 *
 * <p>Threading: any thread.
 */
public final class RdmaProviders
{
    private RdmaProviders()
    {
    }

    /**
     * @return every provider on the class path.
     */
    public static List<RdmaProvider> all()
    {
        final List<RdmaProvider> providers = new ArrayList<>();
        ServiceLoader.load(RdmaProvider.class, RdmaProviders.class.getClassLoader()).forEach(providers::add);
        return providers;
    }

    /**
     * @param name a provider name.
     * @return the provider.
     * @throws RdmaException when none has that name; the message lists those that exist.
     */
    public static RdmaProvider byName(final String name)
    {
        final List<RdmaProvider> providers = all();
        for (final RdmaProvider provider : providers)
        {
            if (provider.name().equals(name))
            {
                return provider;
            }
        }
        final List<String> names = new ArrayList<>();
        providers.forEach(p -> names.add(p.name()));
        throw new RdmaException("no RDMA provider named '" + name + "'; available: " + names);
    }

    /**
     * The provider {@code auto} stands for: ibverbs when it can open a device here, else socket.
     *
     * @param config concluded configuration.
     * @return the chosen provider's name.
     * @throws IllegalArgumentException when an ibverbs setting is malformed: it is not taken for an
     *                                  absent device.
     */
    public static String resolveAuto(final RdmaConfig config)
    {
        for (final RdmaProvider provider : all())
        {
            if (provider.name().equals("ibverbs"))
            {
                provider.checkSettings();
                if (null == provider.unavailableReason(config))
                {
                    return "ibverbs";
                }
            }
        }
        return "socket";
    }

    /**
     * Opens the device the configuration names ({@code auto} resolved as in {@link #resolveAuto}).
     *
     * @param config concluded configuration.
     * @return the open device.
     * @throws RdmaException when the provider is missing or cannot open; the message says why.
     */
    public static Device open(final RdmaConfig config)
    {
        final String name = "auto".equals(config.provider()) ? resolveAuto(config) : config.provider();
        final RdmaProvider provider = byName(name);
        final String reason = provider.unavailableReason(config);
        if (null != reason)
        {
            throw new RdmaException("provider '" + name + "' is unavailable: " + reason);
        }
        return provider.open(config);
    }
}
