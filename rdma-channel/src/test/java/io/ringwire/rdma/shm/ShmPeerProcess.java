package io.ringwire.rdma.shm;

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
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.SendFlags;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The far side of {@link ShmCrossProcessTest}, run in its own JVM. It stands in for the connection
 * manager with tab-separated lines on stdin/stdout:
 * <pre>
 *   child  -&gt; parent: ENDPOINT &lt;qpn&gt; &lt;device address&gt; &lt;region address&gt; &lt;rkey&gt;
 *   parent -&gt; child:  ENDPOINT &lt;qpn&gt; &lt;device address&gt; &lt;region address&gt; &lt;rkey&gt;
 *   child  -&gt; parent: CONNECTED
 * </pre>
 * Then it echoes every WRITE WITH IMMEDIATE it receives: the bytes at offset 0 of its region go back
 * to offset 0 of the parent's region with the same immediate and length. It exits on an error
 * completion (status 2) or after {@link #LIFETIME_SECONDS} (so a lost parent leaves no spinner).
 */
public final class ShmPeerProcess
{
    static final int REGION_LENGTH = 4096;
    static final int RECEIVES = 64;
    static final int LIFETIME_SECONDS = 60;

    private ShmPeerProcess()
    {
    }

    /**
     * @param args shm directory, peer timeout in milliseconds.
     * @throws Exception on setup failures (the parent sees the stack trace in the child's stderr).
     */
    public static void main(final String[] args) throws Exception
    {
        final RdmaConfig config = new RdmaConfig().provider("shm").shmDirectory(args[0])
            .peerTimeoutMs(Long.parseLong(args[1])).conclude();
        final PrintStream out = System.out;
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (Device device = RdmaProviders.open(config))
        {
            final ProtectionDomain domain = device.allocateProtectionDomain();
            final CompletionQueue completionQueue = device.createCompletionQueue(4 * RECEIVES);
            final MemoryRegion region = domain.allocateRegion(REGION_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            final QueuePair queuePair = domain.createQueuePair(
                new QueuePairConfig(completionQueue, completionQueue, RECEIVES, RECEIVES, 0));
            queuePair.modifyToInit();
            for (int i = 0; i < RECEIVES; i++)
            {
                queuePair.postReceive(i, region, 0, 0);
            }
            out.println(endpointLine(queuePair.queuePairNumber(), device.address(), region.address(), region.rkey()));
            out.flush();

            final String line = in.readLine();
            final String[] peer = null == line ? new String[0] : line.split("\t");
            if (peer.length != 5 || !"ENDPOINT".equals(peer[0]))
            {
                System.err.println("expected an ENDPOINT line, got " + line);
                System.exit(3);
            }
            queuePair.modifyToReadyToReceive(new QueuePairEndpoint(Integer.parseInt(peer[1]), 0, peer[2], device.mtu(),
                QueuePairEndpoint.DEFAULT_PARTITION_KEY));
            queuePair.modifyToReadyToSend();
            final long peerRegionAddress = Long.parseLong(peer[3]);
            final int peerRkey = Integer.parseInt(peer[4]);
            out.println("CONNECTED");
            out.flush();

            echo(completionQueue, queuePair, region, peerRegionAddress, peerRkey);
        }
        System.exit(0);
    }

    static String endpointLine(final int queuePairNumber, final String deviceAddress, final long regionAddress,
        final int rkey)
    {
        return "ENDPOINT\t" + queuePairNumber + "\t" + deviceAddress + "\t" + regionAddress + "\t" + rkey;
    }

    private static void echo(final CompletionQueue completionQueue, final QueuePair queuePair, final MemoryRegion region,
        final long peerRegionAddress, final int peerRkey)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIFETIME_SECONDS);
        final long[] received = new long[4]; // workRequestId, byteLength, immediate, count
        while (System.nanoTime() - deadline < 0)
        {
            received[3] = 0;
            completionQueue.poll((id, opcode, status, length, imm, qpn) ->
            {
                if (status != CompletionStatus.SUCCESS)
                {
                    System.err.println("error completion " + CompletionOpcode.name(opcode) + " " +
                        CompletionStatus.name(status));
                    System.exit(2);
                }
                if (opcode == CompletionOpcode.RECV_RDMA_WITH_IMM)
                {
                    received[0] = id;
                    received[1] = length;
                    received[2] = imm;
                    received[3] = 1;
                }
            }, 1);
            if (received[3] == 1)
            {
                queuePair.postReceive(received[0], region, 0, 0);
                final int result = queuePair.postWriteWithImmediate(received[2], region, 0, (int)received[1],
                    peerRegionAddress, peerRkey, (int)received[2], SendFlags.NONE);
                if (result != PostResult.OK)
                {
                    System.err.println("echo refused: " + PostResult.name(result));
                    System.exit(4);
                }
            }
        }
    }
}
