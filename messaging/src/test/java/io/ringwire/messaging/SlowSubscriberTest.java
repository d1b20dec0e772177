package io.ringwire.messaging;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fan-out publication and a subscriber that stays alive (its housekeeping runs, its credit and
 * liveness go out) but stops reading, on every provider: with the channel's {@code slow-timeout}
 * that subscriber is disconnected as a slow consumer and counted, and the other subscriber goes on
 * receiving, and each cut in a row waits longer before the reconnection; without it the
 * publication waits for the stalled one, as it always has.
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
        try (FanOut fanOut = FanOut.open(context(directory), provider, "|slow-timeout=200"))
        {
            final Subscription reader = fanOut.reader;
            final Subscription stalled = fanOut.stalled;
            final Publication publication = fanOut.publication;
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
    void aSubscriberWritingAConsumedPositionFarBehindIsCutAsSlowAndTheOtherReceivesOn(final String provider)
    {
        try (FanOut fanOut = FanOut.open(context(directory), provider, "|slow-timeout=200"))
        {
            final Subscription reader = fanOut.reader;
            final Subscription lying = fanOut.stalled;
            final Publication publication = fanOut.publication;
            final long[] received = { 0 };
            final FragmentHandler count = (buffer, offset, length, header) -> received[0]++;
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
            final org.agrona.concurrent.AtomicBuffer credit = publication.destinations()[1].creditBuffer();
            final long wanted = 20L * RING / MESSAGE;
            final long[] written = { Long.MIN_VALUE };
            await(() -> received[0] >= wanted && publication.counters().slowSubscribers.get() >= 1,
                WAIT, "the reader to receive " + wanted + " messages past the lying subscriber", () ->
                {
                    // What a subscriber can write into its credit: a position whose distance from the
                    // publication's overflows, moving on by a ring each time, as a reader at pace would
                    // (it never reads, so its own credit never writes over this).
                    credit.putLongRelease(io.ringwire.messaging.protocol.CreditLayout.CONSUMED_POSITION_OFFSET,
                        written[0]);
                    written[0] += RING;
                    publication.offer(message, 0, MESSAGE);
                    publication.doWork();
                    reader.poll(count, 16);
                    lying.doWork(); // alive, never reading
                });
            assertEquals(0, publication.counters().livenessTimeouts.get(), "the lying subscriber was alive");
        }
    }

    /**
     * On shm: the wait is the publication's, the same for every provider, but over the RDMA
     * providers a cut subscriber is let in again only once its old image has drained, which one
     * that does not read never does.
     */
    @Test
    void aSubscriberCutAsSlowAgainAndAgainWaitsLongerBeforeEachReconnection()
    {
        final String provider = "shm";
        final MessagingContext context = PubSubTestSupport.context(directory,
            settings -> settings.reconnectIntervalMs(500));
        final long intervalNs = context.reconnectIntervalNs();
        try (FanOut fanOut = FanOut.open(context, provider, "|slow-timeout=200"))
        {
            final Subscription reader = fanOut.reader;
            final Subscription stalled = fanOut.stalled;
            final Publication publication = fanOut.publication;
            final FragmentHandler ignore = (buffer, offset, length, header) -> { };
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
            final long[] cutNs = new long[3];
            final int[] cuts = { 0 };
            await(() -> cuts[0] == cutNs.length, WAIT, "three slow-consumer cuts", () ->
            {
                publication.offer(message, 0, MESSAGE);
                publication.doWork();
                reader.poll(ignore, 16);
                stalled.doWork(); // alive, never reading, back each time it is let in
                while (cuts[0] < cutNs.length && cuts[0] < publication.counters().slowSubscribers.get())
                {
                    cutNs[cuts[0]++] = System.nanoTime();
                }
            });
            // Between two cuts: at least the wait before the reconnection (then the slow timeout held
            // back again, which is the margin for when each cut was seen here).
            assertTrue(cutNs[1] - cutNs[0] >= 2 * intervalNs, "after the first cut, twice the interval: " +
                (cutNs[1] - cutNs[0]) / 1_000_000 + " ms");
            assertTrue(cutNs[2] - cutNs[1] >= 4 * intervalNs, "after the second, four times: " +
                (cutNs[2] - cutNs[1]) / 1_000_000 + " ms");
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void withoutASlowTimeoutThePublicationWaitsForTheSubscriberThatStoppedReading(final String provider)
    {
        try (FanOut fanOut = FanOut.open(context(directory), provider, ""))
        {
            final Subscription reader = fanOut.reader;
            final Subscription stalled = fanOut.stalled;
            final Publication publication = fanOut.publication;
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

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void theSubscriberKeepingUpKeepsItsImagePastTheLivenessTimeoutWhileTheStalledOneHoldsEveryFrameBack(
        final String provider)
    {
        assertTheReaderKeepsItsImage(context(directory), provider);
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void keepalivesEveryTwoMillisecondsTakeReceivesThatAreReplacedAndCredited(final String provider)
    {
        // 1,500 keepalives in the three seconds: several times the receives a connection starts with.
        assertTheReaderKeepsItsImage(context(directory, settings -> settings.heartbeatIntervalMs(2)), provider);
    }

    private void assertTheReaderKeepsItsImage(final MessagingContext context, final String provider)
    {
        try (FanOut fanOut = FanOut.open(context, provider, ""))
        {
            final Subscription reader = fanOut.reader;
            final Subscription stalled = fanOut.stalled;
            final Publication publication = fanOut.publication;
            final FragmentHandler count = (buffer, offset, length, header) -> { };
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
            // Three liveness timeouts (1 s each here) with the stalled ring full: the reader has read
            // everything and hears no frame, only keepalives.
            final long untilNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() - untilNs < 0)
            {
                publication.offer(message, 0, MESSAGE);
                publication.doWork();
                reader.poll(count, 16);
                stalled.doWork();
            }
            assertEquals(0, reader.counters().livenessTimeouts.get(), "the reader's image never timed out");
            assertEquals(1, reader.imageCount());
            assertEquals(0, publication.counters().disconnects.get());
            assertEquals(2, publication.counters().connects.get(), "no subscriber connected again");
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void theOwnerCutsTheSubscriberHoldingThePublicationBackWithoutABreakAndSparesTheOneKeepingUp(final String provider)
    {
        try (FanOut fanOut = FanOut.open(context(directory), provider, ""))
        {
            final Subscription reader = fanOut.reader;
            final Subscription stalled = fanOut.stalled;
            final Publication publication = fanOut.publication;
            final long[] received = { 0 };
            final FragmentHandler count = (buffer, offset, length, header) -> received[0]++;
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
            assertEquals(0, publication.disconnectSlowestSubscriber(), "no one holds it back yet");
            // No slow-timeout: the stalled subscriber holds the publication back until its owner acts.
            await(() -> publication.offer(message, 0, MESSAGE) == Publication.BACK_PRESSURED, WAIT,
                "the stalled subscriber's ring full", () ->
                {
                    publication.doWork();
                    reader.poll(count, 16);
                    stalled.doWork();
                });
            // Once the duty cycle has seen it hold the publication back at every look for a while, the
            // owner may cut it; the reader, keeping up, never qualifies.
            await(() -> publication.disconnectSlowestSubscriber() == 1, WAIT, "the stalled one cut", () ->
            {
                publication.doWork();
                reader.poll(count, 16);
                stalled.doWork();
            });
            assertEquals(1, publication.slowSubscribers());
            assertEquals(1, publication.counters().disconnects.get(), "the reader stayed connected");
            final long before = received[0];
            final long wanted = before + 4L * RING / MESSAGE;
            // The cut one may rejoin meanwhile (after its backoff, once its old image is gone): it reads
            // then, so that it holds nothing back again.
            await(() -> received[0] >= wanted, WAIT, "the reader to receive four rings more", () ->
            {
                publication.offer(message, 0, MESSAGE);
                reader.poll(count, 16);
                stalled.poll((buffer, offset, length, header) -> { }, 16);
            });
            assertEquals(1, publication.counters().disconnects.get(), "the reader never cut");
            assertEquals(0, publication.disconnectSlowestSubscriber(), "no one holds it back");
            // The cut one rejoins, at the stream's position, after its backed-off reconnection.
            await(() -> publication.counters().connects.get() == 3, WAIT, "the cut subscriber to rejoin", () ->
            {
                publication.doWork();
                reader.poll(count, 16);
                stalled.poll(count, 16);
            });
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void whenEverySubscriberHoldsThePublicationBackNoneStandsOutUnlessItsOwnerCanWaitForNone(final String provider)
        throws InterruptedException
    {
        try (FanOut fanOut = FanOut.open(context(directory), provider, ""))
        {
            final Publication publication = fanOut.publication;
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
            final Runnable duty = () ->
            {
                publication.doWork();
                fanOut.reader.doWork();
                fanOut.stalled.doWork();
            };
            // Neither reads: both rings fill, and both hold the publication back at every look.
            await(() -> publication.offer(message, 0, MESSAGE) == Publication.BACK_PRESSURED, WAIT,
                "both subscribers' rings full", duty);
            final long heldSinceNs = System.nanoTime();
            while (System.nanoTime() - heldSinceNs < 4 * PublicationDestinations.MIN_BLOCKING_NS)
            {
                duty.run();
                Thread.sleep(1);
            }
            assertEquals(0, publication.disconnectSlowestSubscriber(), "none stands out while both hold it back");
            assertEquals(0, publication.slowSubscribers());

            // An owner that can wait for none cuts them one at a time.
            await(() -> publication.disconnectSlowestSubscriber(true) == 1, WAIT, "one cut", duty);
            assertEquals(1, publication.slowSubscribers());
            assertEquals(1, publication.counters().disconnects.get(), "one at a time");
            await(() -> publication.disconnectSlowestSubscriber(true) == 1, WAIT, "the other cut too", duty);
            assertEquals(2, publication.slowSubscribers());
            assertEquals(2, publication.counters().disconnects.get());
        }
    }

    @Test
    void theWaitAfterASlowConsumerCutDoublesWithEachCutInARowUpToItsCap()
    {
        final long interval = TimeUnit.MILLISECONDS.toNanos(200);
        assertEquals(2 * interval, PublicationDestinations.slowCutBackoffNs(interval, 1));
        assertEquals(4 * interval, PublicationDestinations.slowCutBackoffNs(interval, 2));
        assertEquals(PublicationDestinations.MAX_SLOW_BACKOFF_NS, PublicationDestinations.slowCutBackoffNs(interval, 16));
        assertEquals(PublicationDestinations.MAX_SLOW_BACKOFF_NS, PublicationDestinations.slowCutBackoffNs(interval, 40));
        final long longInterval = TimeUnit.SECONDS.toNanos(40);
        assertEquals(longInterval, PublicationDestinations.slowCutBackoffNs(longInterval, 3),
            "never shorter than the interval itself");
    }

    /**
     * Two subscriptions and a publication fanned out to both, each with a ring of {@link #RING}, the
     * publication joined to both.
     */
    private static final class FanOut implements AutoCloseable
    {
        final Subscription reader;
        final Subscription stalled;
        final Publication publication;

        private FanOut(final Subscription reader, final Subscription stalled, final Publication publication)
        {
            this.reader = reader;
            this.stalled = stalled;
            this.publication = publication;
        }

        /**
         * Opens the three and waits until the publication has joined both subscribers. A subscriber
         * sees its image once the handshake reaches it, before the publication adopts that
         * connection; a publication connected to the reader alone would write past the stalled
         * one's ring unchecked, and the stalled one would join later at the stream's position.
         *
         * @param publicationParams added to the publication's channel: {@code "|slow-timeout=200"}, say.
         */
        static FanOut open(final MessagingContext context, final String provider, final String publicationParams)
        {
            final String subscriptionChannel = channel(provider, 0) + "|ring=" + RING;
            final Subscription reader = Subscription.open(context, subscriptionChannel, STREAM);
            Subscription stalled = null;
            Publication publication = null;
            try
            {
                stalled = Subscription.open(context, subscriptionChannel, STREAM);
                publication = Publication.open(context, channel(provider, reader.endpoint().getPort()) + ",127.0.0.1:" +
                    stalled.endpoint().getPort() + "|ring=" + RING + publicationParams, STREAM);
                final FanOut fanOut = new FanOut(reader, stalled, publication);
                await(() -> fanOut.publication.counters().connects.get() == 2 && reader.imageCount() == 1 &&
                    fanOut.stalled.imageCount() == 1, WAIT, "both subscribers to connect", () ->
                    {
                        fanOut.publication.doWork();
                        reader.poll((buffer, offset, length, header) -> { }, 16);
                        fanOut.stalled.poll((buffer, offset, length, header) -> { }, 16);
                    });
                return fanOut;
            }
            catch (final RuntimeException | Error ex)
            {
                closeAll(publication, stalled, reader);
                throw ex;
            }
        }

        @Override
        public void close()
        {
            closeAll(publication, stalled, reader);
        }

        private static void closeAll(final AutoCloseable... resources)
        {
            for (final AutoCloseable resource : resources)
            {
                if (null != resource)
                {
                    try
                    {
                        resource.close();
                    }
                    catch (final Exception ex)
                    {
                        throw new IllegalStateException(ex);
                    }
                }
            }
        }
    }
}
