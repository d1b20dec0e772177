package io.ringwire.perf.perftest;

import io.ringwire.perf.cli.UsageException;
import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.SendFlags;
import org.agrona.concurrent.AtomicBuffer;

import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.Arrays;
import java.util.Locale;

/**
 * The server side of perftest's {@code ib_write_lat} or {@code ib_write_bw} on the {@code roce}
 * provider, found through {@link RdmaProviders}: listens on TCP, runs perftest's exchange
 * ({@link PerftestHandshake}) and then the test.
 *
 * <p>Its buffer is laid out as perftest lays its own: two halves of {@code max(size, cycle buffer)}
 * bytes, the first the source of its WRITEs, the second the one it advertises (perftest's client
 * writes there, and ib_write_bw steps through one cycle buffer of it).
 *
 * <ul>
 *   <li>lat: perftest's server moves first. For each of {@code iters} rounds it sets the last byte of
 *       its message to the round's number (mod 256), WRITEs the message into the peer's buffer, and
 *       for the next round waits until the last byte of its own buffer holds the peer's answer to
 *       it. The roce provider places incoming WRITEs only while its completion queue is polled, so
 *       the wait polls it while it watches the byte. The end has no sync: it keeps polling (its ACK of
 *       the peer's last WRITE lets the peer finish) until the peer closes the connection.</li>
 *   <li>bw: passive. It polls the completion queue (executing and acknowledging the stream of
 *       WRITEs) until the client's end-of-test key exchange, swaps reports and closes.</li>
 * </ul>
 * The lat loop allocates nothing: the stamps of each round's WRITE go into an array sized before.
 *
 * <p>Threading: one thread does everything (control, posts, polls).
 */
public final class PerftestPeer implements AutoCloseable
{
    private static final int SEND_DEPTH = 64;
    private static final int POLL_BATCH = 16;
    private static final int OUT_READS = 1;
    private static final int SPINS_PER_CLOCK_CHECK = 1024;

    private final PerftestPeerOptions options;
    private final PrintStream err;
    private final Device device;
    private final ProtectionDomain domain;
    private final CompletionQueue completionQueue;
    private final QueuePair queuePair;
    private final ServerSocketChannel listener;
    private final Inet4Address bindAddress;
    private final CompletionHandler onCompletion = this::completed;
    private final Runnable progress = this::poll;
    private long sendsCompleted;
    private int failedStatus = CompletionStatus.SUCCESS;
    private long failedWorkRequestId;

    /**
     * What a run measured and agreed.
     *
     * @param test         the perftest program.
     * @param size         message size, bytes.
     * @param iterations   iterations.
     * @param peerVersion  the peer's perftest version.
     * @param mtu          the path MTU both used, bytes.
     * @param latency      this side's view of lat's half round trips (typical, average, p99, usec);
     *                     null for bw.
     * @param peerReport   the peer's bw report; null for lat.
     */
    public record Result(PerftestTest test, int size, int iterations, String peerVersion, int mtu,
        double[] latency, PerftestHandshake.BandwidthReport peerReport)
    {
        /**
         * @return one line of {@code name=value} pairs.
         */
        public String line()
        {
            final StringBuilder sb = new StringBuilder("perftest-peer ").append(test.optionName())
                .append(" size=").append(size).append(" iters=").append(iterations)
                .append(" peer_version=").append(peerVersion).append(" mtu=").append(mtu);
            if (null != latency)
            {
                sb.append(String.format(Locale.ROOT, " half_rtt_typical_usec=%.2f half_rtt_avg_usec=%.2f" +
                    " half_rtt_p99_usec=%.2f", latency[0], latency[1], latency[2]));
            }
            if (null != peerReport)
            {
                sb.append(String.format(Locale.ROOT, " peer_iters=%d peer_bw_peak_MBps=%.2f peer_bw_avg_MBps=%.2f" +
                    " peer_msg_rate_Mpps=%.6f", peerReport.iterations(), peerReport.peakMBps(),
                    peerReport.averageMBps(), peerReport.messageRateMpps()));
            }
            return sb.toString();
        }
    }

    /**
     * {@code ringwire perf perftest-peer}: serves one perftest client and prints {@link Result#line()}.
     *
     * @param args the arguments after {@code perftest-peer}.
     * @param out  where the result line (or the usage) goes.
     * @param err  where progress goes.
     * @throws IOException when the socket fails.
     * @throws io.ringwire.perf.cli.UsageException when the command line is refused.
     */
    public static void command(final String[] args, final PrintStream out, final PrintStream err) throws IOException
    {
        final PerftestPeerOptions options = PerftestPeerOptions.parse(args);
        if (options.help())
        {
            out.print(PerftestPeerOptions.usage());
            return;
        }
        try (PerftestPeer peer = new PerftestPeer(options, err))
        {
            out.println(peer.run().line());
            out.flush();
        }
    }

    /**
     * Opens the roce device, creates the queue pair and listens.
     *
     * @param options the options.
     * @param err     where progress goes.
     * @throws IOException when the TCP port cannot be bound.
     */
    public PerftestPeer(final PerftestPeerOptions options, final PrintStream err) throws IOException
    {
        this.options = options;
        this.err = err;
        bindAddress = (Inet4Address)InetAddress.getByName(options.bind());
        final long ackDelayUs = options.ackDelayUs() >= 0 ? options.ackDelayUs() :
            PerftestTest.LAT == options.test() ? 0 : -1;
        final RdmaConfig config = new RdmaConfig().provider("roce")
            .bindAddress(options.bind() + ":" + options.rocePort()).mtu(options.mtu());
        if (ackDelayUs >= 0)
        {
            config.ackDelayUs(ackDelayUs);
        }
        try
        {
            config.conclude();
        }
        catch (final IllegalArgumentException ex)
        {
            if (options.ackDelayUs() >= 0 && ex.getMessage().contains(RdmaConfig.ACK_DELAY_PROP))
            {
                // The flag's bound depends on the ack timeout in force: refused as the flag, not as a failure.
                throw new UsageException("--ack-delay-us " + options.ackDelayUs() + " is refused: " + ex.getMessage());
            }
            throw ex;
        }
        device = RdmaProviders.open(config);
        try
        {
            domain = device.allocateProtectionDomain();
            completionQueue = device.createCompletionQueue(4 * SEND_DEPTH);
            queuePair = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, SEND_DEPTH, 1,
                device.maxInlineData()));
            queuePair.modifyToInit();
            listener = ServerSocketChannel.open();
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            listener.bind(new InetSocketAddress(bindAddress, options.port()), 1);
        }
        catch (final IOException | RuntimeException ex)
        {
            device.close();
            throw ex;
        }
    }

    /**
     * @return the TCP port perftest's client connects to.
     * @throws IOException when the listener is closed.
     */
    public int tcpPort() throws IOException
    {
        return ((InetSocketAddress)listener.getLocalAddress()).getPort();
    }

    /**
     * @return the roce device's "ip:port".
     */
    public String rdmaAddress()
    {
        return device.address();
    }

    /**
     * Serves one perftest client.
     *
     * @return what it measured.
     * @throws IOException               when the socket fails.
     * @throws PerftestProtocolException when the peer breaks the exchange or stays silent too long.
     * @throws IllegalStateException     when a WRITE fails.
     */
    public Result run() throws IOException
    {
        err.println("perftest-peer: " + options.test().optionName() + " on " + device.providerName() + " " +
            device.address() + ", qpn 0x" + Integer.toHexString(queuePair.queuePairNumber()) +
            "; waiting for perftest's client on tcp " + listener.getLocalAddress());
        try (PerftestLink link = PerftestLink.accept(listener, progress, options.timeoutNs()))
        {
            final PerftestHandshake.Agreement agreed = PerftestHandshake.negotiate(link,
                PerftestMessages.DEFAULT_CYCLE_BUFFER, PerftestMessages.DEFAULT_CACHE_LINE_SIZE, device.mtu());
            if (agreed.cycleBuffer() > PerftestPeerOptions.MAX_SIZE)
            {
                throw new PerftestProtocolException("perftest's cycle buffer of " + agreed.cycleBuffer() +
                    " bytes is more than this peer registers (" + PerftestPeerOptions.MAX_SIZE + ")");
            }
            final int half = Math.max(options.size(), agreed.cycleBuffer());
            try (MemoryRegion region = domain.allocateRegion(2 * half, Access.LOCAL_WRITE | Access.REMOTE_WRITE))
            {
                final QueuePairEndpoint local = queuePair.localEndpoint();
                final PerftestKeys mine = new PerftestKeys(0, OUT_READS, local.queuePairNumber(), local.startPsn(),
                    region.rkey(), region.address() + half, PerftestKeys.MAPPED_GID_HIGH,
                    PerftestKeys.mappedGidLow(bindAddress), 0);
                PerftestKeys theirs = null;
                for (int i = 0; i < options.test().keysBeforeConnect(); i++)
                {
                    theirs = PerftestHandshake.exchangeKeys(link, mine);
                }
                final Inet4Address peerAddress = theirs.ipv4Address();
                queuePair.modifyToReadyToReceive(new QueuePairEndpoint(theirs.queuePairNumber(), theirs.psn(),
                    peerAddress.getHostAddress() + ":" + options.peerRocePort(), agreed.mtu(),
                    QueuePairEndpoint.DEFAULT_PARTITION_KEY));
                queuePair.modifyToReadyToSend();
                for (int i = 0; i < PerftestHandshake.KEYS_AFTER_CONNECT; i++)
                {
                    theirs = PerftestHandshake.exchangeKeys(link, mine);
                }
                err.println("perftest-peer: perftest " + agreed.peerVersion() + " at " + peerAddress.getHostAddress() +
                    " qpn 0x" + Integer.toHexString(theirs.queuePairNumber()) + ", mtu " + agreed.mtu() +
                    ", cycle buffer " + agreed.cycleBuffer() + "; " + options.iterations() + " x " +
                    options.size() + " bytes");
                if (PerftestTest.LAT == options.test())
                {
                    final double[] latency = latency(region, half, theirs);
                    if (!link.drainUntilClosed())
                    {
                        err.println("perftest-peer: the peer kept the connection open after the last round");
                    }
                    return new Result(options.test(), options.size(), options.iterations(), agreed.peerVersion(),
                        agreed.mtu(), latency, null);
                }
                PerftestHandshake.exchangeKeys(link, mine);
                final PerftestHandshake.BandwidthReport report = PerftestHandshake.exchangeReport(link,
                    new PerftestHandshake.BandwidthReport(options.size(), options.iterations(), 0, 0, 0));
                PerftestHandshake.close(link, mine);
                requireNoFailure();
                link.drainUntilClosed();
                return new Result(options.test(), options.size(), options.iterations(), agreed.peerVersion(),
                    agreed.mtu(), null, report);
            }
        }
    }

    @Override
    public void close()
    {
        try
        {
            listener.close();
        }
        catch (final IOException ignored)
        {
            // The device's close below is what matters; a listener that fails to close holds only a port.
        }
        device.close();
    }

    private double[] latency(final MemoryRegion region, final int half, final PerftestKeys theirs)
    {
        final int size = options.size();
        final int iterations = options.iterations();
        final AtomicBuffer memory = region.buffer();
        final int postIndex = size - 1;
        final int pollIndex = half + size - 1;
        final int flags = SendFlags.SIGNALED | (size <= device.maxInlineData() ? SendFlags.INLINE : 0);
        final long[] posted = new long[iterations];
        for (int n = 1; n <= iterations; n++)
        {
            if (n > 1)
            {
                awaitByte(memory, pollIndex, (byte)(n - 1));
            }
            awaitSendsCompleted(n - SEND_DEPTH);
            posted[n - 1] = System.nanoTime();
            memory.putByte(postIndex, (byte)n);
            post(n, region, size, theirs, flags);
        }
        awaitByte(memory, pollIndex, (byte)iterations);
        awaitSendsCompleted(iterations);
        return halfRoundTrips(posted);
    }

    /**
     * Posts one WRITE of the first {@code size} bytes to the peer's buffer; a window full of
     * unacknowledged packets (a message of many MTUs) waits for ACKs, polling.
     */
    private void post(final long n, final MemoryRegion region, final int size, final PerftestKeys theirs,
        final int flags)
    {
        final long deadline = System.nanoTime() + options.timeoutNs();
        int result;
        while (PostResult.QUEUE_FULL == (result = queuePair.postWrite(n, region, 0, size, theirs.virtualAddress(),
            theirs.rkey(), flags)))
        {
            poll();
            if (System.nanoTime() - deadline > 0)
            {
                break;
            }
        }
        if (PostResult.OK != result)
        {
            throw new IllegalStateException("posting WRITE " + n + " failed: " + PostResult.name(result));
        }
    }

    /**
     * As perftest reports a latency test: half of each interval between successive WRITEs of one
     * side, in microseconds; typical is the median.
     */
    static double[] halfRoundTrips(final long[] posted)
    {
        final long[] halves = new long[posted.length - 1];
        long sum = 0;
        for (int i = 0; i < halves.length; i++)
        {
            halves[i] = posted[i + 1] - posted[i];
            sum += halves[i];
        }
        Arrays.sort(halves);
        final double typical = halves[halves.length / 2] / 2000.0;
        final double average = sum / (double)halves.length / 2000.0;
        final double p99 = halves[Math.min(halves.length - 1, (int)(halves.length * 0.99))] / 2000.0;
        return new double[] { typical, average, p99 };
    }

    private void awaitByte(final AtomicBuffer memory, final int index, final byte expected)
    {
        final long deadline = System.nanoTime() + options.timeoutNs();
        int spins = 0;
        while (memory.getByteVolatile(index) != expected)
        {
            poll();
            if (++spins == SPINS_PER_CLOCK_CHECK)
            {
                spins = 0;
                if (System.nanoTime() - deadline > 0)
                {
                    throw new PerftestProtocolException("no WRITE from the perftest peer with last byte " +
                        (expected & 0xFF) + " within " + options.timeoutSeconds() + " s (the byte holds " +
                        (memory.getByteVolatile(index) & 0xFF) + ")");
                }
            }
        }
    }

    private void awaitSendsCompleted(final long count)
    {
        final long deadline = System.nanoTime() + options.timeoutNs();
        while (sendsCompleted < count)
        {
            poll();
            if (System.nanoTime() - deadline > 0)
            {
                throw new PerftestProtocolException("WRITE " + count + " did not complete within " +
                    options.timeoutSeconds() + " s (" + sendsCompleted + " did)");
            }
        }
    }

    private void poll()
    {
        completionQueue.poll(onCompletion, POLL_BATCH);
        if (CompletionStatus.SUCCESS != failedStatus)
        {
            requireNoFailure();
        }
    }

    private void requireNoFailure()
    {
        if (CompletionStatus.SUCCESS != failedStatus)
        {
            throw new IllegalStateException("WRITE " + failedWorkRequestId + " to the perftest peer failed: " +
                CompletionStatus.name(failedStatus));
        }
    }

    private void completed(final long workRequestId, final int opcode, final int status, final int byteLength,
        final int immediate, final int queuePairNumber)
    {
        if (CompletionStatus.SUCCESS == status)
        {
            sendsCompleted++;
        }
        else if (CompletionStatus.SUCCESS == failedStatus)
        {
            failedStatus = status;
            failedWorkRequestId = workRequestId;
        }
    }
}
