package io.ringwire.perf.baseline.aeron;

import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.pingpong.LatencyProbeCodec;
import io.ringwire.rdma.host.OnlineCpus;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Aeron IPC's flood, the baseline beside shm in {@code perf throughput}: a message longer than the
 * publication's largest payload travels in fragments, and is counted (and its probe decoded) once,
 * whole, as RingWire's flood counts it.
 */
class AeronFloodTest
{
    private static final int SIZE = 4096;

    @TempDir
    Path directory;

    @ParameterizedTest
    @EnumSource(AeronFlood.Work.class)
    void aMessageLongerThanOnePayloadIsCountedOnceWhole(final AeronFlood.Work work)
    {
        final int length = work == AeronFlood.Work.PROBE ? LatencyProbeCodec.messageLength(SIZE) : SIZE;
        final AeronFlood.Window window = AeronFlood.run(work, SIZE, directory.resolve("shm").toString(),
            CpuPlan.decide(OnlineCpus.asList(), true), 200_000_000L, 300_000_000L, System.err);
        assertTrue(window.messages() > 100, "the flood ran: " + window);
        // The counts are read one after the other while the receiver goes on: within a message.
        assertEquals(length, window.bytes() / (double)window.messages(), length / 50.0,
            "bytes a counted message: whole messages, not " + SIZE + " bytes in fragments of about 1,400: " + window);
    }
}
