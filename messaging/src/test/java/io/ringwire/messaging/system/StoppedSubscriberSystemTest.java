package io.ringwire.messaging.system;

import io.ringwire.messaging.FragmentAssembler;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Subscription;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.ringwire.messaging.system.ChildProcess.longValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A subscriber that stops polling altogether, for a while shorter than the liveness timeout, with
 * two publisher processes offering into it as fast as they can: both run into the end of their
 * small rings and are held with BACK_PRESSURED (their counters say so while the subscriber is
 * stopped), neither is disconnected, and once it polls again every message of both, of mixed sizes
 * with fragmented ones among them, arrives whole, checked byte by byte, and in each publisher's
 * order: nothing unread was overwritten and nothing was lost.
 */
@Tag("system")
class StoppedSubscriberSystemTest
{
    private static final long SEED = 0x5EED_0025L;
    private static final int PUBLISHERS = 2;
    /** Enough that neither publisher can finish before the stop, however fast the path. */
    private static final int MESSAGES = 20_000;
    /** 64 KiB: the publishers fill it within the first milliseconds of the stop. */
    private static final int RING = 64 * 1024;
    private static final Duration STOP = Duration.ofSeconds(2);

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aSubscriberThatStopsPollingBackPressuresEveryPublisherAndLosesNothing(final String provider)
    {
        final SystemTestSettings settings = SystemTestSettings.tolerant(directory);
        assertTrue(STOP.toMillis() * 2 <= settings.livenessTimeoutMs(), "the stop must stay inside the liveness timeout");
        final MessagingContext context = settings.context();
        final MessageVerifier verifier = new MessageVerifier(SEED, MessageLengths.named("mixed", SEED), PUBLISHERS,
            false);
        final FragmentAssembler assembler = new FragmentAssembler(verifier);
        final List<ChildProcess> publishers = new ArrayList<>();
        try (Subscription subscription = Subscription.open(context, SystemTestSettings.channel(provider, 0), 1))
        {
            final int port = subscription.endpoint().getPort();
            for (int source = 0; source < PUBLISHERS; source++)
            {
                publishers.add(ChildProcess.start("publisher-" + source, directory, settings, PublisherProcess.class,
                    "provider=" + provider, "ports=" + port, "seed=" + SEED, "source=" + source, "count=" + MESSAGES,
                    "ring=" + RING, "timeoutMs=120000", "waitForGo=true"));
            }
            // Both start together: one that came up early must not run through its messages alone.
            pollUntil(subscription, assembler, () -> subscription.imageCount() == PUBLISHERS, Duration.ofSeconds(60),
                "both publishers connected", publishers);
            for (final ChildProcess publisher : publishers)
            {
                publisher.awaitLine("CONNECTED", Duration.ofSeconds(30));
                publisher.send("go");
            }
            pollUntil(subscription, assembler, () -> subscription.imageCount() == PUBLISHERS &&
                verifier.receivedFrom(0) > 100 && verifier.receivedFrom(1) > 100, Duration.ofSeconds(60),
                "both publishers flowing", publishers);
            assertNull(verifier.failure(), verifier.failure());

            // Stop polling: nothing of this subscription runs now.
            final long[] backPressuredBefore = backPressured(settings, publishers);
            final long receivedAtStop = verifier.received();
            LockSupport.parkNanos(STOP.toNanos());
            final long[] backPressuredDuring = backPressured(settings, publishers);
            for (int source = 0; source < PUBLISHERS; source++)
            {
                assertTrue(backPressuredDuring[source] > backPressuredBefore[source], "publisher " + source +
                    " was not back-pressured while the subscriber stopped: " + backPressuredBefore[source] + " -> " +
                    backPressuredDuring[source] + publishers.get(source).diagnostics());
            }
            assertEquals(receivedAtStop, verifier.received(), "nothing is delivered without a poll");

            pollUntil(subscription, assembler, () -> verifier.received() == (long)PUBLISHERS * MESSAGES,
                Duration.ofSeconds(120), "every message of both publishers", publishers);
            assertNull(verifier.failure(), verifier.failure());
            for (int source = 0; source < PUBLISHERS; source++)
            {
                assertEquals(MESSAGES, verifier.receivedFrom(source), "publisher " + source);
                final ChildProcess publisher = publishers.get(source);
                final String done = publisher.awaitLine("DONE", Duration.ofSeconds(30));
                assertEquals(0, longValue(done, "notConnected"), publisher + " was disconnected: " + done);
                assertTrue(longValue(done, "backPressured") > 0, done);
                System.out.printf("[%s] %s: %s%n", provider, publisher, done);
            }
            assertEquals(PUBLISHERS, subscription.imageCount(), "no image was closed");
        }
        finally
        {
            publishers.forEach(ChildProcess::close);
        }
    }

    private static long[] backPressured(final SystemTestSettings settings, final List<ChildProcess> publishers)
    {
        final long[] counts = new long[publishers.size()];
        for (int i = 0; i < counts.length; i++)
        {
            try (CountersProbe counters = CountersProbe.of(settings.countersDirectory(), publishers.get(i).pid()))
            {
                counts[i] = counters.sum("pub stream=", "back pressured");
            }
        }
        return counts;
    }

    private static void pollUntil(final Subscription subscription, final FragmentAssembler assembler,
        final java.util.function.BooleanSupplier condition, final Duration timeout, final String what,
        final List<ChildProcess> publishers)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                final StringBuilder diagnostics = new StringBuilder();
                publishers.forEach(publisher -> diagnostics.append(publisher.diagnostics()));
                fail("timed out after " + timeout.toMillis() + " ms waiting for " + what + diagnostics);
            }
            if (0 == subscription.poll(assembler, 16))
            {
                Thread.yield();
            }
        }
    }
}
