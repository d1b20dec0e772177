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
 * Flow control across processes: a subscriber that sleeps after every small poll holds a fast
 * publisher back with BACK_PRESSURED, and every message still arrives intact and in order (credit
 * means nothing unread is ever overwritten).
 */
@Tag("system")
class SlowSubscriberSystemTest
{
    private static final long SEED = 0x5EED_0002L;
    private static final int MESSAGES = 20_000;
    /** A small ring (64 KiB: about a hundred messages) so the publisher runs into it at once. */
    private static final int RING = 64 * 1024;

    @TempDir
    Path directory;

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aSlowSubscriberBackPressuresThePublisherAndNoMessageIsLostOrOverwritten(final String provider)
    {
        final SystemTestSettings settings = SystemTestSettings.tolerant(directory);
        try (ChildProcess subscriber = ChildProcess.start("slow-subscriber", directory, settings, SubscriberProcess.class,
                "provider=" + provider, "seed=" + SEED, "count=" + MESSAGES, "pollSleepMicros=500", "fragmentLimit=4",
                "timeoutMs=150000"))
        {
            final int port = (int)longValue(subscriber.awaitLine("READY", Duration.ofSeconds(30)), "port");
            try (ChildProcess publisher = ChildProcess.start("publisher", directory, settings, PublisherProcess.class,
                "provider=" + provider, "ports=" + port, "seed=" + SEED, "count=" + MESSAGES, "ring=" + RING,
                "timeoutMs=150000"))
            {
                publisher.awaitLine("CONNECTED", Duration.ofSeconds(30));
                final String result = subscriber.awaitLine("RESULT", Duration.ofSeconds(160));
                assertTrue(result.startsWith("RESULT ok"), result + publisher.diagnostics() + subscriber.diagnostics());
                assertEquals(MESSAGES, longValue(result, "received"), result);
                final String done = publisher.awaitLine("DONE", Duration.ofSeconds(10));
                final long backPressured = longValue(done, "backPressured");
                assertEquals(0, longValue(done, "notConnected"), "the publisher lost its subscriber: " + done);
                assertTrue(backPressured > 0, "a subscriber this slow must back-pressure the publisher: " + done);
                final long counted;
                try (CountersProbe counters = CountersProbe.of(settings.countersDirectory(), publisher.pid()))
                {
                    counted = counters.sum("pub stream=", "back pressured");
                }
                assertTrue(counted >= backPressured, "the publication's back-pressured counter (" + counted +
                    ") counts at least the BACK_PRESSURED results the publisher saw (" + backPressured + ")");
                System.out.printf("[%s] slow subscriber: %s; publisher: %s; back-pressured counter %d%n", provider,
                    result, done, counted);
                assertEquals(0, publisher.exit(Duration.ofSeconds(10)), "publisher exit code" + publisher.diagnostics());
            }
            assertEquals(0, subscriber.exit(Duration.ofSeconds(10)), "subscriber exit code" + subscriber.diagnostics());
        }
    }
}
