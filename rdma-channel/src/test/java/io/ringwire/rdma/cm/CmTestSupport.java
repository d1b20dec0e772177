package io.ringwire.rdma.cm;

import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Shared fixtures for the connection-manager tests: configurations, a loopback listener, a raw TCP
 * peer that speaks (or abuses) the wire format directly, and bounded waits.
 */
final class CmTestSupport
{
    static final byte[] SECRET = "cm-test-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    static final byte[] OTHER_SECRET = "some-other-secret-not-shared".getBytes(StandardCharsets.UTF_8);
    /** Short, so the timeout tests stay quick; loopback handshakes take a few milliseconds. */
    static final long SHORT_TIMEOUT_MS = 300;
    /**
     * For handshakes that must succeed, or fail for another reason than a step's timeout: each step
     * signs or verifies and hands over between threads, and a loaded machine can stall that for
     * longer than {@link #SHORT_TIMEOUT_MS}.
     */
    static final long STEP_TIMEOUT_MS = 5_000;
    /** Bound on every wait for something that must happen. */
    static final Duration WAIT_LIMIT = Duration.ofSeconds(5);

    private CmTestSupport()
    {
    }

    static ConnectionManagerConfig config(final byte[] secret, final int version, final long timeoutMs)
    {
        return new ConnectionManagerConfig()
            .secret(secret)
            .protocolVersion(version)
            .timeoutMs(timeoutMs)
            .maxPendingHandshakes(8)
            .conclude();
    }

    static ConnectionManagerConfig config(final long timeoutMs)
    {
        return config(SECRET, ConnectionManager.PROTOCOL_VERSION, timeoutMs);
    }

    static InetSocketAddress loopbackAnyPort()
    {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    static RecordingQueuePair activeQueuePair()
    {
        return RecordingQueuePair.inInit(0x15, 0x100, "10.0.0.1:4791");
    }

    static RecordingQueuePair passiveQueuePair()
    {
        return RecordingQueuePair.inInit(0x2A, 0x200, "10.0.0.2:4791");
    }

    /**
     * Runs {@code task} on a virtual thread.
     */
    static <T> CompletableFuture<T> inBackground(final ExecutorService executor, final Supplier<T> task)
    {
        return CompletableFuture.supplyAsync(task, executor);
    }

    static ExecutorService newExecutor()
    {
        return Executors.newVirtualThreadPerTaskExecutor();
    }

    /**
     * @return the future's value, failing the test if it takes longer than {@link #WAIT_LIMIT}.
     */
    static <T> T await(final CompletableFuture<T> future, final String what) throws InterruptedException
    {
        try
        {
            return future.get(WAIT_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            return fail(what + " did not finish within " + WAIT_LIMIT);
        }
        catch (final ExecutionException ex)
        {
            return fail(what + " failed: " + ex.getCause(), ex.getCause());
        }
    }

    /**
     * @return what the future failed with, failing the test if it succeeds or takes longer than
     *         {@link #WAIT_LIMIT}.
     */
    static Throwable awaitFailure(final CompletableFuture<?> future, final String what) throws InterruptedException
    {
        try
        {
            final Object value = future.get(WAIT_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
            return fail(what + " was expected to fail but returned " + value);
        }
        catch (final TimeoutException ex)
        {
            return fail(what + " did not finish within " + WAIT_LIMIT);
        }
        catch (final ExecutionException ex)
        {
            return ex.getCause();
        }
    }

    /**
     * Runs a complete handshake with empty regions and payload against {@code listener} and checks both
     * queue pairs end in RTS: proof that the listener still works.
     */
    static void assertHandshakeSucceeds(final ConnectionListener listener, final ConnectionManagerConfig config)
        throws InterruptedException
    {
        final RecordingQueuePair active = activeQueuePair();
        final RecordingQueuePair passive = passiveQueuePair();
        try (ExecutorService executor = newExecutor())
        {
            final CompletableFuture<Connection> activeSide = inBackground(executor, () ->
                ConnectionManager.connect(listener.localAddress(), active, List.of(), new byte[0], config));
            final PendingConnection pending = listener.accept(WAIT_LIMIT);
            assertNotNull(pending, "the listener did not hand over the well-formed request within " + WAIT_LIMIT);
            pending.complete(passive, List.of(), new byte[0]);
            await(activeSide, "the active side of the handshake");
        }
        assertEquals(QueuePairState.READY_TO_SEND, active.state(), "active queue pair");
        assertEquals(QueuePairState.READY_TO_SEND, passive.state(), "passive queue pair");
    }

    /**
     * @return a signed REQ frame for {@code endpoint} answering {@code challenge}, as a well-behaved
     *         active side would send it to a listener of the same identity as its own (the shared
     *         secret's).
     */
    static byte[] requestFrame(final ConnectionManagerConfig config, final byte[] nonce, final byte[] challenge,
        final QueuePairEndpoint endpoint, final byte[] applicationData)
    {
        return WireFormat.encodeFrame(MessageType.REQ, config.protocolVersion(),
            WireFormat.encodeConnect(nonce, challenge, endpoint, List.of(), applicationData, config.identity().name(),
                config.identity().name()),
            config.identity());
    }

    /**
     * A TCP peer driven byte by byte by the test, reading answers through the production frame reader.
     */
    static final class RawPeer implements AutoCloseable
    {
        private final Socket socket;
        private final ManagementChannel channel;
        /** The identity this peer's CHALLENGE names, as a listener of its config would. */
        private final String identityName;
        private byte[] challenge;

        RawPeer(final Socket socket, final ConnectionManagerConfig config) throws IOException
        {
            this.socket = socket;
            this.channel = new ManagementChannel(socket, config, closed -> { });
            this.identityName = config.identity().name();
        }

        /**
         * Connects and reads the listener's CHALLENGE, as every active side does first.
         */
        static RawPeer connect(final InetSocketAddress address, final ConnectionManagerConfig config) throws Exception
        {
            final RawPeer peer = new RawPeer(new Socket(address.getAddress(), address.getPort()), config);
            peer.challenge = WireFormat.decodeChallenge(peer.readFrame(MessageType.CHALLENGE).body()).nonce();
            return peer;
        }

        /** {@link #connect}, from {@code source} (a loopback address other than 127.0.0.1 is another host). */
        static RawPeer connectFrom(final InetAddress source, final InetSocketAddress address,
            final ConnectionManagerConfig config) throws Exception
        {
            final RawPeer peer = new RawPeer(new Socket(address.getAddress(), address.getPort(), source, 0), config);
            peer.challenge = WireFormat.decodeChallenge(peer.readFrame(MessageType.CHALLENGE).body()).nonce();
            return peer;
        }

        /**
         * @return the nonce this connection's REQ must echo.
         */
        byte[] challenge()
        {
            return challenge.clone();
        }

        /**
         * Plays a passive side's first move: sends a CHALLENGE with a fresh nonce.
         *
         * @return the nonce the peer's REQ must echo.
         */
        byte[] sendChallenge() throws IOException
        {
            return sendChallenge(Nonces.newNonce());
        }

        /**
         * Sends a CHALLENGE with the given nonce, signed as this peer's identity and naming it.
         *
         * @return the nonce the peer's REQ must echo.
         */
        byte[] sendChallenge(final byte[] nonce) throws IOException
        {
            challenge = nonce.clone();
            channel.write(MessageType.CHALLENGE, WireFormat.encodeChallenge(challenge, identityName));
            return challenge();
        }

        void send(final byte[] bytes) throws IOException
        {
            final OutputStream output = socket.getOutputStream();
            output.write(bytes);
            output.flush();
        }

        void finishSending() throws IOException
        {
            socket.shutdownOutput();
        }

        /** Answers the listener's CHALLENGE with a REJ, as an active side that does not accept it would. */
        void sendReject(final RejectReason reason, final String text) throws IOException
        {
            channel.write(MessageType.REJ, WireFormat.encodeReject(challenge, reason, text));
        }

        /** Closes with a reset (RST), not a clean close. */
        void reset() throws IOException
        {
            socket.setSoLinger(true, 0);
            socket.close();
        }

        /**
         * @return the next frame, REJ returned unverified, any other type verified, within {@link #WAIT_LIMIT}.
         */
        Frame readFrame(final MessageType expected) throws Exception
        {
            return channel.readFrame(expected, true, System.nanoTime() + WAIT_LIMIT.toNanos());
        }

        /**
         * @return the REJ the peer answered with, within {@link #WAIT_LIMIT}.
         */
        RejectMessage readReject() throws Exception
        {
            final Frame frame = readFrame(MessageType.REJ);
            assertEquals(MessageType.REJ, frame.type(), "expected a REJ");
            return WireFormat.decodeReject(frame.body());
        }

        boolean hasUnreadBytes() throws IOException
        {
            return socket.getInputStream().available() > 0;
        }

        /** @return whether the other end closed the connection, sending nothing, within a second. */
        boolean isClosedByPeer() throws IOException
        {
            return isClosedByPeer(Duration.ofSeconds(1));
        }

        /** @return whether the other end closed the connection, sending nothing, within {@code wait}. */
        boolean isClosedByPeer(final Duration wait) throws IOException
        {
            socket.setSoTimeout((int)wait.toMillis());
            try
            {
                return socket.getInputStream().read() < 0;
            }
            catch (final java.net.SocketTimeoutException ex)
            {
                return false;
            }
            catch (final java.net.SocketException ex)
            {
                return true; // reset
            }
        }

        @Override
        public void close()
        {
            channel.close();
        }
    }
}
