package io.ringwire.rdma.shm;

import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.SendFlags;
import io.ringwire.rdma.host.ProcessIdentity;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Detection of a peer that closed or whose process is gone, within the peer timeout and without
 * mistaking an idle live peer for a dead one.
 */
final class ShmLivenessTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final int RING_BYTES = 64 * 1024;

    @TempDir
    Path directory;

    private ShmSide requester;
    private ShmSide responder;

    private void open(final long peerTimeoutMs)
    {
        requester = new ShmSide(ShmSide.config(directory, peerTimeoutMs), RING_BYTES);
        responder = new ShmSide(ShmSide.config(directory, peerTimeoutMs), RING_BYTES);
    }

    @AfterEach
    void close()
    {
        CloseHelper.closeAll(requester, responder);
    }

    @Test
    void postToPeerWhoseQueuePairClosedCompletesWithRetryExceeded()
    {
        open(2000);
        ShmSide.connect(requester, responder);
        responder.queuePair.close();

        assertEquals(PostResult.OK, requester.queuePair.postWrite(1, requester.region, 0, 8,
            responder.region.address(), responder.region.rkey(), SendFlags.NONE));
        assertEquals(PostResult.OK, requester.queuePair.postSend(2, requester.region, 0, 8, SendFlags.NONE));

        requester.poll();
        final int qpn = requester.queuePair.queuePairNumber();
        assertEquals(List.of(
            new PolledCompletion(1, CompletionOpcode.RDMA_WRITE, CompletionStatus.RETRY_EXCEEDED, 8, 0, qpn),
            new PolledCompletion(2, CompletionOpcode.SEND, CompletionStatus.WR_FLUSH_ERROR, 8, 0, qpn)),
            requester.completions);
        assertEquals(QueuePairState.ERROR, requester.queuePair.state());
        assertEquals(1, requester.device.counters().get(DeviceCounters.PEERS_LOST));
    }

    @Test
    void outstandingSendToAPeerThatClosedFailsWithRetryExceededAndLaterRequestsAreFlushed()
    {
        open(2000);
        ShmSide.connect(requester, responder);
        assertEquals(PostResult.OK, requester.queuePair.postSend(1, requester.region, 0, 8, SendFlags.NONE));
        assertEquals(PostResult.OK, requester.queuePair.postSend(2, requester.region, 0, 8, SendFlags.NONE));

        responder.queuePair.close(); // without ever posting a receive: both SENDs still wait

        ShmSide.pollUntil(() -> requester.completions.size() == 2, TIMEOUT, "both sends to complete", requester);
        final int qpn = requester.queuePair.queuePairNumber();
        assertEquals(List.of(
            new PolledCompletion(1, CompletionOpcode.SEND, CompletionStatus.RETRY_EXCEEDED, 8, 0, qpn),
            new PolledCompletion(2, CompletionOpcode.SEND, CompletionStatus.WR_FLUSH_ERROR, 8, 0, qpn)),
            requester.completions);
        assertEquals(1, requester.device.counters().get(DeviceCounters.PEERS_LOST));
    }

    @Test
    void peerDeviceClosingIsDetectedByPollingAndFlushesPostedReceives()
    {
        open(2000);
        ShmSide.connect(requester, responder);
        assertEquals(PostResult.OK, requester.queuePair.postReceive(7, requester.region, 0, 64));

        responder.device.close();

        ShmSide.pollUntil(() -> !requester.completions.isEmpty(), TIMEOUT, "the flushed receive", requester);
        assertEquals(List.of(new PolledCompletion(7, CompletionOpcode.RECV, CompletionStatus.WR_FLUSH_ERROR, 0, 0,
            requester.queuePair.queuePairNumber())), requester.completions);
        assertEquals(1, requester.device.counters().get(DeviceCounters.PEERS_LOST));
    }

    @Test
    void peerWhoseProcessIsGoneIsDetectedAfterThePeerTimeoutAndNotBefore() throws Exception
    {
        final long peerTimeoutMs = 200;
        open(peerTimeoutMs);
        final long startTime = ProcessIdentity.startTime(ProcessIdentity.currentPid());
        assumeTrue(startTime != ProcessIdentity.UNKNOWN_START_TIME, "needs /proc to tell process start times");

        // Make the responder's control file name another incarnation of this pid: to the requester
        // its owner is then a process that no longer runs, as after a kill and pid reuse.
        final MappedByteBuffer control = ShmFiles.mapExisting(responder.device.shmAddress().controlFile(), 64);
        try
        {
            final UnsafeBuffer controlBuffer = new UnsafeBuffer(control);
            controlBuffer.putLong(ShmDeviceControl.OWNER_START_TIME_OFFSET, startTime + 1);
            ShmSide.connect(requester, responder);
            assertEquals(PostResult.OK, requester.queuePair.postReceive(9, requester.region, 0, 64));

            // The responder is never polled again, so its heartbeat stops here.
            final long lastHeartbeatNs = controlBuffer.getLongVolatile(ShmDeviceControl.HEARTBEAT_OFFSET);
            ShmSide.pollUntil(() -> !requester.completions.isEmpty(), TIMEOUT, "the flushed receive", requester);
            final long detectedNs = System.nanoTime();

            assertEquals(List.of(new PolledCompletion(9, CompletionOpcode.RECV, CompletionStatus.WR_FLUSH_ERROR, 0, 0,
                requester.queuePair.queuePairNumber())), requester.completions);
            assertEquals(1, requester.device.counters().get(DeviceCounters.PEERS_LOST));
            final long silentMs = TimeUnit.NANOSECONDS.toMillis(detectedNs - lastHeartbeatNs);
            assertTrue(silentMs >= peerTimeoutMs, "declared lost after " + silentMs + " ms, before the timeout");
            assertTrue(silentMs < peerTimeoutMs + 1000, "declared lost only after " + silentMs + " ms");
        }
        finally
        {
            ShmFiles.unmap(control);
        }
    }

    @Test
    void idlePeerOfALiveProcessIsNotDeclaredLost()
    {
        final long peerTimeoutMs = 30;
        open(peerTimeoutMs);
        ShmSide.connect(requester, responder);
        assertEquals(PostResult.OK, requester.queuePair.postReceive(1, requester.region, 0, 64));

        ShmSide.pollFor(Duration.ofMillis(peerTimeoutMs * 5), requester); // the responder is silent meanwhile

        assertEquals(List.of(), requester.completions);
        assertEquals(QueuePairState.READY_TO_SEND, requester.queuePair.state());
        assertEquals(0, requester.device.counters().get(DeviceCounters.PEERS_LOST));
        assertEquals(PostResult.OK, requester.queuePair.postWrite(2, requester.region, 0, 8,
            responder.region.address(), responder.region.rkey(), SendFlags.SIGNALED));
        requester.poll();
        assertEquals(CompletionStatus.SUCCESS, requester.completions.get(0).status());
    }
}
