package io.ringwire.perf.perftest;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The sequence of exchanges perftest's {@code ib_write_lat} and {@code ib_write_bw} run over their
 * TCP connection when rdma_cm is off, for either role (see {@link PerftestMessages} for each
 * message):
 * <ol>
 *   <li>{@link #negotiate}: version, system data, MTU;</li>
 *   <li>keys {@link PerftestTest#keysBeforeConnect()} times (twice in ib_write_lat, once in
 *       ib_write_bw), then each side connects its queue pair (RTR, RTS) to the peer's;</li>
 *   <li>keys twice more ({@link #KEYS_AFTER_CONNECT}): the second tells each side the other's queue
 *       pair is ready to receive;</li>
 *   <li>the test;</li>
 *   <li>ib_write_bw only: keys, {@link #exchangeReport the report}, and {@link #close keys and
 *       "done"}; ib_write_lat ends without a word.</li>
 * </ol>
 *
 * <p>Threading: the link's thread.
 */
public final class PerftestHandshake
{
    /** Key exchanges between connecting the queue pair and the test. */
    public static final int KEYS_AFTER_CONNECT = 2;

    private PerftestHandshake()
    {
    }

    /**
     * What both sides go on with after {@link #negotiate}.
     *
     * @param peerVersion   the peer's perftest version.
     * @param cycleBuffer   the larger cycle buffer: the span of the buffer ib_write_bw writes over.
     * @param cacheLineSize the larger cache line size: ib_write_bw's smallest step through it.
     * @param mtu           the smaller MTU, in bytes: the path MTU of both queue pairs.
     */
    public record Agreement(String peerVersion, int cycleBuffer, int cacheLineSize, int mtu)
    {
    }

    /**
     * ib_write_bw's end-of-test report.
     *
     * @param size            message size, bytes.
     * @param iterations      messages.
     * @param peakMBps        peak bandwidth, perftest's MB/s (2^20 bytes per second).
     * @param averageMBps     average bandwidth, perftest's MB/s.
     * @param messageRateMpps messages per second, millions.
     */
    public record BandwidthReport(long size, long iterations, double peakMBps, double averageMBps,
        double messageRateMpps)
    {
    }

    /**
     * Exchanges version, system data and MTU.
     *
     * @param link          the connection.
     * @param cycleBuffer   this side's cycle buffer (perftest sends the page size).
     * @param cacheLineSize this side's cache line size.
     * @param mtu           this side's path MTU, bytes.
     * @return what both go on with.
     * @throws IOException               when the socket fails.
     * @throws PerftestProtocolException when the peer's version exchanges differently or a message is malformed.
     */
    public static Agreement negotiate(final PerftestLink link, final int cycleBuffer, final int cacheLineSize,
        final int mtu) throws IOException
    {
        PerftestMessages.writeVersion(PerftestMessages.VERSION, link.mine());
        final String peerVersion = PerftestMessages.readVersion(link.exchange("version", PerftestMessages.VERSION_LENGTH));
        PerftestMessages.requireCompatible(peerVersion);
        PerftestMessages.writeSystemData(cycleBuffer, link.mine());
        final int peerCycleBuffer = PerftestMessages.readSystemData("cycle buffer",
            link.exchange("cycle buffer", PerftestMessages.SYSTEM_DATA_LENGTH));
        PerftestMessages.writeSystemData(cacheLineSize, link.mine());
        final int peerCacheLineSize = PerftestMessages.readSystemData("cache line size",
            link.exchange("cache line size", PerftestMessages.SYSTEM_DATA_LENGTH));
        PerftestMessages.writeMtu(mtu, link.mine());
        final int peerMtu = PerftestMessages.readMtu(link.exchange("mtu", PerftestMessages.MTU_LENGTH));
        return new Agreement(peerVersion, Math.max(cycleBuffer, peerCycleBuffer),
            Math.max(cacheLineSize, peerCacheLineSize), Math.min(mtu, peerMtu));
    }

    /**
     * One key exchange.
     *
     * @param link the connection.
     * @param mine this side's keys.
     * @return the peer's.
     * @throws IOException               when the socket fails.
     * @throws PerftestProtocolException when the peer's message is malformed.
     */
    public static PerftestKeys exchangeKeys(final PerftestLink link, final PerftestKeys mine) throws IOException
    {
        PerftestMessages.writeKeys(mine, link.mine());
        return PerftestMessages.readKeys(link.exchange("keys", PerftestMessages.KEY_LENGTH));
    }

    /**
     * Exchanges ib_write_bw's report, field by field (the per-port fields only go with
     * {@code --report-per-port}, which this peer does not take).
     *
     * @param link the connection.
     * @param mine this side's report.
     * @return the peer's.
     * @throws IOException when the socket fails.
     */
    public static BandwidthReport exchangeReport(final PerftestLink link, final BandwidthReport mine)
        throws IOException
    {
        PerftestMessages.writeReportLong(mine.size(), link.mine());
        final long size = PerftestMessages.readReportLong(link.exchange("report size", 8));
        PerftestMessages.writeReportLong(mine.iterations(), link.mine());
        final long iterations = PerftestMessages.readReportLong(link.exchange("report iterations", 8));
        PerftestMessages.writeReportDouble(mine.peakMBps(), link.mine());
        final double peak = PerftestMessages.readReportDouble(link.exchange("report peak", 8));
        PerftestMessages.writeReportDouble(mine.averageMBps(), link.mine());
        final double average = PerftestMessages.readReportDouble(link.exchange("report average", 8));
        PerftestMessages.writeReportDouble(mine.messageRateMpps(), link.mine());
        final double rate = PerftestMessages.readReportDouble(link.exchange("report message rate", 8));
        return new BandwidthReport(size, iterations, peak, average, rate);
    }

    /**
     * perftest's close: a last key exchange, then {@code "done"}.
     *
     * @param link the connection.
     * @param mine this side's keys.
     * @throws IOException when the socket fails.
     */
    public static void close(final PerftestLink link, final PerftestKeys mine) throws IOException
    {
        exchangeKeys(link, mine);
        final ByteBuffer done = link.mine();
        PerftestMessages.writeDone(done);
        link.send("done");
    }
}
