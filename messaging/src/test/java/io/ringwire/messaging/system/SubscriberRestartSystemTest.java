package io.ringwire.messaging.system;

import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Publication;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.ringwire.messaging.system.ChildProcess.longValue;
import static io.ringwire.messaging.system.ChildProcess.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Liveness and reconnection across processes: the publication (in this JVM) streams to a
 * subscriber process that is SIGKILLed; offers report NOT_CONNECTED within the liveness timeout
 * (plus the provider's detection time), and a new subscriber process on the same port is
 * reconnected to, with a new session, and receives what is offered from then on.
 */
@Tag("system")
class SubscriberRestartSystemTest
{
    private static final long SEED = 0x5EED_0005L;
    /**
     * The allowance on top of the liveness timeout for the duty cycle to run (every 10 ms at most)
     * and the JVM to be scheduled, which on a loaded two-core host can take hundreds of
     * milliseconds; scaled for slow guests. shm and roce learn of the kill only from the liveness
     * timeout; socket and ibverbs usually sooner, from error completions.
     */
    private static final long DETECTION_ALLOWANCE_MS = SystemTestSettings.patient(Duration.ofMillis(1000)).toMillis();

    @TempDir
    Path directory;

    private final SequencedOffers offers = new SequencedOffers(MessageLengths.named("mixed", SEED), SEED, 0, 8192);

    @ParameterizedTest
    @MethodSource("io.ringwire.messaging.TestProviders#providers")
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aKilledSubscriberIsReportedNotConnectedWithinTheLivenessTimeoutAndARestartedOneIsReconnected(
        final String provider)
    {
        // 3 s, not the defaults' 1 s: a freshly started child JVM on a loaded machine may stall for a
        // second, and a reconnection then would change the session the test follows.
        final long timeoutMs = SystemTestSettings.patient(Duration.ofMillis(3_000)).toMillis();
        final SystemTestSettings settings = new SystemTestSettings(directory, 50, timeoutMs, 50, timeoutMs);
        final MessagingContext context = settings.context();
        final String[] subscriberArguments = {
            "provider=" + provider, "seed=" + SEED, "startAnywhere=true", "progressEvery=1000", "timeoutMs=150000" };
        final int port;
        final int firstSession;
        final long notConnectedAfterMs;
        try (ChildProcess first = ChildProcess.start("subscriber-1", directory, settings, SubscriberProcess.class,
            with(subscriberArguments, "port=0", "count=1000000000")))
        {
            port = (int)longValue(first.awaitLine("READY", Duration.ofSeconds(30)), "port");
            try (Publication publication = Publication.open(context, SystemTestSettings.channel(provider, port), 1))
            {
                assertTrue(publication.awaitConnected(Duration.ofSeconds(30)),
                    "not connected: " + publication.lastConnectionError() + first.diagnostics());
                firstSession = publication.sessionId();
                offerUntil(publication, () -> null != first.pollLine("PROGRESS"), Duration.ofSeconds(30),
                    "the first subscriber to receive 1000 messages", first);
                assertEquals(Integer.toString(firstSession),
                    value(first.awaitLine("IMAGE", Duration.ofSeconds(1)), "session"));

                final long killedNs = first.kill();
                final long notConnectedNs = offerUntilNotConnected(publication, Duration.ofSeconds(30));
                notConnectedAfterMs = TimeUnit.NANOSECONDS.toMillis(notConnectedNs - killedNs);
                assertFalse(publication.isConnected());
                System.out.printf("[%s] NOT_CONNECTED %d ms after the subscriber was killed (liveness timeout %d ms)%n",
                    provider, notConnectedAfterMs, settings.livenessTimeoutMs());
                assertTrue(notConnectedAfterMs <= settings.livenessTimeoutMs() + DETECTION_ALLOWANCE_MS,
                    "offer reported NOT_CONNECTED " + notConnectedAfterMs + " ms after the subscriber died; allowed: " +
                    "the liveness timeout " + settings.livenessTimeoutMs() + " ms + " + DETECTION_ALLOWANCE_MS + " ms");

                try (ChildProcess second = ChildProcess.start("subscriber-2", directory, settings, SubscriberProcess.class,
                    with(subscriberArguments, "port=" + port, "count=2000")))
                {
                    assertEquals(port, longValue(second.awaitLine("READY", Duration.ofSeconds(30)), "port"));
                    final long restartedNs = System.nanoTime();
                    final int sequenceBeforeReconnect = offers.sequence();
                    final String[] result = { null };
                    offerUntil(publication, () -> null != (result[0] = second.pollLine("RESULT")), Duration.ofSeconds(60),
                        "the restarted subscriber to receive 2000 messages", second);
                    final int secondSession = publication.sessionId();
                    assertNotEquals(firstSession, secondSession, "a reconnection after everyone left is a new session");
                    assertEquals(Integer.toString(secondSession),
                        value(second.awaitLine("IMAGE", Duration.ofSeconds(1)), "session"));
                    assertTrue(result[0].startsWith("RESULT ok"), result[0] + second.diagnostics());
                    assertTrue(longValue(result[0], "first") >= sequenceBeforeReconnect,
                        "the new subscriber starts with what is offered after it joined: " + result[0]);
                    System.out.printf("[%s] restarted subscriber received 2000 messages within %d ms of starting: %s%n",
                        provider, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedNs), result[0]);
                    assertEquals(0, second.exit(Duration.ofSeconds(10)), "exit code" + second.diagnostics());
                }
            }
        }
    }

    private static String[] with(final String[] common, final String... more)
    {
        final String[] all = new String[common.length + more.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(more, 0, all, common.length, more.length);
        return all;
    }

    /** Offers the next message once; true when it went out. */
    private long offerNext(final Publication publication)
    {
        final long result = offers.offerNext(publication);
        if (result <= 0 && result != Publication.BACK_PRESSURED && result != Publication.ADMIN_ACTION &&
            result != Publication.NOT_CONNECTED)
        {
            fail("offer returned " + result);
        }
        return result;
    }

    private void offerUntil(final Publication publication, final java.util.function.BooleanSupplier condition,
        final Duration timeout, final String what, final ChildProcess child)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("timed out after " + timeout.toMillis() + " ms waiting for " + what + "; " + publication +
                    ", last connection error: " + publication.lastConnectionError() + child.diagnostics());
            }
            if (offerNext(publication) < 0)
            {
                Thread.yield();
            }
        }
    }

    /** @return nanoTime of the first NOT_CONNECTED. */
    private long offerUntilNotConnected(final Publication publication, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (offerNext(publication) != Publication.NOT_CONNECTED)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("offers still did not report NOT_CONNECTED " + timeout.toMillis() + " ms after the subscriber " +
                    "was killed; " + publication);
            }
            Thread.yield();
        }
        return System.nanoTime();
    }
}
