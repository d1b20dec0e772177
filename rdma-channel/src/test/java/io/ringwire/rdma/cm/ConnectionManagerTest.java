package io.ringwire.rdma.cm;

import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static io.ringwire.rdma.cm.CmTestSupport.RawPeer;
import static io.ringwire.rdma.cm.CmTestSupport.OTHER_SECRET;
import static io.ringwire.rdma.cm.CmTestSupport.SECRET;
import static io.ringwire.rdma.cm.CmTestSupport.SHORT_TIMEOUT_MS;
import static io.ringwire.rdma.cm.CmTestSupport.STEP_TIMEOUT_MS;
import static io.ringwire.rdma.cm.CmTestSupport.WAIT_LIMIT;
import static io.ringwire.rdma.cm.CmTestSupport.activeQueuePair;
import static io.ringwire.rdma.cm.CmTestSupport.await;
import static io.ringwire.rdma.cm.CmTestSupport.awaitFailure;
import static io.ringwire.rdma.cm.CmTestSupport.config;
import static io.ringwire.rdma.cm.CmTestSupport.inBackground;
import static io.ringwire.rdma.cm.CmTestSupport.loopbackAnyPort;
import static io.ringwire.rdma.cm.CmTestSupport.newExecutor;
import static io.ringwire.rdma.cm.CmTestSupport.passiveQueuePair;
import static io.ringwire.rdma.cm.CmTestSupport.requestFrame;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The REQ / REP / RTU exchange end to end over loopback TCP, with queue pairs that record what the
 * connection manager does to them.
 */
final class ConnectionManagerTest
{
    private static final List<QueuePairState> CONNECTED =
        List.of(QueuePairState.INIT, QueuePairState.READY_TO_RECEIVE, QueuePairState.READY_TO_SEND);
    private static final List<QueuePairState> UNTOUCHED = List.of(QueuePairState.INIT);
    private static final List<QueuePairState> FAILED_AFTER_READY_TO_RECEIVE =
        List.of(QueuePairState.INIT, QueuePairState.READY_TO_RECEIVE, QueuePairState.ERROR);

    @Test
    void handshakeExchangesEndpointsRegionsAndApplicationDataAndLeavesBothQueuePairsReadyToSend() throws Exception
    {
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
        final RecordingQueuePair active = activeQueuePair();
        final RecordingQueuePair passive = passiveQueuePair();
        final List<RegionAdvertisement> activeRegions = List.of(new RegionAdvertisement(0x7F00_0000_1000L, 0x67B, 4096));
        final List<RegionAdvertisement> passiveRegions = List.of(
            new RegionAdvertisement(0x7F00_0000_2000L, 0x77, 1 << 16), new RegionAdvertisement(0x3000L, 0x78, 128));
        final byte[] activeData = "subscribe stream=7".getBytes(StandardCharsets.UTF_8);
        final byte[] passiveData = "welcome stream=7 credit=65536".getBytes(StandardCharsets.UTF_8);

        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            ExecutorService executor = newExecutor())
        {
            final CompletableFuture<Connection> activeSide = inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), active, activeRegions, activeData, config));

            final PendingConnection pending = listener.accept(WAIT_LIMIT);
            assertNotNull(pending, "no request within " + WAIT_LIMIT);
            assertEquals(active.localEndpoint(), pending.remoteEndpoint());
            assertEquals(activeRegions, pending.remoteRegions());
            assertArrayEquals(activeData, pending.remoteApplicationData());

            final Connection passiveConnection = pending.complete(passive, passiveRegions, passiveData);
            final Connection activeConnection = await(activeSide, "connect");

            assertEquals(passive.localEndpoint(), activeConnection.remoteEndpoint());
            assertEquals(passiveRegions, activeConnection.remoteRegions());
            assertArrayEquals(passiveData, activeConnection.remoteApplicationData());
            assertEquals(active.localEndpoint(), passiveConnection.remoteEndpoint());
            assertEquals(activeRegions, passiveConnection.remoteRegions());
            assertArrayEquals(activeData, passiveConnection.remoteApplicationData());

            assertEquals(CONNECTED, active.transitions());
            assertEquals(CONNECTED, passive.transitions());
            assertEquals(passive.localEndpoint(), active.remoteEndpoint(), "active QP bound to the passive endpoint");
            assertEquals(active.localEndpoint(), passive.remoteEndpoint(), "passive QP bound to the active endpoint");
            assertEquals(1, listener.counters().accepted());
            assertEquals(1, listener.counters().completed());
        }
    }

    @Test
    void wrongSecretIsRejectedAsBadAuthenticationCountedAndNeverAccepted() throws Exception
    {
        final RecordingQueuePair active = activeQueuePair();
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config(STEP_TIMEOUT_MS)))
        {
            final ConnectionManagerConfig wrongSecret = config(OTHER_SECRET, ConnectionManager.PROTOCOL_VERSION,
                STEP_TIMEOUT_MS);

            // The listener's CHALLENGE does not verify under the key the active side holds for its
            // name: refused there, before the REQ, and counted at the listener, which hears why.
            final RdmaException refused = assertThrows(RdmaException.class, () ->
                ConnectionManager.connect(listener.localAddress(), active, List.of(), new byte[0], wrongSecret));

            assertTrue(refused.getMessage().contains("BAD_AUTHENTICATION"), refused.getMessage());
            assertTrue(refused.getMessage().contains(ConnectionManagerConfig.SECRET_PROP), refused.getMessage());
            final long until = System.nanoTime() + WAIT_LIMIT.toNanos();
            while (listener.counters().challengesRefused() == 0 && System.nanoTime() < until)
            {
                Thread.sleep(5);
            }
            assertEquals(1, listener.counters().challengesRefused());
            assertEquals(0, listener.counters().accepted());
            assertEquals(UNTOUCHED, active.transitions());
            assertNull(listener.accept(Duration.ofMillis(100)), "a rejected request must never reach accept");
        }
    }

    @Test
    void aListenerOfAnotherVersionIsRefusedAtItsChallengeBeforeAnythingIsRevealed() throws Exception
    {
        final RecordingQueuePair active = activeQueuePair();
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config(STEP_TIMEOUT_MS)))
        {
            final ConnectionManagerConfig newerVersion = config(SECRET, ConnectionManager.PROTOCOL_VERSION + 1,
                STEP_TIMEOUT_MS);

            final RdmaException refused = assertThrows(RdmaException.class, () ->
                ConnectionManager.connect(listener.localAddress(), active, List.of(), new byte[0], newerVersion));

            assertTrue(refused.getMessage().contains("UNSUPPORTED_VERSION"), refused.getMessage());
            assertTrue(refused.getMessage().contains("version " + ConnectionManager.PROTOCOL_VERSION),
                refused.getMessage());
            final long until = System.nanoTime() + WAIT_LIMIT.toNanos();
            while (listener.counters().challengesRefused() == 0 && System.nanoTime() < until)
            {
                Thread.sleep(5);
            }
            assertEquals(1, listener.counters().challengesRefused(), "the listener hears why");
            assertEquals(0, listener.counters().accepted());
            assertEquals(UNTOUCHED, active.transitions());
            assertNull(listener.accept(Duration.ofMillis(100)), "no request ever reaches accept");
        }
    }

    @Test
    void aRequestOfAnotherVersionIsRejectedCountedAndNeverAccepted() throws Exception
    {
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config(STEP_TIMEOUT_MS));
             RawPeer peer = RawPeer.connect(listener.localAddress(), config(STEP_TIMEOUT_MS)))
        {
            final ConnectionManagerConfig newerVersion = config(SECRET, ConnectionManager.PROTOCOL_VERSION + 1,
                STEP_TIMEOUT_MS);
            peer.send(requestFrame(newerVersion, Nonces.newNonce(), peer.challenge(), activeQueuePair().localEndpoint(),
                new byte[0]));

            final RejectMessage rejected = peer.readReject();
            assertEquals(RejectReason.UNSUPPORTED_VERSION, rejected.reason());
            assertTrue(rejected.text().contains("version " + (ConnectionManager.PROTOCOL_VERSION + 1)),
                rejected.text());
            assertEquals(1, listener.counters().rejectedBadVersion());
            assertEquals(0, listener.counters().accepted());
            assertNull(listener.accept(Duration.ofMillis(100)), "a rejected request must never reach accept");
        }
    }

    @Test
    void applicationRejectReachesActiveSideAsRejectedByApplicationWithItsReason() throws Exception
    {
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
        final RecordingQueuePair active = activeQueuePair();
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            ExecutorService executor = newExecutor())
        {
            final CompletableFuture<Connection> activeSide = inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), active, List.of(), new byte[0], config));
            final PendingConnection pending = listener.accept(WAIT_LIMIT);
            assertNotNull(pending, "no request within " + WAIT_LIMIT);

            pending.reject("no capacity for stream 7");

            final ConnectionRejectedException rejected =
                assertInstanceOf(ConnectionRejectedException.class, awaitFailure(activeSide, "connect"));
            assertEquals(RejectReason.REJECTED_BY_APPLICATION, rejected.reason());
            assertEquals("no capacity for stream 7", rejected.peerText());
            assertEquals(1, listener.counters().rejectedByApplication());
            assertEquals(UNTOUCHED, active.transitions());
            assertThrows(IllegalStateException.class, () -> pending.complete(passiveQueuePair(), List.of(), new byte[0]),
                "a rejected request cannot be completed as well");
        }
    }

    @Test
    void listenerThatNeverAnswersFailsConnectWithinTheTimeoutNamingTheChallengeStep() throws Exception
    {
        final RecordingQueuePair active = activeQueuePair();
        // The kernel completes TCP connects into the backlog; nobody ever reads or answers.
        try (ServerSocket silentListener = new ServerSocket(0, 1, loopbackAnyPort().getAddress()))
        {
            final long start = System.nanoTime();
            final RdmaException failure = assertThrows(RdmaException.class, () -> ConnectionManager.connect(
                (InetSocketAddress)silentListener.getLocalSocketAddress(), active, List.of(), new byte[0],
                config(SHORT_TIMEOUT_MS)));
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertTrue(failure.getMessage().contains("waiting for the CHALLENGE"), failure.getMessage());
            assertTrue(failure.getMessage().contains("step CHALLENGE"), failure.getMessage());
            assertTrue(elapsedMs >= SHORT_TIMEOUT_MS - 20 && elapsedMs < SHORT_TIMEOUT_MS + 2000,
                "failed after " + elapsedMs + " ms, timeout " + SHORT_TIMEOUT_MS + " ms");
            assertEquals(UNTOUCHED, active.transitions(), "no REP was verified, so the queue pair stays in INIT");
        }
    }

    @Test
    void listenerThatChallengesButNeverAnswersTheRequestFailsConnectNamingTheRepStep() throws Exception
    {
        final ConnectionManagerConfig config = config(SHORT_TIMEOUT_MS);
        final RecordingQueuePair active = activeQueuePair();
        try (ServerSocket fakeListener = new ServerSocket(0, 1, loopbackAnyPort().getAddress());
            ExecutorService executor = newExecutor())
        {
            final CompletableFuture<Frame> fakePassive = inBackground(executor, () ->
            {
                try (Socket socket = fakeListener.accept(); RawPeer peer = new RawPeer(socket, config))
                {
                    peer.sendChallenge();
                    final Frame request = peer.readFrame(MessageType.REQ);
                    Thread.sleep(SHORT_TIMEOUT_MS + 500); // answers nothing
                    return request;
                }
                catch (final Exception ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final long start = System.nanoTime();
            final RdmaException failure = assertThrows(RdmaException.class, () -> ConnectionManager.connect(
                (InetSocketAddress)fakeListener.getLocalSocketAddress(), active, List.of(), new byte[0], config));
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertTrue(failure.getMessage().contains("waiting for REP"), failure.getMessage());
            assertTrue(failure.getMessage().contains("step REP"), failure.getMessage());
            assertTrue(elapsedMs >= SHORT_TIMEOUT_MS - 20 && elapsedMs < SHORT_TIMEOUT_MS + 2000,
                "failed after " + elapsedMs + " ms, timeout " + SHORT_TIMEOUT_MS + " ms");
            assertEquals(UNTOUCHED, active.transitions(), "no REP was verified, so the queue pair stays in INIT");
            assertEquals(MessageType.REQ, await(fakePassive, "the fake passive side").type());
        }
    }

    @Test
    void activeSideThatNeverSendsRtuFailsCompleteWithinTheTimeoutAndMovesPassiveQueuePairToError() throws Exception
    {
        final ConnectionManagerConfig config = config(SHORT_TIMEOUT_MS);
        final RecordingQueuePair passive = passiveQueuePair();
        final QueuePairEndpoint activeEndpoint = activeQueuePair().localEndpoint();
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            RawPeer mute = RawPeer.connect(listener.localAddress(), config))
        {
            mute.send(requestFrame(config, new byte[16], mute.challenge(), activeEndpoint, new byte[0]));
            final PendingConnection pending = listener.accept(WAIT_LIMIT);
            assertNotNull(pending, "no request within " + WAIT_LIMIT);

            final long start = System.nanoTime();
            final RdmaException failure = assertThrows(RdmaException.class, () ->
                pending.complete(passive, List.of(), new byte[0]));
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertTrue(failure.getMessage().contains("waiting for RTU"), failure.getMessage());
            assertTrue(failure.getMessage().contains("step RTU"), failure.getMessage());
            assertTrue(elapsedMs >= SHORT_TIMEOUT_MS - 20 && elapsedMs < SHORT_TIMEOUT_MS + 2000,
                "failed after " + elapsedMs + " ms, timeout " + SHORT_TIMEOUT_MS + " ms");
            assertEquals(FAILED_AFTER_READY_TO_RECEIVE, passive.transitions());
            assertEquals(1, listener.counters().timedOut());
            assertEquals(0, listener.counters().completed());

            final Frame reply = mute.readFrame(MessageType.REP);
            assertEquals(MessageType.REP, reply.type(), "the REP was sent before the wait for RTU");
            assertEquals(passive.localEndpoint(), WireFormat.decodeConnect(MessageType.REP, reply.body()).endpoint());
            assertEquals(RejectReason.TIMEOUT, mute.readReject().reason());
        }
    }

    @Test
    void repSignedWithAnotherSecretIsRefusedByTheActiveSideWhoseQueuePairStaysInInit() throws Exception
    {
        assertActiveSideRefusesReply(OTHER_SECRET, false);
    }

    @Test
    void repThatDoesNotAnswerThisRequestIsRefusedAsBadAuthentication() throws Exception
    {
        assertActiveSideRefusesReply(SECRET, true);
    }

    /**
     * A fake passive side answers a genuine REQ with a REP that is either signed with the wrong secret
     * or validly signed but echoing another nonce (a replay); the active side must refuse it.
     */
    private static void assertActiveSideRefusesReply(final byte[] replySecret, final boolean echoWrongNonce)
        throws Exception
    {
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
        final ConnectionManagerConfig replyConfig = config(replySecret, ConnectionManager.PROTOCOL_VERSION,
            STEP_TIMEOUT_MS);
        final RecordingQueuePair active = activeQueuePair();
        try (ServerSocket fakeListener = new ServerSocket(0, 1, loopbackAnyPort().getAddress());
            ExecutorService executor = newExecutor())
        {
            final CompletableFuture<RejectMessage> fakePassive = inBackground(executor, () ->
            {
                try (Socket socket = fakeListener.accept(); RawPeer peer = new RawPeer(socket, config))
                {
                    peer.sendChallenge();
                    final Frame request = peer.readFrame(MessageType.REQ);
                    final byte[] echoed = echoWrongNonce ? new byte[16] : WireFormat.nonce(request.body());
                    peer.send(WireFormat.encodeFrame(MessageType.REP, ConnectionManager.PROTOCOL_VERSION,
                        WireFormat.encodeConnect(new byte[16], echoed, passiveQueuePair().localEndpoint(), List.of(),
                            new byte[0], replyConfig.identity().name(), null), replyConfig.identity()));
                    return peer.readReject();
                }
                catch (final Exception ex)
                {
                    throw new IllegalStateException(ex);
                }
            });

            final RdmaException failure = assertThrows(RdmaException.class, () -> ConnectionManager.connect(
                (InetSocketAddress)fakeListener.getLocalSocketAddress(), active, List.of(), new byte[0],
                config));

            assertFalse(failure instanceof ConnectionRejectedException, "the active side refused, not the peer");
            assertTrue(failure.getMessage().contains("step REP"), failure.getMessage());
            assertTrue(failure.getMessage().contains("BAD_AUTHENTICATION"), failure.getMessage());
            assertEquals(UNTOUCHED, active.transitions(), "an unverified REP must not touch the queue pair");
            assertEquals(RejectReason.BAD_AUTHENTICATION, await(fakePassive, "fake passive side").reason(),
                "the active side tells the passive side why");
        }
    }

    @Test
    void passiveQueuePairThatCannotConnectRejectsTheRequestAndMovesToError() throws Exception
    {
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
        final RecordingQueuePair active = activeQueuePair();
        final RecordingQueuePair passive = passiveQueuePair();
        passive.failReadyToReceiveWith(new RdmaException("address 10.0.0.1:4791 unreachable"));
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            ExecutorService executor = newExecutor())
        {
            final CompletableFuture<Connection> activeSide = inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), active, List.of(), new byte[0], config));
            final PendingConnection pending = listener.accept(WAIT_LIMIT);
            assertNotNull(pending, "no request within " + WAIT_LIMIT);

            final RdmaException failure = assertThrows(RdmaException.class, () ->
                pending.complete(passive, List.of(), new byte[0]));

            assertTrue(failure.getMessage().contains("unreachable"), failure.getMessage());
            assertEquals(List.of(QueuePairState.INIT, QueuePairState.ERROR), passive.transitions());
            final ConnectionRejectedException rejected =
                assertInstanceOf(ConnectionRejectedException.class, awaitFailure(activeSide, "connect"));
            assertEquals(RejectReason.QUEUE_PAIR_FAILED, rejected.reason());
            assertTrue(rejected.peerText().contains("unreachable"), rejected.peerText());
            assertEquals(UNTOUCHED, active.transitions());
        }
    }

    @Test
    void activeQueuePairThatCannotConnectAfterRepMovesBothQueuePairsToError() throws Exception
    {
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
        final RecordingQueuePair active = activeQueuePair();
        final RecordingQueuePair passive = passiveQueuePair();
        active.failReadyToReceiveWith(new RdmaException("address 10.0.0.2:4791 unreachable"));
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            ExecutorService executor = newExecutor())
        {
            final CompletableFuture<Connection> activeSide = inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), active, List.of(), new byte[0], config));
            final PendingConnection pending = listener.accept(WAIT_LIMIT);
            assertNotNull(pending, "no request within " + WAIT_LIMIT);

            final ConnectionRejectedException rejected = assertThrows(ConnectionRejectedException.class, () ->
                pending.complete(passive, List.of(), new byte[0]));

            assertEquals(RejectReason.QUEUE_PAIR_FAILED, rejected.reason());
            assertEquals(FAILED_AFTER_READY_TO_RECEIVE, passive.transitions());
            final Throwable activeFailure = awaitFailure(activeSide, "connect");
            assertTrue(activeFailure.getMessage().contains("moved to ERROR"), activeFailure.getMessage());
            assertEquals(List.of(QueuePairState.INIT, QueuePairState.ERROR), active.transitions());
        }
    }

    @Test
    void queuePairNotInInitIsRefusedBeforeAnythingIsSent() throws Exception
    {
        final RecordingQueuePair notInitialised = new RecordingQueuePair(activeQueuePair().localEndpoint());
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config(STEP_TIMEOUT_MS)))
        {
            final IllegalStateException failure = assertThrows(IllegalStateException.class, () ->
                ConnectionManager.connect(listener.localAddress(), notInitialised, List.of(), new byte[0],
                    config(STEP_TIMEOUT_MS)));

            assertTrue(failure.getMessage().contains("modifyToInit"), failure.getMessage());
            assertEquals(List.of(), notInitialised.transitions());
            assertNull(listener.accept(Duration.ofMillis(100)), "nothing may have been sent");
        }
    }

    @Test
    void tooManyRegionsOrTooMuchApplicationDataIsRefusedBeforeAnythingIsSent()
    {
        final RecordingQueuePair active = activeQueuePair();
        final List<RegionAdvertisement> tooMany = IntStream.rangeClosed(0, ConnectionManager.MAX_REGIONS)
            .mapToObj(i -> new RegionAdvertisement(0x1000L * i, i, 64)).toList();
        final InetSocketAddress nowhere = loopbackAnyPort();

        final IllegalArgumentException regions = assertThrows(IllegalArgumentException.class, () ->
            ConnectionManager.connect(nowhere, active, tooMany, new byte[0], config(STEP_TIMEOUT_MS)));
        final IllegalArgumentException data = assertThrows(IllegalArgumentException.class, () ->
            ConnectionManager.connect(nowhere, active, List.of(),
                new byte[ConnectionManager.MAX_APPLICATION_DATA_LENGTH + 1], config(STEP_TIMEOUT_MS)));

        assertTrue(regions.getMessage().contains("limit of " + ConnectionManager.MAX_REGIONS), regions.getMessage());
        assertTrue(data.getMessage().contains("limit of " + ConnectionManager.MAX_APPLICATION_DATA_LENGTH),
            data.getMessage());
        assertEquals(UNTOUCHED, active.transitions());
    }
}
