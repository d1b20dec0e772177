package io.ringwire.messaging.system;

import io.ringwire.messaging.FragmentAssembler;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import io.ringwire.messaging.Subscription;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Fan-out when one subscriber completes its connection after the publication has already
 * published to another: the late one must receive what is published from then on. One thread
 * drives everything, so the order of events is fixed: subscriber B's connection request waits in
 * its listener (B is not polled) while messages go to A; then B is polled and accepts.
 */
class FanOutLateSubscriberTest
{
    private static final long SEED = 0x5EED_0008L;
    private static final int BEFORE = 100;
    private static final int AFTER = 2_000;

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aSubscriberThatCompletesItsConnectionLateReceivesWhatIsPublishedAfterwards(final String provider)
    {
        final MessagingContext context = SystemTestSettings.tolerant(directory).context();
        final MessageLengths lengths = MessageLengths.named("small", SEED);
        final MessageVerifier verifierA = new MessageVerifier(SEED, lengths, 1, false);
        final MessageVerifier verifierB = new MessageVerifier(SEED, lengths, 1, true);
        final FragmentAssembler assemblerA = new FragmentAssembler(verifierA);
        final FragmentAssembler assemblerB = new FragmentAssembler(verifierB);
        final int[] imagesLostByB = { 0 };
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
        try (Subscription a = Subscription.open(context, SystemTestSettings.channel(provider, 0), 1);
             Subscription b = Subscription.open(context, SystemTestSettings.channel(provider, 0), 1))
        {
            b.unavailableImageHandler(sessionId -> imagesLostByB[0]++);
            final String channel = "ringwire:" + provider + "?endpoint=127.0.0.1:" + a.endpoint().getPort() +
                ",127.0.0.1:" + b.endpoint().getPort();
            try (Publication publication = Publication.open(context, channel, 1))
            {
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!(a.imageCount() == 1 && publication.isConnected()))
                {
                    check(deadline, "A to connect; " + publication);
                    a.poll(assemblerA, 16);
                    publication.doWork();
                }
                int sequence = 0;
                while (sequence < BEFORE)
                {
                    check(deadline, "the first messages to go out; " + publication);
                    sequence += offer(publication, message, lengths, sequence);
                    a.poll(assemblerA, 16);
                }
                // B's image comes with B's side of the handshake; the publication joins B on a later
                // duty cycle, once its own connecting thread has finished: until then it writes to A
                // alone, so both are awaited before the messages after the join are offered.
                try (CountersProbe counters = CountersProbe.of(directory.resolve("counters"), ProcessHandle.current().pid()))
                {
                    while (b.imageCount() == 0 ||
                        counters.sum("pub stream=1", ": connects") - counters.sum("pub stream=1", ": disconnects") < 2)
                    {
                        check(deadline, "B to accept the publication's connection, and the publication to join B; " +
                            publication);
                        b.poll(assemblerB, 16);
                        a.poll(assemblerA, 16);
                        publication.doWork();
                    }
                }
                final int firstAfterJoin = sequence;
                while (sequence < BEFORE + AFTER || verifierA.received() < sequence || verifierB.firstSequenceFrom(0) < 0 ||
                    verifierB.received() < BEFORE + AFTER - verifierB.firstSequenceFrom(0))
                {
                    check(deadline, "the messages after B joined; A has " + verifierA.received() + ", B has " +
                        verifierB.received() + " (B's images ended: " + imagesLostByB[0] + "); " + publication);
                    if (sequence < BEFORE + AFTER)
                    {
                        sequence += offer(publication, message, lengths, sequence);
                    }
                    else
                    {
                        publication.doWork();
                    }
                    a.poll(assemblerA, 16);
                    b.poll(assemblerB, 16);
                    if (null != verifierA.failure() || null != verifierB.failure() || imagesLostByB[0] > 0)
                    {
                        break;
                    }
                }
                assertNull(verifierA.failure(), "A");
                assertNull(verifierB.failure(), "B");
                try (CountersProbe counters = CountersProbe.of(directory.resolve("counters"), ProcessHandle.current().pid()))
                {
                    assertEquals(0, counters.sum("sub stream=1", "protocol errors"),
                        "frames the subscriptions found where their image did not expect them (protocol errors)");
                }
                assertEquals(0, imagesLostByB[0], "B's image must not end");
                // B's stream starts at its JOIN position, where the publication stood as it joined B (no
                // message was offered while it did), and runs contiguously to the end (the verifier
                // fails on any gap or reordering).
                final int firstAtB = verifierB.firstSequenceFrom(0);
                assertEquals(firstAfterJoin, firstAtB, "B's stream starts with the first message offered after it joined");
                assertEquals(BEFORE + AFTER - firstAtB, verifierB.received(), "B has every message from its first to the last");
            }
        }
    }

    private static int offer(final Publication publication, final UnsafeBuffer message, final MessageLengths lengths,
        final int sequence)
    {
        final int length = TestMessages.encode(message, 0, lengths.lengthOf(0, sequence), SEED, 0, sequence);
        final long result = publication.offer(message, 0, length);
        if (result == Publication.NOT_CONNECTED || result == Publication.CLOSED)
        {
            fail("offer returned " + result + "; " + publication);
        }
        return result > 0 ? 1 : 0;
    }

    private static void check(final long deadline, final String what)
    {
        if (System.nanoTime() - deadline > 0)
        {
            fail("timed out after 30 s waiting for " + what);
        }
    }
}
