package io.ringwire.messaging.system;

import io.ringwire.messaging.FragmentAssembler;
import io.ringwire.messaging.FragmentHandler;
import io.ringwire.messaging.Header;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Subscription;
import io.ringwire.messaging.TestProviders;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2IntHashMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A publisher process SIGKILLed in the middle of a fragmented message: the publisher pauses
 * between messages, so this JVM's subscription keeps up and, watching the raw fragments, kills it
 * the moment the first fragment of a long message arrives, while the rest are still being written.
 * The {@link FragmentAssembler} (with {@code freeSessionBuffer} as the unavailable-image handler)
 * must never hand over the partial message: every message delivered carries its full embedded
 * length and checksum. The image ends within the liveness timeout plus detection, and the next
 * publisher's messages are whole again. Rounds repeat (up to six) until two publishers were caught
 * mid-message; at least one must be, or the test proved nothing.
 */
@Tag("system")
class PublisherKilledMidMessageSystemTest
{
    private static final long SEED = 0x5EED_0006L;
    /** Publishers killed at most; stops earlier once two were caught mid-message. */
    private static final int ROUNDS = 6;
    private static final long END_ALLOWANCE_MS = 3000;

    @TempDir
    Path directory;

    /**
     * Rings per provider, so the rest of a message takes long enough to write that the kill lands
     * inside it: shm copies at memory speed, so its frames are 8 MiB (64 MiB ring, first touch of
     * its pages); socket frames are 2 MiB (more than its buffers hold in flight); roce is slow
     * enough with 512 KiB frames, and ibverbs on Soft-RoCE in the VM lab too. Messages go up to half
     * the ring (four full frames and a bit).
     */
    static Stream<Arguments> providerRings()
    {
        return TestProviders.withValue(Map.of("shm", 67108864, "socket", 16777216, "roce", 4194304,
            "ibverbs", 4194304));
    }

    @ParameterizedTest
    @MethodSource("providerRings")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aPublisherKilledMidMessageNeverYieldsAPartialMessage(final String provider, final int ring)
    {
        final SystemTestSettings settings = SystemTestSettings.defaults(directory);
        final MessagingContext context = settings.context();
        final int maxPayload = SystemTestSettings.maxPayloadLength(context, provider, ring);
        final int maxMessage = ring / 2 - 24;
        final MessageLengths lengths = MessageLengths.large(SEED, maxPayload, maxMessage);
        final MessageVerifier verifier = new MessageVerifier(SEED, lengths, ROUNDS, false);
        final FragmentAssembler assembler = new FragmentAssembler(verifier);
        final KillOnFirstFragment observer = new KillOnFirstFragment(assembler, maxPayload);
        final List<String> report = new ArrayList<>();
        int partialsDropped = 0;
        // The pause between messages lets this JVM verify the last message and wait, polling, at the
        // next one's first fragment. shm's publisher writes straight into the ring at memory speed, so
        // it needs the longer pause: a subscriber still verifying would see that fragment only after
        // the whole message was written.
        final int pauseMicros = "shm".equals(provider) ? 200_000 : 20_000;
        try (Subscription subscription = Subscription.open(context, SystemTestSettings.channel(provider, 0), 1))
        {
            subscription.unavailableImageHandler(sessionId ->
            {
                assembler.freeSessionBuffer(sessionId);
                observer.imageEnded(sessionId);
            });
            final int port = subscription.endpoint().getPort();
            for (int round = 0; round < ROUNDS && partialsDropped < 2; round++)
            {
                try (ChildProcess publisher = ChildProcess.start("publisher-" + round, directory, settings,
                    PublisherProcess.class, "provider=" + provider, "ports=" + port, "seed=" + SEED, "source=" + round,
                    "count=1000", "sizes=large", "maxPayload=" + maxPayload, "maxMessage=" + maxMessage, "ring=" + ring,
                    "pauseMicros=" + pauseMicros, "timeoutMs=120000"))
                {
                    observer.arm(publisher);
                    poll(subscription, observer, () -> observer.killedNs != 0, Duration.ofSeconds(60),
                        "the first fragment of a long message from " + publisher, publisher);
                    poll(subscription, observer, () -> observer.endedNs != 0,
                        Duration.ofMillis(settings.livenessTimeoutMs() + END_ALLOWANCE_MS + 5000),
                        "the killed publisher's image to end", publisher);
                    final long endedAfterMs = TimeUnit.NANOSECONDS.toMillis(observer.endedNs - observer.killedNs);
                    report.add(String.format("round %d: killed at message %d after its fragment 1 of %d, %d whole " +
                        "messages before; image ended %d ms later with %s", round, observer.killedSequence,
                        observer.killedFragments, verifier.receivedFrom(round), endedAfterMs,
                        observer.partialAtEnd ? "a partial message dropped (" + observer.fragmentsAtEnd + " fragments)" :
                        "the message complete"));
                    partialsDropped += observer.partialAtEnd ? 1 : 0;
                    assertNull(verifier.failure(), () -> verifier.failure() + publisher.diagnostics());
                    assertTrue(endedAfterMs <= settings.livenessTimeoutMs() + END_ALLOWANCE_MS,
                        "the image ended " + endedAfterMs + " ms after the publisher died; allowed: liveness timeout " +
                        settings.livenessTimeoutMs() + " ms + " + END_ALLOWANCE_MS + " ms");
                    assertTrue(verifier.receivedFrom(round) >= observer.killedSequence,
                        "every message publisher " + round + " completed before the one it died in arrived whole");
                }
            }
        }
        System.out.printf("[%s] %s%n", provider, String.join("; ", report));
        assertNull(verifier.failure(), verifier.failure());
        assertTrue(partialsDropped > 0, "the publisher was never caught mid-message, so nothing was tested: " + report);
    }

    private static void poll(final Subscription subscription, final FragmentHandler handler,
        final java.util.function.BooleanSupplier condition, final Duration timeout, final String what,
        final ChildProcess child)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("timed out after " + timeout.toMillis() + " ms waiting for " + what + child.diagnostics());
            }
            if (0 == subscription.poll(handler, 1))
            {
                Thread.yield();
            }
        }
    }

    /**
     * Sees every raw fragment before the assembler: SIGKILLs the armed publisher at the first
     * fragment of its first message of four or more frames (from its fourth message on), and
     * remembers whether that session was mid-message when its image ended.
     */
    private static final class KillOnFirstFragment implements FragmentHandler
    {
        private final FragmentHandler next;
        private final int maxPayload;
        /** Fragments of the message in progress per session; absent between messages. */
        private final Int2IntHashMap fragmentsInProgress = new Int2IntHashMap(0);
        private ChildProcess target;
        private int killedSession;
        long killedNs;
        int killedSequence;
        int killedFragments;
        long endedNs;
        boolean partialAtEnd;
        int fragmentsAtEnd;

        KillOnFirstFragment(final FragmentHandler next, final int maxPayload)
        {
            this.next = next;
            this.maxPayload = maxPayload;
        }

        void arm(final ChildProcess publisher)
        {
            target = publisher;
            killedNs = 0;
            endedNs = 0;
            partialAtEnd = false;
            fragmentsAtEnd = 0;
        }

        @Override
        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            final byte flags = header.flags();
            final boolean begin = (flags & (byte)0x80) != 0;
            final boolean end = (flags & 0x40) != 0;
            final int sessionId = header.sessionId();
            if (begin && !end && null != target && 0 == killedNs &&
                TestMessages.sequenceOf(buffer, offset) >= 3 &&
                TestMessages.embeddedLengthOf(buffer, offset) > 3 * maxPayload)
            {
                killedSession = sessionId;
                killedSequence = TestMessages.sequenceOf(buffer, offset);
                killedFragments = (TestMessages.embeddedLengthOf(buffer, offset) + maxPayload - 1) / maxPayload;
                target.kill();
                killedNs = System.nanoTime();
                target = null;
            }
            if (end)
            {
                fragmentsInProgress.remove(sessionId);
            }
            else
            {
                fragmentsInProgress.put(sessionId, begin ? 1 : fragmentsInProgress.get(sessionId) + 1);
            }
            next.onFragment(buffer, offset, length, header);
        }

        void imageEnded(final int sessionId)
        {
            if (sessionId == killedSession && 0 != killedNs)
            {
                endedNs = System.nanoTime();
                fragmentsAtEnd = fragmentsInProgress.get(sessionId);
                partialAtEnd = fragmentsAtEnd > 0;
                fragmentsInProgress.remove(sessionId);
            }
        }
    }
}
