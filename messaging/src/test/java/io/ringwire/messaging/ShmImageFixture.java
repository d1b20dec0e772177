package io.ringwire.messaging;

import io.ringwire.messaging.protocol.JoinLayout;
import io.ringwire.messaging.status.SubscriptionCounters;
import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import org.agrona.CloseHelper;

import java.nio.file.Path;

/**
 * What an image needs beside its frames, on a real shm device, for the tests that drive an
 * {@link Image} directly: its ring, credit and JOIN regions, a queue pair, and the subscription's
 * counters.
 */
final class ShmImageFixture implements AutoCloseable
{
    final Device device;
    final SubscriptionCounters counters;
    final MemoryRegion ring;
    final MemoryRegion credit;
    final MemoryRegion join;
    final QueuePair queuePair;

    /**
     * @param directory the test's directory (shm files, counters).
     * @param capacity  the ring's bytes.
     * @param stream    the stream the counters are named for.
     */
    ShmImageFixture(final Path directory, final int capacity, final int stream)
    {
        final MessagingContext context = new MessagingContext().secret("s")
            .countersDirectory(directory.resolve("counters").toString()).conclude();
        device = RdmaProviders.open(new RdmaConfig().provider("shm").shmDirectory(directory.resolve("shm").toString())
            .conclude());
        counters = SubscriptionCounters.create(context, ChannelUri.parse("ringwire:shm?endpoint=127.0.0.1:1"), stream,
            device.counters());
        final ProtectionDomain domain = device.allocateProtectionDomain();
        final CompletionQueue completions = device.createCompletionQueue(1024);
        ring = domain.allocateRegion(capacity, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        credit = domain.allocateRegion(64, Access.LOCAL_WRITE);
        join = domain.allocateRegion(JoinLayout.REGION_LENGTH, Access.LOCAL_WRITE);
        queuePair = domain.createQueuePair(new QueuePairConfig(completions, completions, 64, 64, 0));
    }

    @Override
    public void close()
    {
        CloseHelper.quietCloseAll(counters, device);
    }
}
