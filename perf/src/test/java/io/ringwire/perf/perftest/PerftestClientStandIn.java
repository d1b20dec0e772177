package io.ringwire.perf.perftest;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.SendFlags;
import org.agrona.concurrent.AtomicBuffer;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Plays perftest's client on a roce device, as ib_write_lat and ib_write_bw run it without rdma_cm,
 * to test {@link PerftestPeer} on a host with no RDMA: the same exchange, buffer layout and WRITE
 * pattern (lat: wait for the peer's round, answer it; bw: stream WRITEs stepping through one cycle
 * buffer of the peer's, then the end-of-test sync, the report and the close). Its responder
 * acknowledges at once, as rxe does: the peer's last lat WRITE completes only by that ACK.
 */
final class PerftestClientStandIn implements AutoCloseable
{
    private static final long TIMEOUT_NS = 30_000_000_000L;
    private static final int SEND_DEPTH = 64;

    final Device device;
    private final ProtectionDomain domain;
    private final CompletionQueue completionQueue;
    private final QueuePair queuePair;
    private final Inet4Address address;
    private final CompletionHandler onCompletion = this::completed;
    long sendsCompleted;
    int failedStatus = CompletionStatus.SUCCESS;
    PerftestHandshake.BandwidthReport peerReport;

    PerftestClientStandIn(final String ip) throws IOException
    {
        address = (Inet4Address)InetAddress.getByName(ip);
        device = RdmaProviders.open(new RdmaConfig().provider("roce").bindAddress(ip + ":0").mtu(1024)
            .ackDelayUs(0).conclude());
        domain = device.allocateProtectionDomain();
        completionQueue = device.createCompletionQueue(4 * SEND_DEPTH);
        queuePair = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, SEND_DEPTH, 1,
            device.maxInlineData()));
        queuePair.modifyToInit();
    }

    int rocePort()
    {
        return Integer.parseInt(device.address().substring(device.address().lastIndexOf(':') + 1));
    }

    /**
     * Runs one test against the peer listening at {@code server}, whose roce device listens on
     * {@code peerRocePort} of the address its GID carries.
     *
     * @return the rounds (lat) or WRITEs (bw) completed.
     */
    long run(final PerftestTest test, final InetSocketAddress server, final int peerRocePort, final int size,
        final int iterations, final double reportedAverageMBps) throws IOException
    {
        try (PerftestLink link = PerftestLink.connect(server, this::poll, TIMEOUT_NS))
        {
            final PerftestHandshake.Agreement agreed = PerftestHandshake.negotiate(link,
                PerftestMessages.DEFAULT_CYCLE_BUFFER, PerftestMessages.DEFAULT_CACHE_LINE_SIZE, device.mtu());
            final int half = Math.max(size, agreed.cycleBuffer());
            try (MemoryRegion region = domain.allocateRegion(2 * half, Access.LOCAL_WRITE | Access.REMOTE_WRITE))
            {
                final QueuePairEndpoint local = queuePair.localEndpoint();
                final PerftestKeys mine = new PerftestKeys(0, 1, local.queuePairNumber(), local.startPsn(),
                    region.rkey(), region.address() + half, PerftestKeys.MAPPED_GID_HIGH,
                    PerftestKeys.mappedGidLow(address), 0);
                PerftestKeys theirs = null;
                for (int i = 0; i < test.keysBeforeConnect(); i++)
                {
                    theirs = PerftestHandshake.exchangeKeys(link, mine);
                }
                queuePair.modifyToReadyToReceive(new QueuePairEndpoint(theirs.queuePairNumber(), theirs.psn(),
                    theirs.ipv4Address().getHostAddress() + ":" + peerRocePort, agreed.mtu(),
                    QueuePairEndpoint.DEFAULT_PARTITION_KEY));
                queuePair.modifyToReadyToSend();
                for (int i = 0; i < PerftestHandshake.KEYS_AFTER_CONNECT; i++)
                {
                    theirs = PerftestHandshake.exchangeKeys(link, mine);
                }
                if (PerftestTest.LAT == test)
                {
                    return latency(region, half, size, iterations, theirs);
                }
                final long written = stream(region, size, iterations, agreed, theirs);
                PerftestHandshake.exchangeKeys(link, mine);
                peerReport = PerftestHandshake.exchangeReport(link, new PerftestHandshake.BandwidthReport(size,
                    iterations, reportedAverageMBps, reportedAverageMBps, 0.25));
                PerftestHandshake.close(link, mine);
                return written;
            }
        }
    }

    private long latency(final MemoryRegion region, final int half, final int size, final int iterations,
        final PerftestKeys theirs)
    {
        final AtomicBuffer memory = region.buffer();
        long rounds = 0;
        for (int n = 1; n <= iterations; n++)
        {
            final long deadline = System.nanoTime() + TIMEOUT_NS;
            while (memory.getByteVolatile(half + size - 1) != (byte)n)
            {
                poll();
                if (System.nanoTime() - deadline > 0)
                {
                    throw new AssertionError("round " + n + ": the peer's WRITE never came");
                }
            }
            rounds++;
            memory.putByte(size - 1, (byte)n);
            post(n, region, 0, size, theirs.virtualAddress(), theirs.rkey());
            awaitSends(n);
        }
        return rounds;
    }

    private long stream(final MemoryRegion region, final int size, final int iterations,
        final PerftestHandshake.Agreement agreed, final PerftestKeys theirs)
    {
        final int step = size > agreed.cacheLineSize() ?
            (size + agreed.cacheLineSize() - 1) / agreed.cacheLineSize() * agreed.cacheLineSize() : agreed.cacheLineSize();
        final boolean cycles = size <= agreed.cycleBuffer() / 2;
        long offset = 0;
        for (int n = 0; n < iterations; n++)
        {
            awaitSends(n + 1 - SEND_DEPTH);
            post(n, region, 0, size, theirs.virtualAddress() + offset, theirs.rkey());
            if (cycles)
            {
                offset = (n + 1) % (agreed.cycleBuffer() / step) == 0 ? 0 : offset + step;
            }
        }
        awaitSends(iterations);
        return sendsCompleted;
    }

    private void post(final long id, final MemoryRegion region, final int offset, final int size,
        final long remoteAddress, final int rkey)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        int result;
        while (PostResult.QUEUE_FULL == (result = queuePair.postWrite(id, region, offset, size, remoteAddress, rkey,
            SendFlags.SIGNALED)) && System.nanoTime() - deadline < 0)
        {
            poll();
        }
        if (PostResult.OK != result)
        {
            throw new AssertionError("posting WRITE " + id + ": " + PostResult.name(result));
        }
    }

    private void awaitSends(final long count)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (sendsCompleted < count)
        {
            poll();
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError(sendsCompleted + " of " + count + " WRITEs completed");
            }
        }
    }

    private void poll()
    {
        completionQueue.poll(onCompletion, 16);
        if (CompletionStatus.SUCCESS != failedStatus)
        {
            throw new AssertionError("a WRITE to the peer failed: " + CompletionStatus.name(failedStatus));
        }
    }

    private void completed(final long workRequestId, final int opcode, final int status, final int byteLength,
        final int immediate, final int queuePairNumber)
    {
        if (CompletionStatus.SUCCESS == status)
        {
            sendsCompleted++;
        }
        else
        {
            failedStatus = status;
        }
    }

    @Override
    public void close()
    {
        device.close();
    }
}
