package io.ringwire.rdma.cm;

import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.ringwire.rdma.cm.CmTestSupport.RawPeer;
import static io.ringwire.rdma.cm.CmTestSupport.SHORT_TIMEOUT_MS;
import static io.ringwire.rdma.cm.CmTestSupport.STEP_TIMEOUT_MS;
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
        // Long enough that the second handshake (a few ms on loopback) ends well before it, on a
        // loaded machine too.
        final long timeoutMs = 3_000;
        final ConnectionManagerConfig config = config(timeoutMs);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config))
        {
            // Before the connection: the listener's step timeout starts later, at its CHALLENGE.
            final long silentSince = System.nanoTime();
            try (RawPeer silent = RawPeer.connect(listener.localAddress(), config))
            {
                assertHandshakeSucceeds(listener, config);

                final long handshakeDoneMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentSince);
                assertTrue(handshakeDoneMs < timeoutMs, "handshake took " + handshakeDoneMs + " ms; cannot prove it " +
                    "ran while the silent client held its connection");
                assertFalse(silent.hasUnreadBytes(), "the silent client must not have been answered yet");
                assertEquals(0, listener.counters().timedOut());

                assertEquals(RejectReason.TIMEOUT, silent.readReject().reason());
                final long rejectedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentSince);
                assertTrue(rejectedAfterMs >= timeoutMs, "timed out after only " + rejectedAfterMs + " ms");
                assertEquals(1, listener.counters().timedOut());
                assertEquals(1, listener.counters().completed());
            }
        }
    }

    @Test
    void garbageBytesAreRejectedAsMalformedAndCountedAndTheListenerKeepsServing() throws Exception
    {
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
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
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
        final byte[] request = requestFrame(config, new byte[16], new byte[16], activeQueuePair().localEndpoint(),
            new byte[10]);
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
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
        final byte[] request = requestFrame(config, new byte[16], new byte[16], activeQueuePair().localEndpoint(),
            "stream=7".getBytes(StandardCharsets.UTF_8));
        // The last byte of the application data, in front of the identity's length and name, and the
        // addressed listener's (the same name here).
        request[request.length - WireFormat.SIGNATURE_LENGTH - 2 * (1 + config.identity().name().length()) - 1] ^= 0x01;
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
            // A proved request the application has not answered: no newer connection takes its slot.
            holdsTheOnlySlot.send(requestFrame(config, new byte[16], holdsTheOnlySlot.challenge(),
                activeQueuePair().localEndpoint(), new byte[0]));
            final long acceptedDeadline = System.nanoTime() + WAIT_LIMIT.toNanos();
            while (listener.counters().accepted() == 0 && System.nanoTime() < acceptedDeadline)
            {
                Thread.sleep(1);
            }
            assertEquals(1, listener.counters().accepted());
            final RecordingQueuePair active = activeQueuePair();
            final long start = System.nanoTime();
            final RdmaException failure = assertThrows(RdmaException.class, () ->
                ConnectionManager.connect(listener.localAddress(), active, List.of(), new byte[0], config));
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertTrue(failure.getMessage().contains(ConnectionManagerConfig.MAX_PENDING_PROP), failure.getMessage());
            assertTrue(elapsedMs < timeoutMs, "refused after " + elapsedMs + " ms: it waited for a timeout instead");
            assertEquals(1, listener.counters().refusedAtCapacity());
            assertEquals(0, listener.counters().evictedUnauthenticated());
            assertEquals(List.of(QueuePairState.INIT), active.transitions());
            assertFalse(holdsTheOnlySlot.hasUnreadBytes());
        }
    }

    @Test
    void aFloodOfRefusedHandshakesFromOneAddressIsCountedEachAndWarnedOfOnce() throws Exception
    {
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
        final byte[] garbage = new byte[64];
        garbage[0] = 0; // never the magic's first byte
        final InetAddress flooder = InetAddress.getByName("127.0.0.4");
        final String written = standardErrorOf(() ->
        {
            try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config))
            {
                final int refusals = 20;
                for (int i = 0; i < refusals; i++)
                {
                    try (RawPeer peer = RawPeer.connectFrom(flooder, listener.localAddress(), config))
                    {
                        peer.send(garbage);
                        assertEquals(RejectReason.MALFORMED, peer.readReject().reason());
                    }
                }
                assertEquals(refusals, listener.counters().malformed());
            }
        });
        final long warned = written.lines().filter(line -> line.contains("rejected the handshake from /127.0.0.4")).count();
        assertEquals(1, warned, "one warning for the address within the interval: " + written);
    }

    @Test
    void unsignedRejectsAndResetsMidHandshakeFromOneAddressAreCountedEachAndWarnedOfOnce() throws Exception
    {
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
        final InetAddress rejecter = InetAddress.getByName("127.0.0.5");
        final InetAddress resetter = InetAddress.getByName("127.0.0.6");
        final int each = 20;
        final String written = standardErrorOf(() ->
        {
            try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config))
            {
                for (int i = 0; i < each; i++)
                {
                    // Anyone can answer a CHALLENGE with a REJ: it is read unsigned.
                    try (RawPeer peer = RawPeer.connectFrom(rejecter, listener.localAddress(), config))
                    {
                        peer.sendReject(RejectReason.UNKNOWN_IDENTITY, "not accepted here " + i);
                        assertTrue(peer.isClosedByPeer(WAIT_LIMIT), "the listener closes after a REJ");
                    }
                    RawPeer.connectFrom(resetter, listener.localAddress(), config).reset();
                }
                final long until = System.nanoTime() + WAIT_LIMIT.toNanos();
                while (listener.counters().lostInHandshake() < each && System.nanoTime() < until)
                {
                    Thread.sleep(5);
                }
                assertEquals(each, listener.counters().challengesRefused());
                assertEquals(each, listener.counters().lostInHandshake(), listener.counters().toString());
                assertHandshakeSucceeds(listener, config);
            }
        });
        final List<String> lines = written.lines().toList();
        assertEquals(1, lines.stream().filter(line -> line.contains("the active side at /127.0.0.5")).count(),
            "one warning for the address that sent REJs within the interval: " + written);
        assertEquals(1, lines.stream().filter(line -> line.contains("from /127.0.0.6")).count(),
            "one warning for the address that reset within the interval: " + written);
        for (int i = 0; i < lines.size() - 1; i++)
        {
            if (lines.get(i).contains("/127.0.0.5") || lines.get(i).contains("/127.0.0.6"))
            {
                assertFalse(lines.get(i + 1).startsWith("\tat ") || lines.get(i + 1).startsWith("java."),
                    "the warning is one line, no stack trace: " + written);
            }
        }
    }

    /** A test's work whose standard error is read. */
    private interface Work
    {
        void run() throws Exception;
    }

    /**
     * @return what {@code work} wrote to the standard error stream (the listener's log lines go to
     *         the stream of the moment), which still reaches the real one.
     */
    private static String standardErrorOf(final Work work) throws Exception
    {
        final java.io.PrintStream standardError = System.err;
        final java.io.ByteArrayOutputStream lines = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(new java.io.OutputStream()
        {
            @Override
            public synchronized void write(final int b)
            {
                lines.write(b);
                standardError.write(b);
            }

            @Override
            public synchronized void write(final byte[] bytes, final int offset, final int length)
            {
                lines.write(bytes, offset, length);
                standardError.write(bytes, offset, length);
            }
        }, true, StandardCharsets.UTF_8));
        try
        {
            work.run();
        }
        finally
        {
            System.setErr(standardError);
        }
        return lines.toString(StandardCharsets.UTF_8);
    }

    @Test
    void connectionsRefusedAfterProvingAnIdentityHoldNoSlotWhileTheirPeersKeepThemOpen() throws Exception
    {
        // A member with a valid key, from as many addresses as the limit, opens connections the
        // application refuses (it has its connections already) and never closes them.
        final ConnectionManagerConfig config = new ConnectionManagerConfig()
            .secret(CmTestSupport.SECRET)
            .timeoutMs(STEP_TIMEOUT_MS)
            .maxPendingHandshakes(2)
            .conclude();
        final Random random = new Random(7);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            RawPeer first = RawPeer.connectFrom(InetAddress.getByName("127.0.0.2"), listener.localAddress(), config);
            RawPeer second = RawPeer.connectFrom(InetAddress.getByName("127.0.0.3"), listener.localAddress(), config))
        {
            for (final RawPeer peer : List.of(first, second))
            {
                final byte[] nonce = new byte[16];
                random.nextBytes(nonce);
                peer.send(requestFrame(config, nonce, peer.challenge(), activeQueuePair().localEndpoint(), new byte[0]));
            }
            for (int i = 0; i < 2; i++)
            {
                final PendingConnection pending = listener.accept(WAIT_LIMIT);
                assertNotNull(pending, "a proved request");
                pending.reject("this identity has its connections");
            }
            assertEquals(RejectReason.REJECTED_BY_APPLICATION, first.readReject().reason());
            assertEquals(RejectReason.REJECTED_BY_APPLICATION, second.readReject().reason());

            // The listener waits on both for their close (its drain), and another peer finds a slot.
            assertHandshakeSucceeds(listener, config);
            assertEquals(0, listener.counters().refusedAtCapacity());
        }
    }

    @Test
    void aConnectionThatFindsTheLimitFullTakesTheSlotOfTheOldestThatHasProvedNoIdentity() throws Exception
    {
        final ConnectionManagerConfig config = new ConnectionManagerConfig()
            .secret(CmTestSupport.SECRET)
            .timeoutMs(STEP_TIMEOUT_MS)
            .maxPendingHandshakes(2)
            .conclude();
        final InetAddress flooder = InetAddress.getByName("127.0.0.2"); // its own source: 2 of 2 is its limit too
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            RawPeer oldest = RawPeer.connectFrom(flooder, listener.localAddress(), config);
            RawPeer newer = RawPeer.connectFrom(flooder, listener.localAddress(), config))
        {
            final long start = System.nanoTime();
            assertHandshakeSucceeds(listener, config);
            final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertTrue(tookMs < STEP_TIMEOUT_MS, "the handshake waited " + tookMs + " ms for a slot");
            assertEquals(1, listener.counters().evictedUnauthenticated());
            assertEquals(0, listener.counters().refusedAtCapacity());
            assertTrue(oldest.isClosedByPeer(), "the oldest silent connection was closed for it");
            assertFalse(newer.isClosedByPeer(), "the newer one keeps its slot");
        }
    }

    @Test
    void aBurstOfSilentConnectionsEvictsNoMoreThanTheHandshakeLimitInAWindowAndRefusesTheRest() throws Exception
    {
        final int limit = 2;
        final int burst = 40;
        final ConnectionManagerConfig config = new ConnectionManagerConfig()
            .secret(CmTestSupport.SECRET)
            .timeoutMs(10_000) // no slot frees itself by a timeout during the burst
            .maxPendingHandshakes(limit)
            .conclude();
        final List<Socket> sockets = new ArrayList<>();
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config))
        {
            final long start = System.nanoTime();
            for (int i = 0; i < burst; i++)
            {
                // Four sources in turn: no one of them reaches its own limit before the listener's.
                final Socket socket = new Socket();
                sockets.add(socket);
                socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0." + (2 + i % 4)), 0));
                socket.connect(listener.localAddress(), 1000);
            }
            final ConnectionManagerCounters counters = listener.counters();
            final long deadline = System.nanoTime() + WAIT_LIMIT.toNanos();
            while (counters.evictedUnauthenticated() + counters.refusedAtCapacity() < burst - limit &&
                System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
            final long windows = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) /
                HandshakeSlots.EVICTION_WINDOW_MS + 1;

            assertEquals(burst - limit, counters.evictedUnauthenticated() + counters.refusedAtCapacity(),
                "every connection past the limit evicted one or was refused: " + counters);
            assertTrue(counters.evictedUnauthenticated() >= limit, "a full listener evicts: " + counters);
            assertTrue(counters.evictedUnauthenticated() <= limit * windows, counters.evictedUnauthenticated() +
                " evictions in " + windows + " windows of " + HandshakeSlots.EVICTION_WINDOW_MS + " ms");
            assertEquals(0, counters.refusedPerSource());
        }
        finally
        {
            for (final Socket socket : sockets)
            {
                socket.close();
            }
        }
    }

    @Test
    void aSourceThatConnectsAndClosesFasterThanItsRateIsClosedUnansweredAndCountedWhileAnotherConnects()
        throws Exception
    {
        final ConnectionManagerConfig config = new ConnectionManagerConfig()
            .secret(CmTestSupport.SECRET)
            .timeoutMs(STEP_TIMEOUT_MS)
            .challengesPerSource(1) // one a second: the second connection below comes well within it
            .conclude();
        final InetAddress looping = InetAddress.getByName("127.0.0.3");
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config))
        {
            final long firstAt = System.nanoTime();
            try (RawPeer first = RawPeer.connectFrom(looping, listener.localAddress(), config))
            {
                assertNotNull(first.challenge(), "the first connection is challenged");
            }
            final int answer;
            final long secondWithinMs;
            try (Socket second = new Socket(listener.localAddress().getAddress(), listener.localAddress().getPort(),
                looping, 0))
            {
                secondWithinMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstAt);
                second.setSoTimeout((int)WAIT_LIMIT.toMillis());
                answer = second.getInputStream().read();
            }
            // A machine that stalls the test past the second cannot show a rate of one a second.
            Assumptions.assumeTrue(secondWithinMs < 900, "the second connection came " + secondWithinMs +
                " ms after the first");
            assertEquals(-1, answer, "closed without a CHALLENGE");
            assertEquals(1, listener.counters().refusedSourceRate(), listener.counters().toString());

            assertHandshakeSucceeds(listener, config); // from 127.0.0.1: its own rate

            Thread.sleep(Math.max(0, 1100 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstAt)));
            try (RawPeer later = RawPeer.connectFrom(looping, listener.localAddress(), config))
            {
                assertNotNull(later.challenge(), "a second on, the source is challenged again");
            }
            assertEquals(1, listener.counters().refusedSourceRate(), listener.counters().toString());
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
            waiting.send(requestFrame(config, new byte[16], waiting.challenge(), activeQueuePair().localEndpoint(),
                new byte[0]));

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
            waiting.send(requestFrame(config, new byte[16], waiting.challenge(), activeQueuePair().localEndpoint(),
                new byte[0]));
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

    @Test
    void aRequestReplayedOnAnotherConnectionIsRefusedAsStaleAndCountedBeforeAnythingIsRevealed() throws Exception
    {
        final ConnectionManagerConfig config = config(STEP_TIMEOUT_MS);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            RawPeer legitimate = RawPeer.connect(listener.localAddress(), config))
        {
            // A genuine REQ, as an eavesdropper would record it off the wire.
            final byte[] recorded = requestFrame(config, Nonces.newNonce(), legitimate.challenge(),
                activeQueuePair().localEndpoint(), "stream=7".getBytes(StandardCharsets.UTF_8));
            legitimate.send(recorded);
            final PendingConnection genuine = listener.accept(WAIT_LIMIT);
            assertNotNull(genuine, "the genuine request is accepted");
            genuine.reject("not this time");

            try (RawPeer replayer = RawPeer.connect(listener.localAddress(), config))
            {
                replayer.send(recorded);
                final Frame answer = replayer.readFrame(MessageType.REJ);
                assertEquals(MessageType.REJ, answer.type(), "a replay gets a REJ, never a REP with endpoint and rkeys");
                assertEquals(RejectReason.STALE_REQUEST, WireFormat.decodeReject(answer.body()).reason());
            }
            assertEquals(1, listener.counters().rejectedStale());
            assertNull(listener.accept(Duration.ofMillis(100)), "a replayed request must never reach accept");
            assertEquals(1, listener.counters().accepted(), "only the genuine request was accepted");
            assertHandshakeSucceeds(listener, config);
        }
    }

    @Test
    void anApplicationsRejectReturnsAtOnceWhileThePeerKeepsItsEndOpenAndThePeerStillGetsTheReason()
        throws Exception
    {
        // A step timeout far beyond the REJ's drain bound (200 ms): a reject that drained on the
        // caller's thread would hold it that whole bound, as this peer never closes on its own.
        final ConnectionManagerConfig config = config(10_000);
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            RawPeer holder = RawPeer.connect(listener.localAddress(), config))
        {
            holder.send(requestFrame(config, Nonces.newNonce(), holder.challenge(), activeQueuePair().localEndpoint(),
                "stream=7".getBytes(StandardCharsets.UTF_8)));
            final PendingConnection pending = listener.accept(WAIT_LIMIT);
            assertNotNull(pending, "the well-formed request is accepted");

            final long startNs = System.nanoTime();
            pending.reject("ring too large for this subscription");
            final long rejectMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);

            assertTrue(rejectMs < 150, "reject held the calling thread " + rejectMs + " ms while the peer kept " +
                "its end open (the drain's bound is 200 ms): it must leave that wait to another thread");
            assertEquals(1, listener.counters().rejectedByApplication(),
                "counted when reject returns");
            final RejectMessage reject = holder.readReject();
            assertEquals(RejectReason.REJECTED_BY_APPLICATION, reject.reason());
            assertTrue(reject.text().contains("ring too large"), reject.text());
            assertHandshakeSucceeds(listener, config);
        }
    }

    @Test
    void aFloodOfSilentConnectionsFromOneAddressLeavesRoomForAPeerFromAnother() throws Exception
    {
        final ConnectionManagerCounters counters = floodAndConnect(List.of(InetAddress.getByName("127.0.0.2")), 70, 0);
        assertTrue(counters.refusedPerSource() > 0, "the flood never reached its per-source limit: " + counters);
    }

    @Test
    void aFloodOfSilentConnectionsFromManyAddressesFillingTheLimitLeavesRoomForAPeerFromAnother() throws Exception
    {
        // Five sources of sixteen: more than the 64 handshakes the listener runs at once.
        final List<InetAddress> flooders = new ArrayList<>();
        for (int i = 2; i <= 6; i++)
        {
            flooders.add(InetAddress.getByName("127.0.0." + i));
        }
        // Each flooder waits a moment before it reconnects: every connection a full listener takes
        // closes another, and ninety threads in this JVM reconnecting at once would leave two CPUs
        // to nothing else, the peer's own handshake included (a flood from elsewhere costs the
        // listener's host only the listener's part).
        final ConnectionManagerCounters counters = floodAndConnect(flooders, 18, 200);
        assertTrue(counters.evictedUnauthenticated() > 0, "the flood never filled the limit: " + counters);
    }

    /**
     * Floods the listener (the defaults: 64 handshakes at once, 16 from one source) with silent
     * connections from {@code flooders}, each thread reconnecting {@code reconnectPauseMs} after its
     * connection is closed, until it refused or evicted one; then a peer from 127.0.0.1 must complete its
     * handshake within two seconds, while the flood goes on.
     *
     * @return the listener's counters at the end.
     */
    private static ConnectionManagerCounters floodAndConnect(final List<InetAddress> flooders,
        final int threadsPerFlooder, final long reconnectPauseMs) throws Exception
    {
        final ConnectionManagerConfig config = new ConnectionManagerConfig().secret(CmTestSupport.SECRET)
            .timeoutMs(2000).conclude();
        assertEquals(ConnectionManagerConfig.DEFAULT_MAX_PENDING, config.maxPendingHandshakes());
        assertEquals(ConnectionManagerConfig.DEFAULT_MAX_PENDING_PER_SOURCE, config.maxPendingPerSource());
        // Platform threads, as another process's would be: the flood must not also take the carrier
        // threads the listener's handshakes run on, which an attacker elsewhere could not.
        try (ConnectionListener listener = ConnectionListener.bind(loopbackAnyPort(), config);
            ExecutorService executor = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().daemon().factory()))
        {
            final AtomicBoolean flooding = new AtomicBoolean(true);
            final AtomicLong opened = new AtomicLong();
            try
            {
                for (final InetAddress flooder : flooders)
                {
                    for (int i = 0; i < threadsPerFlooder; i++)
                    {
                        executor.submit(() ->
                        {
                            while (flooding.get())
                            {
                                try (Socket socket = new Socket())
                                {
                                    socket.bind(new InetSocketAddress(flooder, 0));
                                    socket.connect(listener.localAddress(), 1000);
                                    opened.incrementAndGet();
                                    socket.setSoTimeout(200);
                                    holdSilently(socket, flooding);
                                }
                                catch (final IOException ex)
                                {
                                    // refused or reset: reconnect
                                }
                                if (reconnectPauseMs > 0)
                                {
                                    Thread.sleep(reconnectPauseMs);
                                }
                            }
                            return null;
                        });
                    }
                }
                final long deadline = System.nanoTime() + WAIT_LIMIT.toNanos();
                while (listener.counters().refusedPerSource() + listener.counters().evictedUnauthenticated() == 0 &&
                    System.nanoTime() < deadline)
                {
                    Thread.sleep(10);
                }

                final long start = System.nanoTime();
                assertHandshakeSucceeds(listener, config);
                final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                flooding.set(false);

                assertTrue(tookMs < 2000, "a peer from another address connected only after " + tookMs + " ms");
                assertTrue(opened.get() > 16, "the flood opened " + opened.get() + " connections");
                assertEquals(1, listener.counters().completed());
                return listener.counters();
            }
            finally
            {
                flooding.set(false);
            }
        }
    }

    /** Holds a connection without a word (reading and ignoring the CHALLENGE) until the peer closes it. */
    private static void holdSilently(final Socket socket, final AtomicBoolean holding) throws IOException
    {
        final byte[] ignored = new byte[256];
        while (holding.get())
        {
            try
            {
                if (socket.getInputStream().read(ignored) < 0)
                {
                    return;
                }
            }
            catch (final SocketTimeoutException ex)
            {
                // still silent, still held
            }
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
