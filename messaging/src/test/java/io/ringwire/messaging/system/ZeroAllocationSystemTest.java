package io.ringwire.messaging.system;

import io.ringwire.messaging.FragmentAssembler;
import io.ringwire.messaging.MessagingContext;
import io.ringwire.messaging.Subscription;
import io.ringwire.messaging.TestProviders;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static io.ringwire.messaging.system.ChildProcess.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hot path allocates nothing, across two processes: a publisher process's offering thread
 * ({@link AllocatingPublisherProcess}) offering messages of mixed sizes (retrying back-pressure),
 * and this process's polling thread receiving, reassembling and verifying them, each allocate
 * exactly zero bytes over {@link #MEASURED} messages once its own JVM is in steady state (the second
 * of two such windows in a row), measured
 * by the JVM's per-thread allocation counter (see {@link AllocationWindow} for what steady state
 * is, and the one-off JIT allocation a window with compilation in it may excuse). Each provider
 * runs with its default frame checksums, and the first also with a CRC32C in every frame
 * ({@code checksum=on}): signing and verifying allocate nothing either.
 */
@Tag("system")
class ZeroAllocationSystemTest
{
    private static final long SEED = 0x5EED_0007L;
    private static final int WARM_UP = 500_000;
    private static final int MEASURED = 1_000_000;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(260);

    @TempDir
    Path directory;

    private final AtomicInteger port = new AtomicInteger();
    private final AtomicReference<String> pollerFailure = new AtomicReference<>();
    private final AllocationWindow pollerWindow = new AllocationWindow();
    private volatile long receivedSoFar;
    /** Set once the polling thread has measured its windows. */
    private final java.util.concurrent.CountDownLatch pollerWindowsDone = new java.util.concurrent.CountDownLatch(1);
    /** Set once the publisher process offers no more: until then the poller keeps polling. */
    private volatile boolean publisherStopped;

    static Stream<Arguments> providersAndChecksums()
    {
        final List<String> providers = TestProviders.names();
        return Stream.concat(providers.stream().map(provider -> Arguments.of(provider, "auto")),
            Stream.of(Arguments.of(providers.getFirst(), "on")));
    }

    @ParameterizedTest(name = "{0} checksum={1}")
    @MethodSource("providersAndChecksums")
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void publishingAndPollingThreadsInTwoProcessesAllocateNothingInSteadyState(final String provider, final String checksum)
        throws InterruptedException
    {
        final SystemTestSettings settings = SystemTestSettings.tolerant(directory);
        // The subscription decides whether frames carry a checksum and tells the publisher at connect.
        final MessagingContext context = settings.unconcludedContext().checksum(checksum).conclude();
        final Thread poller = new Thread(() -> poll(context, provider, checksum), "zero-alloc-poller");
        poller.start();
        final long portDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (0 == port.get() && null == pollerFailure.get() && System.nanoTime() < portDeadline)
        {
            Thread.sleep(1);
        }
        assertNull(pollerFailure.get(), "poller");
        assertTrue(port.get() > 0, "the subscription never opened");
        final String window;
        try (ChildProcess publisher = ChildProcess.start("publisher", directory, settings,
            AllocatingPublisherProcess.class, "provider=" + provider, "port=" + port.get(), "seed=" + SEED,
            "warmUp=" + WARM_UP, "measured=" + MEASURED, "timeoutMs=" + TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS)))
        {
            publisher.awaitLine("CONNECTED", Duration.ofSeconds(30));
            final long warmUpNs = pollerWindow.awaitSteadyState(poller, () -> receivedSoFar, WARM_UP, TIMEOUT_NS / 2,
                () -> null != pollerFailure.get());
            assertNull(pollerFailure.get(), "poller");
            window = publisher.awaitLine("WINDOW", Duration.ofNanos(TIMEOUT_NS));
            assertTrue(pollerWindowsDone.await(TIMEOUT_NS, TimeUnit.NANOSECONDS), "polling thread's windows");
            // The publisher stops offering before the subscription closes: an offer racing with the
            // close would see NOT_CONNECTED.
            publisher.send("exit");
            publisher.awaitLine("DONE", Duration.ofSeconds(30));
            publisherStopped = true;
            poller.join(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS));
            assertFalse(poller.isAlive(), "polling thread still running after the time limit");
            assertNull(pollerFailure.get(), "poller");
            assertTrue(warmUpNs >= 0, "this process: no steady state within " +
                TimeUnit.NANOSECONDS.toSeconds(TIMEOUT_NS / 2) + " s (the JIT or the polling thread's allocation " +
                "never stayed quiet for " +
                TimeUnit.NANOSECONDS.toMillis(AllocationWindow.JIT_QUIET_NS) + " ms after " + WARM_UP + " messages)");
            System.out.printf("[%s checksum=%s] polling thread (this process): warm-up %d ms, then over %d messages %s; " +
                "publishing thread (child process): %s%n", provider, checksum, TimeUnit.NANOSECONDS.toMillis(warmUpNs), MEASURED,
                pollerWindow, window);
        }
        assertEquals("true", value(window, "steady"), "publisher process: no steady state: " + window);
        assertEquals("true", value(window, "free"), "bytes allocated by the publishing thread in steady state: " +
            window.substring(window.indexOf("detail=")));
        assertTrue(pollerWindow.allocationFree(), "bytes allocated by the polling thread in steady state: " +
            pollerWindow);
    }

    /** The polling thread: receives and verifies, measures its window, then polls until the publisher measured its own. */
    private void poll(final MessagingContext context, final String provider, final String checksum)
    {
        final MessageVerifier verifier = new MessageVerifier(SEED, MessageLengths.named("mixed", SEED), 1, false);
        final FragmentAssembler assembler = new FragmentAssembler(verifier);
        try (Subscription subscription = Subscription.open(context, SystemTestSettings.channel(provider, 0), 1))
        {
            subscription.unavailableImageHandler(assembler::freeSessionBuffer);
            if ("on".equals(checksum) && !subscription.frameChecksums())
            {
                throw new IllegalStateException("checksum=on, yet the subscription does not ask for checksums");
            }
            port.set(subscription.endpoint().getPort());
            final long deadline = System.nanoTime() + TIMEOUT_NS;
            while (!pollerWindow.steady() && check(verifier, deadline))
            {
                subscription.poll(assembler, 256);
                receivedSoFar = verifier.received();
            }
            for (int window = 0; window < 2; window++) // the second is reported (see AllocationWindow)
            {
                final long measuredFrom = verifier.received();
                pollerWindow.start();
                while (verifier.received() - measuredFrom < MEASURED && check(verifier, deadline))
                {
                    subscription.poll(assembler, 256);
                    pollerWindow.sample(verifier.received());
                }
                pollerWindow.finish();
            }
            pollerWindowsDone.countDown();
            while (!publisherStopped && check(verifier, deadline))
            {
                // Until the publisher process has measured its window and stopped offering: closing
                // the subscription earlier would leave its offers back-pressured or not connected.
                subscription.poll(assembler, 256);
            }
        }
        catch (final RuntimeException | AssertionError ex)
        {
            pollerFailure.set(ex.toString());
        }
        finally
        {
            pollerWindowsDone.countDown(); // also when it failed: the test thread then reports why
        }
    }

    private boolean check(final MessageVerifier verifier, final long deadline)
    {
        if (null != verifier.failure())
        {
            pollerFailure.set(verifier.failure());
            return false;
        }
        if (System.nanoTime() - deadline > 0)
        {
            pollerFailure.set("only " + verifier.received() + " messages within the time limit");
            return false;
        }
        return true;
    }
}
