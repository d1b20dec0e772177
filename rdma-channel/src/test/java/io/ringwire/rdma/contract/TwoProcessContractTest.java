package io.ringwire.rdma.contract;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.Completion;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Endpoint;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.SendFlags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.ringwire.rdma.Endpoint.pollUntil;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The provider contract across two processes: the peer is a second JVM ({@link EchoPeer}) started
 * with ProcessBuilder. Proves data crosses process boundaries byte-exact, and that a peer killed
 * with SIGKILL turns into an error completion within the configured peer timeout, not a hang.
 */
@Tag("system")
public abstract class TwoProcessContractTest
{
    /**
     * The peer timeout both processes use: short, so the killed-peer half stays quick, but past the
     * pauses a loaded two-core host gives a JVM that is still compiling. The Soft-RoCE lab's guests
     * run under TCG emulation, where longer pauses are ordinary, and raise it with
     * {@code -Dringwire.test.peerTimeoutMs}.
     */
    private static final long PEER_TIMEOUT_MS = Long.getLong("ringwire.test.peerTimeoutMs", 3_000);
    private static final int MESSAGES = 2000;
    /**
     * How long the peer may take to print its endpoint: a JVM's start and the provider's open take
     * tens of seconds on the lab's emulated CPU when the host is busy.
     */
    private static final long PEER_START_SECONDS = 90;
    /** Local address both processes bind (an RDMA-reachable one when running under rsocket). */
    private static final String BIND = System.getProperty(RdmaConfig.BIND_ADDRESS_PROP, "127.0.0.1:0");

    @TempDir
    Path tempDir;

    /**
     * @return the provider's name.
     */
    protected abstract String provider();

    /**
     * @return extra {@code -Dname=value} options for the peer process only.
     */
    protected List<String> peerOptions()
    {
        return List.of();
    }

    private Process startPeer() throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("--add-exports");
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-D" + RdmaConfig.BIND_ADDRESS_PROP + "=" + BIND);
        command.addAll(peerOptions());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(EchoPeer.class.getName());
        command.add(provider());
        command.add(tempDir.toString());
        command.add(Long.toString(PEER_TIMEOUT_MS));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /**
     * Reads the peer's next line. A peer that sends nothing in time is asked for its threads'
     * stacks (SIGQUIT prints them to its standard output, which is read here), so a failure tells a
     * hung peer from a slow one.
     */
    private static String readLine(final Process peer, final BufferedReader reader, final String what,
        final long seconds) throws Exception
    {
        final CompletableFuture<String> next = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return reader.readLine();
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
        });
        final String line;
        try
        {
            line = next.get(seconds, TimeUnit.SECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new AssertionError("peer process " + peer.pid() + " did not send " + what + " within " + seconds +
                " s (alive: " + peer.isAlive() + "); what it printed when asked for its threads:\n" +
                threadDump(peer, reader, next), ex);
        }
        if (null == line)
        {
            throw new AssertionError("peer process ended before sending " + what);
        }
        return line;
    }

    private static String threadDump(final Process peer, final BufferedReader reader,
        final CompletableFuture<String> pendingLine) throws Exception
    {
        final StringBuffer dump = new StringBuffer();
        final Thread drain = Thread.ofPlatform().daemon().start(() ->
        {
            try
            {
                dump.append(pendingLine.get()).append('\n');
                for (String line = reader.readLine(); null != line; line = reader.readLine())
                {
                    dump.append(line).append('\n');
                }
            }
            catch (final Exception ignored)
            {
                // The peer is killed once the test fails: its stream ends or breaks.
            }
        });
        new ProcessBuilder("kill", "-QUIT", Long.toString(peer.pid())).start().waitFor(5, TimeUnit.SECONDS);
        drain.join(TimeUnit.SECONDS.toMillis(10));
        return dump.toString();
    }

    @Test
    void writesCrossProcessesByteExactAndAKilledPeerBecomesAnErrorCompletion() throws Exception
    {
        final Process peer = startPeer();
        try (Endpoint local = new Endpoint(new RdmaConfig().provider(provider()).shmDirectory(tempDir.toString())
            .bindAddress(BIND).peerTimeoutMs(PEER_TIMEOUT_MS).conclude(), 64, 64))
        {
            final BufferedReader fromPeer = new BufferedReader(
                new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII));
            final Writer toPeer = new OutputStreamWriter(peer.getOutputStream(), StandardCharsets.US_ASCII);
            final EchoPeer.Remote remote =
                EchoPeer.Remote.parse(readLine(peer, fromPeer, "its endpoint", PEER_START_SECONDS));

            final MemoryRegion region = local.domain.allocateRegion(
                EchoPeer.REGION_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            local.queuePair.modifyToInit();
            for (int i = 0; i < 32; i++)
            {
                local.queuePair.postReceive(i, region, 0, 0);
            }
            toPeer.write(EchoPeer.endpointLine(local.queuePair, region) + "\n");
            toPeer.flush();
            local.queuePair.modifyToReadyToReceive(remote.endpoint());
            local.queuePair.modifyToReadyToSend();
            assertEquals("READY", readLine(peer, fromPeer, "READY", 30));

            // Ping-pong: each message goes out from the top half of our region, comes back into
            // the same offset; we compare with what we sent.
            final Random random = new Random(2024);
            final int echoBase = EchoPeer.REGION_LENGTH / 2;
            for (int i = 0; i < MESSAGES; i++)
            {
                final int slot = i % 1000;
                final int length = 1 + random.nextInt(64);
                final byte[] payload = new byte[length];
                random.nextBytes(payload);
                region.buffer().putBytes(echoBase + slot * 64, payload);
                assertEquals(PostResult.OK, local.queuePair.postWriteWithImmediate(i, region, echoBase + slot * 64,
                    length, remote.regionAddress() + slot * 64L, remote.rkey(), slot, SendFlags.NONE));
                final int expected = i + 1;
                // At least, not exactly: an error flushes every posted receive at once.
                pollUntil(() -> local.completions.size() >= expected, Duration.ofSeconds(10), "echo " + i, local);
                final Completion echo = local.completions.get(i);
                if (echo.status() != CompletionStatus.SUCCESS)
                {
                    fail("echo " + i + " ended in an error (peer timeout " + PEER_TIMEOUT_MS + " ms): " + echo +
                        "; queue pair " + local.queuePair + ", counters " + local.device.counters() +
                        ", completions from there " +
                        local.completions.subList(i, Math.min(local.completions.size(), i + 3)));
                }
                assertEquals(CompletionOpcode.RECV_RDMA_WITH_IMM, echo.opcode());
                assertEquals(CompletionStatus.SUCCESS, echo.status(), echo.toString());
                assertEquals(slot, echo.immediate());
                assertEquals(length, echo.byteLength());
                final byte[] echoed = new byte[length];
                region.buffer().getBytes(slot * 64, echoed);
                assertArrayEquals(payload, echoed, "echo " + i + " byte-exact");
                local.queuePair.postReceive(i, region, 0, 0);
            }

            peer.destroyForcibly();
            assertTrue(peer.waitFor(10, TimeUnit.SECONDS), "peer process did not die");
            final long killedNs = System.nanoTime();
            final int before = local.completions.size();
            final long deadline = killedNs + TimeUnit.MILLISECONDS.toNanos(PEER_TIMEOUT_MS * 4 + 1000);
            while (local.completions.subList(before, local.completions.size()).stream()
                .allMatch(c -> c.status() == CompletionStatus.SUCCESS))
            {
                assertTrue(System.nanoTime() < deadline, "no error completion within " +
                    (PEER_TIMEOUT_MS * 4 + 1000) + " ms of the peer's death; state " + local.queuePair.state());
                local.queuePair.postWrite(-1, region, 0, 8, remote.regionAddress(), remote.rkey(), SendFlags.SIGNALED);
                final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
                while (System.nanoTime() < until)
                {
                    local.poll();
                }
            }
            final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);
            assertEquals(QueuePairState.ERROR, local.queuePair.state());
            System.out.println(provider() + ": peer death detected after " + detectedMs + " ms; completions after: " +
                local.completions.subList(before, Math.min(local.completions.size(), before + 3)));
        }
        finally
        {
            peer.destroyForcibly();
        }
    }
}
