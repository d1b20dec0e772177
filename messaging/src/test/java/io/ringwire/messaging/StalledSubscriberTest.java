package io.ringwire.messaging;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static io.ringwire.messaging.PubSubTestSupport.devices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A subscriber whose thread stalls past its liveness timeout while its publication goes on
 * offering, and whose loop, woken, runs its duty cycle before it polls: an image is closed for
 * silence only at the second look in a row that finds it silent, so none is closed for a silence
 * that was the subscriber's own, and every message an offer accepted meanwhile is read, once and in
 * order; a publication that is silent is still found so, however seldom the loop looks.
 */
class StalledSubscriberTest
{
    private static final int STREAM = 31;
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long LIVENESS_MS = 300;

    @TempDir
    Path directory;

    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final List<Long> delivered = new ArrayList<>();
    private final FragmentHandler recorder = (buffer, offset, length, header) -> delivered.add(buffer.getLong(offset));

    /**
     * The publication's liveness timeout is longer than the stall: it keeps the connection, and
     * every provider delivers what it wrote meanwhile.
     */
    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void everyMessageAcceptedWhileTheSubscriberStalledIsReadWhenItsLoopRunsItsDutyBeforeItsPoll(final String provider)
    {
        // The transport's peer timeout is far past the stall too: the connection stays up.
        final MessagingContext subscriberContext = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(LIVENESS_MS).reconnectIntervalMs(20).rdmaSettings(devices(directory, 60_000)));
        final MessagingContext publisherContext = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(60_000).reconnectIntervalMs(20).rdmaSettings(devices(directory, 60_000)));
        stallAndRead(provider, subscriberContext, publisherContext);
    }

    /**
     * Both sides hold the same liveness timeout: the publication takes the stalled subscriber for
     * gone and connects again. A memory log's frames are in the subscriber's ring, and an offer that
     * took one is kept: each is read once, before the next connection's.
     */
    @ParameterizedTest
    @ValueSource(strings = "shm")
    void aMemoryLogsSubscriberTakenForGoneWhileStalledReadsEveryAcceptedMessageOnce(final String provider)
    {
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(LIVENESS_MS).reconnectIntervalMs(20));
        assertTrue(stallAndRead(provider, context, context) >= 1, "the publication took the subscriber for gone");
    }

    /**
     * A subscriber whose loop runs its duty cycle less often than a heartbeat (but well within the
     * liveness timeout) still closes the image of a publication that went silent (its duty cycle no
     * longer runs): such gaps are not time away.
     */
    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aSubscriberWhoseLoopIsSlowerThanAHeartbeatStillClosesTheImageOfASilentPublication(final String provider)
    {
        // A transport peer timeout far off: the image must close for its silence, not because the
        // silent side stopped acknowledging the subscriber's credit writes.
        final MessagingContext context = context(directory, settings -> settings.heartbeatIntervalMs(20)
            .livenessTimeoutMs(LIVENESS_MS).reconnectIntervalMs(20).rdmaSettings(devices(directory, 60_000)));
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()), STREAM))
        {
            awaitConnected(subscription, publication);
            // The publication's duty cycle stops (no heartbeat goes out); the subscriber's loop runs
            // every 60 ms, three heartbeat intervals.
            await(() -> subscription.imageCount() == 0, WAIT, "the silent publication's image to close", () ->
            {
                subscription.poll(recorder, 10);
                subscription.doWork();
                sleepMs(60);
            });
            assertEquals(1, subscription.counters().livenessTimeouts.get());
        }
    }

    /** @return the publication's liveness timeouts: the times it took the subscriber for gone. */
    private long stallAndRead(final String provider, final MessagingContext subscriberContext,
        final MessagingContext publisherContext)
    {
        try (Subscription subscription = Subscription.open(subscriberContext, channel(provider, 0), STREAM);
             Publication publication = Publication.open(publisherContext,
                 channel(provider, subscription.endpoint().getPort()), STREAM))
        {
            awaitConnected(subscription, publication);
            final List<Long> accepted = new ArrayList<>();
            long sequence = 1;
            while (publication.offer(message(sequence), 0, Long.BYTES) <= 0)
            {
                publication.doWork();
                subscription.poll(recorder, 10);
            }
            accepted.add(sequence++);
            await(() -> delivered.size() == 1, WAIT, "the first message", () ->
            {
                subscription.poll(recorder, 10);
                publication.doWork();
            });
            // The subscriber's last acts before it stalls: a duty cycle, then a poll (the duty after
            // the stall finds it polled since the last).
            sleepMs(10);
            subscription.doWork();
            subscription.poll(recorder, 10);

            // The subscriber's thread does nothing for three of its liveness timeouts; the
            // publication offers on (and, where its timeout is as short, takes the subscriber for gone).
            final long stallUntil = System.nanoTime() + Duration.ofMillis(3 * LIVENESS_MS).toNanos();
            while (System.nanoTime() < stallUntil)
            {
                if (accepted.size() < 50 && publication.offer(message(sequence), 0, Long.BYTES) > 0)
                {
                    accepted.add(sequence++);
                }
                publication.doWork();
                Thread.onSpinWait();
            }
            assertTrue(accepted.size() > 1, "offers were accepted while the subscriber stalled");

            subscription.doWork(); // woken, its loop runs its duty cycle first
            final long readUntil = System.nanoTime() + Duration.ofMillis(LIVENESS_MS).toNanos();
            while (System.nanoTime() < readUntil || delivered.size() < accepted.size() &&
                System.nanoTime() - readUntil < WAIT.toNanos())
            {
                subscription.poll(recorder, 10);
                subscription.doWork();
                publication.doWork();
            }
            assertEquals(accepted, delivered, "every accepted message, once, in order");
            return publication.counters().livenessTimeouts.get();
        }
    }

    private void awaitConnected(final Subscription subscription, final Publication publication)
    {
        await(() -> publication.isConnected() && subscription.imageCount() == 1, WAIT, "connected", () ->
        {
            subscription.poll(recorder, 10);
            publication.doWork();
        });
    }

    private static void sleepMs(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    private UnsafeBuffer message(final long sequence)
    {
        message.putLong(0, sequence);
        return message;
    }
}
