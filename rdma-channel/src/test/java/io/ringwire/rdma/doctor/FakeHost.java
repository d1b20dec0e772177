package io.ringwire.rdma.doctor;

import io.ringwire.rdma.ibverbs.IbverbsInventory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Builds a fake {@code /proc} and {@code /sys} tree for the doctor's checks: a well-tuned machine by
 * default (8 cores, 2-7 isolated and tickless, performance governor, unlimited memlock, huge pages),
 * which each test then spoils in the one way it is about.
 */
final class FakeHost
{
    static final String LIMITS_HEADER =
        "Limit                     Soft Limit           Hard Limit           Units     \n" +
        "Max cpu time              unlimited            unlimited            seconds   \n";

    private final Path root;
    private IbverbsInventory.Snapshot rdma = IbverbsInventory.Snapshot.unavailable(
        "no RDMA device: libibverbs lists 0 devices; load a Soft-RoCE device (modprobe rdma_rxe; rdma link add " +
            "rxe0 type rxe netdev eth0) or use provider socket");
    private String libraryCache = "";

    FakeHost(final Path root)
    {
        this.root = root;
        write("/proc/self/limits", LIMITS_HEADER +
            "Max locked memory         unlimited            unlimited            bytes     \n");
        write("/proc/self/status", "Name:\tjava\nCapEff:\t0000000000000000\n");
        write("/proc/meminfo", "MemTotal:       16000000 kB\nHugePages_Total:     512\nHugePages_Free:      500\n" +
            "Hugepagesize:       2048 kB\n");
        write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=2-7 nohz_full=2-7 rcu_nocbs=2-7\n");
        write("/sys/devices/system/cpu/online", "0-7\n");
        write("/sys/devices/system/cpu/isolated", "2-7\n");
        for (int cpu = 0; cpu < 8; cpu++)
        {
            write("/sys/devices/system/cpu/cpu" + cpu + "/cpufreq/scaling_governor", "performance\n");
        }
    }

    FakeHost write(final String absolutePath, final String text)
    {
        try
        {
            final Path file = root.resolve(absolutePath.substring(1));
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
            return this;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    FakeHost memlock(final String soft)
    {
        return write("/proc/self/limits", LIMITS_HEADER +
            "Max locked memory         " + soft + "                " + soft + "                bytes     \n");
    }

    FakeHost rdma(final IbverbsInventory.Snapshot snapshot)
    {
        this.rdma = snapshot;
        return this;
    }

    FakeHost libraryCache(final String ldconfigOutput)
    {
        this.libraryCache = ldconfigOutput;
        return this;
    }

    Host host()
    {
        final IbverbsInventory.Snapshot snapshot = rdma;
        final String libraries = libraryCache;
        return Host.of(root, () -> snapshot, () -> libraries);
    }

    /**
     * @return an rxe0 device with one ACTIVE port and the usual rxe GIDs: 0 link-local IPv6, 1 IPv4.
     */
    static IbverbsInventory.Snapshot softRoce(final String state)
    {
        return new IbverbsInventory.Snapshot(List.of(new IbverbsInventory.Device("rxe0", "", List.of(
            new IbverbsInventory.Port(1, state, 1024, 4096, "Ethernet", List.of(
                new IbverbsInventory.Gid(0, "fe80:0000:0000:0000:d0c5:6cff:fe1b:0001", "[fe80::d0c5:6cff:fe1b:1]:4791",
                    "RoCE v2", "va", false),
                new IbverbsInventory.Gid(1, "0000:0000:0000:0000:0000:ffff:0a00:0001", "10.0.0.1:4791", "RoCE v2", "va",
                    true)))), null)), null);
    }
}
