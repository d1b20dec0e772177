package io.ringwire.perf.perftest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PerftestPeer} against {@link PerftestClientStandIn}, perftest's client played in Java, both
 * on the roce provider over UDP on the loopback (127.0.0.1 and 127.0.0.2, so that each side's GID
 * names its own address), through perftest's TCP exchange.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PerftestPeerLoopbackTest
{
    @Test
    void latAnswersEveryRoundOfTheClientAndTimesItsOwnWrites() throws Exception
    {
        final int rounds = 300;
        final Run run = run(PerftestTest.LAT, 32, rounds);
        assertEquals(rounds, run.clientCount, "rounds the client saw answered");
        assertNull(run.result.peerReport());
        final double[] latency = run.result.latency();
        assertNotNull(latency);
        assertTrue(latency[0] > 0 && latency[1] > 0 && latency[2] >= latency[0], run.result.line());
        assertEquals(1024, run.result.mtu());
        assertEquals(PerftestMessages.VERSION, run.result.peerVersion());
        assertTrue(run.result.line().startsWith("perftest-peer lat size=32 iters=300 peer_version=6.06 mtu=1024 " +
            "half_rtt_typical_usec="), run.result.line());
    }

    @Test
    void bwTakesTheStreamOfWritesOverItsCycleBufferAndSwapsReports() throws Exception
    {
        final int writes = 200;
        final Run run = run(PerftestTest.BW, 512, writes);
        assertEquals(writes, run.clientCount, "WRITEs the peer's responder accepted and acknowledged");
        assertNull(run.result.latency());
        final PerftestHandshake.BandwidthReport report = run.result.peerReport();
        assertEquals(512, report.size());
        assertEquals(writes, report.iterations());
        assertEquals(12.5, report.averageMBps());
        assertEquals(0.25, report.messageRateMpps());
        assertTrue(run.result.line().contains(" peer_iters=200 peer_bw_peak_MBps=12.50 peer_bw_avg_MBps=12.50"),
            run.result.line());
    }

    @Test
    void bwWithMessagesLargerThanTheCycleBufferUsesABufferThatLarge() throws Exception
    {
        final Run run = run(PerftestTest.BW, 3 * 4096, 20);
        assertEquals(20, run.clientCount);
        assertEquals(20, run.result.peerReport().iterations());
    }

    private record Run(PerftestPeer.Result result, long clientCount, String err)
    {
    }

    private static Run run(final PerftestTest test, final int size, final int iterations) throws Exception
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final ExecutorService executor = Executors.newSingleThreadExecutor();
        try (PerftestClientStandIn client = new PerftestClientStandIn("127.0.0.2");
             PerftestPeer peer = new PerftestPeer(PerftestPeerOptions.parse("--mode", test.optionName(), "--bind",
                 "127.0.0.1", "--port", "0", "--roce-port", Integer.toString(freeUdpPort()), "--peer-roce-port",
                 Integer.toString(client.rocePort()), "--size", Integer.toString(size), "--iters",
                 Integer.toString(iterations), "--timeout", "30"), new PrintStream(err, true, StandardCharsets.UTF_8)))
        {
            final int peerRocePort = Integer.parseInt(peer.rdmaAddress().substring(peer.rdmaAddress().indexOf(':') + 1));
            final InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), peer.tcpPort());
            final Future<PerftestPeer.Result> result = executor.submit(peer::run);
            final long count = client.run(test, server, peerRocePort, size, iterations, 12.5);
            return new Run(result.get(60, TimeUnit.SECONDS), count, err.toString(StandardCharsets.UTF_8));
        }
        finally
        {
            executor.shutdownNow();
        }
    }

    private static int freeUdpPort() throws IOException
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
