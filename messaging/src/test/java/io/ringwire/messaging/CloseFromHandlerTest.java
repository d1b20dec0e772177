package io.ringwire.messaging;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fragment handler may close what it reads from: the subscription (a shutdown message), or its
 * own image (a peer it evicts). The poll on the stack stops after the frame handled and releases
 * the rings once the handler returned (on shm they are unmapped: a read after that would crash the
 * process), and the frames after it are not handed over. A handler may not poll the subscription
 * again: that is refused, and the poll goes on from the frame after.
 */
class CloseFromHandlerTest
{
    private static final int STREAM = 43;
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int MESSAGES = 8;

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aHandlerThatClosesTheSubscriptionEndsThePollAfterItsFrame(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                 STREAM))
        {
            connectAndFill(subscription, publication);
            final List<Long> seen = new ArrayList<>();
            final int handled = pollUntilFirst(subscription, (buffer, offset, length, header) ->
            {
                seen.add(buffer.getLong(offset));
                subscription.close();
            }, seen);
            assertEquals(List.of(0L), seen, "the frames after the closing one are not handed over");
            assertTrue(handled >= 1, "the frame handled counts: " + handled);
            assertEquals(0, subscription.poll((buffer, offset, length, header) -> seen.add(-1L), MESSAGES));
            assertEquals(List.of(0L), seen);
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aHandlerThatEvictsItsImageEndsItsReadAfterItsFrameAndTheSubscriptionGoesOn(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                 STREAM))
        {
            connectAndFill(subscription, publication);
            final List<Long> seen = new ArrayList<>();
            pollUntilFirst(subscription, (buffer, offset, length, header) ->
            {
                seen.add(buffer.getLong(offset));
                assertTrue(subscription.closeImage(header.sessionId()));
            }, seen);
            assertEquals(List.of(0L), seen, "the evicted image's later frames are not handed over");
            assertEquals(0, subscription.imageCount());
            assertEquals(1, subscription.counters().imagesEvicted.get());
            // The subscription goes on: the publication connects again under a new image.
            await(() -> subscription.imageCount() == 1, WAIT, "the publication connected again", () ->
            {
                subscription.poll((buffer, offset, length, header) -> { }, MESSAGES);
                publication.doWork();
            });
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aHandlerThatEvictsAnotherImageLeavesItUnreadInThatPollAndItsOwnReadGoesOn(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication first = Publication.open(context, channel(provider, subscription.endpoint().getPort()), STREAM);
             Publication second = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                 STREAM))
        {
            await(() -> first.isConnected() && second.isConnected() && subscription.imageCount() == 2, WAIT,
                "connected", () ->
                {
                    subscription.poll((buffer, offset, length, header) -> { }, 1);
                    first.doWork();
                    second.doWork();
                });
            final UnsafeBuffer message = new UnsafeBuffer(new byte[32]);
            for (long i = 0; i < MESSAGES; i++)
            {
                message.putLong(0, i);
                for (final Publication publication : List.of(first, second))
                {
                    await(() -> publication.offer(message, 0, message.capacity()) > 0, WAIT, "offered", () -> { });
                }
            }
            final int evicted = second.sessionId();
            // The first frame of the image kept evicts the other, whichever the poll reads first.
            final boolean[] evictedYet = { false };
            final List<Integer> after = new ArrayList<>();
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (after.size() < MESSAGES - 1 && System.nanoTime() < deadline)
            {
                subscription.poll((buffer, offset, length, header) ->
                {
                    if (evictedYet[0])
                    {
                        after.add(header.sessionId());
                    }
                    else if (header.sessionId() != evicted)
                    {
                        assertTrue(subscription.closeImage(evicted)); // the other image, from this one's handler
                        evictedYet[0] = true;
                    }
                }, 2 * MESSAGES);
            }
            assertTrue(evictedYet[0]);
            assertEquals(1, subscription.imageCount());
            assertEquals(1, subscription.counters().imagesEvicted.get());
            assertEquals(java.util.Collections.nCopies(MESSAGES - 1, first.sessionId()), after,
                "the kept image's other frames, and nothing of the evicted one after its eviction");
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aHandlerThatPollsTheSubscriptionAgainIsRefusedAndNoFrameIsHandedOverTwice(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                 STREAM))
        {
            connectAndFill(subscription, publication);
            final List<Long> seen = new ArrayList<>();
            final List<Long> nested = new ArrayList<>();
            final FragmentHandler polling = (buffer, offset, length, header) ->
            {
                seen.add(buffer.getLong(offset));
                subscription.poll((b, o, l, h) -> nested.add(b.getLong(o)), MESSAGES);
            };
            final IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> pollUntilFirst(subscription, polling, seen));
            assertTrue(refused.getMessage().contains("inside this subscription's own poll"), refused.getMessage());
            assertEquals(List.of(0L), seen);
            assertEquals(List.of(), nested, "the inner poll read nothing");
            // The frame whose handler threw counts as delivered: the next polls go on after it.
            await(() -> seen.size() == MESSAGES, WAIT, "the other messages", () ->
                subscription.poll((buffer, offset, length, header) -> seen.add(buffer.getLong(offset)), MESSAGES));
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L), seen, "each message once, in order");
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void anAvailableImageHandlerThatEvictsTheNewImageLeavesNothingOfItRunning(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                 STREAM))
        {
            // An application that refuses every publication as it becomes available: its image's memory
            // is released in the handler, and nothing of it may be read after.
            final int[] evicted = { 0 };
            subscription.availableImageHandler(sessionId ->
            {
                if (subscription.closeImage(sessionId))
                {
                    evicted[0]++;
                }
            });
            final UnsafeBuffer message = new UnsafeBuffer(new byte[32]);
            final List<Long> seen = new ArrayList<>();
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (evicted[0] < 3 && System.nanoTime() < deadline)
            {
                subscription.poll((buffer, offset, length, header) -> seen.add(buffer.getLong(offset)), MESSAGES);
                publication.doWork();
                publication.offer(message, 0, message.capacity());
            }
            assertEquals(3, evicted[0], "each connection of the publication evicted as it came");
            assertEquals(List.of(), seen, "no frame of an evicted image is handed over");
            assertEquals(0, subscription.imageCount());
        }
    }

    private static void connectAndFill(final Subscription subscription, final Publication publication)
    {
        await(() -> publication.isConnected() && subscription.imageCount() == 1, WAIT, "connected", () ->
        {
            subscription.poll((buffer, offset, length, header) -> { }, 1);
            publication.doWork();
        });
        final UnsafeBuffer message = new UnsafeBuffer(new byte[32]);
        for (long i = 0; i < MESSAGES; i++)
        {
            message.putLong(0, i);
            final long value = i;
            await(() -> publication.offer(message, 0, message.capacity()) > 0, WAIT, "message " + value + " offered",
                publication::doWork);
        }
    }

    /** Polls, with nothing handed over before, until the handler has seen a frame. */
    private static int pollUntilFirst(final Subscription subscription, final FragmentHandler handler, final List<Long> seen)
    {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        int handled = 0;
        while (seen.isEmpty() && System.nanoTime() < deadline)
        {
            handled = subscription.poll(handler, MESSAGES);
        }
        return handled;
    }
}
