package io.ringwire.rdma.roce;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.CompletionOpcode;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.Endpoint;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static io.ringwire.rdma.roce.RoceWire.*;
import static io.ringwire.rdma.roce.ScriptedRelay.Action.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The requester's and responder's reliability rules, exercised deterministically: every packet
 * crosses a {@link ScriptedRelay} that drops, duplicates or holds exactly the packets a test names.
 */
@ExtendWith(RawIcrcOnly.class)
class RoceReliabilityTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int REGION = 256 * 1024;

    private Endpoint requester;
    private Endpoint responder;
    private ScriptedRelay relay;
    private MemoryRegion source;
    private MemoryRegion target;

    private static RdmaConfig config(final int mtu)
    {
        return new RdmaConfig().provider("roce").bindAddress("127.0.0.1:0").mtu(mtu).ackTimeoutUs(2000)
            .peerTimeoutMs(5000);
    }

    private void connect(final RdmaConfig requesterConfig, final RdmaConfig responderConfig)
    {
        requester = new Endpoint(requesterConfig.conclude(), 64, 64);
        responder = new Endpoint(responderConfig.conclude(), 64, 64);
        relay = new ScriptedRelay(requester.device.address(), responder.device.address());
        source = requester.domain.allocateRegion(REGION, Access.LOCAL_WRITE);
        target = responder.domain.allocateRegion(REGION, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        relay.connect(requester.queuePair, responder.queuePair);
    }

    private void connect(final int mtu)
    {
        connect(config(mtu), config(mtu));
    }

    @AfterEach
    void close()
    {
        CloseHelper.quietCloseAll(requester, responder, relay);
    }

    private void drive(final BooleanSupplier condition, final String what)
    {
        relay.drive(requester, responder, condition, what, TIMEOUT);
    }

    private void driveFor(final Duration duration)
    {
        final long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline)
        {
            relay.pump();
            requester.poll();
            responder.poll();
        }
    }

    private byte[] fill(final int offset, final int length, final long seed)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        source.buffer().putBytes(offset, bytes);
        return bytes;
    }

    private byte[] landed(final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        target.buffer().getBytes(offset, bytes);
        return bytes;
    }

    private long responderCount(final int counter)
    {
        return responder.device.counters().get(counter);
    }

    private long requesterCount(final int counter)
    {
        return requester.device.counters().get(counter);
    }

    private void writeWithImmediate(final long id, final int length, final int immediate)
    {
        assertEquals(PostResult.OK, requester.queuePair.postWriteWithImmediate(id, source, 0, length, target.address(),
            target.rkey(), immediate, SendFlags.SIGNALED));
    }

    @Test
    void aLostPacketIsRecoveredByOneSequenceNakPerGapAndGoBackN()
    {
        connect(1024);
        final AtomicBoolean dropped = new AtomicBoolean();
        relay.script((towards, index, p) -> towards && p.opcode() == WRITE_MIDDLE && !dropped.getAndSet(true) ? DROP : PASS);
        responder.queuePair.postReceive(1, target, 0, 0);
        final byte[] payload = fill(0, 8 * 1024, 1);
        writeWithImmediate(7, payload.length, 99);

        drive(() -> responder.completions.size() == 1 && requester.completions.size() == 1, "the message");
        assertEquals(CompletionOpcode.RECV_RDMA_WITH_IMM, responder.completions.get(0).opcode());
        assertEquals(99, responder.completions.get(0).immediate());
        assertEquals(payload.length, responder.completions.get(0).byteLength());
        assertArrayEquals(payload, landed(0, payload.length));
        assertEquals(CompletionStatus.SUCCESS, requester.completions.get(0).status());
        assertEquals(1, responderCount(DeviceCounters.SEQUENCE_NAKS_SENT), "one NAK for the gap, not one per packet");
        assertEquals(6, responderCount(DeviceCounters.OUT_OF_ORDER_DROPPED), "the 6 packets behind the gap");
        assertTrue(requesterCount(DeviceCounters.NAKS_RECEIVED) >= 1);
        assertTrue(requesterCount(DeviceCounters.RETRANSMITS) >= 1);
    }

    @Test
    void aLostLastPacketIsRecoveredByTheRetransmitTimer()
    {
        connect(1024);
        final AtomicBoolean dropped = new AtomicBoolean();
        relay.script((towards, index, p) -> towards && !dropped.getAndSet(true) ? DROP : PASS);
        responder.queuePair.postReceive(1, target, 0, 0);
        final byte[] payload = fill(0, 100, 2);
        writeWithImmediate(1, payload.length, 5);

        drive(() -> responder.completions.size() == 1 && requester.completions.size() == 1, "the retransmission");
        assertArrayEquals(payload, landed(0, 100));
        assertTrue(requesterCount(DeviceCounters.RETRANSMIT_TIMEOUTS) >= 1, "nothing followed the lost packet: the timer");
        assertEquals(0, responderCount(DeviceCounters.SEQUENCE_NAKS_SENT));
    }

    @Test
    void aLostAcknowledgementMakesTheRequesterRetransmitAndTheResponderAcknowledgeAgainWithoutReapplying()
    {
        connect(1024);
        final AtomicBoolean dropped = new AtomicBoolean();
        relay.script((towards, index, p) -> !towards && !dropped.getAndSet(true) ? DROP : PASS);
        responder.queuePair.postReceive(1, target, 0, 0);
        responder.queuePair.postReceive(2, target, 0, 0);
        fill(0, 64, 3);
        writeWithImmediate(1, 64, 11);

        drive(() -> requester.completions.size() == 1, "the requester's completion");
        driveFor(Duration.ofMillis(50));
        assertEquals(1, responder.completions.size(), "the retransmitted duplicate completes no second receive");
        assertTrue(responderCount(DeviceCounters.DUPLICATE_REQUESTS) >= 1);
        assertTrue(requesterCount(DeviceCounters.RETRANSMIT_TIMEOUTS) >= 1);
    }

    @Test
    void aDuplicateArrivingLateNeverOverwritesANewerWrite()
    {
        connect(1024);
        source.buffer().setMemory(0, 64, (byte)0xAA);
        assertEquals(PostResult.OK, requester.queuePair.postWrite(1, source, 0, 64, target.address(), target.rkey(),
            SendFlags.SIGNALED));
        drive(() -> requester.completions.size() == 1, "the first write");
        // The first transmission of write 2 is held back; the timer's retransmission lands instead.
        relay.script((towards, index, p) ->
        {
            if (towards && index == 1)
            {
                return HOLD; // copy one of write 2 waits
            }
            return PASS;
        });
        source.buffer().setMemory(64, 64, (byte)0xBB);
        assertEquals(PostResult.OK, requester.queuePair.postWrite(2, source, 64, 64, target.address(), target.rkey(),
            SendFlags.NONE));
        // The timer retransmits write 2, which lands; then write 3 overwrites the same bytes.
        drive(() -> responderCount(DeviceCounters.REQUESTS_EXECUTED) == 2, "write 2 by retransmission");
        source.buffer().setMemory(128, 64, (byte)0xCC);
        assertEquals(PostResult.OK, requester.queuePair.postWrite(3, source, 128, 64, target.address(), target.rkey(),
            SendFlags.SIGNALED));
        drive(() -> requester.completions.size() == 2, "write 3");
        relay.releaseHeld(); // the stale copy of write 2 arrives last
        driveFor(Duration.ofMillis(50));

        final byte[] expected = new byte[64];
        java.util.Arrays.fill(expected, (byte)0xCC);
        assertArrayEquals(expected, landed(0, 64), "a duplicate is acknowledged, never applied again");
        assertTrue(responderCount(DeviceCounters.DUPLICATE_REQUESTS) >= 1);
    }

    @Test
    void reorderedPacketsAreDeliveredExactlyOnceInOrder()
    {
        connect(1024);
        relay.script((towards, index, p) -> towards && index == 1 ? HOLD : PASS);
        responder.queuePair.postReceive(1, target, 0, 0);
        final byte[] payload = fill(0, 4 * 1024, 4);
        writeWithImmediate(1, payload.length, 1);
        drive(() -> responderCount(DeviceCounters.OUT_OF_ORDER_DROPPED) >= 2, "packets after the held one");
        relay.releaseHeld();
        drive(() -> responder.completions.size() == 1 && requester.completions.size() == 1, "the message");
        driveFor(Duration.ofMillis(20));
        assertEquals(1, responder.completions.size());
        assertArrayEquals(payload, landed(0, payload.length));
        assertEquals(1, responderCount(DeviceCounters.SEQUENCE_NAKS_SENT));
    }

    @Test
    void aSilentPeerEndsInRetryExceededAfterTheRetryCount()
    {
        connect(config(1024).retryCount(2).peerTimeoutMs(60_000), config(1024));
        relay.script((towards, index, p) -> DROP);
        fill(0, 8, 5);
        assertEquals(PostResult.OK, requester.queuePair.postWrite(1, source, 0, 8, target.address(), target.rkey(),
            SendFlags.NONE));
        assertEquals(PostResult.OK, requester.queuePair.postWrite(2, source, 0, 8, target.address(), target.rkey(),
            SendFlags.NONE));
        drive(() -> requester.completions.size() == 2, "retry exceeded");
        assertEquals(CompletionStatus.RETRY_EXCEEDED, requester.completions.get(0).status(), "unsignaled, still reported");
        assertEquals(1, requester.completions.get(0).workRequestId());
        assertEquals(CompletionStatus.WR_FLUSH_ERROR, requester.completions.get(1).status());
        assertEquals(3, requesterCount(DeviceCounters.RETRANSMIT_TIMEOUTS), "the first timeout and two retries");
        assertEquals(QueuePairState.ERROR, requester.queuePair.state());
    }

    @Test
    void retryCountSevenRetriesUntilThePeerTimeout()
    {
        // Eight timeouts (1 to 64 ms backed off) take about 190 ms; a peer timeout ten times that leaves
        // the count to the retry rule, not to how long a loaded machine pauses the test.
        connect(config(1024).retryCount(7).ackTimeoutUs(1000).peerTimeoutMs(2_000), config(1024));
        relay.script((towards, index, p) -> DROP);
        final long start = System.nanoTime();
        assertEquals(PostResult.OK, requester.queuePair.postWrite(1, source, 0, 8, target.address(), target.rkey(),
            SendFlags.SIGNALED));
        drive(() -> requester.completions.size() == 1, "retry exceeded after the peer timeout");
        final long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(CompletionStatus.RETRY_EXCEEDED, requester.completions.get(0).status());
        assertTrue(requesterCount(DeviceCounters.RETRANSMIT_TIMEOUTS) > 7, "more than 7 retries: 7 means no limit");
        assertTrue(elapsedMs >= 2_000, "not before the peer timeout: " + elapsedMs + " ms");
    }

    @Test
    void aRequestNeedingAReceiveIsRetriedAfterRnrNaksUntilOneIsPosted()
    {
        connect(1024);
        final byte[] payload = fill(0, 300, 6);
        writeWithImmediate(1, 300, 77);
        drive(() -> responderCount(DeviceCounters.RNR_NAKS_SENT) >= 2, "RNR NAKs");
        assertTrue(responder.completions.isEmpty());
        assertArrayEquals(new byte[300], landed(0, 300), "not executed without a receive");
        responder.queuePair.postReceive(1, target, 0, 0);
        drive(() -> responder.completions.size() == 1 && requester.completions.size() == 1, "delivery");
        assertEquals(77, responder.completions.get(0).immediate());
        assertArrayEquals(payload, landed(0, 300));
    }

    @Test
    void rnrRetryCountZeroEndsInRnrRetryExceeded()
    {
        connect(config(1024).rnrRetryCount(0), config(1024));
        writeWithImmediate(1, 8, 1);
        drive(() -> requester.completions.size() == 1, "RNR retry exceeded");
        assertEquals(CompletionStatus.RNR_RETRY_EXCEEDED, requester.completions.get(0).status());
    }

    @Test
    void atMost128PsnsAreInFlightAndLaterRequestsWaitInTheSendQueueUntilItIsFull()
    {
        connect(config(1024), config(1024));
        requester.close();
        // The window, not the timer, is under test: an acknowledgement timeout longer than the test means a slow
        // post loop on a loaded machine cannot legitimately retransmit the window before the relay is pumped.
        requester = new Endpoint(config(1024).ackTimeoutUs(10_000_000).peerTimeoutMs(60_000).conclude(), 1024, 64);
        CloseHelper.quietCloseAll(relay, responder);
        responder = new Endpoint(config(1024).conclude(), 64, 64);
        relay = new ScriptedRelay(requester.device.address(), responder.device.address());
        source = requester.domain.allocateRegion(REGION, Access.LOCAL_WRITE);
        target = responder.domain.allocateRegion(REGION, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        requester.queuePair.modifyToInit();
        responder.queuePair.modifyToInit();
        final QueuePairEndpoint b = responder.queuePair.localEndpoint();
        requester.queuePair.modifyToReadyToReceive(new QueuePairEndpoint(b.queuePairNumber(), b.startPsn(),
            relay.addressForRequester(), b.mtu(), b.partitionKey()));
        requester.queuePair.modifyToReadyToSend();
        relay.script((towards, index, p) -> DROP);

        int accepted = 0;
        while (requester.queuePair.postWrite(accepted, source, 0, 8, target.address(), target.rkey(), SendFlags.NONE) ==
            PostResult.OK)
        {
            accepted++;
            assertTrue(accepted <= 1024, "more requests taken than the send queue holds");
        }
        assertEquals(1024, accepted, "a post meets QUEUE_FULL only when the send queue is full");
        assertFalse(requester.queuePair.canPostSends(1, 8), "the full send queue is refused up front too");
        relay.pump();
        assertEquals(MAX_UNACKNOWLEDGED_PSNS, relay.seen.size(), "each PSN sent once, no more than the window");
    }

    @ParameterizedTest
    @ValueSource(ints = { 256, 512, 1024, 2048, 4096 })
    void largeMessagesAreSegmentedAtThePathMtuWithAckRequestsAtLeastEvery64Packets(final int mtu)
    {
        connect(config(4096), config(mtu));
        responder.queuePair.postReceive(1, target, 0, 0);
        final int length = 64 * 1024 + 3;
        final byte[] payload = fill(0, length, mtu);
        writeWithImmediate(1, length, 3);
        drive(() -> responder.completions.size() == 1 && requester.completions.size() == 1, "the 64 KiB message");
        assertArrayEquals(payload, landed(0, length));

        final int packets = (length + mtu - 1) / mtu;
        // Bursts may overflow a socket buffer and be retransmitted: look at each PSN's first transmission.
        final java.util.Map<Integer, ScriptedRelay.Seen> firstByPsn = new java.util.LinkedHashMap<>();
        relay.seen.stream().filter(ScriptedRelay.Seen::towardsResponder).forEach(s -> firstByPsn.putIfAbsent(s.psn(), s));
        final java.util.List<ScriptedRelay.Seen> requests = new java.util.ArrayList<>(firstByPsn.values());
        final int firstPsn = requests.get(0).psn();
        requests.sort(java.util.Comparator.comparingInt(s -> psnDistance(s.psn(), firstPsn)));
        assertEquals(packets, requests.size(), "one PSN per path MTU (the smaller of the two ends)");
        assertEquals(WRITE_FIRST, requests.get(0).opcode());
        assertEquals(WRITE_LAST_WITH_IMMEDIATE, requests.get(packets - 1).opcode());
        int sinceAckRequest = 0;
        for (int i = 0; i < packets; i++)
        {
            final ScriptedRelay.Seen seen = requests.get(i);
            if (i > 0 && i < packets - 1)
            {
                assertEquals(WRITE_MIDDLE, seen.opcode());
            }
            assertEquals(i < packets - 1 ? mtu : length - (packets - 1) * mtu, seen.payloadLength());
            sinceAckRequest = seen.ackRequested() ? 0 : sinceAckRequest + 1;
            assertTrue(sinceAckRequest < ACK_REQUEST_INTERVAL, "AckReq at least every 64 packets");
        }
        assertTrue(requests.get(packets - 1).ackRequested(), "AckReq on the last packet");
    }

    @Test
    void acknowledgementsOfABatchAreCoalesced()
    {
        connect(1024);
        relay.script((towards, index, p) -> towards ? HOLD : PASS);
        for (int i = 0; i < 10; i++)
        {
            assertEquals(PostResult.OK, requester.queuePair.postWrite(i, source, 0, 8, target.address() + 8L * i,
                target.rkey(), SendFlags.SIGNALED));
        }
        relay.pump();
        assertEquals(10, relay.held());
        relay.releaseHeld();
        drive(() -> requester.completions.size() == 10, "ten completions");
        final long acks = relay.seen.stream().filter(s -> !s.towardsResponder() && s.opcode() == ACKNOWLEDGE).count();
        assertTrue(acks < 10, "ten AckReqs in one batch answered by fewer ACKs: " + acks);
    }

    @Test
    void aPacketWithAWrongPartitionKeyIsDroppedAndCounted()
    {
        connect(1024);
        relay.script((towards, index, p) -> PASS);
        final Icrc icrc = new Icrc();
        final java.nio.ByteBuffer memory = java.nio.ByteBuffer.allocateDirect(128);
        final org.agrona.concurrent.UnsafeBuffer buffer = new org.agrona.concurrent.UnsafeBuffer(memory);
        final int payload = RocePacket.writeRequestHeaders(buffer, 0, WRITE_ONLY, 0x1234, responder.queuePair.queuePairNumber(),
            true, 0, target.address(), target.rkey(), 4, 0, 4);
        buffer.putInt(payload, 0x01020304);
        final int length = RocePacket.finish(buffer, 0, payload + 4);
        try (java.nio.channels.DatagramChannel channel = java.nio.channels.DatagramChannel.open())
        {
            channel.setOption(jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            channel.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
            final int port = ((java.net.InetSocketAddress)channel.getLocalAddress()).getPort();
            final String[] device = responder.device.address().split(":");
            final int loopback = 0x7F000001;
            buffer.putInt(length - 4, IcrcReference.compute(icrc, loopback, loopback, 0, port,
                Integer.parseInt(device[1]), memory, 0, length), java.nio.ByteOrder.LITTLE_ENDIAN);
            memory.limit(length).position(0);
            channel.send(memory, new java.net.InetSocketAddress(device[0], Integer.parseInt(device[1])));
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
        drive(() -> responderCount(DeviceCounters.BAD_PARTITION_KEY) == 1, "the P_Key check");
        assertArrayEquals(new byte[8], landed(0, 8));
    }
}
