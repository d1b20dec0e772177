package io.ringwire.messaging;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static io.ringwire.messaging.PubSubTestSupport.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two sides that each publish to the other (ping-pong, request and response), each side's
 * publication and subscription owned by one thread. A subscription answers a publication's
 * connection request only from its own poll: a thread waiting in {@link Publication#awaitConnected}
 * does not poll its subscription, so when both sides wait there, each waits for a subscription
 * only the other would poll, and both requests time out. Driving both, poll and doWork, connects
 * both ways.
 */
class BothWaysConnectionTest
{
    private static final FragmentHandler IGNORE = (buffer, offset, length, header) -> { };
    private static final int ROUND_TRIPS = 1_000;

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aSubscriptionAnswersNoConnectionRequestWhileItsThreadWaitsInAwaitConnected(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), 7);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()), 7))
        {
            assertFalse(publication.awaitConnected(Duration.ofMillis(300)),
                "connected although nothing polled the subscription");
            assertEquals(0, subscription.imageCount());

            await(() -> publication.isConnected() && subscription.imageCount() == 1, Duration.ofSeconds(10),
                "the connection once the subscription is polled too", () ->
                {
                    subscription.poll(IGNORE, 10);
                    publication.doWork();
                });
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void twoThreadsEachOwningAPublicationAndASubscriptionConnectBothWaysWhenEachDrivesBoth(final String provider)
        throws InterruptedException
    {
        // Timeouts a loaded machine's pause of one side's thread cannot reach: the test is about
        // connecting both ways, not liveness.
        final MessagingContext context = context(directory, settings -> settings.livenessTimeoutMs(5_000)
            .rdmaSettings(devices(directory, 5_000)));
        final AtomicIntegerArray ports = new AtomicIntegerArray(2);
        final AtomicReferenceArray<String> failures = new AtomicReferenceArray<>(2);
        final int[] echoed = new int[2];
        final Thread[] threads = new Thread[2];
        for (int side = 0; side < 2; side++)
        {
            final int self = side;
            threads[side] = new Thread(() ->
            {
                try
                {
                    echoed[self] = pingPong(context, provider, self, ports);
                }
                catch (final RuntimeException | AssertionError ex)
                {
                    failures.set(self, ex.toString());
                }
            }, "side-" + side);
            threads[side].start();
        }
        for (final Thread thread : threads)
        {
            thread.join(TimeUnit.SECONDS.toMillis(50));
        }

        assertNull(failures.get(0), "side 0 (side 1: " + failures.get(1) + ")");
        assertNull(failures.get(1), "side 1");
        assertEquals(ROUND_TRIPS, echoed[0], "side 0 received every echo");
        assertEquals(ROUND_TRIPS, echoed[1], "side 1 received every ping");
    }

    /**
     * One side: subscribes, publishes to the other side's subscription, drives both until connected
     * both ways, then side 0 pings and side 1 echoes.
     *
     * @return messages received.
     */
    private static int pingPong(final MessagingContext context, final String provider, final int self,
        final AtomicIntegerArray ports)
    {
        final int other = 1 - self;
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), 7))
        {
            ports.set(self, subscription.endpoint().getPort());
            await(() -> ports.get(other) != 0, Duration.ofSeconds(10), "the other side's port", Thread::onSpinWait);
            final int[] received = { 0 };
            final FragmentHandler counter = (buffer, offset, length, header) ->
            {
                assertEquals(received[0], buffer.getInt(offset), "message in order");
                received[0]++;
            };
            try (Publication publication = Publication.open(context, channel(provider, ports.get(other)), 7))
            {
                // The other side may be connected first and send at once: poll with the real handler.
                await(() -> publication.isConnected() && subscription.imageCount() == 1, Duration.ofSeconds(10),
                    "side " + self + " connected both ways", () ->
                    {
                        subscription.poll(counter, 10);
                        publication.doWork();
                    });
                final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
                for (int i = 0; i < ROUND_TRIPS; i++)
                {
                    if (self == 0)
                    {
                        offer(publication, message, i);
                    }
                    final int expected = i + 1;
                    await(() -> received[0] >= expected, Duration.ofSeconds(10), "message " + i + " at side " + self,
                        () ->
                        {
                            subscription.poll(counter, 10);
                            publication.doWork();
                        });
                    if (self == 1)
                    {
                        offer(publication, message, i);
                    }
                }
                // Let the other side read the last message before this side's publication goes away.
                final long lingerUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
                while (System.nanoTime() - lingerUntil < 0)
                {
                    subscription.poll(IGNORE, 10);
                    publication.doWork();
                }
                return received[0];
            }
        }
    }

    private static void offer(final Publication publication, final UnsafeBuffer message, final int sequence)
    {
        message.putInt(0, sequence);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long result;
        while ((result = publication.offer(message, 0, 32)) < 0)
        {
            assertTrue(result == Publication.BACK_PRESSURED || result == Publication.ADMIN_ACTION,
                "offer returned " + result);
            assertTrue(System.nanoTime() < deadline, "offer of message " + sequence + " back-pressured for 10 s");
        }
    }
}
