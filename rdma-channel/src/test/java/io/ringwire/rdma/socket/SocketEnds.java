package io.ringwire.rdma.socket;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Socket devices on the loopback for the provider's connection tests: each with a region, a
 * completion queue and two queue pairs in INIT. Closes what it opened.
 */
final class SocketEnds implements AutoCloseable
{
    record End(Device device, CompletionQueue completionQueue, MemoryRegion region, QueuePair first,
        QueuePair second, ProtectionDomain domain)
    {
    }

    private final List<AutoCloseable> resources = new ArrayList<>();

    End open()
    {
        return open(10_000);
    }

    /** @param peerTimeoutMs how long a requester waits for its peer to answer before it is gone. */
    End open(final int peerTimeoutMs)
    {
        return open(peerTimeoutMs, "127.0.0.1:0");
    }

    /** @param bind the device's listening address, host:port ([v6]:port). */
    End open(final int peerTimeoutMs, final String bind)
    {
        final Device device = RdmaProviders.open(new RdmaConfig().provider("socket").bindAddress(bind)
            .peerTimeoutMs(peerTimeoutMs).conclude());
        resources.add(device);
        final ProtectionDomain domain = device.allocateProtectionDomain();
        final MemoryRegion region = domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final CompletionQueue completionQueue = device.createCompletionQueue(64);
        final QueuePair first = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, 8, 8, 0));
        final QueuePair second = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, 8, 8, 0));
        first.modifyToInit();
        second.modifyToInit();
        return new End(device, completionQueue, region, first, second, domain);
    }

    /**
     * Polls an end's completion queue for a while, which drives its device's listener.
     */
    static void pollFor(final End end, final long millis)
    {
        final long untilNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() - untilNs < 0)
        {
            end.completionQueue().poll((id, opcode, status, length, imm, qpn) -> { }, 16);
        }
    }

    /**
     * Writes 8 bytes with an immediate from one queue pair to its connected peer and asserts that
     * both completions arrive and the bytes landed.
     */
    static void assertWriteArrives(final End from, final QueuePair sender, final End to, final QueuePair receiver)
    {
        assertEquals(PostResult.OK, receiver.postReceive(7, to.region(), 0, 0));
        from.region().buffer().putLong(0, 0x0123_4567_89AB_CDEFL);
        assertEquals(PostResult.OK, sender.postWriteWithImmediate(1, from.region(), 0, 8,
            to.region().address() + 64, to.region().rkey(), 42, SendFlags.SIGNALED));

        final List<String> seen = new ArrayList<>();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        final boolean[] done = new boolean[2];
        while (!(done[0] && done[1]) && System.nanoTime() - deadlineNs < 0)
        {
            to.completionQueue().poll((id, opcode, status, length, imm, qpn) ->
            {
                seen.add("receiver: " + CompletionOpcode.name(opcode) + " " + CompletionStatus.name(status));
                done[0] |= opcode == CompletionOpcode.RECV_RDMA_WITH_IMM && status == CompletionStatus.SUCCESS &&
                    imm == 42;
            }, 16);
            from.completionQueue().poll((id, opcode, status, length, imm, qpn) ->
            {
                seen.add("sender: " + CompletionOpcode.name(opcode) + " " + CompletionStatus.name(status));
                done[1] |= id == 1 && status == CompletionStatus.SUCCESS;
            }, 16);
        }
        assertTrue(done[0] && done[1], "the write went over the connection; completions: " + seen);
        assertEquals(0x0123_4567_89AB_CDEFL, to.region().buffer().getLong(64));
    }

    @Override
    public void close()
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(resources.get(i));
        }
    }
}
