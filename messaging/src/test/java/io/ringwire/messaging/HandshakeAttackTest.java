package io.ringwire.messaging;

import io.ringwire.messaging.protocol.CreditLayout;
import io.ringwire.messaging.protocol.SessionSetup;
import io.ringwire.rdma.Access;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.MemoryRegion;
import io.ringwire.rdma.ProtectionDomain;
import io.ringwire.rdma.QueuePair;
import io.ringwire.rdma.QueuePairConfig;
import io.ringwire.rdma.QueuePairEndpoint;
import io.ringwire.rdma.QueuePairState;
import io.ringwire.rdma.RdmaException;
import io.ringwire.rdma.RdmaProviders;
import io.ringwire.rdma.cm.ConnectionListener;
import io.ringwire.rdma.cm.ConnectionManager;
import io.ringwire.rdma.cm.PendingConnection;
import io.ringwire.rdma.cm.RegionAdvertisement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A subscription under attack on its connection listener keeps its live streams: a REQ recorded
 * from a genuine publication's handshake and replayed is refused before anything is revealed, and a
 * peer that holds the secret but stalls in the middle of its handshake never stalls the polling
 * thread, and a credit region the subscriber could not store into whole (off an 8-byte boundary,
 * refused at the handshake; on shm, an rkey this process may not map, whose image drains and ends)
 * costs it nothing later: the concurrent stream loses nothing and its publication never reconnects.
 * A publication, for its part, refuses a subscriber whose ring lies off an 8-byte boundary, and
 * connects to one whose ring is aligned.
 */
class HandshakeAttackTest
{
    private static final int STREAM = 31;
    private static final int MESSAGES_BEFORE = 2_000;
    private static final int MESSAGES_AFTER = 20_000;
    /** Bytes of the Ed25519 signature that ends every frame of the connection manager. */
    private static final int SIGNATURE_LENGTH = 64;

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aReplayedRequestIsRefusedAndCountedAndTheLiveStreamLosesNothingAndDoesNotReconnect(final String provider)
        throws Exception
    {
        final MessagingContext context = shortLivenessContext();
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
            RecordingRelay relay = new RecordingRelay(subscription.endpoint());
            Publication publication = Publication.open(context, channel(provider, relay.port()), STREAM))
        {
            final LiveStream stream = new LiveStream(publication, subscription);
            stream.connect();
            stream.send(MESSAGES_BEFORE);

            final byte[] request = relay.firstFrameFromClient();
            // On a thread of its own: this one goes on driving the live stream meanwhile.
            final CompletableFuture<Integer> replayed = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return replay(subscription.endpoint(), request);
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            }, command -> Thread.ofVirtual().start(command));
            await(replayed::isDone, Duration.ofSeconds(10), "the replay's answer", stream::pollBoth);
            final int answer = replayed.get();
            assertEquals(4, answer, "the replayed REQ is answered with REJ (type 4), never with a REP");
            stream.send(MESSAGES_AFTER);

            assertEquals(1, subscription.listenerCounters().rejectedStale(), "the replay is counted");
            stream.assertNothingLostAndNoReconnect();
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aPeerThatStallsInItsHandshakeNeverStallsThePollingThread(final String provider) throws Exception
    {
        final MessagingContext context = shortLivenessContext();
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
            Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                STREAM))
        {
            final LiveStream stream = new LiveStream(publication, subscription);
            stream.connect();
            stream.send(MESSAGES_BEFORE);

            // Holds the secret, sends a valid REQ, then stalls for three liveness timeouts before its RTU.
            final Device attackerDevice = RdmaProviders.open(context.newRdmaConfig(provider, "127.0.0.1:0"));
            final QueuePair attackerQueuePair = attackerDevice.allocateProtectionDomain().createQueuePair(
                new QueuePairConfig(attackerDevice.createCompletionQueue(64), attackerDevice.createCompletionQueue(64),
                    16, 16, 0));
            attackerQueuePair.modifyToInit();
            final StallingQueuePair stalling = new StallingQueuePair(attackerQueuePair,
                3 * context.livenessTimeoutNs() / 1_000_000);
            final CompletableFuture<Void> attacker = CompletableFuture.runAsync(() ->
            {
                try
                {
                    ConnectionManager.connect(subscription.endpoint(), stalling,
                        List.of(new RegionAdvertisement(0x10000, 7, CreditLayout.REGION_LENGTH)),
                        new SessionSetup(STREAM, 99, 1 << 16, 0).encode(), context.connectionManagerConfig());
                }
                catch (final RdmaException expected)
                {
                    // the stall ends in a failed handshake
                }
            }, command -> Thread.ofVirtual().start(command));
            await(stalling.stalling::get, Duration.ofSeconds(10), "the attacker's REP", stream::pollBoth);

            final long stalledUntil = System.nanoTime() + 3 * context.livenessTimeoutNs();
            while (System.nanoTime() < stalledUntil)
            {
                stream.send(200);
            }
            attacker.get();
            attackerDevice.close();
            stream.send(MESSAGES_AFTER);
            stream.assertNothingLostAndNoReconnect();
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aCreditRegionOffAnEightByteBoundaryIsRefusedAndCountedAndTheLiveStreamGoesOn(final String provider)
        throws Exception
    {
        besideALiveStream(provider, (context, subscription, attackerDevice, credit, stream) ->
        {
            // A real region of the peer's, advertised four bytes in: every credit word would lie
            // across two of its words.
            final CompletableFuture<String> attacker = connectAsync(attackerDevice, subscription, context,
                new RegionAdvertisement(credit.address() + 4, credit.rkey(), CreditLayout.REGION_LENGTH - 8));
            await(attacker::isDone, Duration.ofSeconds(10), "the attacker's answer", stream::pollBoth);
            assertTrue(attacker.get().contains("8-byte boundary"), attacker.get());
            assertEquals(1, subscription.counters().setupsRefused.get());

            stream.send(MESSAGES_AFTER);
            stream.assertNothingLostAndNoReconnect();
            assertEquals(1, subscription.imageCount());
        });
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aSetupForAnotherStreamAndOneThatDoesNotDecodeAreRefusedAndCountedAndTheLiveStreamGoesOn(
        final String provider) throws Exception
    {
        besideALiveStream(provider, (context, subscription, attackerDevice, credit, stream) ->
        {
            final RegionAdvertisement advertised = new RegionAdvertisement(credit.address(), credit.rkey(),
                CreditLayout.REGION_LENGTH);
            final CompletableFuture<String> otherStream = connectAsync(attackerDevice, subscription, context,
                advertised, new SessionSetup(STREAM + 1, 98, 1 << 16, 0).encode());
            await(otherStream::isDone, Duration.ofSeconds(10), "the other stream's answer", stream::pollBoth);
            assertTrue(otherStream.get().contains("no subscription for stream " + (STREAM + 1)), otherStream.get());
            assertEquals(1, subscription.counters().setupsRefused.get());

            final CompletableFuture<String> garbled = connectAsync(attackerDevice, subscription, context, advertised,
                new byte[]{ 1, 2, 3 });
            await(garbled::isDone, Duration.ofSeconds(10), "the garbled setup's answer", stream::pollBoth);
            assertFalse("connected".equals(garbled.get()), garbled.get());
            assertEquals(2, subscription.counters().setupsRefused.get());

            stream.send(MESSAGES_AFTER);
            stream.assertNothingLostAndNoReconnect();
            assertEquals(1, subscription.imageCount());
        });
    }

    @Test
    void aMemoryLogPublicationWhoseCreditRegionThisProcessCannotMapDrainsAndEndsAndTheLiveStreamGoesOn()
        throws Exception
    {
        // shm alone: there the subscriber stores its credit straight into the publication's region.
        besideALiveStream("shm", (context, subscription, attackerDevice, credit, stream) ->
        {
            final long errorsBefore = subscription.counters().errors.get();
            final CompletableFuture<String> attacker = connectAsync(attackerDevice, subscription, context,
                new RegionAdvertisement(credit.address(), credit.rkey() ^ 0x5A5A, CreditLayout.REGION_LENGTH));
            await(attacker::isDone, Duration.ofSeconds(10), "the attacker's handshake", stream::pollBoth);
            assertEquals("connected", attacker.get(), "the handshake itself is sound");
            // Counted when the connection comes up; its image then drains what it committed (here
            // not even a JOIN) and ends.
            await(() -> subscription.counters().errors.get() > errorsBefore && subscription.imageCount() == 1 &&
                subscription.counters().imagesClosed.get() == 1, Duration.ofSeconds(10),
                "the subscription to end the image it cannot credit", stream::pollBoth);

            stream.send(MESSAGES_AFTER);
            stream.assertNothingLostAndNoReconnect(1);
            assertEquals(1, subscription.imageCount(), "the attacker's image is gone; the live one stays");
        });
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aSubscriberAnsweringWithARingOffAnEightByteBoundaryIsRefusedWhileAnAlignedAnswerConnects(
        final String provider) throws Exception
    {
        final MessagingContext context = context(directory, settings -> settings.reconnectIntervalMs(50));
        try (Device forger = RdmaProviders.open(context.newRdmaConfig(provider, "127.0.0.1:0"));
            ConnectionListener listener = ConnectionListener.bind(new InetSocketAddress("127.0.0.1", 0),
                context.connectionManagerConfig()))
        {
            // A forged subscriber answers the publication's first attempt with its ring four bytes
            // into a real region (every frame's header word would lie across two words), and the
            // next with the region itself.
            final CompletableFuture<String> misaligned = answerAsync(listener, forger, 4);
            try (Publication publication = Publication.open(context, channel(provider, listener.localAddress().getPort()),
                STREAM))
            {
                await(misaligned::isDone, Duration.ofSeconds(10), "the forged answer", publication::doWork);
                assertEquals("answered", misaligned.get());
                await(() -> null != publication.lastConnectionError(), Duration.ofSeconds(10),
                    "the publication to refuse the answer", publication::doWork);
                assertTrue(publication.lastConnectionError().contains("unexpected setup"),
                    publication.lastConnectionError());
                assertFalse(publication.isConnected());

                final CompletableFuture<String> aligned = answerAsync(listener, forger, 0);
                await(publication::isConnected, Duration.ofSeconds(10), "the aligned answer to connect",
                    publication::doWork);
                assertEquals("answered", aligned.get());
            }
        }
    }

    /**
     * Accepts one connection on the listener, on a thread of its own, and answers it as a
     * subscriber would, with a ring {@code offset} bytes into a region of the forger's.
     *
     * @return "answered", or why not.
     */
    private static CompletableFuture<String> answerAsync(final ConnectionListener listener, final Device forger,
        final int offset)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            try
            {
                final PendingConnection pending = listener.accept(Duration.ofSeconds(10));
                if (null == pending)
                {
                    return "no request";
                }
                final SessionSetup setup = SessionSetup.decode(pending.remoteApplicationData());
                final ProtectionDomain domain = forger.allocateProtectionDomain();
                final MemoryRegion ring = domain.allocateRegion(setup.ringCapacity() + 64,
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                final QueuePair queuePair = domain.createQueuePair(new QueuePairConfig(forger.createCompletionQueue(64),
                    forger.createCompletionQueue(64), 16, 16, 0));
                queuePair.modifyToInit();
                pending.complete(queuePair,
                    List.of(new RegionAdvertisement(ring.address() + offset, ring.rkey(), setup.ringCapacity())),
                    new SessionSetup(setup.streamId(), setup.sessionId(), setup.ringCapacity(), setup.initialPosition(),
                        forger.mapsRemoteMemory() ? SessionSetup.MEMORY_LOG : 0).encode());
                return "answered";
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
            catch (final RuntimeException ex)
            {
                return String.valueOf(ex);
            }
        }, command -> Thread.ofVirtual().start(command));
    }

    /** What a test does to a subscription carrying a live stream, with a device and a credit region of its own. */
    @FunctionalInterface
    private interface Attack
    {
        void run(MessagingContext context, Subscription subscription, Device attackerDevice, MemoryRegion credit,
            LiveStream stream) throws Exception;
    }

    /**
     * Opens a subscription and a publication whose live stream has carried {@link #MESSAGES_BEFORE},
     * and an attacker's device with a region the size of a credit region, and runs the attack.
     */
    private void besideALiveStream(final String provider, final Attack attack) throws Exception
    {
        final MessagingContext context = shortLivenessContext();
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
            Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                STREAM);
            Device attackerDevice = RdmaProviders.open(context.newRdmaConfig(provider, "127.0.0.1:0")))
        {
            final LiveStream stream = new LiveStream(publication, subscription);
            stream.connect();
            stream.send(MESSAGES_BEFORE);
            final MemoryRegion credit = attackerDevice.allocateProtectionDomain()
                .allocateRegion(CreditLayout.REGION_LENGTH, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            attack.run(context, subscription, attackerDevice, credit, stream);
        }
    }

    /**
     * Connects a publication of session 99 that advertises {@code credit}, on a thread of its own.
     *
     * @return "connected", or the refusal's message.
     */
    private static CompletableFuture<String> connectAsync(final Device device, final Subscription subscription,
        final MessagingContext context, final RegionAdvertisement credit)
    {
        return connectAsync(device, subscription, context, credit, new SessionSetup(STREAM, 99, 1 << 16, 0).encode());
    }

    /** {@link #connectAsync}, with the setup bytes its REQ carries. */
    private static CompletableFuture<String> connectAsync(final Device device, final Subscription subscription,
        final MessagingContext context, final RegionAdvertisement credit, final byte[] setup)
    {
        final QueuePair queuePair = device.allocateProtectionDomain().createQueuePair(
            new QueuePairConfig(device.createCompletionQueue(64), device.createCompletionQueue(64), 16, 16, 0));
        queuePair.modifyToInit();
        return CompletableFuture.supplyAsync(() ->
        {
            try
            {
                ConnectionManager.connect(subscription.endpoint(), queuePair, List.of(credit), setup,
                    context.connectionManagerConfig());
                return "connected";
            }
            catch (final RdmaException refused)
            {
                return String.valueOf(refused.getMessage());
            }
        }, command -> Thread.ofVirtual().start(command));
    }

    /**
     * A liveness timeout shorter than a handshake step (the connection manager allows at least a
     * second), so that a polling thread held by a handshake loses its live streams; as long as that
     * allows, so that a loaded machine's stall of the one thread driving both ends does not.
     */
    private MessagingContext shortLivenessContext()
    {
        return context(directory, settings -> settings.livenessTimeoutMs(900));
    }

    /** Sends a recorded REQ on a connection of its own; returns the type of the answer. */
    private static int replay(final InetSocketAddress listener, final byte[] request) throws IOException
    {
        try (Socket socket = new Socket(listener.getAddress(), listener.getPort()))
        {
            socket.setSoTimeout(5_000);
            final InputStream input = socket.getInputStream();
            readFrame(input); // this connection's CHALLENGE, which the recording cannot answer
            socket.getOutputStream().write(request);
            return readFrame(input)[4] & 0xFF;
        }
    }

    /** Reads one connection-manager frame: 12-byte header with the body length at 8, body, 64-byte signature. */
    private static byte[] readFrame(final InputStream input) throws IOException
    {
        final byte[] header = input.readNBytes(12);
        final int bodyLength = ByteBuffer.wrap(header).getInt(8);
        final byte[] rest = input.readNBytes(bodyLength + SIGNATURE_LENGTH);
        final byte[] frame = Arrays.copyOf(header, 12 + rest.length);
        System.arraycopy(rest, 0, frame, 12, rest.length);
        return frame;
    }

    /**
     * A TCP relay in front of a connection listener that records what the client sends, as an
     * eavesdropper on the management connection would.
     */
    private static final class RecordingRelay implements AutoCloseable
    {
        private final ServerSocket server;
        private final ByteArrayOutputStream fromClient = new ByteArrayOutputStream();
        private final AtomicBoolean closed = new AtomicBoolean();

        RecordingRelay(final InetSocketAddress target) throws IOException
        {
            server = new ServerSocket(0, 8, target.getAddress());
            Thread.ofVirtual().start(() ->
            {
                while (!closed.get())
                {
                    try
                    {
                        final Socket client = server.accept();
                        final Socket upstream = new Socket(target.getAddress(), target.getPort());
                        Thread.ofVirtual().start(() -> pump(client, upstream, true));
                        Thread.ofVirtual().start(() -> pump(upstream, client, false));
                    }
                    catch (final IOException ex)
                    {
                        return;
                    }
                }
            });
        }

        int port()
        {
            return server.getLocalPort();
        }

        private void pump(final Socket from, final Socket to, final boolean record)
        {
            try (from; to)
            {
                final InputStream input = from.getInputStream();
                final OutputStream output = to.getOutputStream();
                final byte[] chunk = new byte[4096];
                int read;
                while ((read = input.read(chunk)) >= 0)
                {
                    if (record)
                    {
                        synchronized (fromClient)
                        {
                            fromClient.write(chunk, 0, read);
                        }
                    }
                    output.write(chunk, 0, read);
                }
            }
            catch (final IOException ex)
            {
                // the connection ended
            }
        }

        /** @return the first frame the client sent: its REQ. */
        byte[] firstFrameFromClient()
        {
            final byte[] recorded;
            synchronized (fromClient)
            {
                recorded = fromClient.toByteArray();
            }
            final int bodyLength = ByteBuffer.wrap(recorded).getInt(8);
            return Arrays.copyOf(recorded, 12 + bodyLength + SIGNATURE_LENGTH);
        }

        @Override
        public void close() throws IOException
        {
            closed.set(true);
            server.close();
        }
    }

    /**
     * An active side's real queue pair, on a device of the provider under test, whose move to RTR
     * stalls, then fails: the peer's REP has arrived, but it never sends its RTU.
     */
    private static final class StallingQueuePair implements QueuePair
    {
        final AtomicBoolean stalling = new AtomicBoolean();
        private final QueuePair real;
        private final long stallMs;

        StallingQueuePair(final QueuePair real, final long stallMs)
        {
            this.real = real;
            this.stallMs = stallMs;
        }

        @Override
        public int queuePairNumber()
        {
            return real.queuePairNumber();
        }

        @Override
        public QueuePairState state()
        {
            return real.state();
        }

        @Override
        public QueuePairEndpoint localEndpoint()
        {
            return real.localEndpoint();
        }

        @Override
        public void modifyToInit()
        {
            real.modifyToInit();
        }

        @Override
        public void modifyToReadyToReceive(final QueuePairEndpoint remote)
        {
            stalling.set(true);
            try
            {
                Thread.sleep(stallMs);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            throw new RdmaException("stalled on purpose");
        }

        @Override
        public void modifyToReadyToSend()
        {
            real.modifyToReadyToSend();
        }

        @Override
        public void modifyToError()
        {
            real.modifyToError();
        }

        @Override
        public int postWrite(final long workRequestId, final MemoryRegion local, final int localOffset,
            final int length, final long remoteAddress, final int rkey, final int flags)
        {
            return real.postWrite(workRequestId, local, localOffset, length, remoteAddress, rkey, flags);
        }

        @Override
        public int postWriteWithImmediate(final long workRequestId, final MemoryRegion local, final int localOffset,
            final int length, final long remoteAddress, final int rkey, final int immediate, final int flags)
        {
            return real.postWriteWithImmediate(workRequestId, local, localOffset, length, remoteAddress, rkey, immediate,
                flags);
        }

        @Override
        public int postSend(final long workRequestId, final MemoryRegion local, final int localOffset,
            final int length, final int flags)
        {
            return real.postSend(workRequestId, local, localOffset, length, flags);
        }

        @Override
        public boolean canPostSends(final int requests, final long bytes)
        {
            return real.canPostSends(requests, bytes);
        }

        @Override
        public int postReceive(final long workRequestId, final MemoryRegion local, final int localOffset,
            final int length)
        {
            return real.postReceive(workRequestId, local, localOffset, length);
        }

        @Override
        public void close()
        {
            real.close();
        }
    }
}
