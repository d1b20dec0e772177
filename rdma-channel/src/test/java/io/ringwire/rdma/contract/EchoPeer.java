package io.ringwire.rdma.contract;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.SendFlags;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * The far side of the two-process tests, run in its own JVM: connects a queue pair to the test's,
 * then echoes every WRITE WITH IMMEDIATE back, the same bytes to the same offset of the test's
 * region with the same immediate. Endpoints are exchanged as one line each on stdin/stdout:
 * {@code ENDPOINT qpn psn address mtu pkey regionAddress rkey regionLength}.
 *
 * <p>Arguments: provider, shm directory, peer timeout in ms.
 */
public final class EchoPeer
{
    static final int REGION_LENGTH = 1 << 20;

    private EchoPeer()
    {
    }

    static String endpointLine(final QueuePair queuePair, final MemoryRegion region)
    {
        final QueuePairEndpoint e = queuePair.localEndpoint();
        return "ENDPOINT " + e.queuePairNumber() + " " + e.startPsn() + " " + e.address() + " " + e.mtu() + " " +
            e.partitionKey() + " " + region.address() + " " + region.rkey() + " " + region.length();
    }

    record Remote(QueuePairEndpoint endpoint, long regionAddress, int rkey, int regionLength)
    {
        static Remote parse(final String line)
        {
            final String[] f = line.trim().split(" ");
            if (f.length != 9 || !f[0].equals("ENDPOINT"))
            {
                throw new IllegalArgumentException("not an endpoint line: " + line);
            }
            return new Remote(new QueuePairEndpoint(Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3],
                Integer.parseInt(f[4]), Integer.parseInt(f[5])), Long.parseLong(f[6]), Integer.parseInt(f[7]),
                Integer.parseInt(f[8]));
        }
    }

    public static void main(final String[] args) throws Exception
    {
        final RdmaConfig config = new RdmaConfig().provider(args[0]).shmDirectory(args[1])
            .peerTimeoutMs(Long.parseLong(args[2]))
            .bindAddress(System.getProperty(RdmaConfig.BIND_ADDRESS_PROP, "127.0.0.1:0")).conclude();
        try (Device device = RdmaProviders.open(config))
        {
            // One protection domain for the region and the queue pair: verbs refuses to mix domains.
            final io.ringwire.rdma.ProtectionDomain domain = device.allocateProtectionDomain();
            final MemoryRegion region = domain.allocateRegion(REGION_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final CompletionQueue cq = device.createCompletionQueue(1024);
            final QueuePair qp = domain.createQueuePair(
                new QueuePairConfig(cq, cq, 64, 64, device.maxInlineData()));
            qp.modifyToInit();
            for (int i = 0; i < 32; i++)
            {
                qp.postReceive(i, region, 0, 0);
            }
            System.out.println(endpointLine(qp, region));
            System.out.flush();

            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            final Remote remote = Remote.parse(in.readLine());
            qp.modifyToReadyToReceive(remote.endpoint());
            qp.modifyToReadyToSend();
            System.out.println("READY");
            System.out.flush();

            final boolean[] running = { true };
            final CompletionHandler echo = (id, opcode, status, length, imm, qpn) ->
            {
                if (status != CompletionStatus.SUCCESS)
                {
                    System.err.println("echo peer: error completion " + CompletionStatus.name(status));
                    running[0] = false;
                    return;
                }
                if (opcode == CompletionOpcode.RECV_RDMA_WITH_IMM)
                {
                    final int offset = (imm & 0xFFFF) * 64;
                    qp.postReceive(id, region, 0, 0);
                    int result;
                    while ((result = qp.postWriteWithImmediate(id, region, offset, length,
                        remote.regionAddress() + offset, remote.rkey(), imm, SendFlags.NONE)) == PostResult.QUEUE_FULL)
                    {
                        Thread.onSpinWait();
                    }
                    if (result != PostResult.OK)
                    {
                        running[0] = false;
                    }
                }
            };
            while (running[0])
            {
                if (cq.poll(echo, 16) == 0)
                {
                    Thread.onSpinWait();
                }
            }
        }
    }
}
