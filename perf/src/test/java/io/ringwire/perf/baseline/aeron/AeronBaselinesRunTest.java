package io.ringwire.perf.baseline.aeron;

import io.ringwire.perf.cli.Transports;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.perf.rtt.RttBenchmark;
import io.ringwire.perf.rtt.RttOptions;
import io.ringwire.perf.rtt.RttResult;
import io.ringwire.rdma.host.OnlineCpus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Short real runs of the Aeron baselines added beside aeron-ipc: every message is recorded, rows are
 * the size of what they carry, and aeron-udp says how its driver is threaded. No latency thresholds.
 */
class AeronBaselinesRunTest
{
    private static final long MESSAGES = 1_000;
    private static final long WARMUP = 500;
    /**
     * Round trips of a run that poses as a host with CPUs for a dedicated driver: on a small host
     * the driver's three spinners share one CPU and take turns by the scheduler's slices, so each
     * round trip takes milliseconds.
     */
    private static final long POSED_MESSAGES = 40;

    @TempDir
    Path shmDirectory;

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);

    private RttResult run(final String provider, final int processes) throws Exception
    {
        return run(provider, processes, CpuPlan.decide(OnlineCpus.asList(), true), MESSAGES, WARMUP);
    }

    private RttResult run(final String provider, final int processes, final CpuPlan cpuPlan, final long messages,
        final long warmup) throws Exception
    {
        final RttOptions options = RttOptions.parse("--provider", provider, "--messages", Long.toString(messages),
            "--warmup", Long.toString(warmup), "--processes", Integer.toString(processes), "--shm-dir",
            shmDirectory.toString(), "--allow-oversubscribe");
        return new RttBenchmark(options, cpuPlan, log).run().rounds().getFirst().results().getFirst();
    }

    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = { 1, 2 })
    void aeronIpcSbeRecordsEveryProbeAtTheProbesSize(final int processes) throws Exception
    {
        final RttResult result = run(Transports.AERON_IPC_SBE, processes);
        assertEquals(Transports.API_RAW, result.api());
        assertEquals(MESSAGES, result.count(), "every measured round trip is recorded");
        assertEquals(LatencyProbeCodec.MIN_LENGTH, result.size(), "the row is the LatencyProbe's size, as messaging's");
        assertTrue(result.p50() > 0 && result.p50() <= result.p99(), result.toString());
    }

    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = { 1, 2 })
    void aeronUdpRecordsEveryMessageAndPrintsItsDriverThreading(final int processes) throws Exception
    {
        final RttResult result = run(Transports.AERON_UDP, processes);
        assertEquals(MESSAGES, result.count(), "every measured round trip is recorded");
        assertEquals(32, result.size());
        assertTrue(result.p50() > 0 && result.p50() <= result.p99(), result.toString());
        final boolean dedicated = OnlineCpus.count() >= CpuPlan.CPUS_FOR_DEDICATED_DRIVER;
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains(dedicated ? "media driver DEDICATED" :
            "media driver SHARED"), logBytes::toString);
        assertEquals(dedicated, null == result.notComparableReason(), result.toString());
    }

    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = { 1, 2 })
    void aeronUdpWithCpusForItsDriverRunsItDedicatedAndItsRowIsComparable(final int processes) throws Exception
    {
        // Poses as a host with a CPU for every thread, on whatever CPUs this one has: the pinger and
        // ponger yield, since the driver's three threads busy-spin on them.
        final int lastCpu = OnlineCpus.asList().getLast();
        final CpuPlan plan = new CpuPlan(CpuPlan.UNPINNED, CpuPlan.UNPINNED, true, CpuPlan.CPUS_FOR_DEDICATED_DRIVER,
            List.of(lastCpu, lastCpu, lastCpu));

        final RttResult result = run(Transports.AERON_UDP, processes, plan, POSED_MESSAGES, POSED_MESSAGES);

        assertEquals(POSED_MESSAGES, result.count(), "every measured round trip is recorded");
        assertEquals(null, result.notComparableReason(), result.toString());
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("aeron-udp: media driver DEDICATED, " +
            "conductor on cpu " + lastCpu + ", sender on cpu " + lastCpu + ", receiver on cpu " + lastCpu +
            ", each with a BusySpinIdleStrategy"), logBytes::toString);
    }

    @Test
    void udpPortsSurviveTheirTextForm()
    {
        final AeronIpcSide.UdpPorts ports = new AeronIpcSide.UdpPorts(40123, 40124);
        assertEquals(ports, AeronIpcSide.UdpPorts.parse(ports.toValue()));
    }
}
