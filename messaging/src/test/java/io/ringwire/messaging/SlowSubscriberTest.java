package io.ringwire.messaging;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fan-out publication and a subscriber that stays alive (its housekeeping runs, its credit and
 * liveness go out) but stops reading, on every provider: with the channel's {@code slow-timeout}
 * that subscriber is disconnected as a slow consumer and counted, and the other subscriber goes on
 * receiving; without it the publication waits for the stalled one, as it always has.
 */
class SlowSubscriberTest
{
    private static final int STREAM = 12;
    private static final int RING = 16384;
    private static final int MESSAGE = 64;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aSubscriberThatStopsReadingIsCutOffAfterTheSlowTimeoutAndTheOtherReceivesOn(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription reader = Subscription.open(context, channel(provider, 0) + "|ring=" + RING, STREAM);
             Subscription stalled = Subscription.open(context, channel(provider, 0) + "|ring=" + RING, STREAM);
             Publication publication = Publication.open(context, fanOut(provider, reader, stalled) + "|ring=" + RING +
                 "|slow-timeout=200", STREAM))
        {
            connect(reader, stalled, publication);
            final long[] received = { 0 };
            final FragmentHandler count = (buffer, offset, length, header) -> received[0]++;
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
            // Twenty rings' worth: far more than the stalled subscriber's ring holds, so the reader
            // gets it only once the stalled one no longer holds the publication back.
            final long wanted = 20L * RING / MESSAGE;
            await(() -> received[0] >= wanted && publication.counters().slowSubscribers.get() >= 1,
                WAIT, "the reader to receive " + wanted + " messages past the stalled subscriber", () ->
                {
                    publication.offer(message, 0, MESSAGE);
                    publication.doWork();
                    reader.poll(count, 16);
                    stalled.doWork(); // alive, never reading
                });
            assertTrue(publication.counters().disconnects.get() >= 1);
            assertEquals(0, publication.counters().livenessTimeouts.get(), "the stalled subscriber was alive");
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void withoutASlowTimeoutThePublicationWaitsForTheSubscriberThatStoppedReading(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription reader = Subscription.open(context, channel(provider, 0) + "|ring=" + RING, STREAM);
             Subscription stalled = Subscription.open(context, channel(provider, 0) + "|ring=" + RING, STREAM);
             Publication publication = Publication.open(context, fanOut(provider, reader, stalled) + "|ring=" + RING,
                 STREAM))
        {
            connect(reader, stalled, publication);
            final long[] received = { 0 };
            final FragmentHandler count = (buffer, offset, length, header) -> received[0]++;
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
            final long[] backPressuredSinceNs = { 0 };
            // Back-pressured for a whole second (five times the other test's timeout) with the
            // stalled subscriber alive: the publication is still waiting for it.
            await(() -> backPressuredSinceNs[0] != 0 && System.nanoTime() - backPressuredSinceNs[0] > 1_000_000_000L,
                WAIT, "a second of back pressure", () ->
                {
                    final long result = publication.offer(message, 0, MESSAGE);
                    if (result > 0)
                    {
                        backPressuredSinceNs[0] = 0;
                    }
                    else if (result == Publication.BACK_PRESSURED && backPressuredSinceNs[0] == 0)
                    {
                        backPressuredSinceNs[0] = System.nanoTime();
                    }
                    publication.doWork();
                    reader.poll(count, 16);
                    stalled.doWork();
                });
            assertEquals(0, publication.counters().slowSubscribers.get());
            assertEquals(0, publication.counters().disconnects.get());
            assertTrue(received[0] <= 2L * RING / MESSAGE, "the reader got no more than the stalled ring let through: " +
                received[0]);
        }
    }

    private static String fanOut(final String provider, final Subscription first, final Subscription second)
    {
        return channel(provider, first.endpoint().getPort()) + ",127.0.0.1:" + second.endpoint().getPort();
    }

    /**
     * Waits until the publication has joined both subscribers. A subscriber sees its image once the
     * handshake reaches it, before the publication adopts that connection; a publication connected
     * to the reader alone would write past the stalled one's ring unchecked, and the stalled one
     * would join later at the stream's position.
     */
    private static void connect(final Subscription reader, final Subscription stalled, final Publication publication)
    {
        await(() -> publication.counters().connects.get() == 2 && reader.imageCount() == 1 &&
            stalled.imageCount() == 1, WAIT,
            "both subscribers to connect", () ->
            {
                publication.doWork();
                reader.poll((buffer, offset, length, header) -> { }, 16);
                stalled.poll((buffer, offset, length, header) -> { }, 16);
            });
    }
}
