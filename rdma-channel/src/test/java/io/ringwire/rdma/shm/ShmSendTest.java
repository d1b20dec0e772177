package io.ringwire.rdma.shm;

import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEND/RECV and the inbound ring over shm: ordering, receiver-not-ready, length errors, a full ring.
 */
final class ShmSendTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final int SMALL_RING_BYTES = 4096;

    @TempDir
    Path directory;

    private ShmSide requester;
    private ShmSide responder;

    private void connect(final int ringBytes)
    {
        requester = new ShmSide(ShmSide.config(directory, 2000), ringBytes);
        responder = new ShmSide(ShmSide.config(directory, 2000), ringBytes);
        ShmSide.connect(requester, responder);
    }

    @AfterEach
    void close()
    {
        CloseHelper.closeAll(requester, responder);
    }

    @Test
    void sendsAreReceivedInOrderIntoPostedBuffers()
    {
        connect(64 * 1024);
        for (int i = 0; i < 5; i++)
        {
            assertEquals(PostResult.OK, responder.queuePair.postReceive(100 + i, responder.region, i * 256, 256));
        }
        for (int i = 0; i < 5; i++)
        {
            final int length = 1 + i * 40;
            requester.region.buffer().setMemory(i * 256, length, (byte)(i + 1));
            assertEquals(PostResult.OK, requester.queuePair.postSend(i, requester.region, i * 256, length,
                SendFlags.SIGNALED));
        }

        ShmSide.pollUntil(() -> responder.completions.size() == 5, TIMEOUT, "five receives", responder);
        final List<PolledCompletion> expectedReceives = new ArrayList<>();
        final List<PolledCompletion> expectedSends = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            final int length = 1 + i * 40;
            expectedReceives.add(new PolledCompletion(100 + i, CompletionOpcode.RECV, CompletionStatus.SUCCESS, length,
                0, responder.queuePair.queuePairNumber()));
            expectedSends.add(new PolledCompletion(i, CompletionOpcode.SEND, CompletionStatus.SUCCESS, length, 0,
                requester.queuePair.queuePairNumber()));
            final byte[] expected = new byte[256];
            Arrays.fill(expected, 0, length, (byte)(i + 1));
            final byte[] received = new byte[256];
            responder.region.buffer().getBytes(i * 256, received);
            assertArrayEquals(expected, received, "receive buffer " + i);
        }
        assertEquals(expectedReceives, responder.completions);
        requester.poll();
        assertEquals(expectedSends, requester.completions);
    }

    @Test
    void sendWaitsInTheRingUntilAReceiveIsPosted()
    {
        connect(64 * 1024);
        requester.region.buffer().putLong(0, 0x1122334455667788L);
        assertEquals(PostResult.OK, requester.queuePair.postSend(1, requester.region, 0, 8, SendFlags.NONE));

        ShmSide.pollFor(Duration.ofMillis(20), responder);
        assertEquals(List.of(), responder.completions, "no receive posted: the SEND waits (receiver not ready)");
        assertEquals(QueuePairState.READY_TO_SEND, responder.queuePair.state());

        assertEquals(PostResult.OK, responder.queuePair.postReceive(2, responder.region, 512, 64));
        ShmSide.pollUntil(() -> !responder.completions.isEmpty(), TIMEOUT, "the delayed receive", responder);
        assertEquals(new PolledCompletion(2, CompletionOpcode.RECV, CompletionStatus.SUCCESS, 8, 0,
            responder.queuePair.queuePairNumber()), responder.completions.get(0));
        assertEquals(0x1122334455667788L, responder.region.buffer().getLong(512));
    }

    @Test
    void sendIntoTooSmallReceiveBufferFailsOnBothSidesAndCountsIt()
    {
        connect(64 * 1024);
        assertEquals(PostResult.OK, responder.queuePair.postReceive(1, responder.region, 0, 16));
        assertEquals(PostResult.OK, responder.queuePair.postReceive(2, responder.region, 16, 64));
        requester.region.buffer().setMemory(0, 17, (byte)0x7F);

        assertEquals(PostResult.OK, requester.queuePair.postSend(3, requester.region, 0, 17, SendFlags.NONE));

        ShmSide.pollUntil(() -> responder.completions.size() == 2, TIMEOUT, "length error and flush", responder);
        final int qpn = responder.queuePair.queuePairNumber();
        assertEquals(List.of(
            new PolledCompletion(1, CompletionOpcode.RECV, CompletionStatus.LOCAL_LENGTH_ERROR, 17, 0, qpn),
            new PolledCompletion(2, CompletionOpcode.RECV, CompletionStatus.WR_FLUSH_ERROR, 0, 0, qpn)),
            responder.completions);
        assertEquals(1, responder.device.counters().get(DeviceCounters.RESPONDER_LENGTH_ERROR));
        assertEquals(QueuePairState.ERROR, responder.queuePair.state());
        assertArrayEquals(new byte[ShmSide.REGION_LENGTH], contents(responder), "nothing copied");

        ShmSide.pollUntil(() -> !requester.completions.isEmpty(), TIMEOUT, "the requester's error completion",
            requester);
        assertEquals(List.of(new PolledCompletion(3, CompletionOpcode.SEND, CompletionStatus.REMOTE_INVALID_REQUEST, 17,
            0, requester.queuePair.queuePairNumber())), requester.completions, "unsignaled, and still completes");
        assertEquals(QueuePairState.ERROR, requester.queuePair.state());
        assertEquals(0, requester.device.counters().get(DeviceCounters.PEERS_LOST), "a refusal, not a lost peer");
    }

    @Test
    void aFailureStatusNoResponderWritesInThePeersRingFailsTheSendAndIsCountedNeverCompletingItAsDone()
        throws Exception
    {
        connect(64 * 1024);
        assertEquals(PostResult.OK, requester.queuePair.postSend(7, requester.region, 0, 8, SendFlags.NONE));
        // The responder posts no receive and is never polled: the record waits, and the peer's ring
        // says the first record failed with status SUCCESS.
        final MappedByteBuffer ring = ShmFiles.mapExisting(responder.device.shmAddress().ringFile(
            responder.queuePair.queuePairNumber()), ShmInboundRing.HEADER_LENGTH);
        try
        {
            final UnsafeBuffer header = new UnsafeBuffer(ring);
            header.putInt(ShmInboundRing.FAILURE_STATUS_OFFSET, CompletionStatus.SUCCESS);
            header.putLong(ShmInboundRing.FAILED_RECORD_OFFSET, 1);
            header.putLongRelease(ShmInboundRing.ACKNOWLEDGED_RECORDS_OFFSET, 1);
        }
        finally
        {
            ShmFiles.unmap(ring);
        }

        ShmSide.pollUntil(() -> !requester.completions.isEmpty(), TIMEOUT, "the SEND's completion", requester);
        assertEquals(List.of(new PolledCompletion(7, CompletionOpcode.SEND, CompletionStatus.REMOTE_OPERATIONAL_ERROR,
            8, 0, requester.queuePair.queuePairNumber())), requester.completions);
        assertEquals(1, requester.device.counters().get(DeviceCounters.GHOST_ACKNOWLEDGEMENTS));
        assertEquals(QueuePairState.ERROR, requester.queuePair.state());
    }

    @Test
    void sendCompletesOnlyOnceTheResponderConsumedItAndLaterRequestsCompleteAfterIt()
    {
        connect(64 * 1024);
        requester.region.buffer().putLong(0, 42L);
        assertEquals(PostResult.OK, requester.queuePair.postSend(1, requester.region, 0, 8, SendFlags.SIGNALED));
        assertEquals(PostResult.OK, requester.queuePair.postWrite(2, requester.region, 0, 8,
            responder.region.address() + 4096, responder.region.rkey(), SendFlags.SIGNALED));

        ShmSide.pollFor(Duration.ofMillis(20), requester);
        assertEquals(List.of(), requester.completions, "no receive consumed the SEND yet, and the WRITE is behind it");
        assertEquals(42L, responder.region.buffer().getLong(4096), "the WRITE itself is already placed");

        assertEquals(PostResult.OK, responder.queuePair.postReceive(3, responder.region, 0, 8));
        ShmSide.pollUntil(() -> requester.completions.size() == 2, TIMEOUT, "both completions", requester, responder);
        final int qpn = requester.queuePair.queuePairNumber();
        assertEquals(List.of(
            new PolledCompletion(1, CompletionOpcode.SEND, CompletionStatus.SUCCESS, 8, 0, qpn),
            new PolledCompletion(2, CompletionOpcode.RDMA_WRITE, CompletionStatus.SUCCESS, 8, 0, qpn)),
            requester.completions, "in posting order");
    }

    @Test
    void outstandingSendsFillTheSendQueueAndQueueFullClearsOnceTheyAreConsumed()
    {
        connect(64 * 1024);
        for (int i = 0; i < ShmSide.SEND_DEPTH; i++)
        {
            assertEquals(PostResult.OK, requester.queuePair.postSend(i, requester.region, 0, 8, SendFlags.NONE));
        }
        assertEquals(PostResult.QUEUE_FULL, requester.queuePair.postSend(99, requester.region, 0, 8, SendFlags.NONE));

        for (int i = 0; i <= ShmSide.SEND_DEPTH; i++)
        {
            assertEquals(PostResult.OK, responder.queuePair.postReceive(i, responder.region, 0, 8));
        }
        ShmSide.pollUntil(() -> responder.completions.size() == ShmSide.SEND_DEPTH, TIMEOUT, "the receives", responder);
        assertEquals(PostResult.OK, requester.queuePair.postSend(100, requester.region, 0, 8, SendFlags.SIGNALED));
        ShmSide.pollUntil(() -> requester.completions.size() == 1, TIMEOUT, "the last send", requester, responder);
        assertEquals(100, requester.completions.get(0).workRequestId(), "unsignaled successes stay silent");
    }

    @Test
    void fullInboundRingReturnsQueueFullAndWritesNothing()
    {
        connect(SMALL_RING_BYTES);
        // Notifications of WRITE WITH IMMEDIATE wait in the responder's ring until receives are posted.
        int accepted = 0;
        int result;
        while ((result = requester.queuePair.postWriteWithImmediate(accepted, requester.region, 0, 8,
            responder.region.address(), responder.region.rkey(), accepted, SendFlags.NONE)) == PostResult.OK)
        {
            accepted++;
            assertTrue(accepted < 1000, "a 4 KiB ring cannot take 1000 records");
        }
        assertEquals(PostResult.QUEUE_FULL, result);
        assertEquals(SMALL_RING_BYTES / ShmRecordRing.SLOT_LENGTH, accepted,
            "one notification per 64-byte slot until the ring is full");

        requester.region.buffer().setMemory(0, 64, (byte)0x7F);
        assertEquals(PostResult.QUEUE_FULL, requester.queuePair.postWriteWithImmediate(5000, requester.region, 0, 64,
            responder.region.address() + 1024, responder.region.rkey(), 1, SendFlags.SIGNALED));
        assertEquals(PostResult.QUEUE_FULL, requester.queuePair.postSend(5001, requester.region, 0, 8,
            SendFlags.SIGNALED));
        requester.poll();
        assertEquals(List.of(), requester.completions, "a refused post never completes");
        assertArrayEquals(new byte[ShmSide.REGION_LENGTH], contents(responder),
            "a WRITE WITH IMMEDIATE refused for a full ring writes nothing");

        for (int i = 0; i <= accepted; i++)
        {
            assertEquals(PostResult.OK, responder.queuePair.postReceive(i, responder.region, 0, 0));
        }
        final int notifications = accepted;
        ShmSide.pollUntil(() -> responder.completions.size() == notifications, TIMEOUT, "the queued notifications",
            responder);
        for (int i = 0; i < notifications; i++)
        {
            assertEquals(i, responder.completions.get(i).immediate(), "delivered in order, exactly once");
        }
        assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(5002, requester.region, 0, 64,
            responder.region.address() + 1024, responder.region.rkey(), 1, SendFlags.SIGNALED), "room again once drained");
        ShmSide.pollUntil(() -> responder.completions.size() == notifications + 1, TIMEOUT, "the write's receive",
            responder);
        assertEquals(CompletionOpcode.RECV_RDMA_WITH_IMM, responder.completions.get(notifications).opcode());
        assertEquals(0x7F7F7F7F, responder.region.buffer().getInt(1024));
    }

    @Test
    void sendLargerThanThePeersLargestRecordIsRejectedWithInvalidArgument()
    {
        connect(SMALL_RING_BYTES);
        final int maxSend = requester.queuePair.maxSendLength();
        assertEquals(SMALL_RING_BYTES / 8 - ShmRecordRing.PAYLOAD_OFFSET, maxSend);
        assertEquals(PostResult.OK, responder.queuePair.postReceive(1, responder.region, 0, maxSend));

        assertEquals(PostResult.INVALID_ARGUMENT,
            requester.queuePair.postSend(2, requester.region, 0, maxSend + 1, SendFlags.SIGNALED));
        assertEquals(PostResult.OK, requester.queuePair.postSend(3, requester.region, 0, maxSend, SendFlags.SIGNALED));

        ShmSide.pollUntil(() -> !responder.completions.isEmpty(), TIMEOUT, "the largest send", responder);
        assertEquals(maxSend, responder.completions.get(0).byteLength());
        requester.poll();
        assertEquals(List.of(new PolledCompletion(3, CompletionOpcode.SEND, CompletionStatus.SUCCESS, maxSend, 0,
            requester.queuePair.queuePairNumber())), requester.completions);
    }

    private static byte[] contents(final ShmSide side)
    {
        final byte[] bytes = new byte[side.region.length()];
        side.region.buffer().getBytes(0, bytes);
        return bytes;
    }
}
