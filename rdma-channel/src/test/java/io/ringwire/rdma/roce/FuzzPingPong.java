package io.ringwire.rdma.roce;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.SendFlags;
import org.agrona.concurrent.AtomicBuffer;

import java.util.Random;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The healthy traffic beside the fuzzing: a ping-pong of WRITE WITH IMMEDIATE between a queue pair
 * on the fuzzed device and one on a second device. Each message n has a seeded length (1 to 3
 * packets) and content (n, random bytes, CRC-32 of them), carries n as its immediate, and is echoed
 * back byte for byte. Every delivery is checked on arrival: in sequence (so exactly once), the
 * length, the checksum and every byte. Every write is signaled and must complete once, with success.
 *
 * <p>Driven from the test thread by {@link #poll()}, which polls both completion queues.
 */
final class FuzzPingPong
{
    private static final int REGION_LENGTH = 16 * 1024;
    private static final int RECEIVES = 8;
    static final int MAX_MESSAGE = 9_000;

    private final long seed;
    private final Side ping;
    private final Side pong;
    private final byte[] expected = new byte[MAX_MESSAGE];
    private final org.agrona.concurrent.UnsafeBuffer expectedView = new org.agrona.concurrent.UnsafeBuffer(expected);
    private final byte[] actual = new byte[MAX_MESSAGE];
    private final CRC32 crc = new CRC32();

    private long nextPing;
    private boolean pingInFlight;
    private boolean stopping;
    /** Pings the fuzzed side received (each executed once by the fuzzed device). */
    long pingsDelivered;
    /** Pongs back at the other side: completed round trips. */
    long roundTrips;
    long pingWritesCompleted;
    long pongWritesCompleted;
    long pongWritesPosted;

    /** One end: its queue pair, completion queue, inbound region and outbound buffer. */
    private final class Side implements CompletionHandler
    {
        final String name;
        final CompletionQueue completionQueue;
        final QueuePair queuePair;
        final MemoryRegion inbound;
        final MemoryRegion outbound;

        Side(final String name, final Device device)
        {
            this.name = name;
            final ProtectionDomain domain = device.allocateProtectionDomain();
            completionQueue = device.createCompletionQueue(256);
            queuePair = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, 16, RECEIVES * 2,
                0));
            inbound = domain.allocateRegion(REGION_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            outbound = domain.allocateRegion(REGION_LENGTH, Access.LOCAL_WRITE);
        }

        @Override
        public void onCompletion(final long workRequestId, final int opcode, final int status, final int byteLength,
            final int immediate, final int queuePairNumber)
        {
            if (status != CompletionStatus.SUCCESS)
            {
                fail("healthy " + name + ": completion " + CompletionOpcode.name(opcode) + " of " + workRequestId +
                    " failed with " + CompletionStatus.name(status) + " (" + FuzzPingPong.this + ")");
            }
            if (opcode == CompletionOpcode.RECV_RDMA_WITH_IMM)
            {
                post(queuePair.postReceive(workRequestId, inbound, 0, 0), "receive");
                if (this == pong)
                {
                    onPing(immediate, byteLength);
                }
                else
                {
                    onPong(immediate, byteLength);
                }
            }
            else if (opcode == CompletionOpcode.RDMA_WRITE)
            {
                if (this == ping)
                {
                    assertEquals(pingWritesCompleted, workRequestId, "healthy ping writes complete once, in order");
                    pingWritesCompleted++;
                }
                else
                {
                    assertEquals(pongWritesCompleted, workRequestId, "healthy pong writes complete once, in order");
                    pongWritesCompleted++;
                }
            }
            else
            {
                fail("healthy " + name + ": unexpected completion " + CompletionOpcode.name(opcode));
            }
        }
    }

    FuzzPingPong(final Device fuzzedDevice, final Device otherDevice, final long seed)
    {
        this.seed = seed;
        pong = new Side("pong (on the fuzzed device)", fuzzedDevice);
        ping = new Side("ping", otherDevice);
        ping.queuePair.modifyToInit();
        pong.queuePair.modifyToInit();
        ping.queuePair.modifyToReadyToReceive(pong.queuePair.localEndpoint());
        pong.queuePair.modifyToReadyToReceive(ping.queuePair.localEndpoint());
        ping.queuePair.modifyToReadyToSend();
        pong.queuePair.modifyToReadyToSend();
        for (int i = 0; i < RECEIVES; i++)
        {
            post(ping.queuePair.postReceive(i, ping.inbound, 0, 0), "receive");
            post(pong.queuePair.postReceive(i, pong.inbound, 0, 0), "receive");
        }
    }

    int fuzzedQueuePairNumber()
    {
        return pong.queuePair.queuePairNumber();
    }

    int fuzzedRegionRkey()
    {
        return pong.inbound.rkey();
    }

    /** @return the rkey of the fuzzed side's local-only region, which lives on the fuzzed device too. */
    int fuzzedLocalRegionRkey()
    {
        return pong.outbound.rkey();
    }

    long fuzzedRegionAddress()
    {
        return pong.inbound.address();
    }

    QueuePair fuzzedQueuePair()
    {
        return pong.queuePair;
    }

    /** Polls both sides once and sends the next ping when the previous round trip is complete. */
    void poll()
    {
        if (!pingInFlight && !stopping)
        {
            sendPing();
        }
        ping.completionQueue.poll(ping, 16);
        pong.completionQueue.poll(pong, 16);
    }

    /** No new pings from now on. */
    void stop()
    {
        stopping = true;
    }

    /** @return true when no message and no write completion is outstanding. */
    boolean quiet()
    {
        return !pingInFlight && pingWritesCompleted == nextPing && pongWritesCompleted == pongWritesPosted;
    }

    private void sendPing()
    {
        final int length = message(nextPing);
        ping.outbound.buffer().putBytes(0, expected, 0, length);
        post(ping.queuePair.postWriteWithImmediate(nextPing, ping.outbound, 0, length, pong.inbound.address(),
            pong.inbound.rkey(), (int)nextPing, SendFlags.SIGNALED), "ping write");
        pingInFlight = true;
    }

    private void onPing(final int immediate, final int length)
    {
        check(pong.inbound.buffer(), immediate, length, pingsDelivered, "ping");
        pingsDelivered++;
        pong.outbound.buffer().putBytes(0, pong.inbound.buffer(), 0, length);
        post(pong.queuePair.postWriteWithImmediate(pongWritesPosted, pong.outbound, 0, length, ping.inbound.address(),
            ping.inbound.rkey(), immediate, SendFlags.SIGNALED), "pong write");
        pongWritesPosted++;
    }

    private void onPong(final int immediate, final int length)
    {
        check(ping.inbound.buffer(), immediate, length, nextPing, "pong");
        roundTrips++;
        nextPing++;
        pingInFlight = false;
    }

    private void check(final AtomicBuffer buffer, final int immediate, final int length, final long expectedSequence,
        final String what)
    {
        if (immediate != (int)expectedSequence)
        {
            fail("healthy " + what + " carries immediate " + immediate + " where " + expectedSequence +
                " is due: lost, duplicated or reordered delivery (" + this + ")");
        }
        final int expectedLength = message(expectedSequence);
        assertEquals(expectedLength, length, "healthy " + what + " " + expectedSequence + " length");
        buffer.getBytes(0, actual, 0, length);
        crc.reset();
        crc.update(actual, 0, length - 4);
        if ((int)crc.getValue() != buffer.getInt(length - 4))
        {
            fail("healthy " + what + " " + expectedSequence + " fails its checksum");
        }
        final int mismatch = java.util.Arrays.mismatch(actual, 0, length, expected, 0, length);
        if (mismatch >= 0)
        {
            fail("healthy " + what + " " + expectedSequence + " differs at byte " + mismatch);
        }
    }

    /** Fills {@link #expected} with message {@code sequence}. @return its length. */
    private int message(final long sequence)
    {
        final Random random = new Random(seed * 31 + sequence);
        final int choice = random.nextInt(10);
        final int length = choice < 6 ? 8 + random.nextInt(249) : choice < 9 ? 257 + random.nextInt(3839) :
            4097 + random.nextInt(MAX_MESSAGE - 4097);
        random.nextBytes(expected);
        expected[0] = (byte)sequence;
        expected[1] = (byte)(sequence >>> 8);
        expected[2] = (byte)(sequence >>> 16);
        expected[3] = (byte)(sequence >>> 24);
        crc.reset();
        crc.update(expected, 0, length - 4);
        expectedView.putInt(length - 4, (int)crc.getValue());
        return length;
    }

    private static void post(final int result, final String what)
    {
        if (result != PostResult.OK)
        {
            fail("healthy " + what + " refused: " + PostResult.name(result));
        }
    }

    @Override
    public String toString()
    {
        return "healthy{roundTrips=" + roundTrips + ", pingsDelivered=" + pingsDelivered + ", ping=" +
            ping.queuePair.state() + ", pong=" + pong.queuePair.state() + '}';
    }
}
