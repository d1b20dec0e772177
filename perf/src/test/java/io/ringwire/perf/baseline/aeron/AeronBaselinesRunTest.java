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

    @TempDir
    Path shmDirectory;

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);

    private RttResult run(final String provider, final int processes) throws Exception
    {
        final RttOptions options = RttOptions.parse("--provider", provider, "--messages", Long.toString(MESSAGES),
            "--warmup", Long.toString(WARMUP), "--processes", Integer.toString(processes), "--shm-dir",
            shmDirectory.toString(), "--allow-oversubscribe");
        return new RttBenchmark(options, CpuPlan.decide(OnlineCpus.asList(), true), log).run().rounds().getFirst()
            .results().getFirst();
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
        assertTrue(logBytes.toString(StandardCharsets.UTF_8).contains("media driver SHARED"), logBytes::toString);
    }

    @Test
    void udpPortsSurviveTheirTextForm()
    {
        final AeronIpcSide.UdpPorts ports = new AeronIpcSide.UdpPorts(40123, 40124);
        assertEquals(ports, AeronIpcSide.UdpPorts.parse(ports.toValue()));
    }
}
