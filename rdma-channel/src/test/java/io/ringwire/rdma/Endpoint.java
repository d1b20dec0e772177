package io.ringwire.rdma;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * One side of a test connection: a device, a protection domain, one completion queue for sends and
 * receives, a queue pair, and the completions polled so far.
 */
public final class Endpoint implements AutoCloseable
{
    public static final int SEND_DEPTH = 16;
    public static final int RECEIVE_DEPTH = 64;

    public final Device device;
    public final ProtectionDomain domain;
    public final CompletionQueue completionQueue;
    public final QueuePair queuePair;
    public final List<Completion> completions = new ArrayList<>();
    private final CompletionHandler collector =
        (id, opcode, status, length, imm, qpn) -> completions.add(new Completion(id, opcode, status, length, imm, qpn));

    public Endpoint(final RdmaConfig config)
    {
        this(config, SEND_DEPTH, RECEIVE_DEPTH);
    }

    public Endpoint(final RdmaConfig config, final int sendDepth, final int receiveDepth)
    {
        device = RdmaProviders.open(config);
        domain = device.allocateProtectionDomain();
        completionQueue = device.createCompletionQueue(1024);
        queuePair = domain.createQueuePair(
            new QueuePairConfig(completionQueue, completionQueue, sendDepth, receiveDepth, device.maxInlineData()));
    }

    /**
     * Connects two endpoints directly (what the connection manager does, without the TCP exchange).
     */
    public static void connect(final Endpoint a, final Endpoint b)
    {
        a.queuePair.modifyToInit();
        b.queuePair.modifyToInit();
        a.queuePair.modifyToReadyToReceive(b.queuePair.localEndpoint());
        b.queuePair.modifyToReadyToReceive(a.queuePair.localEndpoint());
        a.queuePair.modifyToReadyToSend();
        b.queuePair.modifyToReadyToSend();
    }

    public int poll()
    {
        return completionQueue.poll(collector, 64);
    }

    /**
     * Polls every endpoint (so each makes progress) until the condition holds, or fails the test.
     */
    public static void pollUntil(final BooleanSupplier condition, final Duration timeout, final String what,
        final Endpoint... endpoints)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                final StringBuilder sb = new StringBuilder("timed out after " + timeout.toMillis() + " ms waiting for " + what);
                for (final Endpoint e : endpoints)
                {
                    sb.append("\n  ").append(e.queuePair).append(" completions=").append(e.completions);
                }
                fail(sb.toString());
            }
            for (final Endpoint e : endpoints)
            {
                e.poll();
            }
        }
    }

    /**
     * Polls every endpoint for a while and returns: for asserting that nothing arrives.
     */
    public static void pollFor(final Duration duration, final Endpoint... endpoints)
    {
        final long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline)
        {
            for (final Endpoint e : endpoints)
            {
                e.poll();
            }
        }
    }

    @Override
    public void close()
    {
        device.close();
    }
}
