package io.ringwire.rdma.shm;

import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.SendFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * shm between two JVMs: a WRITE WITH IMMEDIATE ping-pong with {@link ShmPeerProcess}, then what
 * happens when that process is killed.
 */
@Tag("system")
final class ShmCrossProcessTest
{
    private static final long PEER_TIMEOUT_MS = 300;
    private static final Duration DETECTION_MARGIN = Duration.ofSeconds(2);
    private static final Duration CHILD_START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration ROUND_TRIP_TIMEOUT = Duration.ofSeconds(10);
    private static final int ROUND_TRIPS = 200;
    private static final int STAGING_OFFSET = 32 * 1024;
    private static final int RECEIVES = 8;

    @TempDir
    Path directory;

    @TempDir
    Path logDirectory;

    private Process child;
    private final BlockingQueue<String> childLines = new LinkedBlockingQueue<>();

    @AfterEach
    void killChild() throws InterruptedException
    {
        if (null != child)
        {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void writeWithImmediatePingPongsWithAnotherProcessAndItsDeathYieldsAnErrorCompletionWithinThePeerTimeout()
        throws Exception
    {
        startChild();
        final String[] childEndpoint = expectLine("ENDPOINT", CHILD_START_TIMEOUT);
        final long childRegionAddress = Long.parseLong(childEndpoint[3]);
        final int childRkey = Integer.parseInt(childEndpoint[4]);

        try (ShmSide side = new ShmSide(ShmSide.config(directory, PEER_TIMEOUT_MS), 64 * 1024))
        {
            side.queuePair.modifyToInit();
            for (int i = 0; i < RECEIVES; i++)
            {
                assertEquals(PostResult.OK, side.queuePair.postReceive(i, side.region, 0, 0));
            }
            side.queuePair.modifyToReadyToReceive(new QueuePairEndpoint(Integer.parseInt(childEndpoint[1]), 0,
                childEndpoint[2], side.device.mtu(), QueuePairEndpoint.DEFAULT_PARTITION_KEY));
            side.queuePair.modifyToReadyToSend();
            sendToChild(ShmPeerProcess.endpointLine(side.queuePair.queuePairNumber(), side.device.address(),
                side.region.address(), side.region.rkey()));
            expectLine("CONNECTED", CHILD_START_TIMEOUT);

            pingPong(side, childRegionAddress, childRkey);

            side.completions.clear();
            final long killedNs = System.nanoTime();
            child.destroyForcibly();
            ShmSide.pollUntil(() -> !side.completions.isEmpty(), Duration.ofMillis(PEER_TIMEOUT_MS).plus(DETECTION_MARGIN),
                "an error completion after the kill", side);
            final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedNs);

            assertEquals(RECEIVES, side.completions.size(), "every posted receive completes: " + side.completions);
            for (final PolledCompletion completion : side.completions)
            {
                assertEquals(CompletionOpcode.RECV, completion.opcode(), completion.toString());
                assertEquals(CompletionStatus.WR_FLUSH_ERROR, completion.status(), completion.toString());
            }
            assertEquals(QueuePairState.ERROR, side.queuePair.state());
            assertEquals(1, side.device.counters().get(DeviceCounters.PEERS_LOST));
            assertTrue(detectedMs <= PEER_TIMEOUT_MS + DETECTION_MARGIN.toMillis(), "detected after " + detectedMs + " ms");
        }
    }

    @Test
    void filesOfAKilledPeerProcessAreRemovedWhenTheNextDeviceOpens() throws Exception
    {
        startChild();
        expectLine("ENDPOINT", CHILD_START_TIMEOUT);
        final String childPrefix = child.pid() + "-";
        assertEquals(3, filesStartingWith(childPrefix).size(), "control file, region and ring of the child");

        child.destroyForcibly();
        assertTrue(child.waitFor(10, TimeUnit.SECONDS), "the killed child did not exit within 10 s");
        assertEquals(3, filesStartingWith(childPrefix).size(), "a killed process cannot clean up");

        try (ShmDevice device = ShmDevice.open(ShmSide.config(directory, PEER_TIMEOUT_MS), 64 * 1024))
        {
            assertEquals(List.of(), filesStartingWith(childPrefix), "stale files removed on open");
            assertTrue(Files.exists(device.shmAddress().controlFile()));
        }
    }

    private void pingPong(final ShmSide side, final long childRegionAddress, final int childRkey)
    {
        final Random random = new Random(42);
        for (int round = 1; round <= ROUND_TRIPS; round++)
        {
            final byte[] payload = new byte[1 + random.nextInt(ShmPeerProcess.REGION_LENGTH)];
            random.nextBytes(payload);
            side.region.buffer().putBytes(STAGING_OFFSET, payload);
            side.completions.clear();

            assertEquals(PostResult.OK, side.queuePair.postWriteWithImmediate(round, side.region, STAGING_OFFSET,
                payload.length, childRegionAddress, childRkey, round, SendFlags.NONE));

            final int expectedImmediate = round;
            ShmSide.pollUntil(() -> !side.completions.isEmpty(), ROUND_TRIP_TIMEOUT,
                "the echo of round " + round + (child.isAlive() ? "" : " (child exited: " + childLog() + ")"), side);
            final PolledCompletion echo = side.completions.get(0);
            assertEquals(CompletionOpcode.RECV_RDMA_WITH_IMM, echo.opcode(), echo.toString());
            assertEquals(CompletionStatus.SUCCESS, echo.status(), echo.toString());
            assertEquals(expectedImmediate, echo.immediate());
            assertEquals(payload.length, echo.byteLength());
            final byte[] echoed = new byte[payload.length];
            side.region.buffer().getBytes(0, echoed);
            assertArrayEquals(payload, echoed, "round " + round);
            assertEquals(PostResult.OK, side.queuePair.postReceive(echo.workRequestId(), side.region, 0, 0));
        }
    }

    private void startChild() throws IOException
    {
        final String java = ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final List<String> command = new ArrayList<>(List.of(java,
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--enable-native-access=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            ShmPeerProcess.class.getName(),
            directory.toString(), Long.toString(PEER_TIMEOUT_MS)));
        child = new ProcessBuilder(command)
            .redirectError(logDirectory.resolve("peer-stderr.txt").toFile())
            .start();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while (null != (line = lines.readLine()))
                {
                    childLines.add(line);
                }
            }
            catch (final IOException ignore)
            {
                // the child died; expectLine reports it
            }
        }, "shm-peer-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    private String[] expectLine(final String kind, final Duration timeout) throws InterruptedException
    {
        final String line = childLines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (null == line)
        {
            fail("no " + kind + " line from the peer process within " + timeout.toMillis() + " ms; alive=" +
                child.isAlive() + "; its stderr: " + childLog());
        }
        final String[] fields = line.split("\t");
        if (!kind.equals(fields[0]))
        {
            fail("expected " + kind + " from the peer process, got '" + line + "'; its stderr: " + childLog());
        }
        return fields;
    }

    private void sendToChild(final String line) throws IOException
    {
        final OutputStream stdin = child.getOutputStream();
        stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    private String childLog()
    {
        try
        {
            return Files.readString(logDirectory.resolve("peer-stderr.txt"));
        }
        catch (final IOException ex)
        {
            return "(unreadable: " + ex + ")";
        }
    }

    private List<String> filesStartingWith(final String prefix) throws IOException
    {
        try (Stream<Path> entries = Files.list(directory))
        {
            return entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix)).sorted().toList();
        }
    }
}
