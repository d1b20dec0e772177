package io.ringwire.rdma.ibverbs;

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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.ringwire.rdma.Endpoint.pollFor;
import static io.ringwire.rdma.Endpoint.pollUntil;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Requests the responder's NIC refuses, checked as far as verbs can report them. The contract's
 * refused-remote-write tests without their responder counters (which verbs cannot keep, see
 * {@link ResponderCountersStayInTheNic}): the requester gets REMOTE_ACCESS_ERROR for an unsignaled
 * WRITE WITH IMMEDIATE, its queue pair goes to ERROR, the responder gets no successful receive, and
 * not one byte of the responder's region changes. And a SEND too long for the receive buffer, whose
 * statuses kernel rxe reports differently from the IBA (see {@link RxeLengthErrorDeviation}): both
 * sides fail, both queue pairs end in ERROR, nothing is copied. Run per library by subclasses.
 */
abstract class IbverbsRefusedRequestsTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int REGION_LENGTH = 64 * 1024;

    private Endpoint requester;
    private Endpoint responder;
    private MemoryRegion source;
    private MemoryRegion target;

    /**
     * @return a configuration of provider ibverbs, not concluded.
     */
    protected abstract RdmaConfig config();

    @BeforeEach
    void connect()
    {
        requester = new Endpoint(config().conclude());
        responder = new Endpoint(config().conclude());
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

    private void assertRefusedAndNothingWritten(final long remoteAddress, final int rkey, final MemoryRegion watched)
    {
        source.buffer().setMemory(0, 64, (byte)0x5A);
        assertEquals(PostResult.OK, responder.queuePair.postReceive(1, target, 0, 0));
        assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(10, source, 0, 64, remoteAddress, rkey,
            1234, SendFlags.NONE));

        pollUntil(() -> !requester.completions.isEmpty(), TIMEOUT, "remote access error", requester, responder);
        pollFor(Duration.ofMillis(50), requester, responder);
        final Completion error = requester.completions.get(0);
        assertEquals(10, error.workRequestId());
        assertEquals(CompletionOpcode.RDMA_WRITE, error.opcode());
        assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, error.status(), "unsignaled failure still completes");
        assertEquals(QueuePairState.ERROR, requester.queuePair.state());
        for (final Completion completion : responder.completions)
        {
            assertTrue(completion.status() != CompletionStatus.SUCCESS, "no successful receive: " + completion);
        }
        assertArrayEquals(new byte[watched.length()], bytesOf(watched), "responder region unchanged");
        assertArrayEquals(new byte[REGION_LENGTH], bytesOf(target), "responder ring unchanged");
    }

    private static byte[] bytesOf(final MemoryRegion region)
    {
        final byte[] bytes = new byte[region.length()];
        region.buffer().getBytes(0, bytes);
        return bytes;
    }

    @Test
    void sendLargerThanTheReceiveBufferFailsBothSidesAndCopiesNothing()
    {
        source.buffer().setMemory(0, 64, (byte)0x5A);
        assertEquals(PostResult.OK, responder.queuePair.postReceive(1, target, 0, 16));
        assertEquals(PostResult.OK, requester.queuePair.postSend(2, source, 0, 64, SendFlags.NONE));

        pollUntil(() -> !responder.completions.isEmpty() && !requester.completions.isEmpty(), TIMEOUT,
            "error completions", requester, responder);
        final Completion receive = responder.completions.get(0);
        assertEquals(1, receive.workRequestId());
        assertEquals(CompletionOpcode.RECV, receive.opcode());
        assertTrue(receive.status() != CompletionStatus.SUCCESS, receive.toString());
        final Completion send = requester.completions.get(0);
        assertEquals(2, send.workRequestId());
        assertEquals(CompletionOpcode.SEND, send.opcode());
        assertTrue(send.status() != CompletionStatus.SUCCESS, send.toString());
        pollUntil(() -> responder.queuePair.state() == QueuePairState.ERROR &&
            requester.queuePair.state() == QueuePairState.ERROR, TIMEOUT, "both queue pairs in ERROR", requester,
            responder);
        assertArrayEquals(new byte[REGION_LENGTH], bytesOf(target), "nothing copied into the too-small buffer");
    }

    @Test
    void writeWithUnknownRkeyIsRefusedAndNothingIsWritten()
    {
        assertRefusedAndNothingWritten(target.address(), target.rkey() + 1000, target);
    }

    @Test
    void writePastTheEndOfTheRegionIsRefusedAndNothingIsWritten()
    {
        assertRefusedAndNothingWritten(target.address() + REGION_LENGTH - 32, target.rkey(), target);
    }

    @Test
    void writeBeforeTheStartOfTheRegionIsRefusedAndNothingIsWritten()
    {
        assertRefusedAndNothingWritten(target.address() - 8, target.rkey(), target);
    }

    @Test
    void writeWhoseAddressOverflowsIsRefusedAndNothingIsWritten()
    {
        assertRefusedAndNothingWritten(Long.MAX_VALUE - 8, target.rkey(), target);
    }

    @Test
    void writeToARegionWithoutRemoteWriteIsRefusedAndNothingIsWritten()
    {
        final MemoryRegion localOnly = responder.domain.allocateRegion(4096, Access.LOCAL_WRITE);
        assertRefusedAndNothingWritten(localOnly.address(), localOnly.rkey(), localOnly);
    }

    @Test
    void writeToADeregisteredRegionIsRefusedAndNothingIsWritten()
    {
        final MemoryRegion doomed = responder.domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final long address = doomed.address();
        final int rkey = doomed.rkey();
        doomed.close();
        assertRefusedAndNothingWritten(address, rkey, target);
    }
}
