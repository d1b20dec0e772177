package io.ringwire.rdma.roce;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.Completion;
import io.ringwire.rdma.CompletionQueue;
import io.ringwire.rdma.CompletionStatus;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.DeviceCounters;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.PostResult;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaConfig;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.SendFlags;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static io.ringwire.rdma.roce.RoceWire.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input at a live roce responder: 100,000 seeded random and mutated datagrams from a plain UDP
 * socket, interleaved on one thread with a healthy ping-pong through the same device
 * ({@link FuzzCampaign} says how), and one test per place where the provider deviates from the
 * spec.
 *
 * <p>The campaign's model ({@link FuzzResponderModel}, {@link FuzzVictim}) is written from the
 * RoCEv2/IBA rules and predicts, datagram by datagram, what the device must do: which counter each
 * dropped datagram increments, what each request reaching a victim queue pair does to its PSN
 * state, receives, memory, completions and NAKs, and when the queue pair must go to ERROR. The
 * generator steers clear of the inputs that hit the deviations pinned below (the summary counts
 * them), so the campaign keeps guarding everything else both before and after they are fixed.
 */
@ExtendWith(RawIcrcOnly.class)
class RoceBadInputTest
{
    private static final long SEED = 0x5EED_BAD1_0000_2026L;
    private static final int DATAGRAMS = 100_000;
    private static final int VICTIM_MTU = FuzzCampaign.VICTIM_MTU;
    private static final Duration TIMEOUT = FuzzCampaign.TIMEOUT;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void close()
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(resources.get(i));
        }
    }

    private <T extends AutoCloseable> T closeLater(final T resource)
    {
        resources.add(resource);
        return resource;
    }

    static RdmaConfig config()
    {
        // A long ACK timeout keeps the healthy pair's retransmit timer out of the counts even when
        // the test thread stalls (JIT, GC) while it builds a batch.
        return new RdmaConfig().provider("roce").bindAddress("127.0.0.1:0").ackTimeoutUs(500_000)
            .peerTimeoutMs(60_000).conclude();
    }

    /**
     * No exception escapes a poll or a post; no byte outside what the spec lets a request write
     * changes (guards, other regions, the target beyond accepted writes); every counter, completion,
     * queue pair state and NAK is what the spec says; the healthy pair's messages all arrive
     * exactly once, byte for byte; a bad rkey in order ends in a remote-access NAK and ERROR for
     * that queue pair only.
     */
    @Test
    void hundredThousandBadDatagramsChangeNothingTheSpecForbidsWhileHealthyTrafficFlowsExactlyOnce()
    {
        final long startNs = System.nanoTime();
        try (FuzzCampaign campaign = new FuzzCampaign(SEED, RoceBadInputTest::config))
        {
            campaign.run(DATAGRAMS);
            System.out.print(campaign.summary(System.nanoTime() - startNs));
        }
    }

    // ------------------------------------------------------------------ provider deviations, one test each

    /** A queue pair on a fresh device whose peer is a {@link FuzzRequester}, which sends by hand. */
    private record Rig(Device device, FuzzRequester requester, MemoryRegion region, CompletionQueue completionQueue,
        QueuePair queuePair, int startPsn, List<Completion> completions)
    {
    }

    private Rig rig()
    {
        return rig(4096);
    }

    private Rig rig(final int regionLength)
    {
        final Device device = closeLater(RdmaProviders.open(config()));
        final FuzzRequester peer = closeLater(new FuzzRequester(device.address()));
        final ProtectionDomain domain = device.allocateProtectionDomain();
        final MemoryRegion region = domain.allocateRegion(regionLength, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final CompletionQueue completionQueue = device.createCompletionQueue(64);
        final QueuePair queuePair = domain.createQueuePair(new QueuePairConfig(completionQueue, completionQueue, 4, 8, 0));
        queuePair.modifyToInit();
        final int startPsn = 0x100;
        queuePair.modifyToReadyToReceive(new QueuePairEndpoint(0xF0_0001, startPsn, peer.address(), VICTIM_MTU,
            QueuePairEndpoint.DEFAULT_PARTITION_KEY));
        queuePair.modifyToReadyToSend();
        return new Rig(device, peer, region, completionQueue, queuePair, startPsn, new ArrayList<>());
    }

    private static void sendRequest(final Rig rig, final int opcode, final int psn, final long virtualAddress,
        final int rkey, final int dmaLength, final int payload)
    {
        final FuzzRequester peer = rig.requester();
        final int payloadIndex = RocePacket.writeRequestHeaders(peer.sendView, 0, opcode,
            QueuePairEndpoint.DEFAULT_PARTITION_KEY, rig.queuePair().queuePairNumber(), true, psn, virtualAddress, rkey,
            dmaLength, 0, payload);
        for (int i = 0; i < payload; i++)
        {
            peer.sendView.putByte(payloadIndex + i, (byte)(0xA0 + i));
        }
        final int length = RocePacket.finish(peer.sendView, 0, payloadIndex + payload);
        peer.stampIcrc(length);
        peer.send(length);
    }

    /** Polls the rig's completion queue (which drives the device) until the queue pair answers. */
    private static FuzzParsed awaitAnswer(final Rig rig)
    {
        final FuzzParsed answer = new FuzzParsed();
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline)
        {
            rig.completionQueue().poll((id, opcode, status, length, imm, qpn) ->
                rig.completions().add(new Completion(id, opcode, status, length, imm, qpn)), 16);
            final int length = rig.requester().receive();
            if (length >= 0)
            {
                assertTrue(answer.parse(rig.requester().receiveView, length), "the answer parses");
                return answer;
            }
        }
        throw new AssertionError("no answer from the queue pair within " + TIMEOUT.toMillis() + " ms; " +
            rig.device().counters());
    }

    private static List<Completion> pollCompletions(final Rig rig, final Duration duration)
    {
        final long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline)
        {
            rig.completionQueue().poll((id, opcode, status, length, imm, qpn) ->
                rig.completions().add(new Completion(id, opcode, status, length, imm, qpn)), 16);
        }
        return rig.completions();
    }

    private static String syndrome(final FuzzParsed answer)
    {
        return "answer syndrome 0x" + Integer.toHexString(answer.syndrome) + " for PSN 0x" +
            Integer.toHexString(answer.psn);
    }

    /**
     * IBA: every posted receive completes. RoceResponder.onSend removes the receive from the queue
     * when a SEND FIRST arrives, then refuses the packet for its length: that receive never
     * completes, not even flushed, since enterError flushes only what is still queued.
     */
    @Test
    void aSendFirstOfTheWrongLengthStillCompletesTheReceiveItTook()
    {
        final Rig rig = rig();
        assertEquals(PostResult.OK, rig.queuePair().postReceive(1, rig.region(), 0, 512));
        assertEquals(PostResult.OK, rig.queuePair().postReceive(2, rig.region(), 512, 512));

        sendRequest(rig, SEND_FIRST, rig.startPsn(), 0, 0, 0, 8); // a FIRST must carry exactly the path MTU

        final FuzzParsed answer = awaitAnswer(rig);
        assertEquals(AETH_NAK_INVALID_REQUEST, answer.syndrome, syndrome(answer));
        assertEquals(QueuePairState.ERROR, rig.queuePair().state());
        final List<Completion> completions = pollCompletions(rig, Duration.ofMillis(200));
        assertEquals(List.of(1L, 2L), completions.stream().map(Completion::workRequestId).toList(),
            "both posted receives complete, with an error status: " + completions);
        assertTrue(completions.stream().allMatch(c -> c.status() != CompletionStatus.SUCCESS), completions.toString());
    }

    /**
     * IBA 10.3.1 / rxe's check_resource in ERROR: a receive a multi-packet SEND has started to fill
     * is completed with a flush error when the queue pair goes to ERROR. Here it disappears.
     */
    @Test
    void aReceiveHeldByAnUnfinishedSendIsFlushedWhenTheQueuePairGoesToError()
    {
        final Rig rig = rig();
        assertEquals(PostResult.OK, rig.queuePair().postReceive(1, rig.region(), 0, 1024));
        assertEquals(PostResult.OK, rig.queuePair().postReceive(2, rig.region(), 1024, 1024));
        sendRequest(rig, SEND_FIRST, rig.startPsn(), 0, 0, 0, VICTIM_MTU);
        final FuzzParsed answer = awaitAnswer(rig);
        assertEquals(AETH_ACK | AETH_CREDITS_UNLIMITED, answer.syndrome, "the SEND FIRST is accepted: " +
            syndrome(answer));

        rig.queuePair().modifyToError();

        final List<Completion> completions = pollCompletions(rig, Duration.ofMillis(200));
        assertEquals(List.of(1L, 2L), completions.stream().map(Completion::workRequestId).toList(),
            "the receive the unfinished SEND holds (1) and the queued one (2) are both flushed: " + completions);
        assertTrue(completions.stream().allMatch(c -> c.status() == CompletionStatus.WR_FLUSH_ERROR),
            completions.toString());
    }

    /**
     * IBA: a queue pair in ERROR applies nothing and answers nothing; the device still counts what
     * it dropped, so a peer writing into a connection this side has failed shows.
     */
    @Test
    void aWriteForAQueuePairInErrorIsDroppedUnwrittenUnansweredAndCounted()
    {
        final Rig rig = rig();
        rig.queuePair().modifyToError();

        sendRequest(rig, WRITE_ONLY, rig.startPsn(), rig.region().address(), rig.region().rkey(), 8, 8);
        awaitCounter(rig, DeviceCounters.ERROR_STATE_DROPPED, 1);

        assertEquals(0, rig.region().buffer().getLong(0), "nothing is written");
        assertEquals(0, rig.device().counters().get(DeviceCounters.REQUESTS_EXECUTED));
        pollCompletions(rig, Duration.ofMillis(50));
        assertEquals(-1, rig.requester().receive(), "no ACK or NAK answers it");
    }

    /**
     * ProtectionDomain's contract: "memory regions and queue pairs of one domain may only be used
     * together" (IBA: the R_Key's memory region must belong to the QP's PD; rxe looks rkeys up in
     * qp->pd). RoceDevice keeps one RegionRegistry for all domains and the responder never checks
     * the domain, so a peer of one domain writes into another domain's region.
     */
    @Test
    void writeWithTheRkeyOfARegionInAnotherProtectionDomainIsRejectedAndNothingIsWritten()
    {
        final Device responder = closeLater(RdmaProviders.open(config()));
        final Device requesterSide = closeLater(RdmaProviders.open(config()));
        final ProtectionDomain connectionDomain = responder.allocateProtectionDomain();
        final ProtectionDomain otherDomain = responder.allocateProtectionDomain();
        final MemoryRegion foreign = otherDomain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        final CompletionQueue responderQueue = responder.createCompletionQueue(64);
        final QueuePair responderPair = connectionDomain.createQueuePair(
            new QueuePairConfig(responderQueue, responderQueue, 4, 8, 0));
        final ProtectionDomain requesterDomain = requesterSide.allocateProtectionDomain();
        final MemoryRegion source = requesterDomain.allocateRegion(4096, Access.LOCAL_WRITE);
        source.buffer().setMemory(0, 64, (byte)0x5A);
        final CompletionQueue requesterQueue = requesterSide.createCompletionQueue(64);
        final QueuePair requesterPair = requesterDomain.createQueuePair(
            new QueuePairConfig(requesterQueue, requesterQueue, 4, 8, 0));
        requesterPair.modifyToInit();
        responderPair.modifyToInit();
        requesterPair.modifyToReadyToReceive(responderPair.localEndpoint());
        responderPair.modifyToReadyToReceive(requesterPair.localEndpoint());
        requesterPair.modifyToReadyToSend();
        responderPair.modifyToReadyToSend();

        // A good write first: where the devices predict IP IDs (no raw socket), each direction's first
        // packet only teaches the sequence and is resent, and the NAK below must not be the first.
        final MemoryRegion own = connectionDomain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        assertEquals(PostResult.OK, requesterPair.postWrite(6, source, 0, 64, own.address(), own.rkey(),
            SendFlags.SIGNALED));
        final List<Completion> primed = new ArrayList<>();
        final long primedBy = System.nanoTime() + TIMEOUT.toNanos();
        while (primed.isEmpty() && System.nanoTime() < primedBy)
        {
            requesterQueue.poll((id, opcode, status, length, imm, qpn) ->
                primed.add(new Completion(id, opcode, status, length, imm, qpn)), 16);
            responderQueue.poll((id, opcode, status, length, imm, qpn) -> { }, 16);
        }
        assertEquals(CompletionStatus.SUCCESS, primed.getFirst().status(), "the good write completes");

        assertEquals(PostResult.OK, requesterPair.postWrite(7, source, 0, 64, foreign.address(), foreign.rkey(),
            SendFlags.SIGNALED));

        final List<Completion> completions = new ArrayList<>();
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (completions.isEmpty() && System.nanoTime() < deadline)
        {
            requesterQueue.poll((id, opcode, status, length, imm, qpn) ->
                completions.add(new Completion(id, opcode, status, length, imm, qpn)), 16);
            responderQueue.poll((id, opcode, status, length, imm, qpn) -> { }, 16);
        }
        assertEquals(1, completions.size(), "the write completes");
        final byte[] bytes = new byte[64];
        foreign.buffer().getBytes(0, bytes);
        assertEquals(CompletionStatus.name(CompletionStatus.REMOTE_ACCESS_ERROR),
            CompletionStatus.name(completions.getFirst().status()), "a write into another protection domain's region " +
            "(region now holds " + HexFormat.of().formatHex(bytes, 0, 8) + "...)");
        assertEquals(0, foreign.buffer().getLong(0), "nothing is written into the other domain's region");
    }

    /**
     * IBA C9-88 (rxe check_rkey: "A zero-byte op is not required to set an addr or rkey"): a
     * zero-length RDMA WRITE is executed without an R_Key/VA check. Verbs users post zero-length
     * writes (and zero-length WRITE WITH IMMEDIATE doorbells) with rkey 0; roce NAKs them with a
     * remote access error and the connection goes to ERROR, between two roce devices as with rxe.
     */
    @Test
    void aZeroLengthWriteSucceedsWhateverItsRkeyAndAddress()
    {
        final Rig rig = rig();

        sendRequest(rig, WRITE_ONLY, rig.startPsn(), 0, 0, 0, 0);

        final FuzzParsed answer = awaitAnswer(rig);
        assertEquals(AETH_ACK | AETH_CREDITS_UNLIMITED, answer.syndrome, "a zero-length write with rkey 0 is " +
            "acknowledged: " + syndrome(answer));
        assertEquals(QueuePairState.READY_TO_SEND, rig.queuePair().state());
    }

    /**
     * IBA length rules (rxe check_length): an ONLY packet carries at most the path MTU, a LAST
     * packet 1 to PMTU bytes; anything else is an invalid request. RoceResponder.onWrite only
     * compares the payload with the DMA length (and onSend with the receive), so a 260-byte WRITE
     * ONLY on a 256-byte path is executed.
     */
    @Test
    void aPacketWithAPayloadAboveThePathMtuIsRefusedAsAnInvalidRequest()
    {
        final Rig rig = rig();

        sendRequest(rig, WRITE_ONLY, rig.startPsn(), rig.region().address(), rig.region().rkey(), VICTIM_MTU + 4,
            VICTIM_MTU + 4);

        final FuzzParsed answer = awaitAnswer(rig);
        assertEquals(AETH_NAK_INVALID_REQUEST, answer.syndrome, "a " + (VICTIM_MTU + 4) + "-byte WRITE ONLY on a " +
            VICTIM_MTU + "-byte path MTU: " + syndrome(answer));
        assertEquals(0, rig.region().buffer().getLong(0), "nothing is written");
    }

    @Test
    void anEmptySendLastIsRefusedAsAnInvalidRequestAndItsReceiveCompletesWithAnError()
    {
        final Rig rig = rig();
        assertEquals(PostResult.OK, rig.queuePair().postReceive(1, rig.region(), 0, 2 * VICTIM_MTU));

        sendRequest(rig, SEND_FIRST, rig.startPsn(), 0, 0, 0, VICTIM_MTU);
        sendRequest(rig, SEND_LAST, rig.startPsn() + 1, 0, 0, 0, 0); // IBA: a LAST carries at least one byte

        FuzzParsed answer = awaitAnswer(rig);
        if (answer.syndrome < 0x20)
        {
            answer = awaitAnswer(rig); // the FIRST's ACK, which goes first
        }
        assertEquals(AETH_NAK_INVALID_REQUEST, answer.syndrome, syndrome(answer));
        assertEquals(rig.startPsn() + 1, answer.psn, "the NAK names the empty LAST");
        assertEquals(QueuePairState.ERROR, rig.queuePair().state());
        final List<Completion> completions = pollCompletions(rig, Duration.ofMillis(200));
        assertEquals(1, completions.size(), completions.toString());
        assertEquals(1L, completions.get(0).workRequestId());
        assertTrue(completions.get(0).status() != CompletionStatus.SUCCESS, completions.toString());
    }

    @Test
    void aPadCountThatDoesNotAlignThePayloadIsRefusedAsAnInvalidRequestWithNothingWritten()
    {
        final Rig rig = rig();
        final FuzzRequester peer = rig.requester();
        final int payload = 9;
        final int payloadIndex = RocePacket.writeRequestHeaders(peer.sendView, 0, WRITE_ONLY,
            QueuePairEndpoint.DEFAULT_PARTITION_KEY, rig.queuePair().queuePairNumber(), true, rig.startPsn(),
            rig.region().address(), rig.region().rkey(), payload, 0, payload);
        for (int i = 0; i < payload; i++)
        {
            peer.sendView.putByte(payloadIndex + i, (byte)0x5A);
        }
        // Pad count 0 for a 9-byte payload: the packet (ICRC included) is sent unaligned.
        final byte flags = peer.sendView.getByte(BTH_FLAGS_OFFSET);
        peer.sendView.putByte(BTH_FLAGS_OFFSET, (byte)(flags & ~BTH_PAD_MASK));
        final int length = payloadIndex + payload + Icrc.LENGTH;
        peer.stampIcrc(length);
        peer.send(length);

        final FuzzParsed answer = awaitAnswer(rig);
        assertEquals(AETH_NAK_INVALID_REQUEST, answer.syndrome, syndrome(answer));
        assertEquals(QueuePairState.ERROR, rig.queuePair().state());
        for (int i = 0; i < 16; i++)
        {
            assertEquals(0, rig.region().buffer().getByte(i), "byte " + i + " is not written");
        }
    }

    /**
     * RDMA READ and the atomics are not offered by this stack: a peer that sends one anyway (a real
     * RoCE stack can) gets an invalid-request NAK naming the packet, the queue pair goes to ERROR
     * and the refusal is counted, rather than the request vanishing until the peer's retry runs out.
     * The header names a registered region and a valid rkey: still nothing is read or written.
     */
    @ParameterizedTest(name = "opcode 0x{0}")
    @ValueSource(ints = { READ_REQUEST, COMPARE_SWAP, FETCH_ADD })
    void anRdmaReadOrAtomicRequestIsRefusedWithAnInvalidRequestNakAndCounted(final int opcode)
    {
        final Rig rig = rig();
        final FuzzRequester peer = rig.requester();
        rig.region().buffer().setMemory(0, 64, (byte)0x33);
        final int header = opcode == READ_REQUEST ? RETH_LENGTH : ATOMIC_ETH_LENGTH;
        // writeRequestHeaders writes only SEND and WRITE headers: the RETH / AtomicETH goes as its payload.
        final int index = RocePacket.writeRequestHeaders(peer.sendView, 0, opcode,
            QueuePairEndpoint.DEFAULT_PARTITION_KEY, rig.queuePair().queuePairNumber(), true, rig.startPsn(), 0, 0, 0, 0,
            header);
        peer.sendView.setMemory(index, header, (byte)0);
        peer.sendView.putLong(index, rig.region().address(), java.nio.ByteOrder.BIG_ENDIAN);
        peer.sendView.putInt(index + 8, rig.region().rkey(), java.nio.ByteOrder.BIG_ENDIAN);
        if (opcode == READ_REQUEST)
        {
            peer.sendView.putInt(index + 12, 64, java.nio.ByteOrder.BIG_ENDIAN);
        }
        else
        {
            peer.sendView.putLong(index + 12, 0x1111_2222_3333_4444L, java.nio.ByteOrder.BIG_ENDIAN);
        }
        final int length = RocePacket.finish(peer.sendView, 0, index + header);
        peer.stampIcrc(length);
        final RocePacket parsed = new RocePacket();
        assertEquals(RocePacket.VALID, parsed.parse(peer.sendView, 0, length), "a well-formed " + opcodeName(opcode));
        assertEquals(opcode == READ_REQUEST ? rig.region().rkey() : 0, parsed.rkey());
        peer.send(length);

        final FuzzParsed answer = awaitAnswer(rig);
        assertEquals(AETH_NAK_INVALID_REQUEST, answer.syndrome, opcodeName(opcode) + ": " + syndrome(answer));
        assertEquals(rig.startPsn(), answer.psn, "the NAK names the refused request");
        assertEquals(QueuePairState.ERROR, rig.queuePair().state());
        assertEquals(1, rig.device().counters().get(DeviceCounters.RESPONDER_REFUSED_OPERATION));
        assertEquals(0, rig.device().counters().get(DeviceCounters.REQUESTS_EXECUTED));
        for (int i = 0; i < 64; i++)
        {
            assertEquals((byte)0x33, rig.region().buffer().getByte(i), "byte " + i + " is untouched");
        }
    }

    private static void sendAcknowledge(final FuzzRequester from, final Rig rig, final int psn)
    {
        final int end = RocePacket.writeAcknowledge(from.sendView, 0, QueuePairEndpoint.DEFAULT_PARTITION_KEY,
            rig.queuePair().queuePairNumber(), psn, AETH_ACK | AETH_CREDITS_UNLIMITED, 0);
        final int length = RocePacket.finish(from.sendView, 0, end);
        from.stampIcrc(length);
        from.send(length);
    }

    private static void awaitCounter(final Rig rig, final int counter, final long atLeast)
    {
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (rig.device().counters().get(counter) < atLeast)
        {
            assertTrue(System.nanoTime() < deadline, "counter " + counter + " below " + atLeast + "; " +
                rig.device().counters());
            drive(rig);
        }
    }

    /** Polls the rig's completion queue, which drives the device; keeps what completes. */
    private static void drive(final Rig rig)
    {
        rig.completionQueue().poll((id, opcode, status, length, imm, qpn) ->
            rig.completions().add(new Completion(id, opcode, status, length, imm, qpn)), 16);
    }

    /**
     * Another process on the peer's host (the peer's address, its own port) can send packets whose
     * ICRC checks; one the queue pair drops (an ACK of nothing outstanding) must not teach the
     * queue pair that port as the peer's, or every packet of the real peer would then be foreign.
     */
    @Test
    void aDroppedPacketFromAnotherPortOfThePeersHostDoesNotClaimThePeersPort()
    {
        final Rig rig = rig();
        final FuzzRequester intruder = closeLater(new FuzzRequester(rig.device().address()));
        sendAcknowledge(intruder, rig, 0x77_7777);
        awaitCounter(rig, DeviceCounters.GHOST_ACKNOWLEDGEMENTS, 1);

        sendRequest(rig, WRITE_ONLY, rig.startPsn(), rig.region().address(), rig.region().rkey(), 8, 8);
        final FuzzParsed answer = awaitAnswer(rig);
        assertEquals(AETH_ACK | AETH_CREDITS_UNLIMITED, answer.syndrome, syndrome(answer));
        assertEquals((byte)0xA0, rig.region().buffer().getByte(0), "the peer's write is executed");
        assertEquals(0, rig.device().counters().get(DeviceCounters.FOREIGN_PACKETS));

        // The peer's port is now known: the other process's packets are foreign.
        sendAcknowledge(intruder, rig, 0x77_7777);
        awaitCounter(rig, DeviceCounters.FOREIGN_PACKETS, 1);
    }

    /**
     * A SEND whose receive's region was deregistered after the receive was posted writes nothing
     * there: the receive completes with a protection error and the peer hears a NAK.
     */
    @Test
    void aSendIntoAReceiveWhoseRegionWasDeregisteredWritesNothing()
    {
        final Rig rig = rig();
        assertEquals(PostResult.OK, rig.queuePair().postReceive(1, rig.region(), 0, 512));
        rig.region().close();

        sendRequest(rig, SEND_ONLY, rig.startPsn(), 0, 0, 0, 8);

        final FuzzParsed answer = awaitAnswer(rig);
        assertEquals(AETH_NAK_REMOTE_OPERATIONAL_ERROR, answer.syndrome, syndrome(answer));
        final List<Completion> completions = pollCompletions(rig, Duration.ofMillis(200));
        assertEquals(1, completions.size(), completions.toString());
        assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, completions.getFirst().status());
    }

    /**
     * A WRITE longer than the window of unacknowledged PSNs has PSNs no packet has carried yet; an
     * ACK naming its last one answers nothing sent and must not complete it.
     */
    @Test
    void anAcknowledgementOfAPsnAssignedButNotYetSentCompletesNothing()
    {
        final int packets = 2 * MAX_UNACKNOWLEDGED_PSNS;
        final Rig rig = rig(packets * VICTIM_MTU);
        assertEquals(PostResult.OK, rig.queuePair().postWrite(9, rig.region(), 0, packets * VICTIM_MTU, 0x1000, 0x42,
            SendFlags.SIGNALED));
        final FuzzParsed first = new FuzzParsed();
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        int length;
        while ((length = rig.requester().receive()) < 0)
        {
            assertTrue(System.nanoTime() < deadline, "the write's first packet");
            drive(rig);
        }
        assertTrue(first.parse(rig.requester().receiveView, length));

        sendAcknowledge(rig.requester(), rig, (first.psn + packets - 1) & PSN_MASK);
        awaitCounter(rig, DeviceCounters.GHOST_ACKNOWLEDGEMENTS, 1);
        assertEquals(List.of(), pollCompletions(rig, Duration.ofMillis(200)), "the write is not complete");
    }
}
