package io.ringwire.rdma.ibverbs;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.Completion;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.SendFlags;
import org.agrona.concurrent.AtomicBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The provider's native side against the fake libibverbs ({@code src/test/c/fake_ibverbs.c}): what
 * reaches the "driver" through the structs (verbs attributes of each transition, the GID, the
 * immediate's byte order), and what the provider makes of the driver's answers (rounded-up queue
 * depths, undefined completion fields, ENOMEM from registration, a NULL device list).
 */
class IbverbsFakeDeviceTest
{
    private final List<Completion> completions = new ArrayList<>();
    private Device device;
    private ProtectionDomain domain;
    private CompletionQueue completionQueue;
    private QueuePair requester;
    private QueuePair responder;
    private MemoryRegion source;
    private MemoryRegion target;

    private static RdmaConfig config()
    {
        return new RdmaConfig().provider("ibverbs").ackTimeoutUs(2000).retryCount(6).rnrRetryCount(7).conclude();
    }

    @BeforeEach
    void open() throws Exception
    {
        device = new IbverbsProvider(FakeVerbs.library()).open(config());
        domain = device.allocateProtectionDomain();
        completionQueue = device.createCompletionQueue(256);
        requester = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, 16, 64, 64));
        responder = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, 16, 64, 64));
        source = domain.allocateRegion(64 * 1024, Access.LOCAL_WRITE);
        target = domain.allocateRegion(64 * 1024, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
    }

    @AfterEach
    void close() throws Throwable
    {
        FakeVerbs.memlock(-1);
        FakeVerbs.noDevice(false);
        if (null != device)
        {
            device.close();
        }
    }

    private void connect()
    {
        requester.modifyToInit();
        responder.modifyToInit();
        requester.modifyToReadyToReceive(responder.localEndpoint());
        responder.modifyToReadyToReceive(requester.localEndpoint());
        requester.modifyToReadyToSend();
        responder.modifyToReadyToSend();
    }

    private int poll()
    {
        return completionQueue.poll((id, opcode, status, length, imm, qpn) ->
            completions.add(new Completion(id, opcode, status, length, imm, qpn)), 64);
    }

    /**
     * A publication closes a queue pair on its own thread while the connection handshake may be
     * moving it on another: the close must wait for a transition in progress, and what comes after
     * the close must fail on the closed check, never hand libibverbs a destroyed queue pair (the
     * fake counts calls naming one: a real driver would use freed memory).
     */
    @Test
    void aCloseOnOneThreadNeverDestroysTheQueuePairUnderACallOnAnother() throws Throwable
    {
        final int staleBefore = FakeVerbs.staleQueuePairCalls();
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int round = 0; round < 500; round++)
        {
            final IbverbsQueuePair queuePair = (IbverbsQueuePair)domain.createQueuePair(
                new QueuePairConfig(completionQueue, completionQueue, 16, 16, 64));
            queuePair.modifyToInit();
            final CountDownLatch asking = new CountDownLatch(1);
            final AtomicReference<Throwable> unexpected =
                new AtomicReference<>();
            final Thread asker = new Thread(() ->
            {
                asking.countDown();
                try
                {
                    while (!queuePair.isClosed())
                    {
                        queuePair.state(); // in INIT: ibv_query_qp each time
                    }
                }
                catch (final Throwable ex)
                {
                    unexpected.set(ex);
                }
            });
            asker.start();
            asking.await();
            for (int spin = random.nextInt(20_000); spin > 0; spin--)
            {
                Thread.onSpinWait();
            }
            queuePair.close();
            asker.join();
            assertNull(unexpected.get(), () -> "round: " + unexpected.get());
            assertThrows(IllegalStateException.class, () -> queuePair.modifyToReadyToReceive(responder.localEndpoint()),
                "a transition after the close fails on the closed check");
        }
        assertEquals(staleBefore, FakeVerbs.staleQueuePairCalls(), "calls that named a destroyed queue pair");
    }

    @Test
    void theDeviceReportsItsGidAsAnAddressAndThePortsLimits() throws Exception
    {
        assertNull(new IbverbsProvider(FakeVerbs.library()).unavailableReason(config()));
        assertEquals("fake0", device.name());
        assertEquals("ibverbs", device.providerName());
        assertEquals("10.9.8.7:4791", device.address(), "GID 1 is ::ffff:10.9.8.7");
        assertEquals(1024, device.mtu(), "the port's active MTU, below the configured 4096");
        assertEquals(1 << 23, device.maxMessageSize(), "the port's max_msg_sz");
        assertEquals(256, device.maxInlineData(), "the configured maximum; the driver grants it");
        assertEquals(0, target.address() % 4096, "page-aligned");
    }

    @Test
    void moreInlineDataThanTheDriverSupportsIsCappedAtItsLimit() throws Exception
    {
        try (Device big = new IbverbsProvider(FakeVerbs.library()).open(
            new RdmaConfig().provider("ibverbs").maxInlineData(1000).conclude()))
        {
            assertEquals(400, big.maxInlineData(), "the fake, like rxe, refuses more than 400 bytes inline");
        }
    }

    @Test
    void connectingGivesTheDriverTheAttributesRoceNeeds() throws Throwable
    {
        connect();
        final int requesterQpn = requester.queuePairNumber();
        final int responderQpn = responder.queuePairNumber();
        assertEquals(VerbsValues.IBV_QPS_RTS, FakeVerbs.attribute(requesterQpn, FakeVerbs.STATE));
        assertEquals(Access.ALL, FakeVerbs.attribute(requesterQpn, FakeVerbs.ACCESS_FLAGS));
        assertEquals(1, FakeVerbs.attribute(requesterQpn, FakeVerbs.PORT_NUM));
        assertEquals(0, FakeVerbs.attribute(requesterQpn, FakeVerbs.PKEY_INDEX));

        assertEquals(responderQpn, FakeVerbs.attribute(requesterQpn, FakeVerbs.DEST_QPN));
        assertEquals(responder.localEndpoint().startPsn(), FakeVerbs.attribute(requesterQpn, FakeVerbs.RQ_PSN));
        assertEquals(requester.localEndpoint().startPsn(), FakeVerbs.attribute(requesterQpn, FakeVerbs.SQ_PSN));
        assertEquals(3, FakeVerbs.attribute(requesterQpn, FakeVerbs.PATH_MTU), "IBV_MTU_1024");
        assertEquals(1, FakeVerbs.attribute(requesterQpn, FakeVerbs.SGID_INDEX));
        assertEquals(1, FakeVerbs.attribute(requesterQpn, FakeVerbs.IS_GLOBAL));
        assertEquals(64, FakeVerbs.attribute(requesterQpn, FakeVerbs.HOP_LIMIT));
        assertEquals(12, FakeVerbs.attribute(requesterQpn, FakeVerbs.MIN_RNR_TIMER));
        assertEquals(1, FakeVerbs.attribute(requesterQpn, FakeVerbs.MAX_DEST_RD_ATOMIC));
        assertEquals(1, FakeVerbs.attribute(requesterQpn, FakeVerbs.MAX_RD_ATOMIC));
        assertArrayEquals(new byte[]{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte)0xFF, (byte)0xFF, 10, 9, 8, 7 },
            FakeVerbs.destinationGid(requesterQpn), "the peer's address as an IPv4-mapped GID");

        assertEquals(9, FakeVerbs.attribute(requesterQpn, FakeVerbs.TIMEOUT), "4.096 us * 2^9 = 2.1 ms >= 2000 us");
        assertEquals(6, FakeVerbs.attribute(requesterQpn, FakeVerbs.RETRY_CNT));
        assertEquals(7, FakeVerbs.attribute(requesterQpn, FakeVerbs.RNR_RETRY));
        assertEquals(127, FakeVerbs.attribute(requesterQpn, FakeVerbs.MAX_RECV_WR), "the driver rounds 64 up");
        assertEquals(QueuePairState.READY_TO_SEND, requester.state());
    }

    @Test
    void theImmediateIsPostedInNetworkByteOrderAndDeliveredInHostOrder() throws Throwable
    {
        connect();
        assertEquals(PostResult.OK, responder.postReceive(7, target, 0, 0));
        source.buffer().putLong(0, 0x1122334455667788L);
        assertEquals(PostResult.OK, requester.postWriteWithImmediate(1, source, 0, 8, target.address() + 64,
            target.rkey(), 0x01020304, SendFlags.NONE));
        assertEquals(0x01020304, FakeVerbs.lastImmediate());
        poll();
        assertEquals(List.of(new Completion(7, CompletionOpcode.RECV_RDMA_WITH_IMM, CompletionStatus.SUCCESS, 8,
            0x01020304, responder.queuePairNumber())), completions);
        assertEquals(0x1122334455667788L, target.buffer().getLong(64));
    }

    @Test
    void completionsReportTheRequestsOpcodeAndLengthWhereTheDriverLeavesThemUndefined()
    {
        connect();
        // The fake writes garbage into byte_len of send completions and opcode/byte_len of errors.
        assertEquals(PostResult.OK, requester.postWrite(1, source, 0, 100, target.address(), target.rkey(),
            SendFlags.SIGNALED));
        assertEquals(PostResult.OK, requester.postWrite(2, source, 0, 100, target.address(), target.rkey() + 1,
            SendFlags.NONE));
        poll();
        assertEquals(List.of(
            new Completion(1, CompletionOpcode.RDMA_WRITE, CompletionStatus.SUCCESS, 100, 0, requester.queuePairNumber()),
            new Completion(2, CompletionOpcode.RDMA_WRITE, CompletionStatus.REMOTE_ACCESS_ERROR, 100, 0,
                requester.queuePairNumber())), completions);
        assertEquals(QueuePairState.ERROR, requester.state());
    }

    @Test
    void anInlineRangeOutsideTheRegionIsFailedByTheNicNotReadByTheDriver()
    {
        connect();
        // The fake aborts the JVM if an INLINE payload is outside every region: it must arrive without INLINE.
        assertEquals(PostResult.OK, requester.postWrite(3, source, source.length() - 10, 64, target.address(),
            target.rkey(), SendFlags.INLINE));
        poll();
        assertEquals(List.of(new Completion(3, CompletionOpcode.RDMA_WRITE, CompletionStatus.LOCAL_PROTECTION_ERROR, 64,
            0, requester.queuePairNumber())), completions);
        assertEquals(QueuePairState.ERROR, requester.state());
    }

    @Test
    void unsignaledRequestsAloneNeverWedgeTheSendQueue()
    {
        connect();
        int accepted = 0;
        for (int attempts = 0; accepted < 1000 && attempts < 100_000; attempts++)
        {
            final int result = requester.postWrite(accepted, source, 0, 8, target.address(), target.rkey(),
                SendFlags.NONE);
            if (result == PostResult.OK)
            {
                accepted++;
            }
            else
            {
                assertEquals(PostResult.QUEUE_FULL, result);
                poll();
            }
        }
        poll();
        assertEquals(1000, accepted, "the provider's own signaled requests drain the queue");
        assertEquals(List.of(), completions, "and their completions are not delivered");
    }

    @Test
    void aDeregisteredOrForeignRegionIsRefusedAtPost()
    {
        connect();
        final MemoryRegion doomed = domain.allocateRegion(4096, Access.LOCAL_WRITE);
        doomed.close();
        assertEquals(PostResult.INVALID_ARGUMENT, requester.postWrite(1, doomed, 0, 8, target.address(), target.rkey(),
            SendFlags.NONE));
        final ProtectionDomain other = device.allocateProtectionDomain();
        final MemoryRegion foreign = other.allocateRegion(4096, Access.LOCAL_WRITE);
        assertEquals(PostResult.INVALID_ARGUMENT, requester.postSend(1, foreign, 0, 8, SendFlags.NONE));
        assertEquals(PostResult.INVALID_ARGUMENT, responder.postReceive(1, foreign, 0, 8));
    }

    @Test
    void aClosedCompletionQueueIsRefusedForANewQueuePairRatherThanHandedToTheDriver()
    {
        final CompletionQueue closed = device.createCompletionQueue(16);
        closed.close();
        assertThrows(IllegalStateException.class,
            () -> domain.createQueuePair(new QueuePairConfig(closed, completionQueue, 16, 16, 0)));
        assertThrows(IllegalStateException.class,
            () -> domain.createQueuePair(new QueuePairConfig(completionQueue, closed, 16, 16, 0)));
    }

    @Test
    void aCompletionQueueAQueuePairUsesRefusesToCloseAndClosesOnceThatQueuePairIs() throws Throwable
    {
        final int before = FakeVerbs.liveCompletionQueues();
        final CompletionQueue used = device.createCompletionQueue(16);
        final QueuePair user = domain.createQueuePair(new QueuePairConfig(used, used, 16, 16, 0));
        assertThrows(RdmaException.class, used::close, "EBUSY from the driver");
        assertEquals(0, used.poll((id, opcode, status, length, imm, qpn) -> { }, 8), "still open: it polls");
        user.close();
        used.close();
        assertEquals(before, FakeVerbs.liveCompletionQueues(), "destroyed once its queue pair was gone");
    }

    @Test
    void aClosedRegionsBufferPointsAtNothingSoAStaleWriteFailsRatherThanLandInFreedMemory()
    {
        final MemoryRegion doomed = domain.allocateRegion(4096, Access.LOCAL_WRITE);
        final AtomicBuffer stale = doomed.buffer();
        stale.putLong(0, 1);
        doomed.close();
        assertEquals(0, stale.capacity());
        assertThrows(IndexOutOfBoundsException.class, () -> stale.putLong(0, 2));
    }

    @Test
    void aReceivePostedAfterTheNicFailedTheQueuePairButBeforeItsErrorWasPolledIsFlushed()
    {
        receivePostedAfterTheNicFailedIsFlushed(false);
    }

    @Test
    void aReceivePostedAfterTheNicFailedIsFlushedEvenWhereAStateQueryLearnedOfTheFailureFirst()
    {
        receivePostedAfterTheNicFailedIsFlushed(true);
    }

    private void receivePostedAfterTheNicFailedIsFlushed(final boolean queryFirst)
    {
        connect();
        // The bad rkey fails the write at once: the NIC's queue pair is in ERR, the provider has not heard.
        assertEquals(PostResult.OK, requester.postWrite(1, source, 0, 8, target.address(), target.rkey() + 1,
            SendFlags.SIGNALED));
        assertEquals(PostResult.OK, requester.postReceive(7, source, 0, 8), "the driver takes it, as rxe's does");
        if (queryFirst)
        {
            assertEquals(QueuePairState.ERROR, requester.state(), "asked, the NIC tells of the failure");
        }
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (completions.stream().noneMatch(completion -> completion.workRequestId() == 7))
        {
            assertTrue(System.nanoTime() < deadline, "the receive never completed: " + completions);
            poll();
        }
        final Completion receive = completions.stream().filter(completion -> completion.workRequestId() == 7)
            .findFirst().orElseThrow();
        assertEquals(CompletionStatus.WR_FLUSH_ERROR, receive.status());
        assertEquals(QueuePairState.ERROR, requester.state());
    }

    @Test
    void aReceiveOfNegativeLengthIsRefusedInErrorToo()
    {
        connect();
        responder.modifyToError();
        assertEquals(PostResult.INVALID_ARGUMENT, responder.postReceive(1, target, 0, -1));
        assertEquals(PostResult.OK, responder.postReceive(2, target, 0, 8), "a good one is flushed");
    }

    @Test
    void aRegistrationTheDriverRefusesForLackOfLockedMemorySaysHowToRaiseTheLimit() throws Throwable
    {
        final int length = 16 << 20;
        FakeVerbs.memlock(length - 1);
        final RdmaException ex = assertThrows(RdmaException.class, () -> domain.allocateRegion(length, Access.LOCAL_WRITE));
        assertTrue(ex.getMessage().startsWith("ibv_reg_mr of 16777216 bytes (LOCAL_WRITE) on fake0 failed with ENOMEM"),
            ex.getMessage());
        final long limit = LockedMemoryLimit.current();
        if (limit >= 0 && limit < length + 2 * 64 * 1024)
        {
            assertTrue(ex.getMessage().contains(": memlock limit " + limit + " is too low for a region of 16777216 " +
                "bytes (131072 bytes already registered): raise it (ulimit -l unlimited, or LimitMEMLOCK= in systemd)"),
                ex.getMessage());
        }
        else
        {
            assertTrue(ex.getMessage().contains("(memlock limit "), ex.getMessage());
        }
    }

    @Test
    void aNullDeviceListIsReportedAsAKernelWithoutRdma() throws Throwable
    {
        FakeVerbs.noDevice(true);
        final String reason = new IbverbsProvider(FakeVerbs.library()).unavailableReason(config());
        assertEquals(DeviceList.noDeviceMessage(Errno.ENOSYS), reason);
        final RdmaException ex = assertThrows(RdmaException.class,
            () -> new IbverbsProvider(FakeVerbs.library()).open(config()));
        assertEquals(reason, ex.getMessage());
    }

    @Test
    void aPeerAddressThatIsNotAnIpLiteralIsRefusedWithTheExpectedFormat()
    {
        requester.modifyToInit();
        final RdmaException ex = assertThrows(RdmaException.class, () -> requester.modifyToReadyToReceive(
            new io.ringwire.rdma.QueuePairEndpoint(0x20, 1, "/dev/shm/ringwire 1234", 1024, 0xFFFF)));
        assertTrue(ex.getMessage().contains("is not a RoCE device address: expected a.b.c.d:4791"), ex.getMessage());
    }
}
