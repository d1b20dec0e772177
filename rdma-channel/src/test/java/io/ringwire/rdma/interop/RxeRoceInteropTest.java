package io.ringwire.rdma.interop;

import io.ringwire.rdma.Endpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.cm.Connection;
import io.ringwire.rdma.cm.ConnectionManager;
import io.ringwire.rdma.cm.ConnectionManagerConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Interop between the kernel's RoCEv2 (rxe, through the {@code ibverbs} provider) and RingWire's
 * pure-Java {@code roce} provider, in the Soft-RoCE lab (jobs/interop.sh sets it up): the ibverbs
 * endpoint opens rxe0 on va in the root namespace; {@link RoceInteropPeer} runs the roce endpoint
 * bound to {@code <peer ip>:4791} inside another network namespace holding vb, the veth's far end
 * (rxe owns UDP 4791 in the root namespace). They connect through the connection manager (the
 * roce side listens) and each sends the other {@code ringwire.vm.interop.writes} WRITE_WITH_IMM
 * (default 10000) then {@code ringwire.vm.interop.sends} SENDs (default 1000), checked byte for
 * byte and in order on arrival ({@link InteropTraffic}). rxe's hw counters and the job's
 * rxe_icrc_check kretprobe are read before and after: rxe must have dropped none of our packets
 * (no ICRC failure) and its duplicate / out-of-sequence counters may grow only by what the roce
 * side's retransmissions explain. Tagged {@code vm}; skipped unless {@code ringwire.vm.interop.netns}
 * names the namespace.
 */
@Tag("vm")
class RxeRoceInteropTest
{
    private static final Path TRACE = Path.of("/sys/kernel/tracing/trace");

    @Test
    void ibverbsOnRxeAndPureJavaRoceExchangeWritesWithImmediateAndSendsByteExact() throws Exception
    {
        final String netns = System.getProperty("ringwire.vm.interop.netns", "");
        org.junit.jupiter.api.Assumptions.assumeFalse(netns.isEmpty(),
            "ringwire.vm.interop.netns not set: run through jobs/interop.sh in the Soft-RoCE lab");
        final String device = System.getProperty("ringwire.rdma.ibverbs.device", "rxe0");
        final String peerIp = System.getProperty("ringwire.vm.interop.peerIp", "10.201.0.2");
        final int writes = Integer.getInteger("ringwire.vm.interop.writes", 10_000);
        final int sends = Integer.getInteger("ringwire.vm.interop.sends", 1_000);
        final int timeoutS = Integer.getInteger("ringwire.vm.interop.timeoutSeconds", 300);
        final int cmPort = Integer.getInteger("ringwire.vm.interop.cmPort", 47911);
        final String report = System.getProperty("ringwire.vm.interop.report", "");
        final String secret = "interop-" + ProcessHandle.current().pid();

        final Map<String, Long> before = rxeCounters(device);
        final long icrcBefore = icrcFailures();

        final List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", netns,
            ProcessHandle.current().info().command().orElse("java")));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), RoceInteropPeer.class.getName(),
            peerIp, Integer.toString(cmPort), Integer.toString(writes), Integer.toString(sends),
            Integer.toString(timeoutS), secret));
        final Process peer = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final BufferedReader fromPeer = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        final List<String> peerLines = new ArrayList<>();
        final StringBuilder out = new StringBuilder();
        try (Endpoint endpoint = new Endpoint(new RdmaConfig().provider("ibverbs").mtu(1024).conclude(), 16, 64))
        {
            final String listening = readLine(fromPeer, peerLines, "LISTENING", Duration.ofSeconds(180));
            assertNotNull(listening, "the roce peer never listened: " + peerLines);
            final String[] parts = listening.split(" ");
            final InteropTraffic traffic = new InteropTraffic(endpoint, 0, writes, sends);
            endpoint.queuePair.modifyToInit();
            traffic.postInitialReceives();
            final ConnectionManagerConfig cm = new ConnectionManagerConfig()
                .secret(secret.getBytes(StandardCharsets.UTF_8)).timeoutMs(60_000).conclude();
            final long started = System.nanoTime();
            final Connection connection = ConnectionManager.connect(new InetSocketAddress(parts[1], Integer.parseInt(parts[2])),
                endpoint.queuePair, List.of(traffic.advertisement()), "ibverbs".getBytes(StandardCharsets.US_ASCII), cm);
            out.append("connected: ").append(connection).append('\n');
            traffic.remote(connection.remoteRegions().get(0));
            final String failure = traffic.run(System.nanoTime() + Duration.ofSeconds(timeoutS).toNanos());
            final long elapsedMs = (System.nanoTime() - started) / 1_000_000;
            out.append("ibverbs side: ").append(traffic.progress()).append(" in ").append(elapsedMs).append(" ms, ")
                .append(null == failure ? "OK" : failure).append('\n');
            final String done = readLine(fromPeer, peerLines, "DONE", Duration.ofSeconds(timeoutS));
            try (OutputStream toPeer = peer.getOutputStream())
            {
                toPeer.write("BYE\n".getBytes(StandardCharsets.US_ASCII));
            }
            catch (final IOException ignored)
            {
                // the peer is gone already; its exit code tells
            }
            assertTrue(peer.waitFor(60, TimeUnit.SECONDS), "the roce peer did not exit");

            final Map<String, Long> after = rxeCounters(device);
            final long icrc = icrcFailures() - icrcBefore;
            final Map<String, Long> roce = peerCounters(peerLines);
            final Map<String, Long> delta = new TreeMap<>();
            after.forEach((k, v) -> delta.put(k, v - before.getOrDefault(k, 0L)));
            out.append("peer: ").append(String.join(" | ", peerLines)).append('\n');
            out.append("rxe ").append(device).append(" before: ").append(before).append('\n');
            out.append("rxe ").append(device).append(" after:  ").append(after).append('\n');
            out.append("rxe ").append(device).append(" delta:  ").append(delta).append('\n');
            out.append("rxe_icrc_check failures during the run: ").append(icrc).append('\n');
            out.append("roce counters: ").append(roce).append('\n');
            System.out.print(out);
            if (!report.isEmpty())
            {
                Files.writeString(Path.of(report), out.toString());
            }

            assertNull(failure, "ibverbs side");
            assertEquals("DONE OK", done, "roce side: " + peerLines);
            assertEquals(0, peer.exitValue(), "roce peer exit code");
            if (icrcBefore >= 0)
            {
                assertEquals(0, icrc, "rxe dropped packets with a bad ICRC (rxe_icrc_check kretprobe)");
            }
            assertEquals(0L, roce.getOrDefault("icrc_errors", 0L),
                "roce dropped rxe packets for a bad ICRC: " + roce);
            final long roceRetransmits = roce.getOrDefault("retransmits", 0L);
            final long rxeRepeats = delta.getOrDefault("duplicate_request", 0L) + delta.getOrDefault("out_of_seq_request", 0L);
            assertTrue(rxeRepeats <= roceRetransmits, "rxe saw " + rxeRepeats + " duplicate/out-of-sequence requests, " +
                "more than the " + roceRetransmits + " roce retransmissions explain: " + delta);
            assertEquals(0L, delta.getOrDefault("rcvd_seq_err", 0L), "rxe received sequence-error NAKs: " + delta);
            assertEquals(0L, delta.getOrDefault("retry_exceeded_err", 0L), "rxe exceeded its retries: " + delta);
            // Each message is at least one packet each way plus an acknowledgement: rxe must have
            // seen at least the roce side's requests.
            assertTrue(delta.getOrDefault("rcvd_pkts", 0L) >= writes + sends,
                "rxe received fewer packets than the roce side sent messages: " + delta);
        }
        finally
        {
            if (peer.isAlive())
            {
                peer.destroyForcibly();
            }
        }
    }

    private static String readLine(final BufferedReader reader, final List<String> lines, final String prefix,
        final Duration timeout) throws Exception
    {
        final CompletableFuture<String> line = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                String l;
                while (null != (l = reader.readLine()))
                {
                    synchronized (lines)
                    {
                        lines.add(l);
                    }
                    System.out.println("[roce peer] " + l);
                    if (l.startsWith(prefix))
                    {
                        return l;
                    }
                }
                return null;
            }
            catch (final IOException ex)
            {
                return null;
            }
        });
        try
        {
            return line.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final java.util.concurrent.TimeoutException ex)
        {
            return null;
        }
    }

    private static Map<String, Long> peerCounters(final List<String> lines)
    {
        final Map<String, Long> counters = new TreeMap<>();
        synchronized (lines)
        {
            for (final String line : lines)
            {
                if (line.startsWith("COUNTERS "))
                {
                    for (final String kv : line.substring(9).split(" "))
                    {
                        final int eq = kv.indexOf('=');
                        if (eq > 0)
                        {
                            counters.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
                        }
                    }
                }
            }
        }
        return counters;
    }

    /** rxe device's hw counters (empty when sysfs does not have them). */
    static Map<String, Long> rxeCounters(final String device) throws IOException
    {
        final Map<String, Long> counters = new TreeMap<>();
        final Path dir = Path.of("/sys/class/infiniband", device, "ports/1/hw_counters");
        if (!Files.isDirectory(dir))
        {
            return counters;
        }
        try (Stream<Path> files = Files.list(dir))
        {
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                try
                {
                    counters.put(f.getFileName().toString(), Long.parseLong(Files.readString(f).trim()));
                }
                catch (final IOException | NumberFormatException ignored)
                {
                    // not a plain counter
                }
            }
        }
        return counters;
    }

    /** Lines the job's rxe_icrc_fail kretprobe (filter ret != 0) left in the trace buffer; -1 when unreadable. */
    static long icrcFailures()
    {
        try (Stream<String> lines = Files.lines(TRACE))
        {
            return lines.filter(l -> l.contains("rxe_icrc_fail:")).count();
        }
        catch (final IOException | java.io.UncheckedIOException ex)
        {
            return -1;
        }
    }
}
