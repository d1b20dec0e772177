package io.ringwire.messaging;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The two ends count the same messages: empty ones, offered or claimed, and fragmented ones once,
 * but not their other fragments, PAD frames or heartbeats.
 */
class MessageCountsTest
{
    private static final int STREAM = 44;
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void thePublicationCountsEveryMessageItsSubscriberCountsEmptyOnesIncluded(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0), STREAM);
             Publication publication = Publication.open(context, channel(provider, subscription.endpoint().getPort()),
                 STREAM))
        {
            await(() -> publication.isConnected() && subscription.imageCount() == 1, WAIT, "connected", () ->
            {
                subscription.poll((buffer, offset, length, header) -> { }, 10);
                publication.doWork();
            });
            final UnsafeBuffer message = new UnsafeBuffer(new byte[publication.maxPayloadLength() * 2 + 10]);
            final BufferClaim claim = new BufferClaim();
            final int[] delivered = { 0 };
            final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) -> delivered[0]++);
            await(() -> publication.offer(message, 0, 0) > 0, WAIT, "an empty offer", publication::doWork);
            await(() -> publication.tryClaim(0, claim) > 0, WAIT, "an empty claim", publication::doWork);
            claim.commit();
            await(() -> publication.offer(message, 0, 8) > 0, WAIT, "a small offer", publication::doWork);
            await(() -> publication.offer(message, 0, message.capacity()) > 0, WAIT, "a fragmented offer", () ->
            {
                subscription.poll(assembler, 10);
                publication.doWork();
            });
            await(() -> delivered[0] == 4, WAIT, "the four messages", () -> subscription.poll(assembler, 10));
            await(() -> publication.counters().messagesSent.get() == 4 &&
                subscription.counters().messagesReceived.get() == 4, WAIT, "both counts flushed", () ->
                {
                    publication.doWork();
                    subscription.doWork();
                });
            assertEquals(subscription.counters().messagesReceived.get(), publication.counters().messagesSent.get());
        }
    }
}
