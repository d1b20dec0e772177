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
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The socket provider's data connection goes from the device with the lower address to the other,
 * and the connection manager's passive side reaches RTR (and so connects) before it sends REP: the
 * hello of a queue pair can reach the other device before that device's queue pair is at RTR. When
 * another queue pair of that device is waiting for its own connection meanwhile, it reads that hello
 * first. The hello must then wait for its queue pair, not be closed: a closed hello leaves its
 * queue pair (a messaging subscriber's, say, in a fan-out) without a connection until the peer
 * timeout.
 */
class SocketConnectionOrderTest
{
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void close()
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(resources.get(i));
        }
    }

    private record End(Device device, CompletionQueue completionQueue, MemoryRegion region, QueuePair first,
        QueuePair second)
    {
    }

    private End open()
    {
        final Device device = RdmaProviders.open(new RdmaConfig().provider("socket").bindAddress("127.0.0.1:0")
            .peerTimeoutMs(10_000).conclude());
        resources.add(device);
        final ProtectionDomain domain = device.allocateProtectionDomain();
        final MemoryRegion region = domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final CompletionQueue completionQueue = device.createCompletionQueue(64);
        final QueuePair first = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, 8, 8, 0));
        final QueuePair second = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, 8, 8, 0));
        first.modifyToInit();
        second.modifyToInit();
        return new End(device, completionQueue, region, first, second);
    }

    @Test
    void aHelloThatArrivesBeforeItsQueuePairIsAtRtrWaitsForItWhileAnotherQueuePairPollsTheListener()
    {
        final End a = open();
        final End b = open();
        // The device whose address sorts first connects; the other one waits for incoming connections.
        final boolean aConnects = a.device().address().compareTo(b.device().address()) < 0;
        final End connecting = aConnects ? a : b;
        final End waiting = aConnects ? b : a;

        // The waiting device's first queue pair reaches RTR and waits for a hello that does not come yet.
        waiting.first().modifyToReadyToReceive(connecting.first().localEndpoint());
        waiting.first().modifyToReadyToSend();
        // The connecting device's second queue pair reaches RTR first: it connects and sends its hello
        // to the waiting device's second queue pair, which is still in INIT.
        connecting.second().modifyToReadyToReceive(waiting.second().localEndpoint());
        connecting.second().modifyToReadyToSend();
        // The waiting device's first queue pair polls the listener and reads that hello.
        final long pollUntilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (System.nanoTime() - pollUntilNs < 0)
        {
            waiting.completionQueue().poll((id, opcode, status, length, imm, qpn) -> { }, 16);
        }
        assertEquals(0, waiting.device().counters().get(DeviceCounters.RESPONDER_MALFORMED),
            "the early hello was kept, not closed as malformed");

        // Only now does the waiting device's second queue pair reach RTR; the kept hello becomes its connection.
        waiting.second().modifyToReadyToReceive(connecting.second().localEndpoint());
        waiting.second().modifyToReadyToSend();
        assertEquals(PostResult.OK, waiting.second().postReceive(7, waiting.region(), 0, 0));
        connecting.region().buffer().putLong(0, 0x0123_4567_89AB_CDEFL);
        assertEquals(PostResult.OK, connecting.second().postWriteWithImmediate(1, connecting.region(), 0, 8,
            waiting.region().address() + 64, waiting.region().rkey(), 42, SendFlags.SIGNALED));

        final List<String> seen = new ArrayList<>();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        boolean received = false;
        boolean sent = false;
        while (!(received && sent) && System.nanoTime() - deadlineNs < 0)
        {
            final boolean[] flags = { received, sent };
            waiting.completionQueue().poll((id, opcode, status, length, imm, qpn) ->
            {
                seen.add("waiting: " + CompletionOpcode.name(opcode) + " " + CompletionStatus.name(status));
                flags[0] |= opcode == CompletionOpcode.RECV_RDMA_WITH_IMM && status == CompletionStatus.SUCCESS &&
                    imm == 42;
            }, 16);
            connecting.completionQueue().poll((id, opcode, status, length, imm, qpn) ->
            {
                seen.add("connecting: " + CompletionOpcode.name(opcode) + " " + CompletionStatus.name(status));
                flags[1] |= id == 1 && status == CompletionStatus.SUCCESS;
            }, 16);
            received = flags[0];
            sent = flags[1];
        }
        assertTrue(received && sent, "the write went over the kept connection; completions: " + seen);
        assertEquals(0x0123_4567_89AB_CDEFL, waiting.region().buffer().getLong(64));
    }
}
