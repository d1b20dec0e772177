package io.ringwire.rdma.cm;

import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import static io.ringwire.rdma.cm.CmTestSupport.RawPeer;
import static io.ringwire.rdma.cm.CmTestSupport.SHORT_TIMEOUT_MS;
import static io.ringwire.rdma.cm.CmTestSupport.WAIT_LIMIT;
import static io.ringwire.rdma.cm.CmTestSupport.activeQueuePair;
import static io.ringwire.rdma.cm.CmTestSupport.assertHandshakeSucceeds;
import static io.ringwire.rdma.cm.CmTestSupport.awaitFailure;
import static io.ringwire.rdma.cm.CmTestSupport.config;
import static io.ringwire.rdma.cm.CmTestSupport.inBackground;
import static io.ringwire.rdma.cm.CmTestSupport.loopbackAnyPort;
import static io.ringwire.rdma.cm.CmTestSupport.newExecutor;
import static io.ringwire.rdma.cm.CmTestSupport.requestFrame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What peers that misbehave on the management connection (silence, garbage, truncation, absurd
 * lengths, tampering, floods) get from the listener: a REJ with the right reason, a counter, and a
 * listener that keeps serving everyone else.
 */
final class ConnectionListenerRobustnessTest
{
    @Test
    void silentClientTimesOutAndIsCountedWhileAnotherClientCompletesItsHandshake() throws Exception
    {
        // Long enough that the second handshake (a few ms on loopback) ends well before it.
        final long timeoutMs = 1500;
        final ConnectionManagerConfig config = config(timeoutMs);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            RawPeer silent = RawPeer.connect(listener.localAddress(), config))
        {
            final long silentSince = System.nanoTime();

            assertHandshakeSucceeds(listener, config);

            final long handshakeDoneMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentSince);
            assertTrue(handshakeDoneMs < timeoutMs, "handshake took " + handshakeDoneMs + " ms; cannot prove it " +
                "ran while the silent client held its connection");
            assertFalse(silent.hasUnreadBytes(), "the silent client must not have been answered yet");
            assertEquals(0, listener.counters().timedOut());

            assertEquals(RejectReason.TIMEOUT, silent.readReject().reason());
            final long rejectedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentSince);
            assertTrue(rejectedAfterMs >= timeoutMs - 20, "timed out after only " + rejectedAfterMs + " ms");
            assertEquals(1, listener.counters().timedOut());
            assertEquals(1, listener.counters().completed());
        }
    }

    @Test
    void garbageBytesAreRejectedAsMalformedAndCountedAndTheListenerKeepsServing() throws Exception
    {
        final ConnectionManagerConfig config = config(SHORT_TIMEOUT_MS);
        final byte[] garbage = new byte[64];
        new Random(42).nextBytes(garbage);
        garbage[0] = 0; // never the magic's first byte ('R')
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config))
        {
            final RejectMessage reject = sendAndReadReject(listener, config, garbage, false);

            assertEquals(RejectReason.MALFORMED, reject.reason());
            assertTrue(reject.text().contains("bad magic"), reject.text());
            assertEquals(1, listener.counters().malformed());
            assertHandshakeSucceeds(listener, config);
            assertNull(listener.accept(Duration.ofMillis(50)), "garbage must never reach accept");
        }
    }

    @Test
    void truncatedFrameIsRejectedAsMalformedAndCountedAndTheListenerKeepsServing() throws Exception
    {
        final ConnectionManagerConfig config = config(SHORT_TIMEOUT_MS);
        final byte[] request = requestFrame(config, new byte[16], activeQueuePair().localEndpoint(), new byte[10]);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config))
        {
            final RejectMessage reject =
                sendAndReadReject(listener, config, Arrays.copyOf(request, request.length / 2), true);

            assertEquals(RejectReason.MALFORMED, reject.reason());
            assertTrue(reject.text().contains("truncated"), reject.text());
            assertEquals(1, listener.counters().malformed());
            assertEquals(0, listener.counters().timedOut());
            assertHandshakeSucceeds(listener, config);
        }
    }

    @Test
    void absurdLengthPrefixIsRejectedAsMalformedFromTheHeaderAloneWithoutWaitingForABody() throws Exception
    {
        // A timeout far beyond the bound below: a listener that tried to read (or allocate for) the announced
        // body would still be waiting for it when the bound expires.
        final ConnectionManagerConfig config = config(10_000);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config))
        {
            for (final int announced : new int[] { Integer.MAX_VALUE, -1, WireFormat.MAX_BODY_LENGTH + 1 })
            {
                final long start = System.nanoTime();
                final RejectMessage reject = sendAndReadReject(listener, config, header(announced), false);
                final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

                assertEquals(RejectReason.MALFORMED, reject.reason());
                assertTrue(reject.text().contains("body length " + Integer.toUnsignedString(announced)), reject.text());
                assertTrue(elapsedMs < 2000, "REJ took " + elapsedMs + " ms: the listener waited for a body");
            }
            assertEquals(3, listener.counters().malformed());
            assertHandshakeSucceeds(listener, config);
        }
    }

    @Test
    void tamperedRequestFailsAuthenticationIsCountedAndNeverAccepted() throws Exception
    {
        final ConnectionManagerConfig config = config(SHORT_TIMEOUT_MS);
        final byte[] request = requestFrame(config, new byte[16], activeQueuePair().localEndpoint(),
            "stream=7".getBytes(StandardCharsets.UTF_8));
        request[request.length - WireFormat.TAG_LENGTH - 1] ^= 0x01; // last byte of the application data
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config))
        {
            final RejectMessage reject = sendAndReadReject(listener, config, request, false);

            assertEquals(RejectReason.BAD_AUTHENTICATION, reject.reason());
            assertEquals(1, listener.counters().rejectedBadAuthentication());
            assertEquals(0, listener.counters().accepted());
            assertNull(listener.accept(Duration.ofMillis(100)), "a tampered request must never reach accept");
        }
    }

    @Test
    void listenerAtItsLimitOfPendingHandshakesRefusesFurtherClientsAtOnce() throws Exception
    {
        final long timeoutMs = 2000;
        final ConnectionManagerConfig config = new ConnectionManagerConfig()
            .secret(CmTestSupport.SECRET)
            .timeoutMs(timeoutMs)
            .maxPendingHandshakes(1)
            .conclude();
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            RawPeer holdsTheOnlySlot = RawPeer.connect(listener.localAddress(), config))
        {
            final RecordingQueuePair active = activeQueuePair();
            final long start = System.nanoTime();
            final RdmaException failure = assertThrows(RdmaException.class, () ->
                ConnectionManager.connect(listener.localAddress(), active, List.of(), new byte[0], config));
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertTrue(failure.getMessage().contains(ConnectionManagerConfig.MAX_PENDING_PROP), failure.getMessage());
            assertTrue(elapsedMs < timeoutMs, "refused after " + elapsedMs + " ms: it waited for a timeout instead");
            assertEquals(1, listener.counters().refusedAtCapacity());
            assertEquals(List.of(QueuePairState.INIT), active.transitions());
            assertFalse(holdsTheOnlySlot.hasUnreadBytes());
        }
    }

    @Test
    void requestNobodyAcceptsIsWithdrawnAndRefusedAsTimeoutAfterTheStepTimeout() throws Exception
    {
        final ConnectionManagerConfig config = config(SHORT_TIMEOUT_MS);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            RawPeer waiting = RawPeer.connect(listener.localAddress(), config))
        {
            final long start = System.nanoTime();
            waiting.send(requestFrame(config, new byte[16], activeQueuePair().localEndpoint(), new byte[0]));

            assertEquals(RejectReason.TIMEOUT, waiting.readReject().reason());
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertTrue(elapsedMs >= SHORT_TIMEOUT_MS - 20, "expired after only " + elapsedMs + " ms");
            assertEquals(1, listener.counters().accepted());
            assertEquals(1, listener.counters().timedOut());
            assertNull(listener.accept(Duration.ofMillis(50)), "an expired request must not be handed out");
        }
    }

    @Test
    void requestAcceptedButNotAnsweredInTimeExpiresAndCanNoLongerBeCompleted() throws Exception
    {
        final ConnectionManagerConfig config = config(SHORT_TIMEOUT_MS);
        final RecordingQueuePair passive = CmTestSupport.passiveQueuePair();
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            RawPeer waiting = RawPeer.connect(listener.localAddress(), config))
        {
            waiting.send(requestFrame(config, new byte[16], activeQueuePair().localEndpoint(), new byte[0]));
            final PendingConnection pending = listener.accept(WAIT_LIMIT);
            assertNotNull(pending, "no request within " + WAIT_LIMIT);

            assertEquals(RejectReason.TIMEOUT, waiting.readReject().reason()); // the application dawdled

            final IllegalStateException late = assertThrows(IllegalStateException.class, () ->
                pending.complete(passive, List.of(), new byte[0]));
            assertTrue(late.getMessage().contains("expired"), late.getMessage());
            assertEquals(List.of(QueuePairState.INIT), passive.transitions());
            assertEquals(1, listener.counters().timedOut());
        }
    }

    @Test
    void closingTheListenerWakesABlockedAcceptAndAnswersNoMoreConnections() throws Exception
    {
        final ConnectionManagerConfig config = config(SHORT_TIMEOUT_MS);
        final ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
        try (ExecutorService executor = newExecutor())
        {
            final CompletableFuture<PendingConnection> blocked = inBackground(executor, () ->
            {
                try
                {
                    return listener.accept(Duration.ofSeconds(30));
                }
                catch (final InterruptedException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });

            listener.close();

            final Throwable failure = awaitFailure(blocked, "accept blocked across close");
            assertInstanceOf(IllegalStateException.class, failure);
            assertTrue(failure.getMessage().contains("closed"), failure.getMessage());
            final RdmaException refused = assertThrows(RdmaException.class, () ->
                ConnectionManager.connect(listener.localAddress(), activeQueuePair(), List.of(), new byte[0], config));
            assertTrue(refused.getMessage().contains("step connect"), refused.getMessage());
        }
    }

    /**
     * Connects, sends {@code bytes} (optionally closing the sending direction), and returns the REJ.
     */
    private static RejectMessage sendAndReadReject(final ConnectionListener listener,
        final ConnectionManagerConfig config, final byte[] bytes, final boolean finishSending) throws Exception
    {
        try (RawPeer peer = RawPeer.connect(listener.localAddress(), config))
        {
            peer.send(bytes);
            if (finishSending)
            {
                peer.finishSending();
            }
            return peer.readReject();
        }
    }

    /**
     * @return a well-formed REQ header announcing {@code bodyLength} bytes, and nothing else.
     */
    private static byte[] header(final int bodyLength)
    {
        final ByteBuffer header = ByteBuffer.allocate(WireFormat.HEADER_LENGTH);
        header.putInt(WireFormat.MAGIC_OFFSET, WireFormat.MAGIC);
        header.put(WireFormat.TYPE_OFFSET, (byte)MessageType.REQ.code);
        header.putShort(WireFormat.VERSION_OFFSET, (short)ConnectionManager.PROTOCOL_VERSION);
        header.putInt(WireFormat.BODY_LENGTH_OFFSET, bodyLength);
        return header.array();
    }
}
