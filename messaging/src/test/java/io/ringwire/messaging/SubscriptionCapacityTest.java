package io.ringwire.messaging;

import io.ringwire.messaging.status.RingWireStat;
import io.ringwire.rdma.Device;
import io.ringwire.rdma.RdmaProviders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A subscription shares one completion queue among its publications' queue pairs, so it takes only
 * as many as that queue can hold the completions of (a queue pair in error flushes all it has
 * posted): the context's limit, lowered to what the device's deepest queue holds (Soft-RoCE's
 * max_cqe is 32767, below a fixed 64 Ki queue, so without the lowering no ibverbs subscription
 * opens on rxe).
 */
class SubscriptionCapacityTest
{
    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aPublicationPastTheLimitIsRefusedAndCountedUntilAnotherLeaves(final String provider)
    {
        // Liveness as the system tests have it: the VM lab's emulated CPU is slow to set up the first
        // queue pairs (the connection manager's timeout follows the liveness timeout).
        final MessagingContext context = context(directory,
            settings -> settings.maxPublicationsPerSubscription(2).livenessTimeoutMs(5000));
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), 5))
        {
            assertEquals(2, subscription.maxPublications());
            final String endpoint = channel(provider, subscription.endpoint().getPort());
            final Runnable poll = () -> subscription.poll((buffer, offset, length, header) -> { }, 10);
            try (Publication a = Publication.open(context, endpoint, 5);
                 Publication b = Publication.open(context, endpoint, 5);
                 Publication c = Publication.open(context, endpoint, 5))
            {
                final Publication[] publications = { a, b, c };
                final Runnable duty = () ->
                {
                    poll.run();
                    for (final Publication publication : publications)
                    {
                        if (null != publication)
                        {
                            publication.doWork();
                        }
                    }
                };
                // Which two get in depends on who is first; the third is refused and keeps retrying.
                await(() -> connected(publications) == 2, Duration.ofSeconds(30), "two publications connected", duty);
                await(() -> refused(context, provider) >= 1, Duration.ofSeconds(30), "a refusal counted", duty);
                // Never a third in: a queue pair the lab's emulated NIC fails (its retries run out)
                // may drop one of the two meanwhile, which then reconnects; the limit is what holds.
                final long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
                while (System.nanoTime() < until)
                {
                    duty.run();
                    assertTrue(connected(publications) <= 2, () -> "at most two connected: " +
                        state(publications, subscription, context));
                    assertTrue(subscription.imageCount() <= 2, () -> state(publications, subscription, context));
                }
                await(() -> connected(publications) == 2 && subscription.imageCount() == 2, Duration.ofSeconds(30),
                    "two publications connected, the third refused", duty);

                Publication waiting = null;
                int leaving = -1;
                for (int i = 0; i < publications.length; i++)
                {
                    if (!publications[i].isConnected())
                    {
                        waiting = publications[i];
                    }
                    else if (leaving < 0)
                    {
                        leaving = i;
                    }
                }
                publications[leaving].close();
                publications[leaving] = null;
                final Publication refusedOne = waiting;
                await(refusedOne::isConnected, Duration.ofSeconds(30), "the refused one taking the place left", duty);
                assertEquals(2, connected(publications));
            }
        }
    }

    private static String state(final Publication[] publications, final Subscription subscription,
        final MessagingContext context)
    {
        final StringBuilder state = new StringBuilder();
        for (final Publication publication : publications)
        {
            state.append(null == publication ? "closed" : "connected=" + publication.isConnected() + " session=" +
                publication.sessionId()).append("; ");
        }
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try
        {
            RingWireStat.print(context.countersDirectory(), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        }
        catch (final java.io.IOException ex)
        {
            bytes.writeBytes(ex.toString().getBytes(StandardCharsets.UTF_8));
        }
        return state + "images " + subscription.imageCount() + "\n" + bytes.toString(StandardCharsets.UTF_8);
    }

    private static int connected(final Publication[] publications)
    {
        int connected = 0;
        for (final Publication publication : publications)
        {
            connected += null != publication && publication.isConnected() ? 1 : 0;
        }
        return connected;
    }

    @Test
    void theLimitIsValidatedAndTheDefaultFitsEveryProvidersQueue()
    {
        assertThrows(IllegalArgumentException.class,
            () -> context(directory, settings -> settings.maxPublicationsPerSubscription(0)));
        final IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
            () -> context(directory, settings -> settings.maxPublicationsPerSubscription(4097)));
        assertTrue(tooMany.getMessage().contains(MessagingContext.MAX_PUBLICATIONS_PROP + "='4097' is out of range"),
            tooMany.getMessage());
        assertEquals(32, context(directory).maxPublicationsPerSubscription());
        for (final String provider : TestProviders.names())
        {
            try (Subscription subscription = Subscription.open(context(directory), channel(provider, 0), 1);
                 Device device = RdmaProviders.open(context(directory).newRdmaConfig(provider, "127.0.0.1:0")))
            {
                assertEquals(Math.min(32, device.maxCompletionQueueDepth() / 1280), subscription.maxPublications(),
                    provider + ": max completion queue depth " + device.maxCompletionQueueDepth());
            }
        }
    }

    private static long refused(final MessagingContext context, final String provider)
    {
        try
        {
            return refusedCount(context, provider);
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private static long refusedCount(final MessagingContext context, final String provider) throws java.io.IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RingWireStat.print(context.countersDirectory(), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final Matcher matcher = Pattern.compile("\\s+\\d+\\s+([\\d,]+)\\s+sub stream=5 " + provider +
            " 127\\.0\\.0\\.1:0: publications refused").matcher(bytes.toString(StandardCharsets.UTF_8));
        return matcher.find() ? Long.parseLong(matcher.group(1).replace(",", "")) : 0;
    }
}
