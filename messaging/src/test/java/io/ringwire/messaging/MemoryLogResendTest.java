package io.ringwire.messaging;

import io.ringwire.messaging.protocol.FrameDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory log (shm) whose subscriber closes its image while the publication still stores frames
 * into its ring: the publication's offers accepted them, so they are written again into the next
 * connection to that subscriber, and every accepted message is read once, in order.
 */
class MemoryLogResendTest
{
    private static final int STREAM = 23;
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String SMALL_RING = "|ring=16384";

    @TempDir
    Path directory;

    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final List<Long> delivered = new ArrayList<>();
    private final FragmentHandler recorder = (buffer, offset, length, header) -> delivered.add(buffer.getLong(offset));

    @Test
    void framesStoredAfterTheSubscriberTookTheStalledPublicationForGoneAreReadOnceAfterTheReconnection()
    {
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(1_500).reconnectIntervalMs(20));
        // A small ring: the stream wraps it twice, so what is taken from it and written again wraps
        // too, PAD frames included.
        try (Subscription subscription = Subscription.open(context, channel("shm", 0) + SMALL_RING, STREAM);
             Publication publication = Publication.open(context,
                 channel("shm", subscription.endpoint().getPort()) + SMALL_RING, STREAM))
        {
            final int acceptedIntoClosedRing = stallThenOffer(subscription, publication, 600);
            readOnFor(subscription, publication);
            assertEquals(LongStream.rangeClosed(1, 600).boxed().toList(), delivered);
            assertTrue(publication.counters().framesResent.get() >= acceptedIntoClosedRing,
                "frames resent " + publication.counters().framesResent.get() + ", accepted into the closed ring " +
                acceptedIntoClosedRing);
            assertEquals(0, publication.counters().resendsDropped.get());
        }
    }

    @Test
    void framesTakenForASubscriberThatWantsChecksumsAreDroppedCountedNotWrittenAgain()
    {
        // A checksum covers the frame's session, which the next connection changes.
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(1_500).reconnectIntervalMs(20).checksum("on"));
        try (Subscription subscription = Subscription.open(context, channel("shm", 0), STREAM);
             Publication publication = Publication.open(context,
                 channel("shm", subscription.endpoint().getPort()), STREAM))
        {
            final int acceptedIntoClosedRing = stallThenOffer(subscription, publication, 300);
            readOnFor(subscription, publication);
            assertEquals(0, publication.counters().framesResent.get());
            assertEquals(1, publication.counters().resendsDropped.get());
            assertEquals(300 - acceptedIntoClosedRing, delivered.size(), "what went into the closed ring is lost");
            assertEquals(LongStream.concat(LongStream.of(1), LongStream.rangeClosed(2 + acceptedIntoClosedRing, 300))
                .boxed().toList(), delivered);
        }
    }

    /**
     * Sends message 1, lets the subscriber take the publication for gone (its thread does not run),
     * then offers 2 to {@code last} at once, every one until it is accepted, and awaits as many
     * messages delivered as can be.
     *
     * @return how many of the first offers after the stall were accepted before one was refused:
     *         those went into the ring whose image had closed.
     */
    private int stallThenOffer(final Subscription subscription, final Publication publication, final long last)
    {
        await(() -> publication.isConnected() && subscription.imageCount() == 1, WAIT, "connected", () ->
        {
            subscription.poll(recorder, 10);
            publication.doWork();
        });
        send(publication, 1, subscription);
        await(() -> delivered.size() == 1, WAIT, "the first message", () -> subscription.poll(recorder, 10));

        await(() -> subscription.imageCount() == 0, WAIT, "the subscriber to take the publication for gone",
            () -> subscription.poll(recorder, 10));
        assertEquals(1, subscription.counters().livenessTimeouts.get());

        // Resumed, it offers at once: its first offers store into the ring no one reads now, before
        // its duty cycle finds the subscriber gone (the first always does: its duty runs after it).
        int accepted = 0;
        for (long sequence = 2; sequence <= last; sequence++)
        {
            if (send(publication, sequence, subscription) == 1 && accepted == sequence - 2)
            {
                accepted++;
            }
        }
        assertTrue(accepted > 0, "no offer went into the closed image's ring");
        final int intoClosedRing = accepted;
        await(() -> publication.counters().resendsDropped.get() > 0 ? delivered.size() >= last - intoClosedRing :
            delivered.size() >= last, WAIT, "every message that can be delivered", () ->
        {
            subscription.poll(recorder, 10);
            publication.doWork();
        });
        return accepted;
    }

    @Test
    void framesAClosedSubscriptionLeftUnreadAreReadByTheNextSubscriptionAtItsEndpoint()
    {
        final MessagingContext context = context(directory, settings -> settings.reconnectIntervalMs(20));
        final Subscription first = Subscription.open(context, channel("shm", 0), STREAM);
        final int port = first.endpoint().getPort();
        try (Publication publication = Publication.open(context, channel("shm", port), STREAM))
        {
            connectSendAndRead(first, publication, 200, 50);
            first.close();

            // Offers go on, until the publication knows, while the subscriber's process opens its
            // subscription again.
            long sequence = 201;
            while (sequence <= 260 && publication.offer(message(sequence), 0, Long.BYTES) > 0)
            {
                sequence++;
            }
            assertTrue(sequence > 201, "no offer went into the closed image's ring");
            try (Subscription second = Subscription.open(context, channel("shm", port), STREAM))
            {
                for (; sequence <= 300; sequence++)
                {
                    send(publication, sequence, second);
                }
                await(() -> delivered.size() >= 300, WAIT, "every accepted message", () ->
                {
                    second.poll(recorder, 10);
                    publication.doWork();
                });
                readOnFor(second, publication);
                assertEquals(LongStream.rangeClosed(1, 300).boxed().toList(), delivered.subList(0, 300));
                assertEquals(300, delivered.size());
                assertTrue(publication.counters().framesResent.get() >= 150,
                    "frames resent " + publication.counters().framesResent.get());
            }
        }
        finally
        {
            first.close();
        }
    }

    @Test
    void aHeartbeatsCreditBeforeTheJoinIsReadDoesNotLetThePublicationStoreOverTheFramesWrittenAgain()
    {
        final MessagingContext context = context(directory, settings -> settings.reconnectIntervalMs(20)
            .heartbeatIntervalMs(20).livenessTimeoutMs(60_000));
        final Subscription first = Subscription.open(context, channel("shm", 0) + SMALL_RING, STREAM);
        final int port = first.endpoint().getPort();
        try (Publication publication = Publication.open(context, channel("shm", port) + SMALL_RING, STREAM))
        {
            connectSendAndRead(first, publication, 200, 20);
            first.close();
            long sequence = 201;
            while (sequence <= 230 && publication.offer(message(sequence), 0, Long.BYTES) > 0)
            {
                sequence++;
            }
            try (Subscription second = Subscription.open(context, channel("shm", port) + SMALL_RING, STREAM))
            {
                // Connected, with no frame and no JOIN read: a poll of none drives the handshake.
                await(() -> second.imageCount() == 1 && publication.isConnected(), WAIT, "reconnected", () ->
                {
                    second.poll(recorder, 0);
                    publication.doWork();
                });
                assertTrue(publication.counters().framesResent.get() > 0, "nothing written again");
                // A heartbeat's credit falls due while the JOIN still waits in the completion queue.
                final long until = System.nanoTime() + Duration.ofMillis(100).toNanos();
                while (System.nanoTime() < until)
                {
                    second.doWork();
                }
                // Whatever the publication now takes without the subscriber reading must fit beside
                // the frames written again, which start where the first subscription stopped.
                while (publication.offer(message(sequence), 0, Long.BYTES) > 0 ||
                    publication.offer(message(sequence), 0, Long.BYTES) > 0)
                {
                    sequence++;
                }
                final long last = sequence - 1;
                await(() -> delivered.size() >= last, WAIT, "every accepted message, " + last, () ->
                {
                    second.poll(recorder, 10);
                    publication.doWork();
                });
                readOnFor(second, publication);
                assertEquals(LongStream.rangeClosed(1, last).boxed().toList(), delivered);
            }
        }
        finally
        {
            first.close();
        }
    }

    @Test
    void aMessageTheClosedSubscriptionHadReadOnlyPartOfIsReadWholeByTheNextSubscription()
    {
        // No heartbeat frames in between: the first subscription stops right after a first fragment.
        partlyReadMessageIsReadWholeByTheNextSubscription(context(directory, settings -> settings
            .reconnectIntervalMs(20).heartbeatIntervalMs(60_000).livenessTimeoutMs(120_000)), false);
    }

    @Test
    void aPartlyReadMessageIsNotCreditedSoThePublicationCannotStoreOverItsStartBeforeTheClose()
    {
        // Credit after every frame: the first fragment's credit reaches the publication, which then
        // stores short messages as far as the credit lets it before the subscription closes:
        // credited past that start, it would store over it.
        partlyReadMessageIsReadWholeByTheNextSubscription(context(directory, settings -> settings
            .reconnectIntervalMs(20).heartbeatIntervalMs(60_000).livenessTimeoutMs(120_000).creditFraction(64)), true);
    }

    /**
     * Messages 1 to 11 of three fragments each into a small ring; the first subscription reads 1 to
     * 10 and message 11's first fragment and closes (after the publication, when {@code fillRing},
     * has offered short messages from 12 on until its credit refuses one); the next subscription at
     * that endpoint reads every message accepted once, in order, each whole.
     */
    private void partlyReadMessageIsReadWholeByTheNextSubscription(final MessagingContext context,
        final boolean fillRing)
    {
        final Subscription first = Subscription.open(context, channel("shm", 0) + SMALL_RING, STREAM);
        final int port = first.endpoint().getPort();
        final List<Integer> lengths = new ArrayList<>();
        final FragmentHandler whole = new FragmentAssembler((buffer, offset, length, header) ->
        {
            delivered.add(buffer.getLong(offset));
            lengths.add(length);
        });
        try (Publication publication = Publication.open(context, channel("shm", port) + SMALL_RING, STREAM))
        {
            final int length = 2 * publication.maxPayloadLength() + 100; // three fragments
            final UnsafeBuffer large = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
            await(() -> publication.isConnected() && first.imageCount() == 1, WAIT, "connected", () ->
            {
                first.poll(whole, 10);
                publication.doWork();
            });
            for (long sequence = 1; sequence <= 11; sequence++)
            {
                offerLarge(publication, large, sequence, first, whole);
            }
            // Reads messages 1 to 10 whole and the first fragment of 11, then closes.
            final byte[] lastFlags = new byte[1];
            final FragmentHandler flagged = (buffer, offset, fragmentLength, header) ->
            {
                lastFlags[0] = header.flags();
                whole.onFragment(buffer, offset, fragmentLength, header);
            };
            await(() -> delivered.size() >= 10, WAIT, "messages 1 to 10", () -> first.poll(flagged, 1));
            lastFlags[0] = 0;
            await(() -> lastFlags[0] != 0, WAIT, "the next data frame", () -> first.poll(flagged, 1));
            assertEquals(FrameDescriptor.BEGIN_FLAG, lastFlags[0], "message 11's first fragment, and no more of it");
            assertEquals(10, delivered.size(), "message 11 is not whole yet");
            long next = 12;
            if (fillRing)
            {
                // Offers until the credit refuses them (a refused offer reads the credit again).
                for (int refused = 0; refused < 100; )
                {
                    if (publication.offer(message(next), 0, Long.BYTES) > 0)
                    {
                        next++;
                    }
                    else
                    {
                        refused++;
                        publication.doWork();
                    }
                }
                assertTrue(next > 100, "short messages fill the ring the credit leaves: " + (next - 12));
            }
            final long firstLarge = next;
            final long last = next + 9;
            first.close();

            try (Subscription second = Subscription.open(context, channel("shm", port) + SMALL_RING, STREAM))
            {
                for (long sequence = next; sequence <= last; sequence++)
                {
                    offerLarge(publication, large, sequence, second, whole);
                }
                await(() -> delivered.size() >= last, WAIT, "every accepted message", () ->
                {
                    second.poll(whole, 10);
                    publication.doWork();
                });
                final long until = System.nanoTime() + Duration.ofMillis(200).toNanos();
                while (System.nanoTime() < until)
                {
                    second.poll(whole, 10);
                    publication.doWork();
                }
                assertEquals(LongStream.rangeClosed(1, last).boxed().toList(), delivered, "each message once, in order");
                assertEquals(LongStream.rangeClosed(1, last).mapToObj(sequence -> sequence > 11 && sequence < firstLarge ?
                    Long.BYTES : length).toList(), lengths, "each whole");
                assertTrue(publication.counters().framesResent.get() >= 3,
                    "message 11's three fragments written again: " + publication.counters().framesResent.get());
            }
        }
        finally
        {
            first.close();
        }
    }

    @Test
    void aMessageReadAcrossPollsIsCreditedWholeWithThePollThatReadsItsLastFragment()
    {
        // No heartbeat's credit within the test: only the polls' credit can let the next offer in.
        final MessagingContext context = context(directory, settings -> settings.reconnectIntervalMs(20)
            .heartbeatIntervalMs(60_000).livenessTimeoutMs(120_000));
        try (Subscription subscription = Subscription.open(context, channel("shm", 0) + SMALL_RING, STREAM);
             Publication publication = Publication.open(context,
                 channel("shm", subscription.endpoint().getPort()) + SMALL_RING, STREAM))
        {
            final FragmentHandler assembler = new FragmentAssembler(recorder);
            final int[] fragments = new int[1];
            final FragmentHandler whole = (buffer, offset, length, header) ->
            {
                fragments[0]++;
                assembler.onFragment(buffer, offset, length, header);
            };
            // Joined too: the image reads no frame before its JOIN, which a memory log's poll takes
            // from the completion queue only now and then.
            await(() -> publication.isConnected() && subscription.imageCount() == 1 &&
                subscription.images()[0].isJoined(), WAIT, "connected and joined", () ->
            {
                subscription.poll(whole, 10);
                publication.doWork();
            });
            // The longest message: half the ring, in five fragments. The first polls read four of them
            // (their credit holds at the message's start), the next the last.
            final UnsafeBuffer longest = new UnsafeBuffer(ByteBuffer.allocateDirect(publication.maxMessageLength()));
            longest.putLong(0, 1);
            assertTrue(publication.offer(longest, 0, longest.capacity()) > 0);
            fragments[0] = 0;
            // One frame a poll (a PAD where the message wraps takes one of its own).
            await(() -> fragments[0] == 4, WAIT, "four fragments", () -> subscription.poll(whole, 1));
            assertTrue(delivered.isEmpty(), "four fragments are not the message yet");
            subscription.poll(whole, 10);
            assertEquals(5, fragments[0]);
            assertEquals(List.of(1L), delivered);
            // The next as long needs the whole message's credit, which that last poll sent.
            longest.putLong(0, 2);
            long result = 0;
            for (int attempt = 0; attempt < 100 && result <= 0; attempt++)
            {
                result = publication.offer(longest, 0, longest.capacity());
                subscription.poll(whole, 10);
                publication.doWork();
            }
            assertTrue(result > 0, "the second message was refused: " + result);
            await(() -> delivered.size() == 2, WAIT, "the second message", () -> subscription.poll(whole, 10));
            assertEquals(List.of(1L, 2L), delivered);
        }
    }

    private static void offerLarge(final Publication publication, final UnsafeBuffer large, final long sequence,
        final Subscription subscription, final FragmentHandler handler)
    {
        large.putLong(0, sequence);
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (publication.offer(large, 0, large.capacity()) <= 0)
        {
            assertTrue(System.nanoTime() < deadline, "message " + sequence + " never accepted: " + publication);
            subscription.poll(handler, 10);
            publication.doWork();
        }
    }

    @Test
    void framesAnEvictedImageLeftUnreadAreNotWrittenAgain()
    {
        final MessagingContext context = context(directory, settings -> settings.reconnectIntervalMs(20));
        try (Subscription subscription = Subscription.open(context, channel("shm", 0), STREAM);
             Publication publication = Publication.open(context,
                 channel("shm", subscription.endpoint().getPort()), STREAM))
        {
            connectSendAndRead(subscription, publication, 100, 10);
            // The application cuts the publication off (as a gateway cuts a client that never logs
            // on): what it had not read is dropped with it, not offered again on the next connection.
            assertTrue(subscription.closeImage(publication.sessionId()));
            long sequence = 101;
            while (publication.offer(message(sequence), 0, Long.BYTES) > 0)
            {
                sequence++;
            }
            final long firstAfterCut = sequence;
            send(publication, firstAfterCut, subscription);
            await(() -> delivered.size() > 10, WAIT, "a message on the next connection", () ->
            {
                subscription.poll(recorder, 10);
                publication.doWork();
            });
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, firstAfterCut), delivered);
            assertEquals(0, publication.counters().framesResent.get());
        }
    }

    @Test
    void aLateClosedMarkOfAnEarlierConnectionUnderAFixedSessionIsNotTakenForTheLastOnesSoNothingIsReadTwice()
    {
        final MessagingContext context = context(directory, settings -> settings.reconnectIntervalMs(20)
            .heartbeatIntervalMs(20).livenessTimeoutMs(500));
        final String fixedSession = SMALL_RING + "|session-id=77";
        final Subscription first = Subscription.open(context, channel("shm", 0) + SMALL_RING, STREAM);
        final int port = first.endpoint().getPort();
        try (Publication publication = Publication.open(context, channel("shm", port) + fixedSession, STREAM))
        {
            connectSendAndRead(first, publication, 100, 40);
            first.close();
            final org.agrona.concurrent.AtomicBuffer credit = publication.destinations()[0].creditBuffer();
            final long[] lateMark = {
                credit.getLong(io.ringwire.messaging.protocol.CreditLayout.CLOSED_POSITION_OFFSET),
                credit.getLong(io.ringwire.messaging.protocol.CreditLayout.CLOSED_MESSAGE_START_OFFSET),
                credit.getLong(io.ringwire.messaging.protocol.CreditLayout.CLOSED_MARK_OFFSET) };
            assertTrue(lateMark[2] != 0, "the first image left its mark");
            try (Subscription second = Subscription.open(context, channel("shm", port) + SMALL_RING, STREAM))
            {
                await(() -> delivered.size() >= 100, WAIT, "the frames written again", () ->
                {
                    second.poll(recorder, 10);
                    publication.doWork();
                });
                // The first connection's image stores its mark again, late, into the region the
                // second connection uses, as one still open in another thread could.
                credit.putLong(io.ringwire.messaging.protocol.CreditLayout.CLOSED_POSITION_OFFSET, lateMark[0]);
                credit.putLong(io.ringwire.messaging.protocol.CreditLayout.CLOSED_MESSAGE_START_OFFSET, lateMark[1]);
                credit.putLongRelease(io.ringwire.messaging.protocol.CreditLayout.CLOSED_MARK_OFFSET, lateMark[2]);
                // The second connection ends without a mark of its own: its subscriber goes silent
                // and the publication cuts it; then it comes back as a third connection.
                final long silentUntil = System.nanoTime() + Duration.ofMillis(1_500).toNanos();
                while (System.nanoTime() < silentUntil)
                {
                    publication.doWork();
                }
                await(() -> publication.isConnected() && second.imageCount() == 1 && delivered.size() >= 100, WAIT,
                    "connected again", () ->
                    {
                        second.poll(recorder, 10);
                        publication.doWork();
                    });
                for (long sequence = 101; sequence <= 120; sequence++)
                {
                    send(publication, sequence, second);
                }
                await(() -> delivered.size() >= 120, WAIT, "the messages after", () ->
                {
                    second.poll(recorder, 10);
                    publication.doWork();
                });
                readOnFor(second, publication);
                assertEquals(LongStream.rangeClosed(1, 120).boxed().toList(), delivered, "each once, in order");
            }
        }
        finally
        {
            first.close();
        }
    }

    @Test
    void closePositionsASubscriberWroteOutOfTheRingsReachAreIgnoredAndThePublicationGoesOn()
    {
        final MessagingContext context = context(directory, settings -> settings.reconnectIntervalMs(20));
        final Subscription first = Subscription.open(context, channel("shm", 0) + SMALL_RING, STREAM);
        final int port = first.endpoint().getPort();
        try (Publication publication = Publication.open(context, channel("shm", port) + SMALL_RING, STREAM))
        {
            // Past twice the ring: a length taken from a wrapped difference would overrun it.
            connectSendAndRead(first, publication, 1_000, 1_000);
            first.close();
            // What a subscriber could write beside its closed mark: a position whose distance from the
            // publication's overflows a long.
            final org.agrona.concurrent.AtomicBuffer credit = publication.destinations()[0].creditBuffer();
            credit.putLong(io.ringwire.messaging.protocol.CreditLayout.CLOSED_POSITION_OFFSET, Long.MIN_VALUE);
            credit.putLong(io.ringwire.messaging.protocol.CreditLayout.CLOSED_MESSAGE_START_OFFSET, Long.MIN_VALUE);
            try (Subscription second = Subscription.open(context, channel("shm", port) + SMALL_RING, STREAM))
            {
                // Its next connection is where a publication takes what the closed image left unread.
                await(() -> publication.isConnected() && second.imageCount() == 1, WAIT, "connected again", () ->
                {
                    second.poll(recorder, 10);
                    publication.doWork();
                });
                for (long sequence = 1_001; sequence <= 1_100; sequence++)
                {
                    send(publication, sequence, second);
                }
                await(() -> delivered.size() >= 1_100, WAIT, "the messages after the close", () ->
                {
                    second.poll(recorder, 10);
                    publication.doWork();
                });
                assertEquals(LongStream.rangeClosed(1_001, 1_100).boxed().toList(), delivered.subList(1_000, 1_100));
                assertEquals(0, publication.counters().framesResent.get(), "nothing taken from the forged positions");
            }
        }
        finally
        {
            first.close();
        }
    }

    /** Reads on a while, so that a message delivered twice after the last one expected shows. */
    private void readOnFor(final Subscription subscription, final Publication publication)
    {
        final long until = System.nanoTime() + Duration.ofMillis(200).toNanos();
        while (System.nanoTime() < until)
        {
            subscription.poll(recorder, 10);
            publication.doWork();
        }
    }

    /** Connects, has messages 1 to {@code sent} accepted, and reads the first {@code read} of them. */
    private void connectSendAndRead(final Subscription subscription, final Publication publication, final long sent,
        final int read)
    {
        await(() -> publication.isConnected() && subscription.imageCount() == 1, WAIT, "connected", () ->
        {
            subscription.poll(recorder, 10);
            publication.doWork();
        });
        for (long sequence = 1; sequence <= sent; sequence++)
        {
            send(publication, sequence, subscription);
        }
        while (delivered.size() < read)
        {
            subscription.poll(recorder, 1);
        }
    }

    private UnsafeBuffer message(final long sequence)
    {
        message.putLong(0, sequence);
        return message;
    }

    /**
     * Offers the message until it is accepted; the subscription is polled meanwhile.
     *
     * @return 1 when its first offer took it, else 0.
     */
    private int send(final Publication publication, final long sequence, final Subscription subscription)
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        int attempts = 0;
        while (publication.offer(message(sequence), 0, Long.BYTES) <= 0)
        {
            attempts++;
            assertTrue(System.nanoTime() < deadline, "message " + sequence + " never accepted: " + publication);
            subscription.poll(recorder, 10);
        }
        return attempts == 0 ? 1 : 0;
    }
}
