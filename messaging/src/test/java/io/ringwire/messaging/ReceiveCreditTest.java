package io.ringwire.messaging;

import io.ringwire.messaging.protocol.CreditLayout;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;

import static io.ringwire.messaging.PubSubTestSupport.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every frame consumes a receive the subscriber posted. A publisher far ahead of a subscriber that
 * is not polling stops at the receives posted, not only at the ring's bytes: otherwise its frames
 * meet a queue pair with no receive (an RNR NAK on a NIC: the requester waits and retries, and the
 * stream stalls). On every provider, in one process. On roce the subscriber's responder runs only
 * inside its polls, so nothing is acknowledged meanwhile: frames past the 128-PSN send window wait
 * in the send queue, and neither they nor a message of several frames that fills the window may
 * make the offer spin, where the liveness timeout would disconnect the subscriber. shm's memory log
 * takes no receive: there the ring's bytes are the bound, and the same drain must deliver
 * everything in order.
 */
class ReceiveCreditTest
{
    private static final int MESSAGE = 32;
    /** The least credit fraction a context takes. */
    private static final int FRACTION = 3;

    @TempDir
    Path directory;

    private static UnsafeBuffer stamp(final UnsafeBuffer message, final int sequence)
    {
        message.putInt(0, sequence);
        return message;
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aPublisherAheadOfItsSubscriberStopsAtTheReceivesPostedOrTheRingThenDeliversEverything(final String provider)
    {
        final MessagingContext context = context(directory);
        // 1 MiB of ring holds 16384 frames of 64 bytes: over RDMA the receives (256, one used by the JOIN)
        // run out first; a memory log (shm) takes no receive a frame, and stops at the ring's bytes.
        final boolean memoryLog = "shm".equals(provider);
        final int ringFrames = 1048576 / 64;
        try (Subscription subscription = Subscription.open(context, channel(provider, 0) + "|ring=1048576", 9);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()) + "|ring=1048576", 9))
        {
            awaitConnection(subscription, publication);
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
            final int sessionId = publication.sessionId();
            int accepted = 0;
            long result;
            while ((result = publication.offer(stamp(message, accepted), 0, MESSAGE)) > 0)
            {
                accepted++;
                assertTrue(accepted <= ringFrames, "the publisher was never back-pressured with a ring of 16384 frames");
            }
            assertEquals(Publication.BACK_PRESSURED, result, "with no subscriber polling");
            // The JOIN took one receive; a heartbeat, if one went out meanwhile, takes one too.
            final int limit = memoryLog ? ringFrames : CreditLayout.INITIAL_RECEIVES - 1;
            assertTrue(accepted <= limit && accepted >= limit - 4, "frames accepted ahead of a subscriber that has " +
                "not polled: " + accepted + ", expected " + limit + " (" +
                (memoryLog ? "the ring's bytes" : "its first receives less the JOIN's") + ")");
            assertTrue(publication.isConnected(), "back-pressure is not a disconnect");

            final int total = 20_000;
            final int[] received = { 0 };
            final String[] failure = { null };
            final FragmentHandler checker = (buffer, offset, length, header) ->
            {
                if (length != MESSAGE || buffer.getInt(offset) != received[0])
                {
                    failure[0] = "message " + received[0] + ": got " + buffer.getInt(offset) + " of " + length + " bytes";
                }
                received[0]++;
            };
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (received[0] < total && null == failure[0])
            {
                assertTrue(System.nanoTime() < deadline, "stalled at " + received[0] + " received, " + accepted + " sent");
                // Offer until back-pressured, then drain: credit (and on roce the window) comes back as
                // the subscriber polls and reposts its receives.
                while (accepted < total && publication.offer(stamp(message, accepted), 0, MESSAGE) > 0)
                {
                    accepted++;
                }
                while (received[0] < accepted && null == failure[0] && System.nanoTime() < deadline)
                {
                    subscription.poll(checker, 1000);
                    publication.doWork();
                }
            }
            assertEquals(null, failure[0]);
            assertEquals(total, received[0]);
            assertEquals(sessionId, publication.sessionId(), "one session throughout: nothing was disconnected");
            assertEquals(1, subscription.imageCount());
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aMessageOfSeveralFramesThatFillsTheSendWindowIsTakenAtOnceAndArrivesWhole(final String provider)
    {
        // A 1 MiB ring's longest message is five frames; on roce at a 4096-byte MTU its first four
        // take the whole 128-PSN window, which only the subscriber's polls acknowledge.
        final MessagingContext context = context(directory);
        try (Subscription subscription = Subscription.open(context, channel(provider, 0) + "|ring=1048576", 9);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()) + "|ring=1048576", 9))
        {
            awaitConnection(subscription, publication);
            final int sessionId = publication.sessionId();
            final UnsafeBuffer longest = new UnsafeBuffer(ByteBuffer.allocateDirect(publication.maxMessageLength()));
            for (int i = 0; i < longest.capacity(); i += Integer.BYTES)
            {
                longest.putInt(i, i * 31 + 7);
            }
            final long result = publication.offer(longest, 0, longest.capacity());
            assertTrue(result > 0, "the longest message, offered once: " + result);
            final boolean[] whole = { false };
            final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
            {
                boolean same = length == longest.capacity();
                for (int i = 0; same && i < length; i += Integer.BYTES)
                {
                    same = buffer.getInt(offset + i) == i * 31 + 7;
                }
                whole[0] = same;
            });
            await(() -> whole[0], Duration.ofSeconds(10), "the message reassembled, every byte as sent", () ->
            {
                subscription.poll(assembler, 10);
                publication.doWork();
            });
            assertEquals(sessionId, publication.sessionId(), "one session throughout: nothing was disconnected");
            assertTrue(publication.isConnected());
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    void aLongestMessageAfterReadsNotYetCreditedIsTakenWithoutWaitingForAHeartbeatCredit(final String provider)
    {
        // The subscriber credits every 1/fraction of the ring it reads, and at each heartbeat (here
        // a minute apart). Read just short of a credit, the ring must still have room for the
        // longest message with its frame headers and padding, wherever in the ring it falls.
        final int ring = 65536;
        final MessagingContext context = context(directory, settings -> settings.creditFraction(FRACTION)
            .heartbeatIntervalMs(60_000).livenessTimeoutMs(120_000));
        try (Subscription subscription = Subscription.open(context, channel(provider, 0) + "|ring=" + ring, 9);
             Publication publication = Publication.open(context,
                 channel(provider, subscription.endpoint().getPort()) + "|ring=" + ring, 9))
        {
            awaitConnection(subscription, publication);
            final UnsafeBuffer small = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
            final UnsafeBuffer longest = new UnsafeBuffer(ByteBuffer.allocateDirect(publication.maxMessageLength()));
            final long[] messages = { 0 };
            final FragmentAssembler counter = new FragmentAssembler((b, o, l, h) -> messages[0]++);
            long sent = 0;
            // Each round reads seven more small messages than the last before the longest: the reads
            // not yet credited, and where the longest message starts, take many values in turn.
            for (int smalls = 0; smalls < 2 * ring / 64; smalls += 7)
            {
                for (int i = 0; i < smalls; i++)
                {
                    sent += offer(publication, subscription, counter, small, sent, messages);
                }
                final long result = offerOnce(publication, subscription, counter, longest, sent, messages);
                assertTrue(result > 0, "the longest message after " + smalls + " small ones (" +
                    publication.position() + " written, all read) was refused: " + result);
                sent++;
                final long until = sent;
                await(() -> messages[0] == until, Duration.ofSeconds(10), "the longest message read",
                    () -> subscription.poll(counter, 10));
            }
            assertTrue(publication.isConnected());
        }
    }

    private static void awaitConnection(final Subscription subscription, final Publication publication)
    {
        await(() -> subscription.imageCount() == 1 && publication.isConnected(), Duration.ofSeconds(10), "connection",
            () ->
            {
                subscription.poll((b, o, l, h) -> { }, 10);
                publication.doWork();
            });
    }

    /** Offers a message, reading what the subscriber has meanwhile, and reads everything sent. */
    private static long offer(final Publication publication, final Subscription subscription,
        final FragmentAssembler counter, final UnsafeBuffer message, final long sent, final long[] messages)
    {
        final long result = offerOnce(publication, subscription, counter, message, sent, messages);
        assertTrue(result > 0, "a small message was refused: " + result);
        await(() -> messages[0] == sent + 1, Duration.ofSeconds(10), "the message read",
            () -> subscription.poll(counter, 10));
        return 1;
    }

    /**
     * Offers once everything sent is read, giving the publication's duty cycle a few turns to see
     * a credit already written: the result with no heartbeat credit to come.
     */
    private static long offerOnce(final Publication publication, final Subscription subscription,
        final FragmentAssembler counter, final UnsafeBuffer message, final long sent, final long[] messages)
    {
        await(() -> messages[0] == sent, Duration.ofSeconds(10), "everything read", () -> subscription.poll(counter, 10));
        long result = 0;
        for (int attempt = 0; attempt < 1000 && result <= 0; attempt++)
        {
            result = publication.offer(message, 0, message.capacity());
            subscription.poll(counter, 10);
            publication.doWork();
        }
        return result;
    }
}
