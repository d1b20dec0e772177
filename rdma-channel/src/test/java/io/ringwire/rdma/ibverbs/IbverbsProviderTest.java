package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.Device;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.RdmaProviders;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the provider tells a user on a machine that cannot run it: the build machines have
 * libibverbs installed but no RDMA device (their kernel has no RDMA at all:
 * {@code ibv_get_device_list} returns NULL with ENOSYS). The tests that need that situation
 * check for it first and are reported as skipped, with the reason, on a machine with a device.
 */
class IbverbsProviderTest
{
    private static final String MISSING_LIBRARY = "libibverbs-missing-for-ringwire-test.so.1";

    private static RdmaConfig config(final String provider)
    {
        return new RdmaConfig().provider(provider).bindAddress("127.0.0.1:0").conclude();
    }

    /** True when the kernel shows no RDMA device at all: judged from sysfs, not from the provider under test. */
    private static void assumeNoRdmaDevice() throws Exception
    {
        final Path devices = Path.of("/sys/class/infiniband");
        final boolean none;
        if (!Files.isDirectory(devices))
        {
            none = true;
        }
        else
        {
            try (var list = Files.list(devices))
            {
                none = list.findAny().isEmpty();
            }
        }
        assumeTrue(none, "this machine has an RDMA device (/sys/class/infiniband): the no-device behaviour " +
            "cannot be observed here");
    }

    @Test
    void theServiceLoaderFindsTheProviderByItsName()
    {
        assertInstanceOf(IbverbsProvider.class, RdmaProviders.byName("ibverbs"));
    }

    @Test
    void withoutLibibverbsTheProviderIsUnavailableAndNamesThePackages() throws Exception
    {
        assumeFalse(Libibverbs.loads(), "libibverbs is installed here: its absence cannot be observed");
        final String reason = new IbverbsProvider().unavailableReason(config("ibverbs"));
        assertTrue(reason.startsWith("libibverbs.so.1 not found: apt-get install libibverbs1"), reason);
        assertTrue(reason.contains("or use provider socket"), reason);
        final RdmaException ex = assertThrows(RdmaException.class, () -> RdmaProviders.open(config("ibverbs")));
        assertTrue(ex.getMessage().startsWith("provider 'ibverbs' is unavailable: libibverbs.so.1 not found"),
            ex.getMessage());
    }

    @Test
    void withoutADeviceTheProviderIsUnavailableAndSaysHowToGetOne() throws Exception
    {
        assumeNoRdmaDevice();
        assumeTrue(Libibverbs.loads(), "no libibverbs here: the no-device report cannot be observed");
        final String reason = new IbverbsProvider().unavailableReason(config("ibverbs"));
        assertTrue(reason.startsWith("no RDMA device: "), reason);
        assertTrue(reason.contains("modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0"), reason);
        assertTrue(reason.contains("or use provider socket"), reason);
        if (!Files.exists(Path.of("/sys/class/infiniband")))
        {
            assertTrue(reason.contains("ENOSYS") && reason.contains("this kernel has no RDMA support"), reason);
        }
    }

    @Test
    void openingTheIbverbsProviderWithoutADeviceThrowsAnExceptionNamingTheFix() throws Exception
    {
        assumeNoRdmaDevice();
        assumeTrue(Libibverbs.loads(), "no libibverbs here: the no-device report cannot be observed");
        final RdmaException ex = assertThrows(RdmaException.class, () -> RdmaProviders.open(config("ibverbs")));
        assertTrue(ex.getMessage().startsWith("provider 'ibverbs' is unavailable: no RDMA device: "), ex.getMessage());
        assertTrue(ex.getMessage().contains("modprobe rdma_rxe"), ex.getMessage());

        final RdmaException direct = assertThrows(RdmaException.class,
            () -> new IbverbsProvider().open(config("ibverbs")));
        assertTrue(direct.getMessage().startsWith("no RDMA device: "), direct.getMessage());
    }

    @Test
    void autoResolvesToSocketWithoutADevice() throws Exception
    {
        assumeNoRdmaDevice();
        final RdmaConfig auto = config("auto");
        assertEquals("socket", RdmaProviders.resolveAuto(auto));
        try (Device device = RdmaProviders.open(auto))
        {
            assertEquals("socket", device.providerName());
        }
    }

    @Test
    void aMissingLibraryIsReportedWithWhatToInstall()
    {
        final IbverbsProvider provider = new IbverbsProvider(MISSING_LIBRARY);
        final String expected = MISSING_LIBRARY + " not found: apt-get install libibverbs1 ibverbs-providers " +
            "(or rdma-core); or use provider socket";
        assertEquals(expected, provider.unavailableReason(config("ibverbs")));
        final RdmaException ex = assertThrows(RdmaException.class, () -> provider.open(config("ibverbs")));
        assertEquals(expected, ex.getMessage());
    }

    @Test
    void aBadProviderPropertyIsReportedByNameAndRefusedByAuto()
    {
        final String previous = System.getProperty(IbverbsProvider.PORT_PROP);
        System.setProperty(IbverbsProvider.PORT_PROP, "0");
        try
        {
            final String reason = new IbverbsProvider().unavailableReason(config("ibverbs"));
            assertTrue(reason.startsWith(IbverbsProvider.PORT_PROP + "='0' is out of range; allowed: a port number 1 to 255"),
                reason);
            // auto would take it for an absent device and quietly open socket instead.
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> RdmaProviders.open(config("auto")).close());
            assertTrue(refused.getMessage().startsWith(IbverbsProvider.PORT_PROP + "='0'"), refused.getMessage());
        }
        finally
        {
            if (null == previous)
            {
                System.clearProperty(IbverbsProvider.PORT_PROP);
            }
            else
            {
                System.setProperty(IbverbsProvider.PORT_PROP, previous);
            }
        }
    }

    @Test
    void theNoDeviceMessageDistinguishesAKernelWithoutRdmaFromAnEmptyList()
    {
        assertEquals("no RDMA device: libibverbs lists 0 devices; " + DeviceList.NO_DEVICE_FIX,
            DeviceList.noDeviceMessage(0));
        assertTrue(DeviceList.noDeviceMessage(Errno.ENOSYS).contains(
            "ibv_get_device_list failed with ENOSYS (function not implemented): this kernel has no RDMA support"));
    }

    @Test
    void aPortThatIsNotActiveIsReportedWithItsStateAndNetworkInterface() throws Exception
    {
        final Path sys = Files.createTempDirectory("ringwire-sysfs");
        final Path port = sys.resolve("class/infiniband/rxe0/ports/1");
        write(port.resolve("state"), "1: DOWN\n");
        write(port.resolve("gids/1"), "0000:0000:0000:0000:0000:ffff:0a00:0001\n");
        write(port.resolve("gid_attrs/types/1"), "RoCE v2\n");
        write(port.resolve("gid_attrs/ndevs/1"), "veth0\n");
        final String reason = IbverbsProvider.portReason(sys, "rxe0", new IbverbsSettings("", 1, 1));
        assertEquals("port 1 of rxe0 is DOWN, not ACTIVE: bring up its network interface (ip link set veth0 up) " +
            "and check the link; or set " + IbverbsProvider.PORT_PROP + " to an active port, or use provider socket",
            reason);

        write(port.resolve("state"), "4: ACTIVE\n");
        assertNull(IbverbsProvider.portReason(sys, "rxe0", new IbverbsSettings("", 1, 1)));
    }

    @Test
    void anEmptyOrRoceV1GidIsReportedWithHowToChooseAnother() throws Exception
    {
        final Path sys = Files.createTempDirectory("ringwire-sysfs");
        final Path port = sys.resolve("class/infiniband/mlx5_0/ports/1");
        write(port.resolve("state"), "4: ACTIVE\n");
        write(port.resolve("gids/3"), "0000:0000:0000:0000:0000:0000:0000:0000\n");
        write(port.resolve("gids/2"), "0000:0000:0000:0000:0000:ffff:0a00:0001\n");
        write(port.resolve("gid_attrs/types/2"), "IB/RoCE v1\n");

        final String empty = IbverbsProvider.portReason(sys, "mlx5_0", new IbverbsSettings("", 1, 3));
        assertTrue(empty.startsWith("GID index 3 of mlx5_0 port 1 is empty"), empty);
        assertTrue(empty.contains("set " + IbverbsProvider.GID_INDEX_PROP), empty);

        final String roceV1 = IbverbsProvider.portReason(sys, "mlx5_0", new IbverbsSettings("", 1, 2));
        assertTrue(roceV1.startsWith("GID index 2 of mlx5_0 port 1 is a IB/RoCE v1 GID; RingWire speaks RoCEv2"), roceV1);

        assertTrue(IbverbsProvider.portReason(sys, "mlx5_0", new IbverbsSettings("", 2, 1))
            .startsWith("mlx5_0 has no port 2"));
    }

    private static void write(final Path file, final String text) throws Exception
    {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
