package io.ringwire.perf.compare;

import io.ringwire.perf.host.CpuPlan;
import io.ringwire.perf.host.GcActivity;
import io.ringwire.perf.rtt.RttResult;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reading ib_write_lat's client output (perftest 6.06 as Debian 12 ships it, from the Soft-RoCE
 * lab) into a round-trip row beside ibverbs's.
 */
class IbWriteLatTest
{
    private static final String OUTPUT = String.join("\n",
        "---------------------------------------------------------------------------------------",
        "                    RDMA_Write Latency Test",
        " Dual-port       : OFF\t\tDevice         : rxe0",
        " Mtu             : 1024[B]",
        " GID index       : 1",
        "---------------------------------------------------------------------------------------",
        " local address: LID 0000 QPN 0x0013 PSN 0xf413df RKey 0x00044d VAddr 0x0055ff102a2000",
        " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:201:00:01",
        "---------------------------------------------------------------------------------------",
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]" +
            "   99% percentile[usec]   99.9% percentile[usec] ",
        " 32      10000          12.43          6002.06      12.84    \t       28.35       \t205.13 \t\t63.54   " +
            "\t\t4080.06",
        "---------------------------------------------------------------------------------------");

    @Test
    void theResultLinesHalfRoundTripsAreDoubledIntoARoundTripRow()
    {
        final RttResult row = IbWriteLat.parse(OUTPUT, 32);
        assertEquals("ib_write_lat", row.provider());
        assertEquals("raw", row.api());
        assertEquals(32, row.size());
        assertEquals(10_000, row.count());
        assertEquals(25_680, row.p50(), "twice t_typical, ns");
        assertEquals(127_080, row.p99());
        assertEquals(8_160_120, row.p99_9());
        assertEquals(12_004_120, row.max());
        assertEquals(56_700, row.mean(), 1e-6);
    }

    @Test
    void theRowIsReadAsTheIbverbsPairsBaseline()
    {
        final Comparison pair = new Comparison("ibverbs", "channel", Comparison.IB_WRITE_LAT);
        final RttResult ibverbs = new RttResult("ibverbs", "channel", 2, 32, 100, 38_520, 0, 0, 0, 0, 0, 0, -1, -1, -1,
            false, GcActivity.NONE, null);
        assertEquals(1.5, pair.ratioIn(List.of(ibverbs, IbWriteLat.parse(OUTPUT, 32))), 1e-9);
    }

    @Test
    void eachSideIsPinnedToItsCpuThroughTasksetAndAnUnpinnedPlanLeavesTheCommandAlone()
    {
        final List<String> command = List.of("/usr/bin/ib_write_lat", "-d", "rxe0");
        assertEquals(command, IbWriteLat.pinned(CpuPlan.UNPINNED, command));
        if (Files.isExecutable(Path.of("/usr/bin/taskset")))
        {
            assertEquals(List.of("/usr/bin/taskset", "-c", "1", "/usr/bin/ib_write_lat", "-d", "rxe0"),
                IbWriteLat.pinned(1, command));
        }
    }

    @Test
    void aResultLineOfInfAndNanIsNoTimeMeasuredWhichARoundRunsAgain()
    {
        // What perftest prints when it measured the CPU's clock rate as 0 (seen in the lab's
        // emulated guest): every time divided by it.
        final String output = OUTPUT.replace(" 32      10000          12.43          6002.06      12.84    \t       28.35" +
            "       \t205.13 \t\t63.54   \t\t4080.06", " 32      50000          inf            inf          inf      \t" +
            "       inf         \t-nan   \t\tinf     \t\tinf    ");
        assertTrue(!output.equals(OUTPUT), "the result line replaced");
        final IbWriteLat.NoTimeMeasured noTime = assertThrows(IbWriteLat.NoTimeMeasured.class,
            () -> IbWriteLat.parse(output, 32));
        assertTrue(noTime.getMessage().contains("measured no time (inf)"), noTime.getMessage());
    }

    @Test
    void outputWithoutAResultLineForTheSizeIsAClearError()
    {
        assertTrue(assertThrows(IllegalStateException.class, () -> IbWriteLat.parse(OUTPUT, 64)).getMessage()
            .contains("no result line for 64 bytes"));
        assertThrows(IllegalStateException.class, () -> IbWriteLat.parse("Couldn't connect to 127.0.0.1:18701", 32));
    }
}
