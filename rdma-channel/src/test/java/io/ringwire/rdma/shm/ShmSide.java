package io.ringwire.rdma.shm;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * One side of a test connection: an shm device, a protection domain, one completion queue, a queue
 * pair, a region peers may write, and the completions polled so far.
 */
final class ShmSide implements AutoCloseable
{
    static final int REGION_LENGTH = 64 * 1024;
    static final int SEND_DEPTH = 16;
    static final int RECEIVE_DEPTH = 256;
    static final int COMPLETION_QUEUE_DEPTH = 1024;

    final ShmDevice device;
    final ProtectionDomain domain;
    final CompletionQueue completionQueue;
    final ShmQueuePair queuePair;
    final MemoryRegion region;
    final List<PolledCompletion> completions = new ArrayList<>();
    private final CompletionHandler collector = (id, opcode, status, length, imm, qpn) ->
        completions.add(new PolledCompletion(id, opcode, status, length, imm, qpn));

    ShmSide(final RdmaConfig config, final int inboundRingCapacity)
    {
        device = ShmDevice.open(config, inboundRingCapacity);
        domain = device.allocateProtectionDomain();
        completionQueue = device.createCompletionQueue(COMPLETION_QUEUE_DEPTH);
        queuePair = (ShmQueuePair)domain.createQueuePair(new QueuePairConfig(
            completionQueue, completionQueue, SEND_DEPTH, RECEIVE_DEPTH, device.maxInlineData()));
        region = domain.allocateRegion(REGION_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
    }

    static RdmaConfig config(final Path directory, final long peerTimeoutMs)
    {
        return new RdmaConfig().provider("shm").shmDirectory(directory.toString()).peerTimeoutMs(peerTimeoutMs)
            .maxInlineData(64).conclude();
    }

    /**
     * Connects two sides directly (what the connection manager will do, without its TCP exchange).
     */
    static void connect(final ShmSide a, final ShmSide b)
    {
        a.queuePair.modifyToInit();
        b.queuePair.modifyToInit();
        a.queuePair.modifyToReadyToReceive(b.queuePair.localEndpoint());
        b.queuePair.modifyToReadyToReceive(a.queuePair.localEndpoint());
        a.queuePair.modifyToReadyToSend();
        b.queuePair.modifyToReadyToSend();
    }

    int poll()
    {
        return completionQueue.poll(collector, 64);
    }

    /**
     * Polls the sides (so each makes progress) until the condition holds, or fails the test.
     */
    static void pollUntil(final BooleanSupplier condition, final Duration timeout, final String what,
        final ShmSide... sides)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                final StringBuilder sb = new StringBuilder("timed out after " + timeout.toMillis() + " ms waiting for " + what);
                for (final ShmSide side : sides)
                {
                    sb.append("\n  ").append(side.queuePair).append(" completions=").append(side.completions)
                        .append(' ').append(side.device.counters());
                }
                fail(sb.toString());
            }
            for (final ShmSide side : sides)
            {
                side.poll();
            }
        }
    }

    /**
     * Polls the sides for a while: for asserting that nothing arrives.
     */
    static void pollFor(final Duration duration, final ShmSide... sides)
    {
        final long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() - deadline < 0)
        {
            for (final ShmSide side : sides)
            {
                side.poll();
            }
        }
    }

    @Override
    public void close()
    {
        device.close();
    }
}
