package io.ringwire.rdma.socket;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * When the socket provider's responder acknowledges: in the progress round after the one that
 * executed a request, so an ACK never goes before the application's answer. A one-way connection
 * (the responder sends the requester nothing, as a messaging subscriber's queue pair does) gets an
 * ACK for every request even when none asked, so the kernel never has to send a pure TCP ACK from
 * the read of the next request; a connection on which the responder answers gets ACKs only where
 * asked, since the answers carry the TCP acknowledgements.
 */
class SocketAcknowledgementTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final int REQUESTS = 20;
    /** Long enough that no ACK goes by the time bound while a test exchanges its requests. */
    private static final long PEER_TIMEOUT_MS = 10_000;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private End requester;
    private End responder;
    private long immediates;

    private record End(Device device, CompletionQueue completionQueue, MemoryRegion region, QueuePair queuePair)
    {
    }

    @BeforeEach
    void connect()
    {
        requester = open(PEER_TIMEOUT_MS);
        responder = open(PEER_TIMEOUT_MS);
        for (int i = 0; i < REQUESTS; i++)
        {
            assertEquals(PostResult.OK, responder.queuePair().postReceive(i, responder.region(), 0, 0));
            assertEquals(PostResult.OK, requester.queuePair().postReceive(i, requester.region(), 0, 0));
        }
        requester.queuePair().modifyToReadyToReceive(responder.queuePair().localEndpoint());
        responder.queuePair().modifyToReadyToReceive(requester.queuePair().localEndpoint());
        requester.queuePair().modifyToReadyToSend();
        responder.queuePair().modifyToReadyToSend();
    }

    @AfterEach
    void close()
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(resources.get(i));
        }
    }

    private End open(final long peerTimeoutMs)
    {
        final Device device = RdmaProviders.open(new RdmaConfig().provider("socket").bindAddress("127.0.0.1:0")
            .peerTimeoutMs(peerTimeoutMs).conclude());
        resources.add(device);
        final ProtectionDomain domain = device.allocateProtectionDomain();
        final MemoryRegion region = domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final CompletionQueue completionQueue = device.createCompletionQueue(256);
        // A send queue of 64: an unsignaled request asks for an ACK only every 16th (a quarter of it).
        final QueuePair queuePair = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, 64,
            REQUESTS, 0));
        queuePair.modifyToInit();
        return new End(device, completionQueue, region, queuePair);
    }

    private static long acknowledgementsSent(final End end)
    {
        return end.device().counters().get(DeviceCounters.ACKNOWLEDGEMENTS_SENT);
    }

    /** Polls both ends until the condition holds. */
    private void drive(final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail("timed out waiting for " + what);
            }
            pollOnce(requester);
            pollOnce(responder);
        }
    }

    private void pollOnce(final End end)
    {
        end.completionQueue().poll((workRequestId, opcode, status, byteLength, immediate, queuePairNumber) ->
        {
            assertEquals(CompletionStatus.SUCCESS, status, "completion of " + CompletionOpcode.name(opcode));
            if (opcode == CompletionOpcode.RECV_RDMA_WITH_IMM)
            {
                immediates++;
            }
        }, 16);
    }

    private void write(final End from, final End to, final int index)
    {
        assertEquals(PostResult.OK, from.queuePair().postWriteWithImmediate(index, from.region(), 0, 8,
            to.region().address() + 64, to.region().rkey(), index, SendFlags.NONE));
    }

    @Test
    void aOneWayConnectionGetsAnAckForEveryRequestInTheRoundAfterItWasExecuted()
    {
        for (int i = 0; i < REQUESTS; i++)
        {
            final long expected = immediates + 1;
            write(requester, responder, i);
            drive(() -> immediates == expected, "request " + expected);
            assertEquals(i, acknowledgementsSent(responder), "no ACK in the round that executed request " + i);
            pollOnce(responder);
            assertEquals(i + 1, acknowledgementsSent(responder), "request " + i + " acknowledged in the next round");
        }
    }

    @Test
    void anExecutedRequestIsAcknowledgedWithinAQuarterOfThePeerTimeoutEvenWhenNothingAskedAndItWasAnswered()
    {
        close();
        resources.clear();
        // Long enough that a loaded machine's stall of this one driving thread is far inside it.
        final long peerTimeoutMs = 4_000;
        requester = open(peerTimeoutMs);
        responder = open(peerTimeoutMs);
        assertEquals(PostResult.OK, responder.queuePair().postReceive(0, responder.region(), 0, 0));
        assertEquals(PostResult.OK, requester.queuePair().postReceive(0, requester.region(), 0, 0));
        requester.queuePair().modifyToReadyToReceive(responder.queuePair().localEndpoint());
        responder.queuePair().modifyToReadyToReceive(requester.queuePair().localEndpoint());
        requester.queuePair().modifyToReadyToSend();
        responder.queuePair().modifyToReadyToSend();

        write(requester, responder, 0);
        drive(() -> immediates == 1, "the request");
        write(responder, requester, 0); // answered on the same connection: no ACK for the TCP's sake
        drive(() -> immediates == 2, "the answer");
        assertEquals(0, acknowledgementsSent(responder), "nothing asked, and the answer carries TCP's ACK");

        final long startNs = System.nanoTime();
        drive(() -> acknowledgementsSent(responder) == 1, "the ACK the time bound sends");
        final long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        assertTrue(waitedMs < peerTimeoutMs / 2, "acknowledged after " + waitedMs + " ms");
        assertEquals(1, acknowledgementsSent(responder));
        assertEquals(0, requester.device().counters().get(DeviceCounters.PEERS_LOST), "the requester's timer was fed");
    }

    @Test
    void aConnectionTheResponderAnswersOnGetsAcksOnlyWhereTheRequesterAskedForThem()
    {
        for (int i = 0; i < REQUESTS; i++)
        {
            final long request = immediates + 1;
            write(requester, responder, i);
            drive(() -> immediates == request, "request " + request);
            write(responder, requester, i); // the answer, on the same connection
            final long answer = immediates + 1;
            drive(() -> immediates == answer, "answer " + answer);
        }
        pollOnce(responder);
        pollOnce(requester);
        // One in 16 unsignaled requests asks for an ACK (a quarter of the send queue of 64).
        assertTrue(acknowledgementsSent(responder) <= REQUESTS / 16 + 1,
            "ACKs sent: " + acknowledgementsSent(responder) + " for " + REQUESTS + " answered requests");
    }
}
