package io.ringwire.messaging;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.zip.CRC32;

import static io.ringwire.messaging.PubSubTestSupport.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One publication and one subscription in one process, on every provider: messages of mixed sizes
 * arrive in order, byte-exact, across many ring wraps.
 */
class PublicationSubscriptionTest
{
    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void messagesOfMixedSizesArriveInOrderByteExactAcrossRingWraps(final String provider)
    {
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0) + "|ring=65536", 7);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()) + "|ring=65536", 7))
        {
            await(() -> subscription.imageCount() == 1 && publication.isConnected(), Duration.ofSeconds(10), "connection",
                () ->
                {
                    subscription.poll((b, o, l, h) -> { }, 10);
                    publication.doWork();
                });
            final int messages = 20_000;
            final Random random = new Random(42);
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(8192));
            final long[] expectedChecksums = new long[messages];
            final int[] received = { 0 };
            final String[] failure = { null };
            final CRC32 crc = new CRC32();
            final FragmentHandler checker = (buffer, offset, length, header) ->
            {
                final int sequence = buffer.getInt(offset);
                crc.reset();
                for (int i = 0; i < length; i++)
                {
                    crc.update(buffer.getByte(offset + i));
                }
                if (sequence != received[0] || crc.getValue() != expectedChecksums[sequence])
                {
                    failure[0] = "message " + received[0] + ": got sequence " + sequence;
                }
                received[0]++;
            };
            int sent = 0;
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (received[0] < messages && null == failure[0])
            {
                assertTrue(System.nanoTime() < deadline, "stalled at " + received[0] + " received, " + sent + " sent");
                if (sent < messages)
                {
                    final int length = 4 + random.nextInt(sent % 100 == 0 ? 7000 : 200);
                    message.putInt(0, sent);
                    for (int i = 4; i < length; i++)
                    {
                        message.putByte(i, (byte)(sent * 31 + i));
                    }
                    crc.reset();
                    for (int i = 0; i < length; i++)
                    {
                        crc.update(message.getByte(i));
                    }
                    expectedChecksums[sent] = crc.getValue();
                    final long result = publication.offer(message, 0, length);
                    if (result > 0)
                    {
                        sent++;
                    }
                    else
                    {
                        assertTrue(result == Publication.BACK_PRESSURED || result == Publication.ADMIN_ACTION,
                            "offer returned " + result);
                    }
                }
                subscription.poll(checker, 100);
            }
            assertEquals(null, failure[0]);
            assertEquals(messages, received[0]);
        }
    }
}
