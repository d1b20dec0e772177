package io.ringwire.rdma.roce;

import io.ringwire.rdma.Access;
import io.ringwire.rdma.Completion;
import io.ringwire.rdma.CompletionHandler;
import io.ringwire.rdma.CompletionOpcode;
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
import org.agrona.CloseHelper;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static io.ringwire.rdma.roce.RoceWire.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The bad-input campaign of {@link RoceBadInputTest}: seeded random and mutated datagrams from a
 * plain UDP socket ({@link FuzzRequester}) at a live roce device, on one thread with a healthy
 * ping-pong ({@link FuzzPingPong}) through the same device, checked against a model of what the
 * spec allows ({@link FuzzResponderModel}, {@link FuzzVictim}, {@link FuzzMemory}).
 *
 * <p>Datagrams go in batches. After each, a marker packet to a queue pair of its own proves the
 * device has handled the batch (one socket to one socket on loopback keeps order) and the healthy
 * pair completes at least one more round trip; then the victims' completions and states, every byte
 * of the fuzz-reachable memory, the counters and the NAKs on the wire are compared with the model.
 * Victims that went to ERROR for a spec reason are replaced, so in-order requests keep reaching
 * the responder logic. The end: every surviving victim takes one valid write; a fresh victim takes
 * an in-order write with a dead rkey (remote-access NAK, ERROR) while the healthy pair keeps going;
 * everything is moved to ERROR and every posted receive must have completed exactly once.
 *
 * <p>Single-threaded: the roce device is driven by one thread.
 */
final class FuzzCampaign implements AutoCloseable
{
    private static final int PER_BATCH = 32;
    private static final int VICTIMS = 4;
    static final int VICTIM_MTU = 256;
    private static final int ERROR_LINGER_BATCHES = 1;
    private static final int VICTIM_RECEIVE_DEPTH = 8;
    private static final int MARKER_RECEIVES = 8;
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final long seed;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final FuzzStatistics statistics = new FuzzStatistics();
    private int batches;

    private final Random random;
    private final Device responderDevice;
    private final Device requesterDevice;
    private final FuzzRequester requester;
    private final ProtectionDomain fuzzDomain;
    private final FuzzMemory memory;
    private final CompletionQueue victimCompletionQueue;
    private final FuzzResponderModel model;
    private final FuzzDatagrams datagrams;
    private final FuzzPingPong healthy;

    private final QueuePair marker;
    private final CompletionQueue markerCompletionQueue;
    private final MemoryRegion markerRegion;
    private final int markerPeerQpn;
    private int markerPsn;
    private long markersSeen;

    private final FuzzParsed response = new FuzzParsed();
    private final List<Completion> victimCompletions = new ArrayList<>();
    private final Map<Integer, FuzzVictim> victimsByPeer = new HashMap<>();
    private final List<FuzzVictim> everyVictim = new ArrayList<>();
    private final List<Integer> closedVictimQpns = new ArrayList<>();
    private final ArrayDeque<Integer> freeReceiveSlots = new ArrayDeque<>();
    private final Map<Long, Integer> slotByReceive = new HashMap<>();
    private final Set<Long> receivesPosted = new HashSet<>();
    private final Set<Long> receivesCompleted = new HashSet<>();
    private long nextReceiveId = 1_000;
    private int nextPeerQpn = 0xF0_0000;

    /**
     * Opens the fuzzed device and the healthy pair's other device, lays out the memory, connects the
     * healthy pair, the marker queue pair and the first victims.
     *
     * @param seed   of every random choice.
     * @param config a fresh, concluded roce configuration per call.
     */
    FuzzCampaign(final long seed, final Supplier<RdmaConfig> config)
    {
        this.seed = seed;
        random = new Random(seed);
        responderDevice = closeLater(RdmaProviders.open(config.get()));
        requesterDevice = closeLater(RdmaProviders.open(config.get()));
        requester = closeLater(new FuzzRequester(responderDevice.address()));
        fuzzDomain = responderDevice.allocateProtectionDomain();
        memory = new FuzzMemory(fuzzDomain, random);
        victimCompletionQueue = responderDevice.createCompletionQueue(8192);
        healthy = new FuzzPingPong(responderDevice, requesterDevice, seed);

        final ProtectionDomain markerDomain = responderDevice.allocateProtectionDomain();
        markerRegion = markerDomain.allocateRegion(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        markerCompletionQueue = responderDevice.createCompletionQueue(64);
        marker = markerDomain.createQueuePair(new QueuePairConfig(markerCompletionQueue, markerCompletionQueue, 4,
            MARKER_RECEIVES * 2, 0));
        marker.modifyToInit();
        for (int i = 0; i < MARKER_RECEIVES; i++)
        {
            assertEquals(PostResult.OK, marker.postReceive(i, markerRegion, 0, 0));
        }
        markerPeerQpn = nextPeerQpn++;
        markerPsn = random.nextInt(PSN_MASK + 1);
        marker.modifyToReadyToReceive(new QueuePairEndpoint(markerPeerQpn, markerPsn, requester.address(), VICTIM_MTU,
            QueuePairEndpoint.DEFAULT_PARTITION_KEY));
        marker.modifyToReadyToSend();

        // Every live region on the fuzzed device: keys are handed out in sequence, so a mutated rkey
        // lands on a neighbour's now and then.
        memory.addOtherDomainKey(markerRegion.rkey());
        memory.addOtherDomainKey(healthy.fuzzedRegionRkey());
        memory.addOtherDomainKey(healthy.fuzzedLocalRegionRkey());
        model = new FuzzResponderModel(memory, responderDevice.verifiesIntegrity());
        model.protectedQueuePairs.add(healthy.fuzzedQueuePairNumber());
        model.protectedQueuePairs.add(marker.queuePairNumber());
        datagrams = new FuzzDatagrams(random, requester, memory);
        for (int slot = 0; slot < FuzzMemory.RECEIVE_SLOTS; slot++)
        {
            freeReceiveSlots.add(slot);
        }
        for (int i = 0; i < VICTIMS; i++)
        {
            spawnVictim();
        }
    }

    private <T extends AutoCloseable> T closeLater(final T resource)
    {
        resources.add(resource);
        return resource;
    }

    /**
     * Sends {@code datagrams} fuzz datagrams in batches, checking after each, then plays the end.
     *
     * @throws AssertionError naming the seed, the batch, the datagram and the last datagrams sent.
     */
    void run(final long datagrams)
    {
        int batch = 0;
        try
        {
            long sent = 0;
            while (sent < datagrams)
            {
                final int count = (int)Math.min(PER_BATCH, datagrams - sent);
                for (int i = 0; i < count; i++)
                {
                    sendFuzzDatagram(batch);
                }
                sent += count;
                endBatch(batch);
                maintainVictims(batch);
                batch++;
            }
            batches = batch;
            finish(batch);
        }
        catch (final AssertionError | RuntimeException ex)
        {
            throw new AssertionError("seed 0x" + Long.toHexString(seed) + ", batch " + batch + ", datagram " +
                statistics.datagrams + ": " + ex.getMessage() + "\nlast datagrams sent:\n" +
                statistics.recentDatagrams(), ex);
        }
    }

    // ------------------------------------------------------------------ victims

    private FuzzVictim spawnVictim()
    {
        final QueuePair queuePair = fuzzDomain.createQueuePair(new QueuePairConfig(victimCompletionQueue,
            victimCompletionQueue, 4, VICTIM_RECEIVE_DEPTH, 0));
        queuePair.modifyToInit();
        final int peerQpn = nextPeerQpn++;
        // Now and then start just below the PSN wrap, so in-order traffic crosses 0xFFFFFF -> 0.
        final int startPsn = random.nextInt(4) == 0 ? PSN_MASK - random.nextInt(8) : random.nextInt(PSN_MASK + 1);
        queuePair.modifyToReadyToReceive(new QueuePairEndpoint(peerQpn, startPsn, requester.address(), VICTIM_MTU,
            QueuePairEndpoint.DEFAULT_PARTITION_KEY));
        queuePair.modifyToReadyToSend();
        final int pathMtu = ((RoceQueuePair)queuePair).pathMtu();
        assertEquals(VICTIM_MTU, pathMtu, "path MTU of a victim");
        final FuzzVictim victim = new FuzzVictim(queuePair, peerQpn, startPsn, pathMtu);
        model.victims.put(victim.queuePairNumber, victim);
        victimsByPeer.put(peerQpn, victim);
        everyVictim.add(victim);
        topUpReceives(victim, 1 + random.nextInt(4));
        return victim;
    }

    private void topUpReceives(final FuzzVictim victim, final int level)
    {
        while (victim.receives.size() < level && !freeReceiveSlots.isEmpty())
        {
            final int slot = freeReceiveSlots.poll();
            final int capacity = switch (random.nextInt(6))
            {
                case 0 -> 0;
                case 1 -> VICTIM_MTU;
                case 2 -> VICTIM_MTU + 1;
                case 3 -> FuzzMemory.RECEIVE_SLOT;
                default -> random.nextInt(FuzzMemory.RECEIVE_SLOT + 1);
            };
            final long id = nextReceiveId++;
            final FuzzVictim.Receive receive = new FuzzVictim.Receive(id, slot, capacity);
            assertEquals(PostResult.OK, victim.queuePair.postReceive(id, memory.receives, receive.offset(), capacity),
                "posting a receive on " + victim);
            victim.receives.addLast(receive);
            slotByReceive.put(id, slot);
            receivesPosted.add(id);
        }
    }

    /** Replaces victims that have been in ERROR for a while and tops up the receives of the others. */
    private void maintainVictims(final int batch)
    {
        for (final FuzzVictim victim : new ArrayList<>(model.victims.values()))
        {
            if (victim.error && batch - victim.errorBatch >= ERROR_LINGER_BATCHES)
            {
                victim.queuePair.close();
                model.victims.remove(victim.queuePairNumber);
                closedVictimQpns.add(victim.queuePairNumber);
            }
        }
        while (model.victims.size() < VICTIMS)
        {
            spawnVictim();
        }
        for (final FuzzVictim victim : model.victims.values())
        {
            if (!victim.error)
            {
                topUpReceives(victim, random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(4));
            }
        }
    }

    private int unknownQpn()
    {
        while (true)
        {
            final int choice = random.nextInt(10);
            final int qpn = choice < 4 && !closedVictimQpns.isEmpty() ?
                closedVictimQpns.get(random.nextInt(closedVictimQpns.size())) :
                choice < 6 ? nextPeerQpn - 1 - random.nextInt(Math.max(1, nextPeerQpn - 0xF0_0000)) :
                    random.nextInt(PSN_MASK + 1);
            if (!model.victims.containsKey(qpn) && !model.protectedQueuePairs.contains(qpn))
            {
                return qpn;
            }
        }
    }

    // ------------------------------------------------------------------ sending

    private void sendFuzzDatagram(final int batch)
    {
        final List<FuzzVictim> victims = new ArrayList<>(model.victims.values());
        int length;
        int verdict;
        while (true)
        {
            length = datagrams.next(victims, unknownQpn(), healthy.fuzzedQueuePairNumber(), healthy.fuzzedRegionRkey(),
                healthy.fuzzedRegionAddress());
            verdict = model.classify(requester, length);
            if (verdict == FuzzResponderModel.PROTECTED)
            {
                statistics.steer("a corrupted packet whose ICRC the IP-ID solver would accept, aimed at the healthy QP " +
                    "or matching a predicted ID");
                continue;
            }
            if (verdict == FuzzResponderModel.TO_VICTIM && model.lastDecision == FuzzVictim.KNOWN_DEVIATION)
            {
                statistics.steer(model.lastVictim.deviation);
                continue;
            }
            break;
        }
        model.apply(verdict, requester, datagrams.icrcIntact, batch);
        statistics.record(datagrams, verdict, model.lastDecision, requester, length);
        requester.send(length);
    }

    /** Sends a packet the test built in the requester's buffer, through the model, never steered. */
    private void sendModelled(final int length, final int batch, final String what)
    {
        final int verdict = model.classify(requester, length);
        assertEquals(FuzzResponderModel.TO_VICTIM, verdict, what + " must reach its queue pair");
        assertTrue(model.lastDecision != FuzzVictim.KNOWN_DEVIATION, what + ": " + model.lastVictim.deviation);
        model.apply(verdict, requester, true, batch);
        statistics.remember(requester, length, verdict, model.lastDecision);
        requester.send(length);
    }

    /** A WRITE ONLY WITH IMMEDIATE to the marker queue pair, carrying the batch number. */
    private void sendMarker(final int batch)
    {
        final int payloadIndex = RocePacket.writeRequestHeaders(requester.sendView, 0, WRITE_ONLY_WITH_IMMEDIATE,
            QueuePairEndpoint.DEFAULT_PARTITION_KEY, marker.queuePairNumber(), false, markerPsn, markerRegion.address(),
            markerRegion.rkey(), Long.BYTES, batch, Long.BYTES);
        requester.sendView.putLong(payloadIndex, batch);
        final int length = RocePacket.finish(requester.sendView, 0, payloadIndex + Long.BYTES);
        requester.stampIcrc(length);
        requester.send(length);
        markerPsn = nextPsn(markerPsn);
    }

    // ------------------------------------------------------------------ polling and checking

    private final CompletionHandler victimCollector = (id, opcode, status, length, immediate, qpn) ->
        victimCompletions.add(new Completion(id, opcode, status, length, immediate, qpn));

    private final CompletionHandler markerHandler = this::onMarkerCompletion;

    private void onMarkerCompletion(final long id, final int opcode, final int status, final int length,
        final int immediate, final int qpn)
    {
        assertEquals(CompletionStatus.SUCCESS, status, "marker completion " + CompletionStatus.name(status));
        assertEquals(CompletionOpcode.RECV_RDMA_WITH_IMM, opcode, "marker completion opcode");
        assertEquals(markersSeen, immediate, "markers arrive once each, in order");
        assertEquals(markersSeen, markerRegion.buffer().getLong(0), "marker payload");
        markersSeen++;
        assertEquals(PostResult.OK, marker.postReceive(id, markerRegion, 0, 0));
    }

    private void pollEverything()
    {
        healthy.poll();
        markerCompletionQueue.poll(markerHandler, 16);
        victimCompletionQueue.poll(victimCollector, 64);
        drainResponses();
    }

    private void pollUntil(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out after " + TIMEOUT.toMillis() + " ms waiting for " + what + "; " + healthy + ", markers " +
                    markersSeen + ", responder " + responderDevice.counters());
            }
            pollEverything();
        }
    }

    /**
     * Ends a batch: the marker proves the device handled every datagram before it (one socket to
     * one socket on loopback keeps order), the healthy pair completes at least one more round
     * trip, then everything the model predicts is compared.
     */
    private void endBatch(final int batch)
    {
        sendMarker(batch);
        final long roundTrips = healthy.roundTrips;
        pollUntil(() -> markersSeen > batch && healthy.roundTrips > roundTrips, "the marker of batch " + batch +
            " and a healthy round trip");
        verifyBatch();
    }

    private void verifyBatch()
    {
        victimCompletionQueue.poll(victimCollector, 64);
        assertEquals(model.pendingCompletions, victimCompletions, "the victims' completions, in order");
        for (final Completion completion : victimCompletions)
        {
            assertTrue(receivesCompleted.add(completion.workRequestId()), "receive " + completion.workRequestId() +
                " completed twice");
            freeReceiveSlots.add(slotByReceive.remove(completion.workRequestId()));
        }
        model.pendingCompletions.clear();
        victimCompletions.clear();
        for (final FuzzVictim victim : model.victims.values())
        {
            assertEquals(victim.error ? QueuePairState.ERROR : QueuePairState.READY_TO_SEND, victim.queuePair.state(),
                "state of " + victim);
            assertTrue(isPrefix(victim.receivedNaks, victim.expectedNaks), "NAKs of " + victim + ": received " +
                victim.receivedNaks + ", expected " + victim.expectedNaks);
        }
        final String difference = memory.firstDifference();
        if (null != difference)
        {
            fail(difference);
        }
        assertCounters();
    }

    private static <T> boolean isPrefix(final List<T> prefix, final List<T> list)
    {
        return prefix.size() <= list.size() && prefix.equals(list.subList(0, prefix.size()));
    }

    private static final int[] EXACT_COUNTERS = {
        DeviceCounters.RESPONDER_MALFORMED, DeviceCounters.ICRC_ERRORS, DeviceCounters.UNKNOWN_QUEUE_PAIR,
        DeviceCounters.BAD_PARTITION_KEY, DeviceCounters.RESPONDER_UNKNOWN_RKEY, DeviceCounters.RESPONDER_ACCESS_DENIED,
        DeviceCounters.RESPONDER_OUT_OF_BOUNDS, DeviceCounters.RESPONDER_LENGTH_ERROR, DeviceCounters.RNR_NAKS_SENT,
        DeviceCounters.FLUSHED_REQUESTS, DeviceCounters.ERROR_COMPLETIONS, DeviceCounters.COMPLETION_QUEUE_OVERRUNS,
        DeviceCounters.PEERS_LOST, DeviceCounters.RESPONDER_REFUSED_OPERATION, DeviceCounters.FOREIGN_PACKETS,
        DeviceCounters.ERROR_STATE_DROPPED };
    /**
     * Counters the healthy pair adds to only when it had to retransmit (loss or a stalled thread),
     * or, on a device that predicts IP IDs, when it drops a connection's first packet as unverified.
     */
    private static final int[] TRAFFIC_COUNTERS = {
        DeviceCounters.DUPLICATE_REQUESTS, DeviceCounters.OUT_OF_ORDER_DROPPED, DeviceCounters.SEQUENCE_NAKS_SENT,
        DeviceCounters.GHOST_ACKNOWLEDGEMENTS, DeviceCounters.ICRC_UNVERIFIED };

    private boolean healthyTrafficWasClean()
    {
        final DeviceCounters a = responderDevice.counters();
        final DeviceCounters b = requesterDevice.counters();
        return a.get(DeviceCounters.RETRANSMIT_TIMEOUTS) == 0 && b.get(DeviceCounters.RETRANSMIT_TIMEOUTS) == 0 &&
            a.get(DeviceCounters.NAKS_RECEIVED) == 0 && b.get(DeviceCounters.NAKS_RECEIVED) == 0;
    }

    private long expected(final int counter)
    {
        long value = model.counters[counter];
        if (counter == DeviceCounters.REQUESTS_EXECUTED)
        {
            value += markersSeen + healthy.pingsDelivered;
        }
        return value;
    }

    private void assertCounters()
    {
        final DeviceCounters actual = responderDevice.counters();
        for (final int counter : EXACT_COUNTERS)
        {
            assertEquals(expected(counter), actual.get(counter), "responder counter '" + DeviceCounters.name(counter) + "'");
        }
        assertEquals(expected(DeviceCounters.REQUESTS_EXECUTED), actual.get(DeviceCounters.REQUESTS_EXECUTED),
            "responder counter 'requests executed' (victims + markers + healthy pings, each exactly once)");
        final boolean clean = healthyTrafficWasClean();
        for (final int counter : TRAFFIC_COUNTERS)
        {
            if (clean)
            {
                assertEquals(expected(counter), actual.get(counter), "responder counter '" +
                    DeviceCounters.name(counter) + "'");
            }
            else
            {
                assertTrue(actual.get(counter) >= expected(counter), "responder counter '" +
                    DeviceCounters.name(counter) + "' " + actual.get(counter) + " < " + expected(counter));
            }
        }
        final DeviceCounters other = requesterDevice.counters();
        for (final int counter : new int[] { DeviceCounters.ERROR_COMPLETIONS, DeviceCounters.PEERS_LOST,
            DeviceCounters.ICRC_ERRORS, DeviceCounters.RESPONDER_MALFORMED, DeviceCounters.UNKNOWN_QUEUE_PAIR,
            DeviceCounters.COMPLETION_QUEUE_OVERRUNS, DeviceCounters.FOREIGN_PACKETS })
        {
            assertEquals(0, other.get(counter), "healthy peer device counter '" + DeviceCounters.name(counter) + "'");
        }
    }

    /** Reads every answer the victims sent to the fuzz socket: ICRC, addressing, NAKs, ACKs. */
    private void drainResponses()
    {
        int length;
        while ((length = requester.receive()) >= 0)
        {
            statistics.responses++;
            assertTrue(requester.lastResponseIcrcVerifies(length), "a victim's answer carries an ICRC computed with " +
                "IP ID 0 or some other: " + HexFormat.of().formatHex(hex(length)));
            assertTrue(response.parse(requester.receiveView, length), "a victim's answer parses");
            assertEquals(ACKNOWLEDGE, response.opcode, "a victim answers with ACKNOWLEDGE only");
            assertEquals(QueuePairEndpoint.DEFAULT_PARTITION_KEY, response.partitionKey, "P_Key of an answer");
            assertEquals(0, response.payloadLength, "an ACKNOWLEDGE carries no payload");
            if (response.destinationQp == markerPeerQpn)
            {
                fail("the marker queue pair answered a request that did not ask for an ACK");
            }
            final FuzzVictim victim = victimsByPeer.get(response.destinationQp);
            if (null == victim)
            {
                fail("an answer to queue pair 0x" + Integer.toHexString(response.destinationQp) + ", which no victim has " +
                    "as its peer");
            }
            if ((response.syndrome & 0xE0) == 0)
            {
                assertEquals(AETH_ACK | AETH_CREDITS_UNLIMITED, response.syndrome, "ACK syndrome");
                assertTrue(victim.acknowledgeable(response.psn, response.messageSequenceNumber), "ACK of PSN 0x" +
                    Integer.toHexString(response.psn) + " MSN " + response.messageSequenceNumber +
                    " names no state " + victim + " was ever in");
                victim.acknowledgementsReceived++;
                statistics.acknowledgements++;
            }
            else
            {
                victim.receivedNaks.add(new FuzzVictim.Nak(response.psn, response.syndrome,
                    response.messageSequenceNumber));
            }
        }
    }

    private byte[] hex(final int length)
    {
        final byte[] bytes = new byte[length];
        requester.receiveView.getBytes(0, bytes);
        return bytes;
    }

    // ------------------------------------------------------------------ the end

    private void finish(final int lastBatch)
    {
        int batch = lastBatch;
        // 1. Finish messages left half-way, then show every victim not in ERROR still works.
        for (final FuzzVictim victim : new ArrayList<>(model.victims.values()))
        {
            if (!victim.error && victim.messageKind != FuzzVictim.NO_MESSAGE)
            {
                finishMessage(victim, batch);
            }
        }
        for (final FuzzVictim victim : new ArrayList<>(model.victims.values()))
        {
            if (!victim.error)
            {
                topUpReceives(victim, 1);
                final int length = datagrams.request(WRITE_ONLY_WITH_IMMEDIATE, QueuePairEndpoint.DEFAULT_PARTITION_KEY,
                    victim.queuePairNumber, true, victim.expectedPsn, memory.target.address() + 64 * random.nextInt(60),
                    memory.target.rkey(), 48, 0x600D_0000 + victim.peerQueuePairNumber, 48);
                sendModelled(length, batch, "a valid write to " + victim + " after the fuzzing");
                assertEquals(FuzzVictim.EXECUTE, model.lastDecision, "a valid write after the fuzzing is executed");
            }
        }
        endBatch(batch++);

        // 2. A fresh victim takes one good write, then an in-order write with a dead rkey: a
        //    remote-access NAK and ERROR, as the spec says, while the healthy pair keeps going.
        final FuzzVictim last = spawnVictim();
        topUpReceives(last, 2);
        int length = datagrams.request(WRITE_ONLY, QueuePairEndpoint.DEFAULT_PARTITION_KEY, last.queuePairNumber, true,
            last.expectedPsn, memory.target.address() + 1024, memory.target.rkey(), 100, 0, 100);
        sendModelled(length, batch, "a valid write to the last victim");
        endBatch(batch++);
        assertEquals(QueuePairState.READY_TO_SEND, last.queuePair.state(), "the last victim after a valid write");
        final int badPsn = last.expectedPsn;
        final int msn = last.messageSequenceNumber;
        length = datagrams.request(WRITE_ONLY, QueuePairEndpoint.DEFAULT_PARTITION_KEY, last.queuePairNumber, true,
            badPsn, memory.deadAddress, memory.deadRkey, 64, 0, 64);
        sendModelled(length, batch, "an in-order write with a deregistered region's rkey");
        assertEquals(FuzzVictim.ACCESS_ERROR, model.lastDecision);
        final long roundTripsBefore = healthy.roundTrips;
        endBatch(batch++);
        assertEquals(QueuePairState.ERROR, last.queuePair.state(), "a bad rkey in order sends the queue pair to ERROR");
        pollUntil(() -> !last.receivedNaks.isEmpty(), "the remote-access NAK");
        assertEquals(new FuzzVictim.Nak(badPsn, FuzzVictim.NAK_REMOTE_ACCESS, msn), last.receivedNaks.getLast(),
            "the NAK names the refused PSN with syndrome 0x62");
        final long healthyTarget = healthy.roundTrips + 200;
        pollUntil(() -> healthy.roundTrips >= healthyTarget, "200 more healthy round trips after the victim's ERROR");
        assertTrue(healthy.roundTrips > roundTripsBefore);

        // 3. Quiesce: the healthy pair stops, every live victim goes to ERROR and flushes.
        healthy.stop();
        pollUntil(healthy::quiet, "the healthy pair to quiesce");
        for (final FuzzVictim victim : model.victims.values())
        {
            if (!victim.error)
            {
                victim.queuePair.modifyToError();
                victim.enterError("moved to ERROR at the end", model.counters, model.pendingCompletions, batch);
            }
        }
        final int finalBatch = batch;
        sendMarker(finalBatch);
        pollUntil(() -> markersSeen > finalBatch, "the final marker");
        final long nakDeadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        while (System.nanoTime() < nakDeadline &&
            !everyVictim.stream().allMatch(v -> v.receivedNaks.size() >= v.expectedNaks.size()))
        {
            pollEverything();
        }
        verifyBatch();

        // 4. What must hold over the whole run.
        assertEquals(receivesPosted, receivesCompleted, "every receive posted on a victim completed exactly once");
        for (final FuzzVictim victim : everyVictim)
        {
            assertEquals(victim.expectedNaks, victim.receivedNaks, "every NAK of " + victim + ", in order");
            if (victim.acknowledgementOwed)
            {
                assertTrue(victim.acknowledgementsReceived > 0, victim + " owed an ACK no NAK covered and sent none");
            }
        }
        assertTrue(healthy.quiet());
        assertEquals(healthy.roundTrips, healthy.pingsDelivered, "every healthy ping was echoed exactly once");
        for (final int counter : new int[] { DeviceCounters.RESPONDER_MALFORMED, DeviceCounters.ICRC_ERRORS,
            DeviceCounters.UNKNOWN_QUEUE_PAIR, DeviceCounters.BAD_PARTITION_KEY, DeviceCounters.OUT_OF_ORDER_DROPPED,
            DeviceCounters.DUPLICATE_REQUESTS, DeviceCounters.RNR_NAKS_SENT, DeviceCounters.RESPONDER_UNKNOWN_RKEY,
            DeviceCounters.RESPONDER_ACCESS_DENIED, DeviceCounters.RESPONDER_OUT_OF_BOUNDS,
            DeviceCounters.RESPONDER_LENGTH_ERROR, DeviceCounters.RESPONDER_REFUSED_OPERATION })
        {
            assertTrue(model.counters[counter] > 0, "the fuzzing exercised '" + DeviceCounters.name(counter) + "'");
        }
        assertTrue(everyVictim.stream().anyMatch(v -> v.crossedPsnWrap), "some victim executed across the PSN wrap");
        final long badIcrcParsed = statistics.corruptedThatParsed(model.corruptedButAccepted);
        assertTrue(responderDevice.counters().get(DeviceCounters.ICRC_ERRORS) >= badIcrcParsed - model.corruptedButAccepted,
            "every corrupted datagram that parsed is an ICRC error, but for the ones the IP-ID solver accepted");
    }

    /** Ends a victim's half-done message with valid continuation packets. */
    private void finishMessage(final FuzzVictim victim, final int batch)
    {
        while (victim.messageKind == FuzzVictim.WRITE_MESSAGE && !victim.error)
        {
            final boolean middle = victim.writeRemaining > victim.pathMtu;
            final int payload = middle ? victim.pathMtu : victim.writeRemaining;
            final int length = datagrams.request(middle ? WRITE_MIDDLE : WRITE_LAST,
                QueuePairEndpoint.DEFAULT_PARTITION_KEY, victim.queuePairNumber, !middle, victim.expectedPsn, 0, 0, 0, 0,
                payload);
            sendModelled(length, batch, "the rest of a write to " + victim);
        }
        if (victim.messageKind == FuzzVictim.SEND_MESSAGE)
        {
            // One byte: fits unless the receive is full, which is then a spec length error.
            final int length = datagrams.request(SEND_LAST, QueuePairEndpoint.DEFAULT_PARTITION_KEY,
                victim.queuePairNumber, true, victim.expectedPsn, 0, 0, 0, 0, 1);
            sendModelled(length, batch, "the end of a send to " + victim);
        }
    }

    /**
     * @param elapsedNs how long the run took.
     * @return what was sent, what the model said became of it, and the counters, model against device.
     */
    String summary(final long elapsedNs)
    {
        final StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "RoceBadInputTest: seed 0x%x, %d datagrams in %d batches, %.1f s%n",
            seed, statistics.datagrams, batches, elapsedNs / 1e9));
        statistics.format(out, model.corruptedButAccepted);
        out.append("  victims: ").append(everyVictim.size()).append(" (replaced after ERROR; ")
            .append(everyVictim.stream().filter(v -> v.crossedPsnWrap).count())
            .append(" executed across the PSN wrap 0xFFFFFF -> 0); receives posted ")
            .append(receivesPosted.size()).append("; answers on the wire ").append(statistics.responses).append(" (")
            .append(statistics.acknowledgements).append(" ACKs)\n");
        out.append("  healthy: ").append(healthy.roundTrips).append(" round trips, each delivered once and byte-exact\n");
        out.append("  responder counters (model / device; -1: not modelled):\n");
        final DeviceCounters actual = responderDevice.counters();
        for (int counter = 0; counter < DeviceCounters.COUNT; counter++)
        {
            out.append(String.format(Locale.ROOT, "    %-28s %8d / %8d%n", DeviceCounters.name(counter),
                counter == DeviceCounters.REQUESTS_EXECUTED || contains(EXACT_COUNTERS, counter) ||
                    contains(TRAFFIC_COUNTERS, counter) ? expected(counter) : -1, actual.get(counter)));
        }
        out.append("  healthy peer device: ").append(requesterDevice.counters()).append('\n');
        return out.toString();
    }

    private static boolean contains(final int[] values, final int value)
    {
        for (final int v : values)
        {
            if (v == value)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close()
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(resources.get(i));
        }
    }
}
