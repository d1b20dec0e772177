package io.ringwire.messaging;

import io.ringwire.messaging.protocol.FrameDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static io.ringwire.messaging.PubSubTestSupport.devices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A publication's life on every provider, in one process: zero-copy claims (commit and abort), idle
 * heartbeats, a reconnection under a new session the subscriber sees as one image ending and
 * another starting, and CLOSED.
 */
class PublicationLifecycleTest
{
    private static final int STREAM = 11;
    private static final FragmentHandler IGNORE = (buffer, offset, length, header) -> { };

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void claimedFramesArriveByteExactAndAbortedOnesNeverArriveAcrossRingWraps(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0) + "|ring=16384", STREAM);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()) + "|ring=16384", STREAM))
        {
            connect(subscription, publication);
            assertThrows(IllegalArgumentException.class,
                () -> publication.tryClaim(publication.maxPayloadLength() + 1, new BufferClaim()));

            final BufferClaim claim = new BufferClaim();
            final List<Integer> committed = new ArrayList<>();
            final int[] received = { 0 };
            final String[] failure = { null };
            final FragmentHandler checker = (buffer, offset, length, header) ->
            {
                final int sequence = buffer.getInt(offset);
                if (received[0] >= committed.size() || sequence != committed.get(received[0]) ||
                    length != lengthOf(sequence) || header.sessionId() != publication.sessionId())
                {
                    failure[0] = "fragment " + received[0] + ": sequence " + sequence + ", " + length + " bytes";
                }
                for (int i = 4; i < length && null == failure[0]; i++)
                {
                    if (buffer.getByte(offset + i) != (byte)(sequence + i))
                    {
                        failure[0] = "message " + sequence + " differs at byte " + i;
                    }
                }
                received[0]++;
            };
            final int claims = 3000; // about 30 wraps of the 16 KiB ring
            int attempted = 0;
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (attempted < claims || received[0] < committed.size())
            {
                assertTrue(System.nanoTime() < deadline, "stalled: " + received[0] + " of " + committed.size());
                if (attempted < claims)
                {
                    final int length = lengthOf(attempted);
                    final long result = publication.tryClaim(length, claim);
                    if (result > 0)
                    {
                        assertEquals(length, claim.length());
                        claim.buffer().putInt(claim.offset(), attempted);
                        for (int i = 4; i < length; i++)
                        {
                            claim.buffer().putByte(claim.offset() + i, (byte)(attempted + i));
                        }
                        if (attempted % 7 == 3)
                        {
                            assertEquals(result, claim.abort(), "an aborted claim still moves the position");
                        }
                        else
                        {
                            committed.add(attempted);
                            assertEquals(result, claim.commit(), "commit returns the position tryClaim promised");
                        }
                        assertEquals(result, publication.position());
                        attempted++;
                    }
                    else
                    {
                        assertEquals(Publication.BACK_PRESSURED, result);
                    }
                }
                subscription.poll(checker, 50);
            }
            assertNull(failure[0]);
            assertEquals(committed.size(), received[0]);
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void anIdleConnectionStaysUpOnHeartbeatsForManyLivenessTimeouts(final String provider)
    {
        // One thread drives both ends: a loaded machine's stall of it must stay inside the liveness
        // and the providers' peer timeout.
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(100)
            .livenessTimeoutMs(2_000).rdmaSettings(devices(directory, 3_000)));
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()), STREAM))
        {
            final List<String> events = recordImages(subscription);
            connect(subscription, publication);
            final int session = publication.sessionId();
            final long heartbeatsSent = publication.counters().heartbeatsSent.get();
            final long heartbeatsReceived = subscription.counters().heartbeatsReceived.get();
            final long credits = subscription.counters().creditUpdates.get();

            final long idleUntil = System.nanoTime() + Duration.ofMillis(5_000).toNanos(); // 2.5 liveness timeouts
            while (System.nanoTime() < idleUntil)
            {
                subscription.poll(IGNORE, 10);
                publication.doWork();
                assertTrue(publication.isConnected(), "publication lost its subscriber while idle");
            }
            assertEquals(1, subscription.imageCount());
            assertEquals(session, publication.sessionId());
            assertEquals(List.of("image " + session), events, "no image ended or started");
            assertTrue(publication.counters().heartbeatsSent.get() - heartbeatsSent >= 10,
                "heartbeats sent: " + (publication.counters().heartbeatsSent.get() - heartbeatsSent));
            assertTrue(subscription.counters().heartbeatsReceived.get() - heartbeatsReceived >= 10,
                "heartbeats received: " + (subscription.counters().heartbeatsReceived.get() - heartbeatsReceived));
            assertTrue(subscription.counters().creditUpdates.get() - credits >= 10,
                "credit updates (the subscriber's side of liveness): " +
                (subscription.counters().creditUpdates.get() - credits));
            assertEquals(0, subscription.counters().livenessTimeouts.get());
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aPublicationThatWentSilentReconnectsUnderANewSessionSeenAsANewImage(final String provider)
    {
        // Past the test's own stall of the publication, a loaded machine's stall of this one thread
        // must not end an image (the history asserted is exact); the providers' peer timeout well
        // past the liveness, so that the image ends as a liveness timeout, not as a peer lost.
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(1_500).reconnectIntervalMs(20).rdmaSettings(devices(directory, 3_000)));
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()), STREAM))
        {
            final List<String> events = recordImages(subscription);
            final List<String> delivered = new ArrayList<>();
            final FragmentHandler recorder = (buffer, offset, length, header) ->
                delivered.add(header.sessionId() + ":" + buffer.getInt(offset));
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            connect(subscription, publication);
            final int firstSession = publication.sessionId();
            assertEquals(1, publication.connections(), "one connection made");
            message.putInt(0, 1);
            assertTrue(publication.offer(message, 0, 64) > 0);
            await(() -> delivered.size() == 1, Duration.ofSeconds(10), "first message", () -> subscription.poll(recorder, 10));

            // The publication's thread stalls (no heartbeats) past the liveness timeout: the
            // subscriber ends the image; the publication finds the subscriber gone when it resumes.
            await(() -> events.size() == 2, Duration.ofSeconds(10), "the image to end",
                () -> subscription.poll(recorder, 10));
            assertEquals(List.of("image " + firstSession, "gone " + firstSession), events);
            assertEquals(1, subscription.counters().livenessTimeouts.get());

            // Resumed, the publication's duty cycle finds the subscriber silent for longer than the
            // liveness timeout and lets it go (it starts reconnecting, which the subscription,
            // not polled here, does not answer yet).
            await(() -> !publication.isConnected(), Duration.ofSeconds(10), "the publication to notice",
                publication::doWork);

            // Offers say NOT_CONNECTED until the reconnection completes inside one of them, which
            // says ADMIN_ACTION (retry: the stream continues under a new session), then succeed.
            final List<Long> results = new ArrayList<>();
            message.putInt(0, 2);
            long result = 0;
            final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (result <= 0)
            {
                assertTrue(System.nanoTime() < deadline, "no reconnection: " + publication + ", offers " + results);
                result = publication.offer(message, 0, 64);
                if (results.isEmpty() || results.get(results.size() - 1) != result)
                {
                    results.add(result);
                }
                subscription.poll(recorder, 10);
            }
            assertEquals(List.of(Publication.NOT_CONNECTED, Publication.ADMIN_ACTION, result), results);
            final int secondSession = publication.sessionId();
            assertNotEquals(firstSession, secondSession);
            assertEquals(2, publication.connections(), "the reconnection counted: the subscriber joined anew");
            await(() -> delivered.size() == 2, Duration.ofSeconds(10), "message after reconnecting", () ->
            {
                subscription.poll(recorder, 10);
                publication.doWork();
            });
            assertEquals(List.of(firstSession + ":1", secondSession + ":2"), delivered);
            assertEquals(List.of("image " + firstSession, "gone " + firstSession, "image " + secondSession), events);
            assertEquals(1, subscription.imageCount());
            // Let go once: as silent (shm, roce), or on the error completion of a closed connection (socket).
            assertEquals(1, publication.counters().livenessTimeouts.get() + publication.counters().errors.get(),
                "liveness timeouts " + publication.counters().livenessTimeouts.get() + ", error completions " +
                publication.counters().errors.get());
            assertEquals(0, publication.counters().sendFailures.get());
            assertTrue(publication.counters().disconnects.get() >= 1);
            assertEquals(2, publication.counters().connects.get());
        }
    }

    @Test
    void aReconnectionTheOwnersDutyCycleMadeIsToldByTheNextOfferOnce()
    {
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(1_500).reconnectIntervalMs(20).rdmaSettings(devices(directory, 3_000)));
        try (Subscription subscription = Subscription.open(context, channel("shm", 0), STREAM);
             Publication publication = Publication.open(context, channel("shm", subscription.endpoint().getPort()),
                 STREAM))
        {
            final List<String> events = recordImages(subscription);
            final FragmentHandler ignore = (buffer, offset, length, header) -> { };
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            connect(subscription, publication);
            final int firstSession = publication.sessionId();
            // The publication stalls past the liveness timeout; resumed, it lets the subscriber go, and
            // its own doWork (no offer) reconnects under a new session.
            await(() -> events.size() == 2, Duration.ofSeconds(10), "the image to end",
                () -> subscription.poll(ignore, 10));
            await(() -> !publication.isConnected(), Duration.ofSeconds(10), "the publication to notice",
                publication::doWork);
            await(() -> publication.isConnected() && subscription.imageCount() == 1, Duration.ofSeconds(20),
                "the reconnection", () ->
                {
                    subscription.poll(ignore, 10);
                    publication.doWork();
                });
            assertNotEquals(firstSession, publication.sessionId());
            assertEquals(Publication.ADMIN_ACTION, publication.offer(message, 0, 64));
            assertTrue(publication.offer(message, 0, 64) > 0, "told once, then offers go on");
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void offersNearTheEndOfThePositionSpaceArriveThenReturnMaxPositionExceeded(final String provider)
    {
        final MessagingContext context = context(directory);
        final int ring = 16384;
        final long limit = Long.MAX_VALUE - 2L * ring; // the last position an offer may start from
        final long start = (limit & -FrameDescriptor.LINE_ALIGNMENT) - 100 * 64;
        try (Subscription subscription = Subscription.open(context, channel(provider, 0) + "|ring=" + ring, STREAM);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()) + "|ring=" + ring, STREAM, start))
        {
            connect(subscription, publication);
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(32));
            final int frame = FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + 32,
                "shm".equals(provider) ? FrameDescriptor.LINE_ALIGNMENT : FrameDescriptor.ALIGNMENT); // a memory log's lines
            final List<Long> offeredAt = new ArrayList<>();
            final List<Long> receivedAt = new ArrayList<>();
            final FragmentHandler recorder = (buffer, offset, length, header) -> receivedAt.add(header.position());
            long result;
            long positionBefore = publication.position();
            final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while ((result = publication.offer(message, 0, 32)) != Publication.MAX_POSITION_EXCEEDED)
            {
                assertTrue(System.nanoTime() < deadline, "never refused: " + publication);
                if (result > 0)
                {
                    assertTrue(positionBefore <= limit, "accepted an offer at " + positionBefore + ", limit " + limit);
                    positionBefore = result;
                    offeredAt.add(result - frame); // where the frame starts (after any padding)
                }
                else
                {
                    assertEquals(Publication.BACK_PRESSURED, result);
                }
                subscription.poll(recorder, 10);
            }
            assertTrue(publication.position() > limit, "refused at " + publication.position() + ", limit " + limit);
            assertEquals(Publication.MAX_POSITION_EXCEEDED, publication.tryClaim(16, new BufferClaim()));
            assertTrue(offeredAt.size() >= 100, offeredAt.size() + " offers between " + start + " and " + limit);
            await(() -> receivedAt.size() == offeredAt.size(), Duration.ofSeconds(10), "delivery",
                () -> subscription.poll(recorder, 10));
            assertEquals(offeredAt, receivedAt, "every frame arrived, at the position it was offered at");
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aClosedPublicationReturnsClosed(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM))
        {
            final Publication publication = Publication.open(context,
                channel(provider, subscription.endpoint().getPort()), STREAM);
            connect(subscription, publication);
            publication.close();
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            assertEquals(Publication.CLOSED, publication.offer(message, 0, 64));
            assertEquals(Publication.CLOSED, publication.tryClaim(16, new BufferClaim()));
            assertEquals(0, publication.doWork());
            publication.close(); // twice is fine
        }
    }

    /**
     * A claim still open when its publication closes is given up as padding: the messages before it
     * arrive and nothing after, its commit returns CLOSED, and its buffer no longer reaches the ring.
     */
    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aClaimOpenWhenItsPublicationClosesIsGivenUpAndItsCommitReturnsClosed(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM))
        {
            final Publication publication = Publication.open(context,
                channel(provider, subscription.endpoint().getPort()), STREAM);
            connect(subscription, publication);
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(32));
            message.putInt(0, 1);
            await(() -> publication.offer(message, 0, 32) > 0, Duration.ofSeconds(10), "an offer", publication::doWork);
            final BufferClaim claim = new BufferClaim();
            await(() -> publication.tryClaim(32, claim) > 0, Duration.ofSeconds(10), "a claim", publication::doWork);
            claim.buffer().putInt(claim.offset(), 2);

            publication.close();
            assertEquals(Publication.CLOSED, claim.commit());
            assertThrows(IndexOutOfBoundsException.class, () -> claim.buffer().putInt(claim.offset(), 3),
                "the claim's buffer points at nothing");

            final List<Integer> received = new ArrayList<>();
            await(() -> subscription.imageCount() == 0, Duration.ofSeconds(10), "the image to drain and end",
                () -> subscription.poll((buffer, offset, length, header) -> received.add(buffer.getInt(offset)), 10));
            assertEquals(List.of(1), received, "the message before the claim, and not the claimed one");
        }
    }

    /** A poll that may hand over no fragment leaves a draining image's frames for the next one. */
    @Test
    void aPollOfNoFragmentsLeavesADrainingMemoryLogImageItsFrames()
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel("shm", 0) + "|ring=16384", STREAM))
        {
            final int messages = 20;
            try (Publication publication = Publication.open(context,
                channel("shm", subscription.endpoint().getPort()) + "|ring=16384", STREAM))
            {
                connect(subscription, publication);
                offerNumbered(publication, messages);
            }
            // The publication is gone: housekeeping marks the image draining; polls of no fragments meanwhile.
            await(() -> subscription.images()[0].draining, Duration.ofSeconds(10), "the image draining",
                subscription::doWork);
            for (int i = 0; i < 1_000; i++)
            {
                subscription.poll((buffer, offset, length, header) ->
                    { throw new AssertionError("a fragment from a poll of none"); }, 0);
            }
            assertEquals(1, subscription.imageCount(), "still there, its frames unread");
            final List<Integer> received = new ArrayList<>();
            await(() -> subscription.imageCount() == 0, Duration.ofSeconds(10), "the image to drain and end",
                () -> subscription.poll((buffer, offset, length, header) -> received.add(buffer.getInt(offset)), 10));
            assertEquals(IntStream.range(0, messages).boxed().toList(), received, "every message, once, in order");
        }
    }

    /** Offers {@code messages} 32-byte messages, each holding its number, waiting out back pressure. */
    private static void offerNumbered(final Publication publication, final int messages)
    {
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(32));
        for (int i = 0; i < messages; i++)
        {
            message.putInt(0, i);
            final int sequence = i;
            await(() -> publication.offer(message, 0, 32) > 0, Duration.ofSeconds(10), "offer " + sequence,
                publication::doWork);
        }
    }

    /** @return "image S" and "gone S" for every image that starts and ends, in order. */
    private static List<String> recordImages(final Subscription subscription)
    {
        final List<String> events = new ArrayList<>();
        subscription.availableImageHandler(session -> events.add("image " + session))
            .unavailableImageHandler(session -> events.add("gone " + session));
        return events;
    }

    private static int lengthOf(final int sequence)
    {
        return 8 + (sequence * 37) % 500;
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void everyMessageOfferedBeforeThePublicationClosedIsReceivedByASubscriberThatReadsOnlyAfter(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0) + "|ring=16384", STREAM))
        {
            final int messages = 100;
            try (Publication publication = Publication.open(context,
                channel(provider, subscription.endpoint().getPort()) + "|ring=16384", STREAM))
            {
                connect(subscription, publication);
                offerNumbered(publication, messages);
                final long sentBy = System.nanoTime() + Duration.ofMillis(200).toNanos();
                while (System.nanoTime() - sentBy < 0)
                {
                    publication.doWork(); // what a transport still stages goes out
                }
            }
            // The publication is gone; the subscriber's housekeeping notices before it reads.
            final long noticedBy = System.nanoTime() + Duration.ofMillis(300).toNanos();
            while (System.nanoTime() - noticedBy < 0)
            {
                subscription.doWork();
            }
            final List<Integer> received = new ArrayList<>();
            await(() -> received.size() == messages || subscription.imageCount() == 0, Duration.ofSeconds(10),
                "the messages", () -> subscription.poll((buffer, offset, length, header) ->
                    received.add(buffer.getInt(offset)), 10));
            final List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < messages; i++)
            {
                expected.add(i);
            }
            assertEquals(expected, received, "every accepted message, once, in order");
            await(() -> subscription.imageCount() == 0, Duration.ofSeconds(10), "the image to close",
                () -> subscription.poll(IGNORE, 10));
        }
    }

    @Test
    void aMemoryLogPublicationThatClosesBeforeItsSubscriberTookItsConnectionUpHasEveryMessageRead()
    {
        // The subscriber's housekeeping runs seldom here, so the publication connects, offers and
        // closes (its credit region with it) before the subscriber takes the connection up.
        final MessagingContext context = context(directory);
        final int messages = 50;
        int windows = 0;
        for (int attempt = 0; attempt < 20 && windows < 3; attempt++)
        {
            try (Subscription subscription = Subscription.open(context, channel("shm", 0) + "|ring=16384", STREAM))
            {
                try (Publication publication = Publication.open(context,
                    channel("shm", subscription.endpoint().getPort()) + "|ring=16384", STREAM))
                {
                    long nextDuty = 0;
                    final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    while (!publication.isConnected())
                    {
                        assertTrue(System.nanoTime() < deadline, "connection");
                        publication.doWork();
                        if (System.nanoTime() - nextDuty >= 0)
                        {
                            subscription.doWork();
                            nextDuty = System.nanoTime() + Duration.ofMillis(50).toNanos();
                        }
                    }
                    if (subscription.imageCount() != 0)
                    {
                        continue; // the subscriber took it up first: not the case this test is for
                    }
                    windows++;
                    final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(32));
                    for (int i = 0; i < messages; i++)
                    {
                        message.putInt(0, i);
                        assertTrue(publication.offer(message, 0, 32) > 0, "offer " + i);
                    }
                }
                final List<Integer> received = new ArrayList<>();
                await(() -> received.size() == messages, Duration.ofSeconds(10), "the messages", () ->
                    subscription.poll((buffer, offset, length, header) -> received.add(buffer.getInt(offset)), 10));
                assertEquals(IntStream.range(0, messages).boxed().toList(), received, "every message, once, in order");
                await(() -> subscription.imageCount() == 0, Duration.ofSeconds(10), "the image to close",
                    () -> subscription.poll(IGNORE, 10));
            }
        }
        assertTrue(windows > 0, "the publication never closed before the subscriber took its connection up");
    }

    @Test
    void aReconnectionThatCannotMakeItsQueuePairLeavesOffersNotConnectedAndSaysWhy() throws Exception
    {
        final MessagingContext context = context(directory);
        final Subscription subscription = Subscription.open(context, channel("shm", 0), STREAM);
        try (Publication publication = Publication.open(context, channel("shm", subscription.endpoint().getPort()),
            STREAM))
        {
            await(() -> publication.isConnected() && subscription.imageCount() == 1, Duration.ofSeconds(20), "connected", () ->
            {
                subscription.poll((buffer, offset, length, header) -> { }, 1);
                publication.doWork();
            });
            subscription.close();
            // Its shm directory gone, the ring file of the next attempt's queue pair cannot be made.
            try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(directory.resolve("shm")))
            {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
            }
            final UnsafeBuffer message = new UnsafeBuffer(new byte[32]);
            final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline && (null == publication.lastConnectionError() ||
                !publication.lastConnectionError().contains("cannot make a queue pair")))
            {
                publication.offer(message, 0, message.capacity()); // throws nothing, whatever it finds
                Thread.sleep(1);
            }
            assertTrue(String.valueOf(publication.lastConnectionError()).contains("cannot make a queue pair"),
                String.valueOf(publication.lastConnectionError()));
            assertEquals(Publication.NOT_CONNECTED, publication.offer(message, 0, message.capacity()));
        }
    }

    /**
     * A thread that owns many publications hands each its cycle's clock: the duty cycle runs on that
     * clock, so a heartbeat goes out once the clock given passes the interval, not the real one.
     */
    @Test
    void theDutyCycleRunsOnTheClockItsOwnerGives()
    {
        final String provider = "shm";
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(10_000)
            .livenessTimeoutMs(60_000));
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()), STREAM))
        {
            connect(subscription, publication);
            final long heartbeatsSent = publication.counters().heartbeatsSent.get();
            publication.doWork();
            publication.doWork(System.nanoTime());
            assertEquals(heartbeatsSent, publication.counters().heartbeatsSent.get(), "none within the interval");

            // The first pass on a later clock may first note frames sent since the last one (the
            // connection's own): the interval then counts from it, and the next pass sends.
            long givenNs = System.nanoTime();
            for (int pass = 0; pass < 3 && publication.counters().heartbeatsSent.get() == heartbeatsSent; pass++)
            {
                givenNs += Duration.ofSeconds(11).toNanos();
                publication.doWork(givenNs);
            }
            assertEquals(heartbeatsSent + 1, publication.counters().heartbeatsSent.get(),
                "one once the clock given passed the interval");
            final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            final long sent = publication.counters().heartbeatsSent.get();
            while (subscription.counters().heartbeatsReceived.get() < sent && System.nanoTime() < deadline)
            {
                subscription.poll(IGNORE, 10);
            }
            assertEquals(sent, subscription.counters().heartbeatsReceived.get(), "the subscriber got it");
        }
    }

    /** A memory log's image drains after its publication is gone; one the application never polls ends too. */
    @Test
    void aMemoryLogImageWhosePublicationClosedEndsEvenWhenTheApplicationOnlyRunsHousekeeping()
    {
        final String provider = "shm";
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0) + "|ring=16384", STREAM))
        {
            try (Publication publication = Publication.open(context,
                channel(provider, subscription.endpoint().getPort()) + "|ring=16384", STREAM))
            {
                connect(subscription, publication);
                final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(32));
                await(() -> publication.offer(message, 0, 32) > 0, Duration.ofSeconds(10), "an offer",
                    publication::doWork);
            }
            // Never polled again: the image ends within the liveness timeout all the same.
            await(() -> subscription.imageCount() == 0, Duration.ofSeconds(10), "the image to end",
                subscription::doWork);
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void theDutyCycleWaitsForAnOpenClaimSoNoHeartbeatIsWrittenOverIt(final String provider)
    {
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(20));
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                 STREAM))
        {
            connect(subscription, publication);
            final BufferClaim claim = new BufferClaim();
            await(() -> publication.tryClaim(16, claim) > 0, Duration.ofSeconds(10), "a claim", publication::doWork);
            // The application's thread runs the duty cycle while it encodes: several heartbeat intervals.
            final long until = System.nanoTime() + Duration.ofMillis(100).toNanos();
            while (System.nanoTime() < until)
            {
                publication.doWork();
            }
            claim.buffer().putLong(claim.offset(), 0x1234_5678_9ABC_DEF0L);
            claim.buffer().putLong(claim.offset() + 8, -1L);
            claim.commit();
            final List<Long> received = new ArrayList<>();
            await(() -> received.size() == 2, Duration.ofSeconds(10), "the claimed message", () ->
            {
                subscription.poll((buffer, offset, length, header) ->
                {
                    received.add(buffer.getLong(offset));
                    received.add(buffer.getLong(offset + 8));
                }, 10);
                publication.doWork();
            });
            assertEquals(List.of(0x1234_5678_9ABC_DEF0L, -1L), received);
            assertEquals(0, subscription.counters().protocolErrors.get());
            assertEquals(1, subscription.imageCount());
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void anOfferOrClaimWhileAClaimIsOpenIsRefusedAndTheClaimedMessageArrivesOnceBeforeTheNext(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                 STREAM))
        {
            connect(subscription, publication);
            final BufferClaim claim = new BufferClaim();
            await(() -> publication.tryClaim(8, claim) > 0, Duration.ofSeconds(10), "a claim", publication::doWork);
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
            message.putLong(0, 2L);
            assertThrows(IllegalStateException.class, () -> publication.offer(message, 0, 8));
            assertThrows(IllegalStateException.class, () -> publication.tryClaim(8, new BufferClaim()));
            claim.buffer().putLong(claim.offset(), 1L);
            assertTrue(claim.commit() > 0);
            await(() -> publication.offer(message, 0, 8) > 0, Duration.ofSeconds(10), "the next offer",
                publication::doWork);

            final List<Long> received = new ArrayList<>();
            await(() -> received.size() >= 2, Duration.ofSeconds(10), "both messages", () ->
            {
                subscription.poll((buffer, offset, length, header) -> received.add(buffer.getLong(offset)), 10);
                publication.doWork();
            });
            subscription.poll((buffer, offset, length, header) -> received.add(buffer.getLong(offset)), 10);
            assertEquals(List.of(1L, 2L), received, "the claim once, then the offer");
            assertEquals(0, subscription.counters().protocolErrors.get());
        }
    }

    @Test
    void anOfferOutsideItsBufferIsRefusedBeforeAnythingIsWrittenEvenWhereTheRingNeedsPadding()
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel("shm", 0) + "|ring=16384", STREAM);
             Publication publication = Publication.open(context,
                 channel("shm", subscription.endpoint().getPort()) + "|ring=16384", STREAM))
        {
            connect(subscription, publication);
            // In a memory log a 150-byte message takes three lines (192 bytes), a message of a long
            // one line (64): where one or two lines are left before the ring's end, the first needs
            // a PAD frame before it and the second fits.
            final int ring = 16384;
            final UnsafeBuffer message = new UnsafeBuffer(new byte[150]);
            final List<Long> received = new ArrayList<>();
            final FragmentHandler recorder = (buffer, offset, length, header) -> received.add(buffer.getLong(offset));
            long sent = 0;
            for (int round = 0; round < 3; round++)
            {
                while (true)
                {
                    final int room = ring - (int)(publication.position() & (ring - 1));
                    if (room < 192)
                    {
                        break;
                    }
                    message.putLong(0, ++sent);
                    await(() -> publication.offer(message, 0, message.capacity()) > 0,
                        Duration.ofSeconds(10), "offered", () -> subscription.poll(recorder, 10));
                }
                // Read up to here first (the publication's duty cycle idle meanwhile: no heartbeat
                // moves its position): with the ring's room credited, a refused offer is refused for
                // its range, not held back.
                final long written = sent;
                await(() -> received.size() >= written, Duration.ofSeconds(10), "read up to the padding point",
                    () -> subscription.poll(recorder, 10));
                final long before = publication.position();
                assertThrows(IllegalArgumentException.class, () -> publication.offer(message, 10, message.capacity()));
                assertThrows(IllegalArgumentException.class, () -> publication.offer(message, -1, 8));
                assertThrows(IllegalArgumentException.class, () -> publication.offer(message, 0, -8));
                assertThrows(IllegalArgumentException.class, () -> publication.tryClaim(-1, new BufferClaim()));
                assertThrows(IllegalArgumentException.class,
                    () -> publication.offer(message, 0, publication.maxPayloadLength() + 200));
                assertEquals(before, publication.position());
                // The subscriber reads on: a PAD frame a refused offer had left committed would be
                // skipped now, and the one-line message after it written over it unseen.
                for (int i = 0; i < 20; i++)
                {
                    subscription.poll(recorder, 10);
                }
                message.putLong(0, ++sent);
                final long small = sent;
                await(() -> publication.offer(message, 0, Long.BYTES) > 0, Duration.ofSeconds(10),
                    "one-line message " + small + " offered", () -> subscription.poll(recorder, 10));
            }
            final long last = sent;
            await(() -> received.size() >= last, Duration.ofSeconds(10), "every message", () ->
            {
                subscription.poll(recorder, 10);
                publication.doWork();
            });
            final List<Long> expected = new ArrayList<>();
            for (long i = 1; i <= last; i++)
            {
                expected.add(i);
            }
            assertEquals(expected, received, "each once, in order, nothing skipped past a refused offer");
            assertEquals(0, subscription.counters().protocolErrors.get());
        }
    }

    @Test
    void aMemoryLogSubscriptionRunOnlyByHousekeepingAfterItsConnectionKeepsItAlivePastTheLivenessTimeout()
    {
        // A liveness timeout a loaded machine's pause between the two ends' work cannot reach, and a
        // run more than twice as long.
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(2_000));
        try (Subscription subscription = Subscription.open(context, channel("shm", 0), STREAM);
             Publication publication = Publication.open(context, channel("shm", subscription.endpoint().getPort()),
                 STREAM))
        {
            // Connected by polls that read nothing: the JOIN waits unread, as it does for an owner
            // that only runs housekeeping while it is not ready to take messages.
            await(() -> subscription.imageCount() == 1 && publication.isConnected(), Duration.ofSeconds(10),
                "connection", () ->
                {
                    subscription.poll(IGNORE, 0);
                    publication.doWork();
                });
            final long until = System.nanoTime() + Duration.ofMillis(5_000).toNanos();
            while (System.nanoTime() < until)
            {
                subscription.doWork();
                publication.doWork();
            }
            assertEquals(0, publication.counters().livenessTimeouts.get(), "its heartbeats kept it alive");
            assertTrue(publication.isConnected());
            assertEquals(1, publication.counters().connects.get());
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aSubscriptionPolledSeldomAndNeverRunByItsOwnHousekeepingStaysAliveOnAQuietStream(final String provider)
        throws InterruptedException
    {
        // An owner that polls now and then (a sleeping idle strategy, a UI's timer) and never calls
        // doWork: fewer polls in a liveness timeout than the count between housekeeping passes.
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(1_500).rdmaSettings(devices(directory, 5_000)));
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                 STREAM))
        {
            connect(subscription, publication);
            final long until = System.nanoTime() + Duration.ofMillis(4_000).toNanos();
            while (System.nanoTime() < until)
            {
                subscription.poll(IGNORE, 10);
                publication.doWork(); // the publication's heartbeats: the stream is quiet, not gone
                Thread.sleep(15); // a count of 128 polls between housekeeping passes would take 1.9 s
            }
            assertEquals(0, publication.counters().livenessTimeouts.get(), "the subscriber's credit kept it alive");
            assertEquals(0, subscription.counters().livenessTimeouts.get(), "the publication's heartbeats were seen");
            assertTrue(publication.isConnected());
            assertEquals(1, publication.counters().connects.get());
            assertEquals(1, subscription.imageCount());
        }
    }

    private static void connect(final Subscription subscription, final Publication publication)
    {
        await(() -> subscription.imageCount() == 1 && publication.isConnected(), Duration.ofSeconds(10), "connection",
            () ->
            {
                subscription.poll(IGNORE, 10);
                publication.doWork();
            });
    }
}
