package io.ringwire.messaging.system;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.ringwire.messaging.system.ChildProcess.longValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A publisher process and a subscriber process: a million messages of seeded mixed sizes arrive
 * in order and byte-exact, on every provider (a quarter of them in the Soft-RoCE lab:
 * {@link SystemTestSettings#VOLUME_PROP}).
 */
@Tag("system")
class CrossProcessDeliverySystemTest
{
    private static final long SEED = 0x5EED_0001L;
    private static final int MESSAGES = SystemTestSettings.volume(1_000_000);

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aMillionMessagesOfMixedSizesArriveInOrderByteExactInAnotherProcess(final String provider)
    {
        final SystemTestSettings settings = SystemTestSettings.tolerant(directory);
        try (ChildProcess subscriber = ChildProcess.start("subscriber", directory, settings, SubscriberProcess.class,
                "provider=" + provider, "seed=" + SEED, "count=" + MESSAGES, "sizes=mixed", "timeoutMs=150000"))
        {
            final int port = (int)longValue(subscriber.awaitLine("READY", Duration.ofSeconds(30)), "port");
            try (ChildProcess publisher = ChildProcess.start("publisher", directory, settings, PublisherProcess.class,
                "provider=" + provider, "ports=" + port, "seed=" + SEED, "count=" + MESSAGES, "sizes=mixed",
                "timeoutMs=150000"))
            {
                publisher.awaitLine("CONNECTED", Duration.ofSeconds(30));
                final String result = subscriber.awaitLine("RESULT", Duration.ofSeconds(160));
                final String done = publisher.awaitLine("DONE", Duration.ofSeconds(10));
                assertTrue(result.startsWith("RESULT ok"), result + publisher.diagnostics() + subscriber.diagnostics());
                assertEquals(MESSAGES, longValue(result, "received"), result);
                assertEquals(0, longValue(done, "notConnected"), "publisher lost its subscriber: " + done);
                final long elapsedMs = Math.max(1, longValue(result, "elapsedMs"));
                System.out.printf("[%s] %d messages, %d bytes in %d ms: %.0f msg/s, %.1f MB/s; publisher: %s%n",
                    provider, MESSAGES, longValue(result, "bytes"), elapsedMs, MESSAGES * 1000.0 / elapsedMs,
                    longValue(result, "bytes") / 1000.0 / elapsedMs, done);
                assertEquals(0, publisher.exit(Duration.ofSeconds(10)), "publisher exit code" + publisher.diagnostics());
            }
            assertEquals(0, subscriber.exit(Duration.ofSeconds(10)), "subscriber exit code" + subscriber.diagnostics());
        }
    }
}
