package io.ringwire.rdma.socket;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

final class SocketQueuePairNumbersTest
{
    @Test
    void queuePairNumbersComingRoundSkipTheReservedOnesAndThoseOfOpenQueuePairs()
    {
        try (SocketDevice device = (SocketDevice)RdmaProviders.open(new RdmaConfig().provider("socket")
            .bindAddress("127.0.0.1:0").conclude()))
        {
            final ProtectionDomain domain = device.allocateProtectionDomain();
            domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final CompletionQueue completionQueue = device.createCompletionQueue(64);
            final QueuePairConfig config = new QueuePairConfig(completionQueue, completionQueue, 8, 8, 0);
            final QueuePair first = domain.createQueuePair(config);
            device.nextQueuePairNumber(0xFF_FFFF); // the 24-bit numbers about to come round
            assertEquals(0xFF_FFFF, domain.createQueuePair(config).queuePairNumber());
            assertEquals(2, domain.createQueuePair(config).queuePairNumber(), "0 and 1 are skipped");

            device.nextQueuePairNumber(first.queuePairNumber());
            final QueuePair next = domain.createQueuePair(config);
            assertEquals(first.queuePairNumber() + 1, next.queuePairNumber(), "an open queue pair's number is skipped");

            first.close();
            device.nextQueuePairNumber(first.queuePairNumber());
            final QueuePair again = domain.createQueuePair(config);
            assertEquals(first.queuePairNumber(), again.queuePairNumber(), "a closed queue pair's number is given again");
            assertNotEquals(first, again);
        }
    }
}
