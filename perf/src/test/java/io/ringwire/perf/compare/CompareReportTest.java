package io.ringwire.perf.compare;

import io.ringwire.perf.cli.UsageException;
import io.ringwire.perf.host.GcActivity;
import io.ringwire.perf.rtt.RttResult;
import io.ringwire.perf.testing.MiniJson;
import org.jfree.chart.JFreeChart;
import org.jfree.data.category.CategoryDataset;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.renderer.category.CategoryItemRenderer;
import org.jfree.chart.title.TextTitle;
import org.junit.jupiter.api.Test;

import java.awt.TexturePaint;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The arithmetic and shape of compare's report, on made-up rows: each ratio is read per round and
 * summarised by its median; the JSON has one object per row and one per ratio.
 */
class CompareReportTest
{
    private static RttResult row(final String provider, final String api, final long p50, final long p99)
    {
        return row(provider, api, p50, p99, GcActivity.NONE);
    }

    private static RttResult row(final String provider, final String api, final long p50, final long p99,
        final GcActivity gc)
    {
        return new RttResult(provider, api, 1, 32, 100, p50, p50, p99, p99, p99, p99, p50, 0, 1, 0, false, gc, null);
    }

    private static List<RttResult> round(final long shmChannel, final long shmMessaging, final long aeronIpc)
    {
        return List.of(row("shm", "channel", shmChannel, 10 * shmChannel),
            row("shm", "messaging", shmMessaging, 10 * shmMessaging), row("aeron-ipc", "raw", aeronIpc, 2 * aeronIpc));
    }

    private static CompareReport report()
    {
        return new CompareReport(32, 100, 10, 1, CompareOptions.parsePairs("shm/aeron-ipc"),
            List.of(round(200, 400, 100), round(300, 300, 100), round(100, 500, 200)), List.of("a note"));
    }

    @Test
    void eachRatioIsTheMedianOfItsPerRoundRatiosNotTheRatioOfMedians()
    {
        final List<CompareReport.Ratio> ratios = report().ratios();
        assertEquals(2, ratios.size());
        assertEquals("shm / aeron-ipc", ratios.get(0).label());
        assertEquals(List.of(2.0, 3.0, 0.5), List.of(ratios.get(0).values()[0], ratios.get(0).values()[1],
            ratios.get(0).values()[2]));
        assertEquals(2.0, ratios.get(0).median(), 1e-9);
        assertEquals("shm messaging / aeron-ipc", ratios.get(1).label());
        assertEquals(3.0, ratios.get(1).median(), 1e-9, "median of 4, 3 and 2.5");
    }

    @Test
    void messagingOverItsOwnChannelIsReadFromTheSameProvidersTwoRows()
    {
        final CompareReport report = new CompareReport(32, 100, 10, 1, CompareOptions.parsePairs("shm/channel"),
            List.of(round(200, 400, 100), round(300, 300, 100), round(100, 500, 200)), List.of());
        assertEquals(1, report.ratios().size());
        assertEquals("shm messaging / shm channel", report.ratios().getFirst().label());
        assertEquals(2.0, report.ratios().getFirst().median(), 1e-9, "median of 2, 1 and 5");
    }

    @Test
    void anEvenNumberOfReadingsTakesTheMeanOfTheMiddleTwo()
    {
        assertEquals(2.5, new CompareReport.Ratio("x", new double[] { 4, 1, 2, 3 }).median(), 1e-9);
    }

    @Test
    void aPairMissingFromARoundIsLeftOutOfThatRoundOnly()
    {
        final CompareReport report = new CompareReport(32, 100, 10, 1, CompareOptions.parsePairs("shm/aeron-ipc"),
            List.of(round(200, 400, 100), List.of(row("shm", "channel", 300, 3000))), List.of());
        assertEquals(1, report.ratios().get(0).values().length, "shm / aeron-ipc read once: round 2 has no aeron-ipc");
        assertEquals(1, report.ratios().get(1).values().length);
    }

    @Test
    void aPairMissingFromARoundKeepsEveryOtherReadingUnderItsOwnRoundInTablePlotAndJson()
    {
        // shm / aeron-ipc (messaging over raw aeron) reads 4 in round 1 and 2.5 in round 3; round 2 has no aeron-ipc.
        final CompareReport report = new CompareReport(32, 100, 10, 1, CompareOptions.parsePairs("shm/aeron-ipc"),
            List.of(round(200, 400, 100), List.of(row("shm", "channel", 300, 3000)), round(100, 500, 200)), List.of());
        final CompareReport.Ratio messaging = report.ratios().get(1);
        assertArrayEquals(new double[]{ 4, 2.5 }, messaging.values(), 1e-9);
        assertArrayEquals(new int[]{ 1, 3 }, messaging.rounds());

        final CategoryDataset readings = ComparePlot.chart(report).getCategoryPlot().getDataset(1);
        assertEquals(List.of("round 1", "round 3"), readings.getRowKeys(), "no point is plotted under round 2");
        assertEquals(2.5, readings.getValue("round 3", messaging.label()).doubleValue(), 1e-9);
        assertTrue(report.table().contains("4.00 - 2.50"), report.table());
        assertTrue(report.json().contains("\"rounds\":[1,3]"), report.json());
    }

    @Test
    void rowsCarryTheMedianP50AndP99OverTheRounds()
    {
        final CompareReport.Row shmChannel = report().rows().getFirst();
        assertEquals("shm", shmChannel.provider());
        assertEquals("channel", shmChannel.api());
        assertEquals(200.0, shmChannel.p50(), 1e-9);
        assertEquals(2000.0, shmChannel.p99(), 1e-9);
        assertEquals(3, report().rows().size());
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRowsGarbageCollectionsAreSummedOverItsRoundsAndShownInTableAndJson()
    {
        final CompareReport report = new CompareReport(32, 100, 10, 1, CompareOptions.parsePairs("shm/aeron-ipc"),
            List.of(List.of(row("shm", "channel", 200, 2000, new GcActivity(1, 3))),
                List.of(row("shm", "channel", 300, 3000, new GcActivity(2, 4)))), List.of());
        assertEquals(3, report.rows().getFirst().gcCount());
        assertTrue(report.table().contains("gc"), report.table());
        final Map<String, Object> row = ((List<Map<String, Object>>)((Map<String, Object>)MiniJson.parse(
            report.json())).get("rows")).getFirst();
        assertEquals(3.0, row.get("gc_collections"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonHasOneObjectPerRowAndOnePerRatio()
    {
        final Map<String, Object> root = (Map<String, Object>)MiniJson.parse(report().json());
        assertEquals("compare", root.get("benchmark"));
        assertEquals(3.0, root.get("rounds"));
        final List<Map<String, Object>> rows = (List<Map<String, Object>>)root.get("rows");
        assertEquals(3, rows.size());
        assertEquals("aeron-ipc", rows.get(2).get("provider"));
        assertEquals("raw", rows.get(2).get("api"));
        assertEquals(100.0, rows.get(2).get("p50"));
        assertEquals(200.0, rows.get(2).get("p99"));
        final List<Map<String, Object>> ratios = (List<Map<String, Object>>)root.get("ratios");
        assertEquals(2, ratios.size());
        assertEquals("shm messaging / aeron-ipc", ratios.get(1).get("label"));
        assertEquals(3.0, ratios.get(1).get("median"));
        assertEquals(List.of(4.0, 3.0, 2.5), ratios.get(1).get("values"));
        assertEquals(List.of("a note"), root.get("notes"));
    }

    @Test
    void aSizeTooLargeForOneDatagramIsRefusedOnlyWhenNioUdpIsCompared()
    {
        assertTrue(assertThrows(UsageException.class, () -> CompareOptions.parse("--size", "70000")).getMessage()
            .contains("nio-udp"));
        assertEquals(70_000, CompareOptions.parse("--size", "70000", "--pairs", "shm").size());
    }

    @Test
    void pairsSelectByProviderOrProviderSlashBaselineInTheirFixedOrder()
    {
        assertEquals(4, CompareOptions.parsePairs("shm").size());
        final List<Comparison> roce = CompareOptions.parsePairs("roce/aeron-udp,socket");
        assertEquals(List.of("socket / nio-tcp", "roce / aeron-udp", "socket messaging / socket channel"),
            roce.stream().map(Comparison::label).toList());
        assertEquals(List.of("ibverbs / ib_write_lat", "ibverbs messaging / ibverbs channel"),
            CompareOptions.parsePairs("ibverbs").stream().map(Comparison::label).toList());
        assertEquals(List.of("ibverbs messaging / ibverbs channel"),
            CompareOptions.parsePairs("ibverbs/channel").stream().map(Comparison::label).toList());
        assertTrue(assertThrows(UsageException.class, () -> CompareOptions.parsePairs("shm/nio-tcp")).getMessage()
            .contains("shm/nio-tcp"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void roceAgainstAeronUdpWhoseDriverHadNoCpusIsMarkedNotComparableInTableAndJsonAndTheOthersAreComparable()
    {
        final String reason = "aeron-udp's media driver needs 5 CPUs to run dedicated (pinger, ponger, conductor, " +
            "sender, receiver), this host has 2";
        final List<RttResult> round = List.of(row("roce", "channel", 12_000, 20_000),
            row("nio-udp", "raw", 10_000, 20_000),
            row("aeron-udp", "raw", 300_000, 900_000).notComparableBecause(reason));
        final CompareReport report = new CompareReport(32, 100, 10, 1, CompareOptions.parsePairs("roce"),
            List.of(round, round), List.of());

        final List<CompareReport.Ratio> ratios = report.ratios();
        assertEquals(List.of("roce / nio-udp", "roce / aeron-udp"), ratios.stream().map(CompareReport.Ratio::label)
            .toList().subList(0, 2));
        assertEquals(true, ratios.get(0).comparable());
        assertEquals(reason, ratios.get(1).notComparableReason());
        final String line = report.table().lines().filter(l -> l.startsWith("roce / aeron-udp")).findFirst()
            .orElseThrow();
        assertTrue(line.endsWith("0.0400x  0.0400 0.0400 (not comparable here: " + reason + ")"), line);
        final List<Map<String, Object>> json = (List<Map<String, Object>>)((Map<String, Object>)MiniJson.parse(
            report.json())).get("ratios");
        assertEquals(true, json.get(0).get("comparable"));
        assertEquals(false, json.get(1).get("comparable"));
        assertEquals(reason, json.get(1).get("reason"));
        assertEquals(List.of(true, false), json.stream().limit(2).map(ratio -> ratio.get("comparable")).toList());
    }

    @Test
    void theRatiosPlotLabelsAndHatchesAPairThatIsNotComparableAndGivesTheReasonUnderItsTitle()
    {
        final String reason = "aeron-udp's media driver needs 5 CPUs to run dedicated (pinger, ponger, conductor, " +
            "sender, receiver), this host has 2";
        final List<RttResult> round = List.of(row("roce", "channel", 12_000, 20_000),
            row("nio-udp", "raw", 10_000, 20_000),
            row("aeron-udp", "raw", 300_000, 900_000).notComparableBecause(reason));
        final CompareReport report = new CompareReport(32, 100, 10, 1, CompareOptions.parsePairs("roce/nio-udp," +
            "roce/aeron-udp"), List.of(round), List.of());

        final JFreeChart chart = ComparePlot.chart(report);

        final CategoryPlot plot = chart.getCategoryPlot();
        assertEquals(List.of("roce / nio-udp", "roce / aeron-udp (not comparable here)"),
            plot.getDataset().getColumnKeys());
        final CategoryItemRenderer bars = plot.getRenderer();
        assertInstanceOf(TexturePaint.class, bars.getItemPaint(0, 1), "the pair that is not comparable is hatched");
        assertFalse(bars.getItemPaint(0, 0) instanceof TexturePaint, "a comparable pair is not");
        assertEquals("hatched: not comparable here, " + reason, ((TextTitle)chart.getSubtitle(1)).getText());
    }
}
