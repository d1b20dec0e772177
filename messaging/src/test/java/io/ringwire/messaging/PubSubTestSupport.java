package io.ringwire.messaging;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Shared helpers of the messaging tests (of every test package).
 */
public final class PubSubTestSupport
{
    /** The secret every test context authenticates with. */
    public static final String SECRET = "test-secret";

    private PubSubTestSupport()
    {
    }

    public static MessagingContext context(final Path directory)
    {
        return context(directory, settings -> { });
    }

    public static MessagingContext context(final Path directory, final java.util.function.Consumer<MessagingContext> settings)
    {
        final MessagingContext context = new MessagingContext().secret(SECRET)
            .countersDirectory(directory.resolve("counters").toString()).heartbeatIntervalMs(50).livenessTimeoutMs(1000)
            .reconnectIntervalMs(50).rdmaSettings(devices(directory, 1000));
        settings.accept(context);
        return context.conclude();
    }

    /**
     * The test contexts' device settings (shm files under the test's directory) with this peer
     * timeout: for {@link MessagingContext#rdmaSettings}, which replaces the settings before it.
     */
    public static java.util.function.Consumer<io.ringwire.rdma.RdmaConfig> devices(final Path directory,
        final long peerTimeoutMs)
    {
        return config -> config.shmDirectory(directory.resolve("shm").toString()).peerTimeoutMs(peerTimeoutMs);
    }

    public static String channel(final String provider, final int port)
    {
        return "ringwire:" + provider + "?endpoint=127.0.0.1:" + port;
    }

    public static void await(final BooleanSupplier condition, final Duration timeout, final String what, final Runnable duty)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out after " + timeout.toMillis() + " ms waiting for " + what);
            }
            duty.run();
        }
    }

}
