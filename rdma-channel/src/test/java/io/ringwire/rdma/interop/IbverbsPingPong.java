package io.ringwire.rdma.interop;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Endpoint;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.SendFlags;

import java.util.Arrays;
import java.util.Locale;

/**
 * The {@code ibverbs} provider's ping-pong between two rxe devices (the lab's rxe0 on va and rxe1
 * on vb, policy-routed across the veth), to set next to perftest's ib_write_lat on the same
 * devices: one thread per side, each busy-polling its completion queue; a ping is an 8-byte
 * WRITE_WITH_IMM into the peer's region, answered by the same. Half the round trip is what
 * ib_write_lat reports as latency. Prints one line:
 * {@code PINGPONG iterations=N half_rtt_typical_usec=... half_rtt_avg_usec=... half_rtt_min_usec=... half_rtt_p99_usec=...}.
 *
 * <pre>IbverbsPingPong [ITERATIONS [WARMUP [DEVICE_A DEVICE_B]]]</pre>
 */
public final class IbverbsPingPong
{
    private static final int SIZE = 8;

    private IbverbsPingPong()
    {
    }

    private static Endpoint open(final String device)
    {
        System.setProperty("ringwire.rdma.ibverbs.device", device);
        return new Endpoint(new RdmaConfig().provider("ibverbs").mtu(1024).conclude(), 16, 64);
    }

    private static final class Side
    {
        final Endpoint endpoint;
        final MemoryRegion local;
        final MemoryRegion staging;
        long peerAddress;
        int peerRkey;
        int received;
        int failedStatus = -1;

        Side(final Endpoint endpoint)
        {
            this.endpoint = endpoint;
            this.local = endpoint.domain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            this.staging = endpoint.domain.allocateRegion(4096, Access.LOCAL_WRITE);
        }

        void poll()
        {
            endpoint.completionQueue.poll((id, opcode, status, length, imm, qpn) ->
            {
                if (status != CompletionStatus.SUCCESS)
                {
                    failedStatus = status;
                }
                else if (opcode == CompletionOpcode.RECV_RDMA_WITH_IMM)
                {
                    received++;
                    endpoint.queuePair.postReceive(id, local, 0, 0);
                }
            }, 16);
        }

        void ping(final int seq)
        {
            int rc;
            // Every 8th ping is signaled so the send queue drains.
            final int flags = (seq & 7) == 0 ? SendFlags.SIGNALED : SendFlags.NONE;
            while ((rc = endpoint.queuePair.postWriteWithImmediate(seq, staging, 0, SIZE, peerAddress, peerRkey, seq, flags)) ==
                PostResult.QUEUE_FULL)
            {
                poll();
            }
            if (rc != PostResult.OK)
            {
                throw new IllegalStateException("post: " + PostResult.name(rc));
            }
        }

        void awaitReceived(final int count)
        {
            while (received < count)
            {
                poll();
                if (failedStatus >= 0)
                {
                    throw new IllegalStateException("completion failed: " + CompletionStatus.name(failedStatus));
                }
            }
        }
    }

    public static void main(final String[] args) throws Exception
    {
        final int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        final int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        final String deviceA = args.length > 2 ? args[2] : "rxe0";
        final String deviceB = args.length > 3 ? args[3] : "rxe1";
        try (Endpoint a = open(deviceA); Endpoint b = open(deviceB))
        {
            final Side ping = new Side(a);
            final Side pong = new Side(b);
            for (final Side s : new Side[] { ping, pong })
            {
                s.endpoint.queuePair.modifyToInit();
                for (int i = 0; i < 32; i++)
                {
                    s.endpoint.queuePair.postReceive(i, s.local, 0, 0);
                }
            }
            // Endpoint.connect without its modifyToInit: the receives above need INIT already.
            a.queuePair.modifyToReadyToReceive(b.queuePair.localEndpoint());
            b.queuePair.modifyToReadyToReceive(a.queuePair.localEndpoint());
            a.queuePair.modifyToReadyToSend();
            b.queuePair.modifyToReadyToSend();
            ping.peerAddress = pong.local.address();
            ping.peerRkey = pong.local.rkey();
            pong.peerAddress = ping.local.address();
            pong.peerRkey = ping.local.rkey();

            final int total = warmup + iterations;
            final Thread responder = new Thread(() ->
            {
                for (int i = 1; i <= total; i++)
                {
                    pong.awaitReceived(i);
                    pong.ping(i);
                }
            }, "pong");
            responder.setDaemon(true);
            responder.start();
            final long[] rtt = new long[iterations];
            for (int i = 1; i <= total; i++)
            {
                final long t0 = System.nanoTime();
                ping.ping(i);
                ping.awaitReceived(i);
                if (i > warmup)
                {
                    rtt[i - warmup - 1] = System.nanoTime() - t0;
                }
            }
            responder.join(10_000);
            Arrays.sort(rtt);
            long sum = 0;
            for (final long r : rtt)
            {
                sum += r;
            }
            System.out.printf(Locale.ROOT,
                "PINGPONG iterations=%d devices=%s,%s half_rtt_typical_usec=%.2f half_rtt_avg_usec=%.2f " +
                "half_rtt_min_usec=%.2f half_rtt_p99_usec=%.2f half_rtt_max_usec=%.2f%n",
                iterations, deviceA, deviceB, rtt[iterations / 2] / 2000.0, sum / (double)iterations / 2000.0,
                rtt[0] / 2000.0, rtt[(int)(iterations * 0.99)] / 2000.0, rtt[iterations - 1] / 2000.0);
        }
        System.exit(0);
    }
}
