package io.ringwire.messaging;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;

import static io.ringwire.messaging.PubSubTestSupport.await;
import static io.ringwire.messaging.PubSubTestSupport.channel;
import static io.ringwire.messaging.PubSubTestSupport.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * End-to-end frame checksums: a subscription that asks for them gets every data frame signed, by
 * offer, by tryClaim and in every fragment, verifies each and delivers the messages unchanged; the
 * context decides when a subscription asks.
 */
class ChecksummedStreamTest
{
    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aSubscriptionThatAsksForChecksumsGetsEveryMessageSignedAndUnchanged(final String provider)
    {
        final MessagingContext context = context(directory, settings -> settings.checksum("on"));
        try (Subscription subscription = Subscription.open(context, channel(provider, 0) + "|ring=65536", 3);
            Publication publication = Publication.open(context,
                channel(provider, subscription.endpoint().getPort()) + "|ring=65536", 3))
        {
            final long[] received = new long[1];
            final long[] checksumOf = new long[1];
            final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
            {
                assertEquals(received[0], buffer.getLong(offset), "sequence");
                long sum = 0;
                for (int i = 8; i < length; i++)
                {
                    sum = sum * 31 + buffer.getByte(offset + i);
                }
                checksumOf[0] += sum;
                received[0]++;
            });
            await(() -> subscription.imageCount() == 1 && publication.isConnected(), Duration.ofSeconds(10),
                "connection", () ->
                {
                    subscription.poll(assembler, 10);
                    publication.doWork();
                });
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(20_000));
            final SplittableRandom random = new SplittableRandom(99);
            final BufferClaim claim = new BufferClaim();
            long sentSum = 0;
            final int messages = 5_000;
            for (int sequence = 0; sequence < messages; sequence++)
            {
                // Mostly small ones, some claimed, some longer than a frame (fragmented).
                final int length = sequence % 50 == 0 ? 8 + random.nextInt(9_000, 20_000) : 8 + random.nextInt(300);
                message.putLong(0, sequence);
                long sum = 0;
                for (int i = 8; i < length; i++)
                {
                    final byte value = (byte)random.nextInt();
                    message.putByte(i, value);
                    sum = sum * 31 + value;
                }
                sentSum += sum;
                final boolean claimed = sequence % 3 == 0 && length <= publication.maxPayloadLength();
                while (true)
                {
                    final long result;
                    if (claimed)
                    {
                        result = publication.tryClaim(length, claim);
                        if (result > 0)
                        {
                            claim.buffer().putBytes(claim.offset(), message, 0, length);
                            claim.commit();
                        }
                    }
                    else
                    {
                        result = publication.offer(message, 0, length);
                    }
                    if (result > 0)
                    {
                        break;
                    }
                    assertEquals(Publication.BACK_PRESSURED, result, "message " + sequence);
                    subscription.poll(assembler, 10);
                }
                subscription.poll(assembler, 10);
            }
            await(() -> received[0] == messages, Duration.ofSeconds(20), "every message", () ->
            {
                subscription.poll(assembler, 10);
                publication.doWork();
            });
            assertEquals(sentSum, checksumOf[0], "every byte as sent");
            assertEquals(0, subscription.counters().checksumErrors.get());
            assertEquals(0, subscription.counters().protocolErrors.get());
        }
    }

    @Test
    void theContextAsksForChecksumsOnlyWhereTheTransportDoesNotVerifyEveryByte()
    {
        final MessagingContext auto = context(directory);
        assertFalse(auto.frameChecksums(true), "auto: a transport that verifies integrity needs none");
        assertTrue(auto.frameChecksums(false), "auto: roce predicting IP IDs");
        assertTrue(context(directory, settings -> settings.checksum("on")).frameChecksums(true));
        assertFalse(context(directory, settings -> settings.checksum("off")).frameChecksums(false));
    }
}
