package io.ringwire.perf.rtt;

import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.host.ThreadAllocation;
import io.ringwire.perf.host.ThreadPlan;
import io.ringwire.perf.testing.SteadyStateAllocation;
import io.ringwire.rdma.RdmaProviders;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The messaging ping-pong's hot path allocates nothing: a pinger and a ponger thread in this JVM,
 * each owning a publication and a subscription, exchange {@code LatencyProbe}s (tryClaim, encode,
 * commit; poll, validate, decode, echo), and each thread's allocated bytes over the measured round
 * trips are counted by the JVM ({@code com.sun.management.ThreadMXBean}).
 *
 * <p>As the channel and messaging zero-allocation tests do, it excuses only what
 * {@link SteadyStateAllocation} does: HotSpot's few hundred bytes in a window in which the JIT compiled.
 * A window that may still be settling (a thread allocated while the JIT compiled, or a few bytes
 * with no compile seen) is not steady state, so the run is repeated on fresh peers, up to
 * {@value #ATTEMPTS} windows.
 */
class MessagingZeroAllocationTest
{
    private static final long WARMUP = 200_000;
    private static final long MEASURED = 300_000;
    /**
     * Windows measured at most: one that may still be settling ({@link SteadyStateAllocation}) is measured again.
     * Five, as each window runs on fresh peers whose first round trips after the warm-up may still
     * meet code the JIT compiles (three such windows in a row have been seen on a 2-CPU machine).
     */
    private static final int ATTEMPTS = 5;

    @TempDir
    Path shmDirectory;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "shm", "socket", "roce" })
    @Timeout(value = 480, unit = TimeUnit.SECONDS)
    void pingerAndPongerThreadsAllocateNothingOverTheMeasuredRoundTrips(final String provider) throws Exception
    {
        assumeTrue(RdmaProviders.all().stream().anyMatch(p -> p.name().equals(provider)),
            provider + " is not on the class path");
        assumeTrue(ThreadAllocation.currentThreadAllocatedBytes() != ThreadAllocation.UNKNOWN,
            "this JVM does not count per-thread allocation");
        SteadyStateAllocation.assertSteadyAllocationFree(ATTEMPTS, () -> measure(provider));
    }

    /**
     * One ping-pong run on fresh peers, its measured round trips the window.
     */
    private List<SteadyStateAllocation.Measured> measure(final String provider) throws Exception
    {
        final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
        final PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
        final String secret = MessagingPeer.newSecret();
        try (MessagingPeer pingSide = MessagingPeer.open(provider, shmDirectory.toString(), secret, 32);
             MessagingPeer pongSide = MessagingPeer.open(provider, shmDirectory.toString(), secret, 32))
        {
            pingSide.connectTo(pongSide.port());
            pongSide.connectTo(pingSide.port());
            MessagingPeer.connect(pingSide, pongSide);
            final ThreadPlan unpinned = new ThreadPlan(CpuPlan.UNPINNED, true, log);
            final MessagingPinger pinger = new MessagingPinger(pingSide, unpinned, WARMUP, MEASURED);
            final MessagingPonger ponger = new MessagingPonger(pongSide, unpinned, WARMUP);
            final Thread pongerThread = new Thread(ponger, "zero-alloc-ponger");
            final Thread pingerThread = new Thread(pinger, "zero-alloc-pinger");
            pongerThread.start();
            pingerThread.start();
            pingerThread.join(TimeUnit.SECONDS.toMillis(200));
            if (pingerThread.isAlive())
            {
                pinger.requestStop();
            }
            pongerThread.join(TimeUnit.SECONDS.toMillis(20));
            if (pongerThread.isAlive())
            {
                ponger.requestStop();
            }
            pingerThread.join(TimeUnit.SECONDS.toMillis(20));
            pongerThread.join(TimeUnit.SECONDS.toMillis(20));

            assertNull(pinger.failure(), "pinger: " + logBytes.toString(StandardCharsets.UTF_8));
            assertNull(ponger.failure(), "ponger: " + logBytes.toString(StandardCharsets.UTF_8));
            assertEquals(MEASURED, pinger.histogram().getTotalCount(), "every measured round trip recorded");
            assertEquals(WARMUP + MEASURED + 1, ponger.echoed(), "every probe and the stop probe echoed");
            return List.of(
                new SteadyStateAllocation.Measured("[" + provider + "] pinger thread over " + MEASURED + " round trips",
                    pinger.measuredAllocatedBytes(), pinger.jitCompiledWhileMeasuring()),
                new SteadyStateAllocation.Measured("[" + provider + "] ponger thread over " + MEASURED + " round trips",
                    ponger.measuredAllocatedBytes(), ponger.jitCompiledWhileMeasuring()));
        }
    }
}
