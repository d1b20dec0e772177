package io.ringwire.rdma.cm;

import io.ringwire.rdma.RdmaException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

import static io.ringwire.rdma.cm.CmTestSupport.SHORT_TIMEOUT_MS;
import static io.ringwire.rdma.cm.CmTestSupport.WAIT_LIMIT;
import static io.ringwire.rdma.cm.CmTestSupport.activeQueuePair;
import static io.ringwire.rdma.cm.CmTestSupport.await;
import static io.ringwire.rdma.cm.CmTestSupport.awaitFailure;
import static io.ringwire.rdma.cm.CmTestSupport.inBackground;
import static io.ringwire.rdma.cm.CmTestSupport.loopbackAnyPort;
import static io.ringwire.rdma.cm.CmTestSupport.newExecutor;
import static io.ringwire.rdma.cm.CmTestSupport.passiveQueuePair;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keys per link: a listener accepts only the identities it trusts, each side learns which identity
 * the other proved, and a key of the right name but the wrong bytes proves nothing.
 */
class IdentityHandshakeTest
{
    private static final Identity GATEWAY = Identity.generate("gateway-1");
    private static final Identity ENGINE = Identity.generate("engine-1");
    private static final Identity MEMBER = Identity.generate("member-1001");

    private static ConnectionManagerConfig config(final Identity identity, final Identity... trusted)
    {
        return new ConnectionManagerConfig()
            .identity(identity)
            .trust(java.util.Arrays.stream(trusted).map(Identity::peerKey).toList())
            .timeoutMs(SHORT_TIMEOUT_MS * 3)
            .conclude();
    }

    @Test
    void eachSideLearnsTheIdentityTheOtherProved() throws Exception
    {
        final ConnectionManagerConfig engineSide = config(ENGINE, GATEWAY);
        final ConnectionManagerConfig gatewaySide = config(GATEWAY, ENGINE);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), engineSide);
             ExecutorService executor = newExecutor())
        {
            final CompletableFuture<Connection> active = inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), activeQueuePair(), List.of(), new byte[0],
                    gatewaySide));
            final PendingConnection pending = listener.accept(WAIT_LIMIT);
            assertNotNull(pending);
            assertEquals(GATEWAY.peerKey(), pending.peerIdentity());
            final Connection passive = pending.complete(passiveQueuePair(), List.of(), new byte[0]);
            assertEquals(GATEWAY.peerKey(), passive.peerIdentity());
            assertEquals(ENGINE.peerKey(), await(active, "the gateway's connect").peerIdentity());
        }
    }

    @Test
    void anIdentityTheListenerDoesNotAcceptIsRefusedAtTheHandshakeAndCounted() throws Exception
    {
        final ConnectionManagerConfig engineSide = config(ENGINE, GATEWAY);
        // The member holds the engine's public key, and its own identity: not one the engine accepts.
        final ConnectionManagerConfig memberSide = config(MEMBER, ENGINE);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), engineSide);
             ExecutorService executor = newExecutor())
        {
            final RecordingQueuePair queuePair = activeQueuePair();
            final Throwable failure = awaitFailure(inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), queuePair, List.of(), new byte[0], memberSide)),
                "the member's connect");
            final ConnectionRejectedException rejected = assertInstanceOf(ConnectionRejectedException.class, failure);
            assertEquals(RejectReason.UNKNOWN_IDENTITY, rejected.reason());
            assertTrue(rejected.getMessage().contains("member-1001"), rejected.getMessage());
            assertNull(listener.accept(java.time.Duration.ofMillis(100)), "nothing reaches the application");
            assertEquals(1, listener.counters().rejectedUnknownIdentity());
            assertEquals(0, listener.counters().accepted());
        }
    }

    @Test
    void aKeyOfAnAcceptedNameButOtherBytesFailsAuthentication() throws Exception
    {
        final ConnectionManagerConfig engineSide = config(ENGINE, GATEWAY);
        final ConnectionManagerConfig impostor = config(Identity.generate("gateway-1"), ENGINE);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), engineSide);
             ExecutorService executor = newExecutor())
        {
            final Throwable failure = awaitFailure(inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), activeQueuePair(), List.of(), new byte[0],
                    impostor)), "the impostor's connect");
            assertEquals(RejectReason.BAD_AUTHENTICATION,
                assertInstanceOf(ConnectionRejectedException.class, failure).reason());
            assertEquals(1, listener.counters().rejectedBadAuthentication());
        }
    }

    @Test
    void theActiveSideRefusesAListenerThatNamesAnIdentityItDoesNotAcceptBeforeItsRequestRevealsAnything()
        throws Exception
    {
        // A member-run listener posing as the engine: the gateway trusts only the real engine.
        final ConnectionManagerConfig posing = config(MEMBER, GATEWAY);
        final ConnectionManagerConfig gatewaySide = config(GATEWAY, ENGINE);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), posing);
             ExecutorService executor = newExecutor())
        {
            final RecordingQueuePair queuePair = activeQueuePair();
            final Throwable failure = awaitFailure(inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), queuePair, List.of(), new byte[0], gatewaySide)),
                "the gateway's connect");
            assertInstanceOf(RdmaException.class, failure);
            assertTrue(failure.getMessage().contains("UNKNOWN_IDENTITY"), failure.getMessage());
            assertTrue(failure.getMessage().contains("member-1001"), failure.getMessage());
            assertEquals(io.ringwire.rdma.QueuePairState.INIT, queuePair.state(), "the gateway connected nothing");
            assertNull(listener.accept(java.time.Duration.ofMillis(100)), "no REQ reached the posing listener");
        }
    }

    @Test
    void aChallengeThatDoesNotVerifyUnderItsNamesKeyIsRefusedBeforeTheRequest() throws Exception
    {
        // A listener of the engine's name but other key bytes.
        final ConnectionManagerConfig impostor = config(Identity.generate("engine-1"), GATEWAY);
        final ConnectionManagerConfig gatewaySide = config(GATEWAY, ENGINE);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), impostor);
             ExecutorService executor = newExecutor())
        {
            final Throwable failure = awaitFailure(inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), activeQueuePair(), List.of(), new byte[0],
                    gatewaySide)), "the gateway's connect");
            assertTrue(failure.getMessage().contains("BAD_AUTHENTICATION"), failure.getMessage());
            assertNull(listener.accept(java.time.Duration.ofMillis(100)), "no REQ reached the impostor");
        }
    }

    @Test
    void aRequestRelayedFromTheListenerItWasMadeForToAnotherIsRefusedThere() throws Exception
    {
        // Member 2002's endpoint accepts the gateway; the gateway connects to member 1001's endpoint,
        // where it accepts member 1001 alone. Member 1001 hands the gateway 2002's challenge under a
        // CHALLENGE of its own, and passes the REQ the gateway signs in answer on to 2002.
        final Identity other = Identity.generate("member-2002");
        final ConnectionManagerConfig otherSide = config(other, GATEWAY);
        final ConnectionManagerConfig relaySide = config(MEMBER, GATEWAY);
        final ConnectionManagerConfig gatewaySide = config(GATEWAY, MEMBER);
        try (ConnectionListener target = ConnectionListener.bind(loopbackAnyPort(), otherSide);
             java.net.ServerSocket relay = new java.net.ServerSocket(0, 1, loopbackAnyPort().getAddress());
             ExecutorService executor = newExecutor())
        {
            final CompletableFuture<Connection> gateway = inBackground(executor, () -> ConnectionManager.connect(
                (java.net.InetSocketAddress)relay.getLocalSocketAddress(), activeQueuePair(), List.of(), new byte[0],
                gatewaySide));
            try (java.net.Socket fromGateway = relay.accept();
                 CmTestSupport.RawPeer towardGateway = new CmTestSupport.RawPeer(fromGateway, relaySide);
                 CmTestSupport.RawPeer towardTarget = CmTestSupport.RawPeer.connect(target.localAddress(), relaySide))
            {
                towardGateway.sendChallenge(towardTarget.challenge());
                final Frame request = towardGateway.readFrame(MessageType.REQ);
                final byte[] relayed = java.util.Arrays.copyOf(request.signed(),
                    request.signed().length + request.signature().length);
                System.arraycopy(request.signature(), 0, relayed, request.signed().length, request.signature().length);
                towardTarget.send(relayed);

                final RejectMessage refused = towardTarget.readReject();
                assertEquals(RejectReason.STALE_REQUEST, refused.reason());
                assertTrue(refused.text().contains("member-1001"), refused.text());
            }
            assertNull(target.accept(java.time.Duration.ofMillis(100)), "nothing reaches member 2002's application");
            assertEquals(1, target.counters().rejectedStale());
            assertEquals(0, target.counters().accepted());
            assertInstanceOf(RdmaException.class, awaitFailure(gateway, "the gateway's connect"));
        }
    }

    @Test
    void aNarrowedEndpointAcceptsOnlyItsOwnIdentitiesWithTheSameLimits() throws Exception
    {
        final ConnectionManagerConfig wide = config(ENGINE, GATEWAY, MEMBER);
        final ConnectionManagerConfig narrow = wide.withAccess(ENGINE, List.of(GATEWAY.peerKey()));
        assertEquals(wide.timeoutMs(), narrow.timeoutMs());
        assertEquals(List.of("gateway-1"), List.copyOf(narrow.trusted().keySet()));
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), narrow);
             ExecutorService executor = newExecutor())
        {
            final Throwable failure = awaitFailure(inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), activeQueuePair(), List.of(), new byte[0],
                    config(MEMBER, ENGINE))), "the member's connect");
            assertEquals(RejectReason.UNKNOWN_IDENTITY,
                assertInstanceOf(ConnectionRejectedException.class, failure).reason());
        }
    }

    @Test
    void narrowingAnEndpointToNoKeysIsRefusedRatherThanLeftToTheTrustFiles()
    {
        final ConnectionManagerConfig wide = config(ENGINE, GATEWAY, MEMBER);
        final IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
            () -> wide.withAccess(ENGINE, List.of()));
        assertTrue(none.getMessage().contains("accepts at least one key"), none.getMessage());
    }
}
