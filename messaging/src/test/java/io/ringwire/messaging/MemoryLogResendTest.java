package io.ringwire.messaging;

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

    @TempDir
    Path directory;

    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final List<Long> delivered = new ArrayList<>();
    private final FragmentHandler recorder = (buffer, offset, length, header) -> delivered.add(buffer.getLong(offset));

    @Test
    void framesStoredAfterTheSubscriberTookTheStalledPublicationForGoneAreReadOnceAfterTheReconnection()
    {
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(300).reconnectIntervalMs(20));
        try (Subscription subscription = Subscription.open(context, channel("shm", 0), STREAM);
             Publication publication = Publication.open(context,
                 channel("shm", subscription.endpoint().getPort()), STREAM))
        {
            await(() -> publication.isConnected() && subscription.imageCount() == 1, WAIT, "connected", () ->
            {
                subscription.poll(recorder, 10);
                publication.doWork();
            });
            send(publication, 1, subscription);
            await(() -> delivered.size() == 1, WAIT, "the first message", () -> subscription.poll(recorder, 10));

            // The publication's thread stalls past the liveness timeout: the subscriber ends its image.
            await(() -> subscription.imageCount() == 0, WAIT, "the subscriber to take the publication for gone",
                () -> subscription.poll(recorder, 10));
            assertEquals(1, subscription.counters().livenessTimeouts.get());

            // Resumed, it offers at once: its first offers store into the ring no one reads now,
            // before its duty cycle finds the subscriber gone.
            final long resentBefore = publication.counters().framesResent.get();
            int acceptedBeforeNotConnected = 0;
            for (long sequence = 2; sequence <= 600; sequence++)
            {
                if (send(publication, sequence, subscription) == 1 && acceptedBeforeNotConnected == sequence - 2)
                {
                    acceptedBeforeNotConnected++;
                }
            }
            assertTrue(acceptedBeforeNotConnected > 0, "no offer went into the closed image's ring");
            await(() -> delivered.size() >= 600, WAIT, "every accepted message", () ->
            {
                subscription.poll(recorder, 10);
                publication.doWork();
            });
            assertEquals(LongStream.rangeClosed(1, 600).boxed().toList(), delivered);
            assertTrue(publication.counters().framesResent.get() - resentBefore >= acceptedBeforeNotConnected,
                "frames resent " + (publication.counters().framesResent.get() - resentBefore) + ", accepted into the " +
                "closed ring " + acceptedBeforeNotConnected);
        }
    }

    @Test
    void framesAClosedSubscriptionLeftUnreadAreReadByTheNextSubscriptionAtItsEndpoint()
    {
        final MessagingContext context = context(directory, settings -> settings.reconnectIntervalMs(20));
        final Subscription first = Subscription.open(context, channel("shm", 0), STREAM);
        final int port = first.endpoint().getPort();
        try (Publication publication = Publication.open(context, channel("shm", port), STREAM))
        {
            await(() -> publication.isConnected() && first.imageCount() == 1, WAIT, "connected", () ->
            {
                first.poll(recorder, 10);
                publication.doWork();
            });
            for (long sequence = 1; sequence <= 200; sequence++)
            {
                send(publication, sequence, first);
            }
            while (delivered.size() < 50)
            {
                first.poll(recorder, 1);
            }
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
    void framesAnEvictedImageLeftUnreadAreNotWrittenAgain()
    {
        final MessagingContext context = context(directory, settings -> settings.reconnectIntervalMs(20));
        try (Subscription subscription = Subscription.open(context, channel("shm", 0), STREAM);
             Publication publication = Publication.open(context,
                 channel("shm", subscription.endpoint().getPort()), STREAM))
        {
            await(() -> publication.isConnected() && subscription.imageCount() == 1, WAIT, "connected", () ->
            {
                subscription.poll(recorder, 10);
                publication.doWork();
            });
            for (long sequence = 1; sequence <= 100; sequence++)
            {
                send(publication, sequence, subscription);
            }
            while (delivered.size() < 10)
            {
                subscription.poll(recorder, 1);
            }
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
