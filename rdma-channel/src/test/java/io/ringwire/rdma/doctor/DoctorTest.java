package io.ringwire.rdma.doctor;

import io.ringwire.rdma.ibverbs.IbverbsInventory;
import io.ringwire.rdma.ibverbs.Libibverbs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code ringwire doctor} on this machine (no RDMA) and on fake {@code /proc} and {@code /sys} trees
 * that each get one thing wrong.
 */
class DoctorTest
{
    @TempDir
    Path tempDir;

    private static void assumeNoRdmaDevice() throws Exception
    {
        final Path devices = Path.of("/sys/class/infiniband");
        boolean none = !Files.isDirectory(devices);
        if (!none)
        {
            try (var list = Files.list(devices))
            {
                none = list.findAny().isEmpty();
            }
        }
        assumeTrue(none, "this machine has an RDMA device: the no-device report cannot be observed here");
    }

    private static void assertEveryCheckProducedAFinding(final DoctorReport report)
    {
        assertEquals(Doctor.checks().size(), report.findings().size(), "one finding per check");
        final Set<String> names = new HashSet<>();
        for (final Finding finding : report.findings())
        {
            assertTrue(names.add(finding.check()), "check names are unique: " + finding.check());
            assertFalse(finding.summary().isBlank(), finding.check() + " says what it found");
            assertFalse(finding.advice().isBlank(), finding.check() + " says what to change");
        }
    }

    /**
     * What doctor says on this machine follows from its state: with libibverbs and no device, how to
     * load Soft-RoCE; without libibverbs, what to install. Either way socket and shm are recommended.
     */
    @Test
    void onThisMachineTheReportNamesWhatIsMissingForRdmaAndRecommendsSocketOrShm() throws Exception
    {
        assumeNoRdmaDevice();
        final DoctorReport report = Doctor.examine(Host.local());

        assertEveryCheckProducedAFinding(report);
        final Finding rdma = report.finding(RdmaDevicesCheck.NAME);
        assertEquals(Status.WARN, rdma.status());
        if (Libibverbs.loads())
        {
            assertTrue(rdma.summary().startsWith("no RDMA device"), rdma.summary());
            assertTrue(rdma.advice().contains("modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0"),
                rdma.advice());
        }
        else
        {
            assertTrue(rdma.summary().contains("not found: apt-get install libibverbs1"), rdma.summary());
            assertTrue(rdma.advice().startsWith("apt-get install libibverbs1 ibverbs-providers rdma-core"),
                rdma.advice());
        }
        assertEquals("socket", report.recommendation().provider());
        assertEquals("shm", report.recommendation().sameHostProvider());
        assertFalse(report.ready(), "without RDMA the machine is not ready for the lowest latency");

        final String text = report.toText();
        assertTrue(text.contains("[WARN] rdma            "), text);
        assertTrue(text.contains("Recommendation: provider socket between hosts, provider shm between processes on " +
            "this host"), text);
        final String json = report.toJson();
        assertTrue(json.startsWith("{\"ready\":false,\"recommendation\":{\"provider\":\"socket\",\"sameHostProvider\":" +
            "\"shm\""), json);
        for (final Finding finding : report.findings())
        {
            assertTrue(json.contains("{\"check\":\"" + finding.check() + "\",\"status\":\"" + finding.status() + "\""),
                finding.check() + " in " + json);
        }
    }

    @Test
    void withoutLibibverbsTheReportNamesThePackagesToInstallAndRecommendsSocketOrShm()
    {
        final FakeHost fake = new FakeHost(tempDir).rdma(IbverbsInventory.Snapshot.unavailable(
            "libibverbs.so.1 not found: apt-get install libibverbs1 ibverbs-providers (or rdma-core); or use provider socket"));
        final DoctorReport report = Doctor.examine(fake.host());

        assertEveryCheckProducedAFinding(report);
        final Finding rdma = report.finding(RdmaDevicesCheck.NAME);
        assertEquals(Status.WARN, rdma.status());
        assertTrue(rdma.advice().startsWith("apt-get install libibverbs1 ibverbs-providers rdma-core"), rdma.advice());
        assertEquals("socket", report.recommendation().provider());
        assertEquals("shm", report.recommendation().sameHostProvider());
        assertFalse(report.ready());
    }

    @Test
    void withLibibverbsAndNoDeviceTheReportSaysHowToLoadSoftRoce()
    {
        final DoctorReport report = Doctor.examine(new FakeHost(tempDir).host());

        final Finding rdma = report.finding(RdmaDevicesCheck.NAME);
        assertEquals(Status.WARN, rdma.status());
        assertTrue(rdma.summary().startsWith("no RDMA device"), rdma.summary());
        assertTrue(rdma.advice().contains("modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0"), rdma.advice());
        assertEquals("socket", report.recommendation().provider());
    }

    @Test
    void aWellTunedMachineWithAnActiveRdmaPortIsReadyAndGetsIbverbsWithItsSettings()
    {
        final FakeHost fake = new FakeHost(tempDir).rdma(FakeHost.softRoce("ACTIVE"));
        final DoctorReport report = Doctor.examine(fake.host());

        assertEveryCheckProducedAFinding(report);
        assertTrue(report.ready(), report.toText());
        assertEquals("ibverbs", report.recommendation().provider());
        assertEquals(List.of("-Dringwire.rdma.provider=ibverbs", "-Dringwire.rdma.ibverbs.device=rxe0",
            "-Dringwire.rdma.ibverbs.port=1", "-Dringwire.rdma.ibverbs.gid.index=1"), report.recommendation().settings());
        final Finding rdma = report.finding(RdmaDevicesCheck.NAME);
        assertEquals(Status.INFO, rdma.status(), "Soft-RoCE works but is no faster than UDP");
        assertTrue(rdma.summary().contains("rxe0 port 1, GID 1 (10.0.0.1:4791), MTU 1024"), rdma.summary());
    }

    @Test
    void anRdmaPortThatIsDownIsReportedWithHowToBringItUp()
    {
        final DoctorReport report = Doctor.examine(new FakeHost(tempDir).rdma(FakeHost.softRoce("DOWN")).host());
        final Finding rdma = report.finding(RdmaDevicesCheck.NAME);
        assertEquals(Status.WARN, rdma.status());
        assertTrue(rdma.summary().contains("rxe0 port 1: DOWN, not ACTIVE: bring up its network interface"),
            rdma.summary());
        assertEquals("socket", report.recommendation().provider());
    }

    @Test
    void aLowMemlockLimitIsReportedWithHowToRaiseIt()
    {
        final DoctorReport report = Doctor.examine(new FakeHost(tempDir).memlock("65536").host());
        final Finding memlock = report.finding(LockedMemoryCheck.NAME);
        assertEquals(Status.WARN, memlock.status());
        assertEquals("memlock limit 65536 bytes (64 KiB): too low to register RingWire's rings for RDMA",
            memlock.summary());
        assertTrue(memlock.advice().startsWith("raise it: ulimit -l unlimited"), memlock.advice());
        assertTrue(memlock.advice().contains("LimitMEMLOCK=infinity"), memlock.advice());
        assertFalse(report.ready());
    }

    @Test
    void aLowMemlockLimitIsNotEnforcedForAProcessWithCapIpcLock()
    {
        final FakeHost fake = new FakeHost(tempDir).memlock("65536")
            .write("/proc/self/status", "Name:\tjava\nCapEff:\t000001ffffffffff\n");
        final Finding memlock = Doctor.examine(fake.host()).finding(LockedMemoryCheck.NAME);
        assertEquals(Status.OK, memlock.status());
        assertTrue(memlock.summary().endsWith("not enforced: this process has CAP_IPC_LOCK"), memlock.summary());
    }

    @Test
    void isolatedCoresArePresentedAsTheCoresToPinAgentsTo()
    {
        final DoctorReport report = Doctor.examine(new FakeHost(tempDir)
            .write("/sys/devices/system/cpu/isolated", "6-7\n")
            .write("/proc/cmdline", "root=/dev/sda1 isolcpus=managed_irq,domain,6-7 nohz_full=6-7\n").host());
        final Finding isolated = report.finding(IsolatedCoresCheck.NAME);
        assertEquals(Status.OK, isolated.status());
        assertEquals("cores reserved for spinning agents: 6-7", isolated.summary());
        assertEquals(List.of("isolated (isolcpus): 6-7", "tickless (nohz_full): 6-7",
            "RCU callbacks offloaded (rcu_nocbs): none"), isolated.details());
        assertEquals("pin RingWire's spinning agents to these cores", isolated.advice());
    }

    @Test
    void noIsolatedCoresIsReportedWithAKernelCommandLineToAdd()
    {
        final Finding isolated = Doctor.examine(new FakeHost(tempDir)
            .write("/sys/devices/system/cpu/isolated", "\n")
            .write("/proc/cmdline", "root=/dev/sda1 quiet\n").host()).finding(IsolatedCoresCheck.NAME);
        assertEquals(Status.WARN, isolated.status());
        assertTrue(isolated.advice().contains("isolcpus=6,7 nohz_full=6,7 rcu_nocbs=6,7"), isolated.advice());
    }

    @Test
    void theSuggestedIsolatedCoresAreOnesThisProcessMayRunOn()
    {
        // taskset -c 2-5 on an 8-core host: 6 and 7 would be cores the agents could not be pinned to.
        final Finding confined = isolatedCoresOf("0-7", "2-5");
        assertEquals(Status.WARN, confined.status());
        assertTrue(confined.advice().contains("isolcpus=4,5 nohz_full=4,5 rcu_nocbs=4,5"), confined.advice());

        final Finding oneCore = isolatedCoresOf("0-15", "3");
        assertEquals(Status.WARN, oneCore.status());
        assertTrue(oneCore.summary().contains("one core (3)"), oneCore.summary());
        assertFalse(oneCore.advice().contains("isolcpus="), oneCore.advice());
    }

    @Test
    void isolatedCoresOutsideThisProcessCpusetAreNotOfferedForItsAgents()
    {
        // The default fake host isolates 2-7; a container's cpuset of 0-1 leaves this process none of them.
        final Finding outside = isolatedCoresWithCpuset("0::/system.slice/docker-1.scope\n",
            "/sys/fs/cgroup/system.slice/docker-1.scope/cpuset.cpus.effective", "0-1\n");
        assertEquals(Status.WARN, outside.status());
        assertEquals("cores 2-7 are reserved for spinning agents, but this process's cpuset allows 0-1 only",
            outside.summary());

        final Finding some = isolatedCoresWithCpuset("5:cpuset,cpu:/trading\n",
            "/sys/fs/cgroup/cpuset/trading/cpuset.effective_cpus", "0-3\n");
        assertEquals(Status.OK, some.status());
        assertEquals("cores reserved for spinning agents: 2-3 (of 2-7; this process's cpuset leaves out the others)",
            some.summary());
    }

    @Test
    void theCpusetIsReadFromTheNearestGroupThatHasOne()
    {
        // systemd: AllowedCPUs=0-1 on user.slice, whose session scopes have no cpuset files of their own.
        final Finding slice = isolatedCoresWithCpuset("0::/user.slice/user-1000.slice/session-3.scope\n",
            "/sys/fs/cgroup/user.slice/cpuset.cpus.effective", "0-1\n");
        assertEquals(Status.WARN, slice.status(), slice.summary());

        // A cgroup v1 container sees its own group at the mount's root, not at the path /proc/self/cgroup names.
        final Finding container = isolatedCoresWithCpuset("3:cpuset:/docker/abc\n",
            "/sys/fs/cgroup/cpuset/cpuset.effective_cpus", "0-1\n");
        assertEquals(Status.WARN, container.status(), container.summary());
    }

    @Test
    void isolatedCoresAreOfferedThoughThisProcessStartedOffThem()
    {
        // isolcpus=2-7 starts every process on 0-1; the agents pin themselves onto 2-7, which its cpuset allows.
        final DoctorReport report = Doctor.examine(new FakeHost(tempDir)
            .write("/proc/self/status", "Name:\tjava\nCpus_allowed_list:\t0-1\n")
            .write("/proc/self/cgroup", "0::/user.slice\n")
            .write("/sys/fs/cgroup/user.slice/cpuset.cpus.effective", "0-7\n").host());
        final Finding isolated = report.finding(IsolatedCoresCheck.NAME);
        assertEquals(Status.OK, isolated.status());
        assertEquals("cores reserved for spinning agents: 2-7", isolated.summary());
        final Finding cores = report.finding(CoreCountCheck.NAME);
        assertEquals(Status.OK, cores.status(), cores.summary());
        assertEquals("8 online cores (0-7)", cores.summary());
    }

    /** The isolated-cores finding of the default fake host (2-7 isolated), this process's cgroup confined. */
    private Finding isolatedCoresWithCpuset(final String cgroup, final String cpusetFile, final String cpus)
    {
        return Doctor.examine(new FakeHost(tempDir).write("/proc/self/cgroup", cgroup).write(cpusetFile, cpus).host())
            .finding(IsolatedCoresCheck.NAME);
    }

    /** The isolated-cores finding of a host without isolated cores, this process confined to {@code allowed}. */
    private Finding isolatedCoresOf(final String online, final String allowed)
    {
        return Doctor.examine(new FakeHost(tempDir)
            .write("/sys/devices/system/cpu/online", online + "\n")
            .write("/proc/self/status", "Name:\tjava\nCpus_allowed_list:\t" + allowed + "\n")
            .write("/sys/devices/system/cpu/isolated", "\n")
            .write("/proc/cmdline", "root=/dev/sda1 quiet\n").host()).finding(IsolatedCoresCheck.NAME);
    }

    @Test
    void thePowersaveGovernorIsReportedWithHowToSetPerformance()
    {
        final DoctorReport report = Doctor.examine(new FakeHost(tempDir)
            .write("/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", "powersave\n")
            .write("/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "powersave\n").host());
        final Finding governor = report.finding(CpuGovernorCheck.NAME);
        assertEquals(Status.WARN, governor.status());
        assertEquals("cores run the powersave governor: the clock drops while agents wait", governor.summary());
        assertTrue(governor.details().contains("powersave: cpu2 cpu3"), governor.details().toString());
        assertTrue(governor.advice().startsWith("set the performance governor: cpupower frequency-set -g performance"),
            governor.advice());
        assertFalse(report.ready());
    }

    @Test
    void fewCoresAndNoHugePagesAreReportedWithWhatToDo()
    {
        final DoctorReport report = Doctor.examine(new FakeHost(tempDir)
            .write("/sys/devices/system/cpu/online", "0-1\n")
            .write("/proc/meminfo", "HugePages_Total:       0\nHugePages_Free:        0\nHugepagesize:       2048 kB\n")
            .host());
        final Finding cores = report.finding(CoreCountCheck.NAME);
        assertEquals(Status.WARN, cores.status());
        assertEquals("2 online cores (0-1): fewer than 4 for spinning agents", cores.summary());
        final Finding hugePages = report.finding(HugePagesCheck.NAME);
        assertEquals(Status.INFO, hugePages.status());
        assertTrue(hugePages.advice().contains("vm.nr_hugepages"), hugePages.advice());
    }

    @Test
    void coresThisProcessMayNotRunOnAreNotCounted()
    {
        // docker run --cpuset-cpus=0 on a 16-core host (its own cgroup namespace: its group is the root).
        final DoctorReport report = Doctor.examine(new FakeHost(tempDir)
            .write("/sys/devices/system/cpu/online", "0-15\n")
            .write("/proc/self/status", "Name:\tjava\nCpus_allowed:\t0001\nCpus_allowed_list:\t0\n")
            .write("/proc/self/cgroup", "0::/\n")
            .write("/sys/fs/cgroup/cpuset.cpus.effective", "0\n")
            .host());
        final Finding cores = report.finding(CoreCountCheck.NAME);
        assertEquals(Status.WARN, cores.status(), cores.summary());
        assertTrue(cores.summary().startsWith("1 usable core (0) of 16 online"), cores.summary());
    }

    @Test
    void hugePagesOfASizeOtherThanTheDefaultAreCounted()
    {
        // Booted with default_hugepagesz=2M hugepagesz=1G hugepages=16: meminfo counts the 2 MiB pool alone.
        final DoctorReport report = Doctor.examine(new FakeHost(tempDir)
            .write("/proc/meminfo", "HugePages_Total:       0\nHugePages_Free:        0\nHugepagesize:       2048 kB\n")
            .write("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0\n")
            .write("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "0\n")
            .write("/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "16\n")
            .write("/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages", "12\n")
            .host());
        final Finding hugePages = report.finding(HugePagesCheck.NAME);
        assertEquals(Status.OK, hugePages.status(), hugePages.summary());
        assertEquals("16 huge pages reserved: 16 of 1 GiB (12 free)", hugePages.summary());
    }

    @Test
    void anInstalledLibvmaBecomesAHintForProviderSocket()
    {
        final DoctorReport report = Doctor.examine(new FakeHost(tempDir)
            .libraryCache("1234 libs found in cache `/etc/ld.so.cache'\n" +
                "\tlibvma.so.9 (libc6,x86-64) => /usr/lib/libvma.so.9\n" +
                "\tlibvma.so (libc6,x86-64) => /usr/lib/libvma.so\n").host());
        final Finding bypass = report.finding(KernelBypassCheck.NAME);
        assertEquals("kernel-bypass preload available: libvma", bypass.summary());
        assertTrue(bypass.advice().contains("LD_PRELOAD=/usr/lib/libvma.so VMA_SPEC=latency"), bypass.advice());
        assertTrue(report.recommendation().hints().contains(bypass.advice()), report.recommendation().hints().toString());
    }

    @Test
    void theCommandLineWritesJsonForAFakeRootAndRefusesUnknownOptions() throws Exception
    {
        new FakeHost(tempDir).memlock("65536");
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(0, Doctor.run(new String[]{ "--json", "--root", tempDir.toString() },
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        final String json = out.toString(StandardCharsets.UTF_8).trim();
        assertTrue(json.startsWith("{\"ready\":false,") && json.endsWith("]}"), json);
        assertTrue(json.contains("\"check\":\"memlock\",\"status\":\"WARN\""), json);
        assertEquals(1, json.lines().count(), "one JSON object on one line");
        // The captured tree's RDMA devices are not this machine's: not checked, and no provider chosen from them.
        assertTrue(json.contains("\"check\":\"rdma\",\"status\":\"INFO\",\"summary\":\"not checked: RDMA " +
            "devices are scanned on the live machine only (--root given)\""), json);
        assertTrue(json.contains("\"recommendation\":{\"provider\":\"auto\""), json);

        assertEquals(2, Doctor.run(new String[]{ "--bogus" }, new PrintStream(out), new PrintStream(err, true,
            StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown option '--bogus'"));
    }
}
