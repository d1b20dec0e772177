package io.ringwire.rdma.contract;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.Completion;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.Endpoint;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.SendFlags;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.ringwire.rdma.Endpoint.pollFor;
import static io.ringwire.rdma.Endpoint.pollUntil;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every provider must do, written once and run per provider by a subclass that says how to
 * configure it. Two devices of the provider in one process, connected queue pair to queue pair.
 */
public abstract class ProviderContractTest
{
    protected static final Duration TIMEOUT = Duration.ofSeconds(10);
    protected static final int REGION_LENGTH = 64 * 1024;

    @TempDir
    protected Path tempDir;

    protected Endpoint requester;
    protected Endpoint responder;
    protected MemoryRegion source;
    protected MemoryRegion target;

    /**
     * @param tempDir a fresh directory for this test.
     * @return a configuration of the provider under test, not yet concluded.
     */
    protected abstract RdmaConfig config(Path tempDir);

    @BeforeEach
    void connect()
    {
        requester = new Endpoint(config(tempDir).conclude());
        responder = new Endpoint(config(tempDir).conclude());
        source = requester.domain.allocateRegion(REGION_LENGTH, Access.LOCAL_WRITE);
        target = responder.domain.allocateRegion(REGION_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        Endpoint.connect(requester, responder);
    }

    @AfterEach
    void close()
    {
        if (null != requester)
        {
            requester.close();
        }
        if (null != responder)
        {
            responder.close();
        }
    }

    private byte[] fillSource(final int offset, final int length, final long seed)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        source.buffer().putBytes(offset, bytes);
        return bytes;
    }

    private byte[] targetBytes(final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        target.buffer().getBytes(offset, bytes);
        return bytes;
    }

    private void assertTargetUntouched()
    {
        assertArrayEquals(new byte[REGION_LENGTH], targetBytes(0, REGION_LENGTH), "responder region must be unchanged");
    }

    @Test
    void writeLandsByteExactAtTheRightOffsetAndNowhereElse()
    {
        final byte[] payload = fillSource(100, 1000, 42);
        assertEquals(PostResult.OK, requester.queuePair.postWrite(
            1, source, 100, 1000, target.address() + 4096, target.rkey(), SendFlags.SIGNALED));

        pollUntil(() -> requester.completions.size() == 1, TIMEOUT, "write completion", requester, responder);
        assertEquals(new Completion(1, CompletionOpcode.RDMA_WRITE, CompletionStatus.SUCCESS, 1000, 0,
            requester.queuePair.queuePairNumber()), requester.completions.get(0));
        assertArrayEquals(payload, targetBytes(4096, 1000));
        assertArrayEquals(new byte[4096], targetBytes(0, 4096), "bytes before the write");
        assertArrayEquals(new byte[REGION_LENGTH - 5096], targetBytes(5096, REGION_LENGTH - 5096), "bytes after the write");
        assertTrue(responder.completions.isEmpty(), "a plain write consumes no receive and makes no responder completion");
    }

    @Test
    void writesOfManySizesLandInOrderAtTheirOffsets()
    {
        final Random random = new Random(7);
        final int[] sizes = { 0, 1, 7, 8, 63, 64, 255, 4096, 4097, 30_000 };
        int offset = 0;
        for (int i = 0; i < sizes.length; i++)
        {
            final byte[] payload = fillSource(0, sizes[i], random.nextLong());
            assertEquals(PostResult.OK, requester.queuePair.postWrite(
                i, source, 0, sizes[i], target.address() + offset, target.rkey(), SendFlags.SIGNALED));
            final int count = i + 1;
            pollUntil(() -> requester.completions.size() == count, TIMEOUT, "write " + i, requester, responder);
            assertArrayEquals(payload, targetBytes(offset, sizes[i]), "write of " + sizes[i] + " bytes");
            offset += sizes[i];
        }
        for (final Completion completion : requester.completions)
        {
            assertEquals(CompletionStatus.SUCCESS, completion.status());
        }
    }

    @Test
    void writeWithImmediateYieldsExactlyOneReceiveCompletionCarryingTheImmediate()
    {
        assertEquals(PostResult.OK, responder.queuePair.postReceive(77, target, 0, 0));
        assertEquals(PostResult.OK, responder.queuePair.postReceive(78, target, 0, 0));
        final byte[] payload = fillSource(0, 256, 3);

        assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(
            5, source, 0, 256, target.address() + 512, target.rkey(), 0xCAFEBABE, SendFlags.NONE));

        pollUntil(() -> responder.completions.size() == 1, TIMEOUT, "receive completion", requester, responder);
        pollFor(Duration.ofMillis(100), requester, responder);
        assertEquals(List.of(new Completion(77, CompletionOpcode.RECV_RDMA_WITH_IMM, CompletionStatus.SUCCESS, 256,
            0xCAFEBABE, responder.queuePair.queuePairNumber())), responder.completions);
        assertArrayEquals(payload, targetBytes(512, 256), "data is in place when the completion arrives");
        assertTrue(requester.completions.isEmpty(), "unsignaled success makes no requester completion");
    }

    @Test
    void writeWithImmediateWaitsForAReceiveToBePosted()
    {
        fillSource(0, 64, 9);
        assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(
            1, source, 0, 64, target.address(), target.rkey(), 11, SendFlags.NONE));
        pollFor(Duration.ofMillis(100), requester, responder);
        assertTrue(responder.completions.isEmpty(), "no receive posted, no completion");

        assertEquals(PostResult.OK, responder.queuePair.postReceive(9, target, 0, 0));
        pollUntil(() -> responder.completions.size() == 1, TIMEOUT, "receive completion", requester, responder);
        assertEquals(11, responder.completions.get(0).immediate());
        assertEquals(CompletionStatus.SUCCESS, responder.completions.get(0).status());
    }

    @Test
    void sendMatchesPostedReceivesInOrder()
    {
        for (int i = 0; i < 3; i++)
        {
            assertEquals(PostResult.OK, responder.queuePair.postReceive(100 + i, target, i * 1024, 1024));
        }
        final byte[][] payloads = new byte[3][];
        for (int i = 0; i < 3; i++)
        {
            payloads[i] = fillSource(i * 2048, 100 + i, i);
            assertEquals(PostResult.OK, requester.queuePair.postSend(i, source, i * 2048, 100 + i, SendFlags.SIGNALED));
        }

        pollUntil(() -> responder.completions.size() == 3 && requester.completions.size() == 3, TIMEOUT,
            "three sends", requester, responder);
        for (int i = 0; i < 3; i++)
        {
            final Completion received = responder.completions.get(i);
            assertEquals(100 + i, received.workRequestId(), "receives are consumed in posting order");
            assertEquals(CompletionOpcode.RECV, received.opcode());
            assertEquals(CompletionStatus.SUCCESS, received.status());
            assertEquals(100 + i, received.byteLength());
            assertArrayEquals(payloads[i], targetBytes(i * 1024, 100 + i));
            assertEquals(new Completion(i, CompletionOpcode.SEND, CompletionStatus.SUCCESS, 100 + i, 0,
                requester.queuePair.queuePairNumber()), requester.completions.get(i));
        }
    }

    @Test
    void sendLargerThanTheReceiveBufferFailsBothSides()
    {
        assertEquals(PostResult.OK, responder.queuePair.postReceive(1, target, 0, 16));
        fillSource(0, 64, 1);
        assertEquals(PostResult.OK, requester.queuePair.postSend(2, source, 0, 64, SendFlags.NONE));

        pollUntil(() -> !responder.completions.isEmpty() && !requester.completions.isEmpty(), TIMEOUT,
            "error completions", requester, responder);
        assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, responder.completions.get(0).status());
        assertEquals(CompletionStatus.REMOTE_INVALID_REQUEST, requester.completions.get(0).status());
        assertEquals(2, requester.completions.get(0).workRequestId());
        assertEquals(1, responder.device.counters().get(DeviceCounters.RESPONDER_LENGTH_ERROR));
        assertArrayEquals(new byte[16], targetBytes(0, 16), "nothing copied into the too-small buffer");
    }

    @Test
    void unsignaledWritesProduceNoCompletionUntilAnError()
    {
        for (int i = 0; i < 100; i++)
        {
            fillSource(0, 8, i);
            final int result = requester.queuePair.postWrite(i, source, 0, 8, target.address() + i * 8L, target.rkey(),
                SendFlags.NONE);
            if (result == PostResult.QUEUE_FULL)
            {
                requester.poll();
                responder.poll();
                i--;
                continue;
            }
            assertEquals(PostResult.OK, result);
        }
        pollFor(Duration.ofMillis(200), requester, responder);
        assertTrue(requester.completions.isEmpty(), "unsignaled successes: " + requester.completions);

        assertEquals(PostResult.OK, requester.queuePair.postWrite(
            500, source, 0, 8, target.address(), target.rkey() ^ 0x5A5A, SendFlags.NONE));
        pollUntil(() -> !requester.completions.isEmpty(), TIMEOUT, "error completion", requester, responder);
        assertEquals(500, requester.completions.get(0).workRequestId());
        assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, requester.completions.get(0).status());
    }

    private void assertRemoteAccessErrorAndNothingWritten(final long remoteAddress, final int rkey, final int length,
        final int responderCounter)
    {
        fillSource(0, Math.max(length, 1), 99);
        assertEquals(PostResult.OK, responder.queuePair.postReceive(1, target, 0, 0));
        assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(
            10, source, 0, length, remoteAddress, rkey, 1234, SendFlags.NONE));

        pollUntil(() -> !requester.completions.isEmpty(), TIMEOUT, "remote access error", requester, responder);
        pollFor(Duration.ofMillis(50), requester, responder);
        final Completion error = requester.completions.get(0);
        assertEquals(10, error.workRequestId());
        assertEquals(CompletionOpcode.RDMA_WRITE, error.opcode());
        assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, error.status(), "unsignaled failure still completes");
        assertEquals(QueuePairState.ERROR, requester.queuePair.state());
        assertEquals(1, responder.device.counters().get(responderCounter), "responder counter");
        for (final Completion completion : responder.completions)
        {
            assertTrue(completion.status() != CompletionStatus.SUCCESS, "no successful receive: " + completion);
        }
        assertTargetUntouched();
    }

    @Test
    void writeWithUnknownRkeyIsRejectedAndNothingIsWritten()
    {
        assertRemoteAccessErrorAndNothingWritten(target.address(), target.rkey() + 1000, 64,
            DeviceCounters.RESPONDER_UNKNOWN_RKEY);
    }

    @Test
    void writePastTheEndOfTheRegionIsRejectedAndNothingIsWritten()
    {
        assertRemoteAccessErrorAndNothingWritten(target.address() + REGION_LENGTH - 32, target.rkey(), 64,
            DeviceCounters.RESPONDER_OUT_OF_BOUNDS);
    }

    @Test
    void writeBeforeTheStartOfTheRegionIsRejectedAndNothingIsWritten()
    {
        assertRemoteAccessErrorAndNothingWritten(target.address() - 8, target.rkey(), 64,
            DeviceCounters.RESPONDER_OUT_OF_BOUNDS);
    }

    @Test
    void writeWhoseAddressOverflowsIsRejectedAndNothingIsWritten()
    {
        assertRemoteAccessErrorAndNothingWritten(Long.MAX_VALUE - 8, target.rkey(), 64,
            DeviceCounters.RESPONDER_OUT_OF_BOUNDS);
    }

    @Test
    void writeToARegionWithoutRemoteWriteIsRejectedAndNothingIsWritten()
    {
        final MemoryRegion localOnly = responder.domain.allocateRegion(4096, Access.LOCAL_WRITE);
        assertRemoteAccessErrorAndNothingWritten(localOnly.address(), localOnly.rkey(), 64,
            DeviceCounters.RESPONDER_ACCESS_DENIED);
        assertArrayEquals(new byte[4096], bytesOf(localOnly), "local-only region unchanged");
    }

    @Test
    void writeToADeregisteredRegionIsRejectedAndNothingIsWritten()
    {
        final MemoryRegion doomed = responder.domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final long address = doomed.address();
        final int rkey = doomed.rkey();
        doomed.close();
        assertRemoteAccessErrorAndNothingWritten(address, rkey, 64, DeviceCounters.RESPONDER_UNKNOWN_RKEY);
    }

    private static byte[] bytesOf(final MemoryRegion region)
    {
        final byte[] bytes = new byte[region.length()];
        region.buffer().getBytes(0, bytes);
        return bytes;
    }

    @Test
    void aProgressAgentExecutesAndAcknowledgesWhileTheOwningThreadsDoNotPoll() throws Exception
    {
        final org.agrona.concurrent.AgentRunner requesterAgent = new org.agrona.concurrent.AgentRunner(
            new org.agrona.concurrent.YieldingIdleStrategy(), Throwable::printStackTrace, null,
            requester.device.progressAgent());
        final org.agrona.concurrent.AgentRunner responderAgent = new org.agrona.concurrent.AgentRunner(
            new org.agrona.concurrent.YieldingIdleStrategy(), Throwable::printStackTrace, null,
            responder.device.progressAgent());
        try
        {
            assertEquals(PostResult.OK, responder.queuePair.postReceive(1, target, 0, 0));
            final byte[] payload = fillSource(0, 3000, 21);
            org.agrona.concurrent.AgentRunner.startOnThread(requesterAgent);
            org.agrona.concurrent.AgentRunner.startOnThread(responderAgent);
            assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(
                2, source, 0, 3000, target.address() + 100, target.rkey(), 7, SendFlags.SIGNALED));

            final long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!java.util.Arrays.equals(payload, targetBytes(100, 3000)))
            {
                assertTrue(System.nanoTime() < deadline, "the agent never delivered the write");
                Thread.onSpinWait();
            }
            pollUntil(() -> requester.completions.size() == 1 && responder.completions.size() == 1, TIMEOUT,
                "completions left for the owning threads", requester, responder);
            assertEquals(CompletionStatus.SUCCESS, requester.completions.get(0).status());
            assertEquals(new Completion(1, CompletionOpcode.RECV_RDMA_WITH_IMM, CompletionStatus.SUCCESS, 3000, 7,
                responder.queuePair.queuePairNumber()), responder.completions.get(0));
        }
        finally
        {
            requesterAgent.close();
            responderAgent.close();
        }
    }

    @Test
    void regionsOfAnySizeAreAllocatedPageAlignedAndZeroed()
    {
        for (final int length : new int[]{ 1, 128, 4095, 4096, 4097, 1 << 20 })
        {
            final MemoryRegion region = responder.domain.allocateRegion(length, Access.LOCAL_WRITE);
            assertEquals(length, region.length());
            assertEquals(0, region.address() % 4096, "page-aligned");
            assertArrayEquals(new byte[length], bytesOf(region));
            region.close();
        }
    }

    @Test
    void localRangeOutsideTheSourceRegionCompletesWithLocalProtectionError()
    {
        assertEquals(PostResult.OK, requester.queuePair.postWrite(
            3, source, REGION_LENGTH - 10, 64, target.address(), target.rkey(), SendFlags.NONE));
        pollUntil(() -> !requester.completions.isEmpty(), TIMEOUT, "local protection error", requester, responder);
        assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, requester.completions.get(0).status());
        assertEquals(QueuePairState.ERROR, requester.queuePair.state());
        pollFor(Duration.ofMillis(50), requester, responder);
        assertTargetUntouched();
    }

    @Test
    void queuePairInErrorFlushesPostedReceivesAndLaterRequests()
    {
        for (int i = 0; i < 5; i++)
        {
            assertEquals(PostResult.OK, responder.queuePair.postReceive(i, target, 0, 64));
        }
        responder.queuePair.modifyToError();
        assertEquals(QueuePairState.ERROR, responder.queuePair.state());
        pollUntil(() -> responder.completions.size() == 5, TIMEOUT, "flushed receives", responder);
        for (int i = 0; i < 5; i++)
        {
            assertEquals(new Completion(i, CompletionOpcode.RECV, CompletionStatus.WR_FLUSH_ERROR, 0, 0,
                responder.queuePair.queuePairNumber()), responder.completions.get(i), "flushed in order");
        }

        assertEquals(PostResult.OK, responder.queuePair.postSend(9, target, 0, 8, SendFlags.NONE));
        assertEquals(PostResult.OK, responder.queuePair.postReceive(10, target, 0, 8));
        pollUntil(() -> responder.completions.size() == 7, TIMEOUT, "flush of requests posted in ERROR", responder);
        assertEquals(CompletionStatus.WR_FLUSH_ERROR, responder.completions.get(5).status());
        assertEquals(9, responder.completions.get(5).workRequestId());
        assertEquals(CompletionStatus.WR_FLUSH_ERROR, responder.completions.get(6).status());
        assertEquals(10, responder.completions.get(6).workRequestId());
    }

    @Test
    void peerGoingToErrorEndsTheConnectionWithErrorCompletionsNotAHang()
    {
        assertEquals(PostResult.OK, requester.queuePair.postReceive(1, source, 0, 64));
        responder.queuePair.close();
        fillSource(0, 8, 5);
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (requester.completions.stream().noneMatch(c -> c.status() != CompletionStatus.SUCCESS))
        {
            assertTrue(System.nanoTime() < deadline, "no error completion after the peer closed: " + requester.completions);
            requester.queuePair.postWrite(2, source, 0, 8, target.address(), target.rkey(), SendFlags.SIGNALED);
            pollFor(Duration.ofMillis(5), requester);
        }
        assertEquals(QueuePairState.ERROR, requester.queuePair.state());
    }

    /** A handler that notes each completion's id, then closes the endpoint's queue pair and completion queue. */
    private static CompletionHandler closingHandler(final Endpoint endpoint, final List<Long> handled)
    {
        return (id, opcode, status, length, immediate, qpn) ->
        {
            handled.add(id);
            endpoint.queuePair.close();
            endpoint.completionQueue.close();
        };
    }

    @Test
    void aHandlerThatClosesItsCompletionQueueEndsThePollThereAndLaterPollsFindNothing()
    {
        for (int i = 0; i < 3; i++)
        {
            assertEquals(PostResult.OK, responder.queuePair.postReceive(i, target, 0, 0));
        }
        for (int i = 0; i < 3; i++)
        {
            assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(10 + i, source, 0, 8,
                target.address(), target.rkey(), i, SendFlags.NONE));
        }
        // The three receives complete; the responder's first poll that finds one gets them together
        // where its provider reports them together.
        pollFor(Duration.ofMillis(200), requester);
        final List<Long> handled = new ArrayList<>();
        final CompletionHandler closer = closingHandler(responder, handled);
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        int delivered = 0;
        while (handled.isEmpty())
        {
            assertTrue(System.nanoTime() < deadline, "no receive completion");
            delivered = responder.completionQueue.poll(closer, 64);
            requester.poll();
        }
        assertEquals(List.of(0L), handled, "nothing is handed over after the handler closed the queue");
        assertEquals(1, delivered);
        assertEquals(0, responder.completionQueue.poll(closer, 64));
    }

    @Test
    void aHandlerThatClosesItsCompletionQueueGetsNoMoreOfTheFlushesWaitingThere()
    {
        requester.queuePair.modifyToError();
        for (int i = 0; i < 3; i++)
        {
            assertEquals(PostResult.OK, requester.queuePair.postWrite(20 + i, source, 0, 8, target.address(),
                target.rkey(), SendFlags.SIGNALED));
        }
        final List<Long> handled = new ArrayList<>();
        final CompletionHandler closer = closingHandler(requester, handled);
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (handled.isEmpty())
        {
            assertTrue(System.nanoTime() < deadline, "no flush completion");
            requester.completionQueue.poll(closer, 64);
        }
        assertEquals(List.of(20L), handled, "nothing is handed over after the handler closed the queue");
        assertEquals(0, requester.completionQueue.poll(closer, 64));
    }

    @Test
    void aCompletionQueueDeeperThanTheDeviceAllowsIsRefusedWithTheLimit()
    {
        final int max = requester.device.maxCompletionQueueDepth();
        assertTrue(max >= Endpoint.RECEIVE_DEPTH, "max completion queue depth " + max);
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> requester.device.createCompletionQueue(max + 1));
        assertTrue(refused.getMessage().contains(Integer.toString(max)), refused.getMessage());
    }

    @Test
    void postingPastTheReceiveQueueDepthReturnsQueueFull()
    {
        for (int i = 0; i < Endpoint.RECEIVE_DEPTH; i++)
        {
            assertEquals(PostResult.OK, responder.queuePair.postReceive(i, target, 0, 64));
        }
        assertEquals(PostResult.QUEUE_FULL, responder.queuePair.postReceive(999, target, 0, 64));
    }

    @Test
    void postingPastTheSendCapacityReturnsQueueFullAndRecoversWhenThePeerDrains()
    {
        // The responder posts no receive and does not poll: requests pile up until the requester's
        // send queue (or, for providers that complete at once, the peer's inbound queue) is full.
        int accepted = 0;
        int result = PostResult.OK;
        while (accepted < 1_000_000)
        {
            result = requester.queuePair.postWriteWithImmediate(accepted, source, 0, 8, target.address(), target.rkey(),
                accepted, SendFlags.NONE);
            if (result != PostResult.OK)
            {
                break;
            }
            accepted++;
            requester.poll();
        }
        assertEquals(PostResult.QUEUE_FULL, result, "after " + accepted + " accepted posts");
        assertTrue(accepted >= Endpoint.SEND_DEPTH, "at least the send queue depth is accepted: " + accepted);

        final int toDeliver = accepted;
        final int[] posted = { 0 };
        pollUntil(() ->
        {
            while (posted[0] < toDeliver && responder.queuePair.postReceive(posted[0], target, 0, 0) == PostResult.OK)
            {
                posted[0]++;
            }
            return responder.completions.size() == toDeliver;
        }, TIMEOUT, "delivery of every accepted request", requester, responder);
        for (int i = 0; i < toDeliver; i++)
        {
            assertEquals(i, responder.completions.get(i).immediate(), "delivered in order, exactly once");
        }
        pollUntil(() -> requester.queuePair.postWrite(1, source, 0, 8, target.address(), target.rkey(),
            SendFlags.NONE) == PostResult.OK, TIMEOUT, "posting to work again", requester, responder);
    }

    @Test
    void postingBeforeReadyToSendReturnsInvalidState()
    {
        final Endpoint fresh = new Endpoint(config(tempDir).conclude());
        try
        {
            final MemoryRegion region = fresh.domain.allocateRegion(4096, Access.LOCAL_WRITE);
            assertEquals(PostResult.INVALID_STATE, fresh.queuePair.postReceive(1, region, 0, 64), "RESET");
            assertEquals(PostResult.INVALID_STATE, fresh.queuePair.postSend(1, region, 0, 8, SendFlags.NONE), "RESET");
            fresh.queuePair.modifyToInit();
            assertEquals(PostResult.OK, fresh.queuePair.postReceive(1, region, 0, 64), "INIT takes receives");
            assertEquals(PostResult.INVALID_STATE, fresh.queuePair.postWrite(1, region, 0, 8, 0, 0, SendFlags.NONE),
                "INIT takes no sends");
        }
        finally
        {
            fresh.close();
        }
    }

    @Test
    void inlineLongerThanTheMaximumIsRefusedAtPost()
    {
        final int maxInline = requester.device.maxInlineData();
        assertEquals(PostResult.INVALID_ARGUMENT, requester.queuePair.postWrite(
            1, source, 0, maxInline + 1, target.address(), target.rkey(), SendFlags.INLINE));
        fillSource(0, maxInline, 1);
        assertEquals(PostResult.OK, requester.queuePair.postWrite(
            2, source, 0, maxInline, target.address(), target.rkey(), SendFlags.INLINE | SendFlags.SIGNALED));
        pollUntil(() -> requester.completions.size() == 1, TIMEOUT, "inline write", requester, responder);
        assertEquals(CompletionStatus.SUCCESS, requester.completions.get(0).status());
    }

    @Test
    void negativeLengthIsRefusedAtPost()
    {
        assertEquals(PostResult.INVALID_ARGUMENT, requester.queuePair.postWrite(
            1, source, 0, -1, target.address(), target.rkey(), SendFlags.NONE));
        assertEquals(PostResult.INVALID_ARGUMENT, responder.queuePair.postReceive(1, target, 0, -1));
    }

    @Test
    void illegalStateTransitionsAreRefusedWithAClearMessage()
    {
        final Endpoint fresh = new Endpoint(config(tempDir).conclude());
        try
        {
            final IllegalStateException ex = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                fresh.queuePair::modifyToReadyToSend);
            assertTrue(ex.getMessage().contains("RESET"), ex.getMessage());
        }
        finally
        {
            fresh.close();
        }
    }
}
