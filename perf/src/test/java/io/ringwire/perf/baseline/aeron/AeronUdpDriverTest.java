package io.ringwire.perf.baseline.aeron;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.ringwire.perf.host.CpuPlan;
import io.ringwire.rdma.host.OnlineCpus;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How aeron-udp's media driver runs on a host: dedicated, each of its three threads spinning on a
 * CPU the pinger and ponger do not use, where there are five CPUs; shared otherwise, its row then no
 * fair peer of roce's, with the reason.
 */
class AeronUdpDriverTest
{
    @TempDir
    Path directory;

    private static List<Integer> cpus(final int count)
    {
        return IntStream.range(0, count).boxed().toList();
    }

    @ParameterizedTest(name = "{0} CPUs")
    @ValueSource(ints = { 5, 8 })
    void withFiveCpusOrMoreTheDriverIsDedicatedOnCpusOfItsOwnAndComparable(final int online)
    {
        final CpuPlan plan = CpuPlan.decide(cpus(online), false);
        final AeronUdpDriver driver = AeronUdpDriver.of(plan);

        assertTrue(driver.dedicated());
        assertEquals(List.of(online - 5, online - 4, online - 3), driver.cpus(), "conductor, sender, receiver");
        assertFalse(driver.cpus().contains(plan.pingerCpu()) || driver.cpus().contains(plan.pongerCpu()),
            plan.toString());
        assertNull(driver.notComparableReason());
        assertEquals("aeron-udp: media driver DEDICATED, conductor on cpu " + (online - 5) + ", sender on cpu " +
            (online - 4) + ", receiver on cpu " + (online - 3) + ", each with a BusySpinIdleStrategy", driver.layout());
    }

    @ParameterizedTest(name = "{0} CPUs")
    @ValueSource(ints = { 1, 2, 4 })
    void withFewerThanFiveCpusTheDriverIsSharedAndNotComparableSayingWhatItNeedsAndHas(final int online)
    {
        final AeronUdpDriver driver = AeronUdpDriver.of(CpuPlan.decide(cpus(online), true));

        assertFalse(driver.dedicated());
        assertEquals("aeron-udp's media driver needs 5 CPUs to run dedicated (pinger, ponger, conductor, sender, " +
            "receiver), this host has " + online, driver.notComparableReason());
        assertTrue(driver.layout().startsWith("aeron-udp: media driver SHARED"), driver.layout());
        assertTrue(driver.layout().endsWith("this host has " + online + ", so its ratios with roce are not " +
            "comparable here"), driver.layout());
    }

    @Test
    void thePongerProcessGetsTheSameDriverFromItsArgument()
    {
        final AeronUdpDriver dedicated = new AeronUdpDriver(List.of(3, 4, 5), 8);
        final AeronUdpDriver shared = new AeronUdpDriver(List.of(), 2);

        assertEquals(dedicated, AeronUdpDriver.parse(dedicated.toArgument(), 8));
        assertEquals(shared, AeronUdpDriver.parse(shared.toArgument(), 2));
    }

    @Test
    void aDedicatedDriverBusySpinsItsThreePinnedThreads()
    {
        final int cpu = OnlineCpus.asList().getLast();
        final ByteArrayOutputStream warnings = new ByteArrayOutputStream();

        try (MediaDriver driver = new AeronUdpDriver(List.of(cpu, cpu, cpu), 1).launch(directory.resolve("aeron"),
            new PrintStream(warnings, true, StandardCharsets.UTF_8)))
        {
            final MediaDriver.Context context = driver.context();
            assertEquals(ThreadingMode.DEDICATED, context.threadingMode());
            assertInstanceOf(BusySpinIdleStrategy.class, context.conductorIdleStrategy());
            assertInstanceOf(BusySpinIdleStrategy.class, context.senderIdleStrategy());
            assertInstanceOf(BusySpinIdleStrategy.class, context.receiverIdleStrategy());
            final List<String> threads = Thread.getAllStackTraces().keySet().stream().map(Thread::getName).toList();
            for (final String agent : List.of("driver-conductor", "sender", "receiver"))
            {
                assertTrue(threads.contains(agent), threads.toString());
            }
        }
        assertEquals("", warnings.toString(StandardCharsets.UTF_8), "every thread pinned");
    }
}
