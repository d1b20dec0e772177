package io.ringwire.messaging.system;

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
import static io.ringwire.messaging.system.ChildProcess.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Topologies across processes: one publication fanned out to three subscriber processes (one
 * channel listing three endpoints), and three publisher processes into one subscription.
 */
@Tag("system")
class FanOutFanInSystemTest
{
    private static final long SEED = 0x5EED_0003L;
    private static final int FAN = 3;
    private static final int MESSAGES = SystemTestSettings.volume(100_000);

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void everySubscriberOfAFannedOutPublicationGetsEveryMessageInOrder(final String provider)
    {
        final SystemTestSettings settings = SystemTestSettings.tolerant(directory);
        final List<ChildProcess> subscribers = new ArrayList<>();
        try
        {
            final StringBuilder ports = new StringBuilder();
            for (int i = 0; i < FAN; i++)
            {
                subscribers.add(ChildProcess.start("subscriber-" + i, directory, settings, SubscriberProcess.class,
                    "provider=" + provider, "seed=" + SEED, "count=" + MESSAGES, "timeoutMs=90000"));
            }
            for (final ChildProcess subscriber : subscribers)
            {
                ports.append(ports.isEmpty() ? "" : ",")
                    .append(value(subscriber.awaitLine("READY", Duration.ofSeconds(30)), "port"));
            }
            try (ChildProcess publisher = ChildProcess.start("publisher", directory, settings, PublisherProcess.class,
                "provider=" + provider, "ports=" + ports, "seed=" + SEED, "count=" + MESSAGES, "waitForGo=true",
                "timeoutMs=90000"))
            {
                final String session = value(publisher.awaitLine("CONNECTED", Duration.ofSeconds(30)), "session");
                for (final ChildProcess subscriber : subscribers)
                {
                    assertEquals(session, value(subscriber.awaitLine("IMAGE", Duration.ofSeconds(30)), "session"),
                        "every subscriber sees the publication's one session");
                }
                awaitPublicationConnects(settings, publisher, FAN);
                publisher.send("go");
                for (final ChildProcess subscriber : subscribers)
                {
                    final String result = subscriber.awaitLine("RESULT", Duration.ofSeconds(100));
                    assertTrue(result.startsWith("RESULT ok"), result + subscriber.diagnostics() + publisher.diagnostics());
                    assertEquals(MESSAGES, longValue(result, "received"));
                    System.out.printf("[%s] fan-out %s: %s%n", provider, subscriber, result);
                }
                final String done = publisher.awaitLine("DONE", Duration.ofSeconds(10));
                assertEquals(0, longValue(done, "notConnected"), "the publisher lost a subscriber: " + done);
                System.out.printf("[%s] fan-out publisher: %s%n", provider, done);
                assertEquals(0, publisher.exit(Duration.ofSeconds(10)), "publisher exit code" + publisher.diagnostics());
            }
            for (final ChildProcess subscriber : subscribers)
            {
                assertEquals(0, subscriber.exit(Duration.ofSeconds(10)), "exit code" + subscriber.diagnostics());
            }
        }
        finally
        {
            subscribers.forEach(ChildProcess::close);
        }
    }

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void messagesOfThreePublisherProcessesAllArriveInEachPublishersOrder(final String provider)
    {
        final SystemTestSettings settings = SystemTestSettings.tolerant(directory);
        final List<ChildProcess> publishers = new ArrayList<>();
        try (ChildProcess subscriber = ChildProcess.start("subscriber", directory, settings, SubscriberProcess.class,
            "provider=" + provider, "seed=" + SEED, "sources=" + FAN, "count=" + MESSAGES, "timeoutMs=200000"))
        {
            final int port = (int)longValue(subscriber.awaitLine("READY", Duration.ofSeconds(30)), "port");
            for (int source = 0; source < FAN; source++)
            {
                publishers.add(ChildProcess.start("publisher-" + source, directory, settings, PublisherProcess.class,
                    "provider=" + provider, "ports=" + port, "seed=" + SEED, "source=" + source, "count=" + MESSAGES,
                    "timeoutMs=200000"));
            }
            final String result = subscriber.awaitLine("RESULT", Duration.ofSeconds(200));
            assertTrue(result.startsWith("RESULT ok"), result + subscriber.diagnostics());
            assertEquals((long)FAN * MESSAGES, longValue(result, "received"));
            System.out.printf("[%s] fan-in subscriber: %s%n", provider, result);
            final List<String> sessions = new ArrayList<>();
            for (final ChildProcess publisher : publishers)
            {
                final String done = publisher.awaitLine("DONE", Duration.ofSeconds(30));
                assertEquals(0, longValue(done, "notConnected"), publisher + " lost the subscriber: " + done);
                sessions.add(value(done, "session"));
                System.out.printf("[%s] fan-in %s: %s%n", provider, publisher, done);
            }
            assertEquals(FAN, sessions.stream().distinct().count(), "one session per publisher: " + sessions);
            for (final ChildProcess publisher : publishers)
            {
                assertEquals(0, publisher.exit(Duration.ofSeconds(10)), "exit code" + publisher.diagnostics());
            }
            assertEquals(0, subscriber.exit(Duration.ofSeconds(10)), "exit code" + subscriber.diagnostics());
        }
        finally
        {
            publishers.forEach(ChildProcess::close);
        }
    }

    /**
     * The publication connects to its subscribers one by one; messages offered before the last one
     * connected would not reach it. Its counters say when all are connected (connects minus
     * disconnects).
     */
    static void awaitPublicationConnects(final SystemTestSettings settings, final ChildProcess publisher,
        final int expected)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (CountersProbe counters = CountersProbe.of(settings.countersDirectory(), publisher.pid()))
        {
            long connected;
            while ((connected = counters.sum("pub stream=", ": connects") - counters.sum("pub stream=", ": disconnects")) <
                expected)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail("publisher connected to " + connected + " of " + expected + " subscribers within 30 s" +
                        publisher.diagnostics());
                }
                LockSupport.parkNanos(1_000_000); // polling a counter another process writes: nothing to wait on
            }
        }
    }
}
