package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.Device;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.RdmaProvider;
import io.ringwire.rdma.config.Settings;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code ibverbs} provider: a real RDMA NIC (or the kernel's Soft-RoCE, rxe) through libibverbs,
 * bound with {@code java.lang.foreign}. The NIC does the transport; this provider fills work
 * requests and reads completions, allocation-free.
 *
 * <p>Configuration, beyond {@link RdmaConfig} (whose bind address it ignores: the GID is the address):
 * <ul>
 *   <li>{@value #DEVICE_PROP}: the device to open, e.g. "rxe0", "mlx5_0" (default: the first one).</li>
 *   <li>{@value #PORT_PROP}: its port (default 1).</li>
 *   <li>{@value #GID_INDEX_PROP}: the source GID index (default 1: the RoCE v2 IPv4 GID on rxe; on
 *       other NICs see {@code show_gids}).</li>
 *   <li>{@value #LIBRARY_PROP}: the libibverbs to load (default {@code libibverbs.so.1}).</li>
 * </ul>
 * {@link RdmaConfig#ackTimeoutNs()}, {@link RdmaConfig#retryCount()} and
 * {@link RdmaConfig#peerTimeoutNs()} become the NIC's ACK timeout and retry count as
 * {@code RetryPolicy} explains (retry count 7, "until the peer timeout", becomes 6 retries spread
 * over the peer timeout); the RNR retry count is passed as it is (7: forever).
 *
 * <p>Threading: any thread.
 */
public final class IbverbsProvider implements RdmaProvider
{
    /** The provider's name in configuration. */
    public static final String NAME = "ibverbs";
    /** The device to open ("" or unset: the first one). */
    public static final String DEVICE_PROP = "ringwire.rdma.ibverbs.device";
    /** The port number (default 1). */
    public static final String PORT_PROP = "ringwire.rdma.ibverbs.port";
    /** The source GID index (default 1). */
    public static final String GID_INDEX_PROP = "ringwire.rdma.ibverbs.gid.index";
    /** The libibverbs to load, a soname or a path (default libibverbs.so.1; e.g. an rdma-core built from source). */
    public static final String LIBRARY_PROP = "ringwire.rdma.ibverbs.library";

    private final String library;
    private final Path sysRoot;

    /**
     * The provider on the library {@value #LIBRARY_PROP} names (default {@code libibverbs.so.1}), as
     * {@link java.util.ServiceLoader} creates it.
     */
    public IbverbsProvider()
    {
        this(null, Path.of("/sys"));
    }

    /**
     * @param library the libibverbs to load: a soname or a path.
     */
    public IbverbsProvider(final String library)
    {
        this(library, Path.of("/sys"));
    }

    IbverbsProvider(final String library, final Path sysRoot)
    {
        this.library = library;
        this.sysRoot = sysRoot;
    }

    private String library()
    {
        return null != library ? library : Settings.property(LIBRARY_PROP, Verbs.DEFAULT_LIBRARY);
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public void checkSettings()
    {
        IbverbsSettings.fromSystemProperties();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Fast and without side effects beyond loading the library once: lists the devices (no device
     * is opened) and reads the port state and GID from sysfs when it is readable. Reasons: the
     * library is missing (what to install), there is no device (how to load Soft-RoCE), the named
     * device is absent, its port is not ACTIVE, or the GID index is empty or not RoCE v2.
     */
    @Override
    public String unavailableReason(final RdmaConfig config)
    {
        try
        {
            final IbverbsSettings settings = IbverbsSettings.fromSystemProperties();
            final Verbs verbs = Verbs.load(library());
            try (DeviceList devices = DeviceList.open(verbs))
            {
                return portReason(sysRoot, devices.name(devices.indexOf(settings)), settings);
            }
        }
        catch (final RdmaException | IllegalArgumentException ex)
        {
            return ex.getMessage();
        }
    }

    /**
     * @return why the port or GID the settings name cannot be used, as sysfs under {@code sysRoot} shows
     *         it; null when usable or when sysfs does not say.
     */
    static String portReason(final Path sysRoot, final String device, final IbverbsSettings settings)
    {
        final SysfsPort port = SysfsPort.of(sysRoot, device, settings.port());
        if (!port.exists())
        {
            return Files.isDirectory(sysRoot.resolve("class/infiniband").resolve(device)) ?
                device + " has no port " + settings.port() + " (" + PORT_PROP + "); see ibv_devinfo -d " + device : null;
        }
        final String state = port.state();
        if (null != state && !state.endsWith("ACTIVE"))
        {
            final int colon = state.indexOf(':');
            return PortDiagnosis.notActive(device, settings.port(), colon < 0 ? state : state.substring(colon + 1).trim(),
                port.netdev(settings.gidIndex()));
        }
        final String gid = port.gid(settings.gidIndex());
        if (null != gid && SysfsPort.isZeroGid(gid))
        {
            return PortDiagnosis.emptyGid(device, settings.port(), settings.gidIndex());
        }
        final String type = port.gidType(settings.gidIndex());
        if (null != type && !type.equals(SysfsPort.ROCE_V2))
        {
            return PortDiagnosis.notRoceV2(device, settings.port(), settings.gidIndex(), type);
        }
        return null;
    }

    @Override
    public Device open(final RdmaConfig config)
    {
        final IbverbsSettings settings;
        try
        {
            settings = IbverbsSettings.fromSystemProperties();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RdmaException(ex.getMessage(), ex);
        }
        return IbverbsDevice.open(Verbs.load(library()), config, settings, sysRoot);
    }
}
