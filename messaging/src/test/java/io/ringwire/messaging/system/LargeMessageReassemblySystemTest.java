package io.ringwire.messaging.system;

import io.ringwire.messaging.FragmentAssembler;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static io.ringwire.messaging.system.ChildProcess.longValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Messages far larger than a frame, up to 16 MiB in a 64 MiB ring (frames of 8 MiB, or the
 * provider's largest message when smaller: 4 MiB on socket), are split into fragments and put back
 * together exactly by a {@link FragmentAssembler}: lengths one byte either side of one, two and
 * three frames, exactly 16 MiB, and seeded lengths in between.
 */
@Tag("system")
class LargeMessageReassemblySystemTest
{
    private static final long SEED = 0x5EED_0004L;
    private static final int RING = 64 * 1024 * 1024;
    private static final int MESSAGES = 40;

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void messagesUpTo16MiBReassembleExactlyInOneProcess(final String provider) throws InterruptedException
    {
        final MessagingContext context = SystemTestSettings.tolerant(directory).context();
        final int maxPayload = SystemTestSettings.maxPayloadLength(context, provider, RING);
        final MessageLengths lengths = MessageLengths.large(SEED, maxPayload, MessageLengths.LARGE_MAX);
        final MessageVerifier verifier = new MessageVerifier(SEED, lengths, 1, false);
        final FragmentAssembler assembler = new FragmentAssembler(verifier);
        final AtomicBoolean received = new AtomicBoolean();
        final AtomicReference<String> publisherFailure = new AtomicReference<>();
        try (Subscription subscription = Subscription.open(context, SystemTestSettings.channel(provider, 0), 1))
        {
            subscription.unavailableImageHandler(assembler::freeSessionBuffer);
            final String channel = SystemTestSettings.channel(provider, subscription.endpoint().getPort()) + "|ring=" + RING;
            final Thread publisherThread = new Thread(
                () -> publish(context, channel, lengths, maxPayload, received, publisherFailure), "large-publisher");
            publisherThread.start();
            try
            {
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
                while (verifier.received() < MESSAGES && null == verifier.failure() && null == publisherFailure.get())
                {
                    if (System.nanoTime() - deadline > 0)
                    {
                        fail("only " + verifier.received() + " of " + MESSAGES + " large messages arrived within 150 s");
                    }
                    if (0 == subscription.poll(assembler, 16))
                    {
                        Thread.yield();
                    }
                }
            }
            finally
            {
                received.set(true);
                publisherThread.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertNull(publisherFailure.get());
            assertNull(verifier.failure());
            assertEquals(MESSAGES, verifier.received());
            System.out.printf("[%s] in-process: %d messages, %d bytes reassembled%n", provider, verifier.received(),
                verifier.bytes());
        }
    }

    /** The publisher thread: opens, checks the limits, offers every message, then keeps the publication alive. */
    private static void publish(final MessagingContext context, final String channel, final MessageLengths lengths,
        final int maxPayload, final AtomicBoolean received, final AtomicReference<String> failure)
    {
        try (Publication publication = Publication.open(context, channel, 1))
        {
            if (!publication.awaitConnected(Duration.ofSeconds(30)))
            {
                failure.set("not connected within 30 s: " + publication.lastConnectionError());
                return;
            }
            if (publication.maxMessageLength() != RING / 2 - 24 || publication.maxMessageLength() < MessageLengths.LARGE_MAX)
            {
                failure.set("maxMessageLength " + publication.maxMessageLength() + " for a ring of " + RING +
                    " bytes: expected half the ring minus a frame header, " + (RING / 2 - 24));
                return;
            }
            if (publication.maxPayloadLength() != maxPayload)
            {
                failure.set("maxPayloadLength " + publication.maxPayloadLength() + ", expected " + maxPayload);
                return;
            }
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MessageLengths.LARGE_MAX));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
            for (int sequence = 0; sequence < MESSAGES && !received.get(); sequence++)
            {
                final int length = TestMessages.encode(message, 0, lengths.lengthOf(0, sequence), SEED, 0, sequence);
                long result;
                while ((result = publication.offer(message, 0, length)) < 0 && !received.get())
                {
                    if (result != Publication.BACK_PRESSURED && result != Publication.ADMIN_ACTION)
                    {
                        failure.set("offer of message " + sequence + " (" + length + " bytes) returned " + result);
                        return;
                    }
                    if (System.nanoTime() - deadline > 0)
                    {
                        failure.set("message " + sequence + " still back-pressured after 150 s");
                        return;
                    }
                    Thread.yield();
                }
            }
            while (!received.get())
            {
                if (0 == publication.doWork())
                {
                    Thread.yield();
                }
            }
        }
        catch (final RuntimeException ex)
        {
            failure.set(ex.toString());
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void messagesUpTo16MiBReassembleExactlyInAnotherProcess(final String provider)
    {
        final SystemTestSettings settings = SystemTestSettings.tolerant(directory);
        final String maxPayload = "maxPayload=" + SystemTestSettings.maxPayloadLength(settings.context(), provider, RING);
        final String maxMessage = "maxMessage=" + MessageLengths.LARGE_MAX;
        try (ChildProcess subscriber = ChildProcess.start("subscriber", directory, settings, SubscriberProcess.class,
                "provider=" + provider, "seed=" + SEED, "count=" + MESSAGES, "sizes=large", maxPayload, maxMessage,
                "fragmentLimit=16", "timeoutMs=150000"))
        {
            final int port = (int)longValue(subscriber.awaitLine("READY", Duration.ofSeconds(30)), "port");
            try (ChildProcess publisher = ChildProcess.start("publisher", directory, settings, PublisherProcess.class,
                "provider=" + provider, "ports=" + port, "seed=" + SEED, "count=" + MESSAGES, "sizes=large",
                maxPayload, maxMessage, "ring=" + RING, "timeoutMs=150000"))
            {
                publisher.awaitLine("CONNECTED", Duration.ofSeconds(30));
                final String result = subscriber.awaitLine("RESULT", Duration.ofSeconds(160));
                assertTrue(result.startsWith("RESULT ok"), result + publisher.diagnostics() + subscriber.diagnostics());
                assertEquals(MESSAGES, longValue(result, "received"), result);
                final String done = publisher.awaitLine("DONE", Duration.ofSeconds(10));
                assertEquals(0, longValue(done, "notConnected"), "the publisher lost its subscriber: " + done);
                System.out.printf("[%s] cross-process: %s; publisher: %s%n", provider, result, done);
                assertEquals(0, publisher.exit(Duration.ofSeconds(10)), "publisher exit code" + publisher.diagnostics());
            }
            assertEquals(0, subscriber.exit(Duration.ofSeconds(10)), "subscriber exit code" + subscriber.diagnostics());
        }
    }
}
